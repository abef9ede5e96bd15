#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro cast that does not import: SQLite copies the bound bytes.
static inline sqlite3_destructor_type shim_sqlite_transient(void) { return SQLITE_TRANSIENT; }
