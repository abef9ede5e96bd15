#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro cast that does not import: SQLite copies the bound bytes.
static inline sqlite3_destructor_type shim_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic, which does not import. Without memory statistics (which nothing here
// reads) SQLite's allocations take no global mutex. Must run before the library initializes.
static inline int shim_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
