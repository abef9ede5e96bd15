#ifndef STOREFRONT_WAL_BATCH_H
#define STOREFRONT_WAL_BATCH_H

#include <sqlite3.h>

/// Registers "storefront-wal-batch", SQLite's unix VFS with each commit's write-ahead-log frames
/// written in one write (see wal_batch.c). Returns SQLite's result code; calling it again does nothing.
int storefront_wal_batch_register(void);

/// The name to pass to sqlite3_open_v2.
extern const char *const storefront_wal_batch_name;

/// The writes made to `db`'s write-ahead log through this VFS so far, and the frames SQLite appended to it
/// (tests); 0 when `db` has no log open through it.
int storefront_wal_batch_counts(sqlite3 *db, long long *writes, long long *frames);

/// Makes the next write of what `db`'s log holds fail as a full disk would (tests); 0 when `db` has no
/// log open through this VFS.
int storefront_wal_batch_fail_next_flush(sqlite3 *db);

#endif
