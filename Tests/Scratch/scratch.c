// Every test process works in a scratch directory of its own, made before any test runs and removed when
// the process exits: tests (and the programs they start, which inherit TMPDIR) put their files under it, so
// a run leaves nothing in /tmp. A process that died before its clean-up leaves its directory; the next test
// process of the same user removes those of processes that no longer exist.
#define _XOPEN_SOURCE 700
#include "test_scratch.h"
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PREFIX "storefront-tests-"

static char base[PATH_MAX];
static char scratch[PATH_MAX];
static pid_t owner;

const char *storefront_test_scratch(void) { return scratch; }
const char *storefront_test_scratch_base(void) { return base; }

static int remove_entry(const char *path, const struct stat *info, int type, struct FTW *walk) {
    (void)info; (void)type; (void)walk;
    remove(path);
    return 0;
}

// FTW_PHYS: a symbolic link inside is removed, never followed.
static void remove_tree(const char *path) { nftw(path, remove_entry, 32, FTW_DEPTH | FTW_PHYS); }

// Only the process that made it: a child forked without exec that exits must not take it.
static void remove_scratch(void) {
    if (getpid() == owner) remove_tree(scratch);
}

// A directory (not a link to one) of this user's.
static int is_own_directory(const char *path) {
    struct stat info;
    return lstat(path, &info) == 0 && S_ISDIR(info.st_mode) && info.st_uid == geteuid();
}

static void remove_stale(void) {
    DIR *dir = opendir(base);
    if (!dir) return;
    struct dirent *entry;
    while ((entry = readdir(dir))) {
        if (strncmp(entry->d_name, PREFIX, strlen(PREFIX)) != 0) continue;
        char *end;
        long pid = strtol(entry->d_name + strlen(PREFIX), &end, 10);
        if (*end != '\0' || pid <= 0 || kill((pid_t)pid, 0) == 0 || errno != ESRCH) continue;
        char path[PATH_MAX];
        if (snprintf(path, sizeof path, "%s/%s", base, entry->d_name) >= (int)sizeof path) continue;
        if (is_own_directory(path)) remove_tree(path);
    }
    closedir(dir);
}

__attribute__((constructor)) static void make_scratch(void) {
    const char *tmpdir = getenv("TMPDIR");
    if (!tmpdir || !*tmpdir) tmpdir = "/tmp";
    if (!realpath(tmpdir, base)) return;
    // A program a test starts that links this too (the crash worker) works in its test's directory.
    if (strstr(base, "/" PREFIX)) {
        snprintf(scratch, sizeof scratch, "%s", base);
        return;
    }
    remove_stale();
    owner = getpid();
    char path[PATH_MAX];
    if (snprintf(path, sizeof path, "%s/" PREFIX "%d", base, (int)owner) >= (int)sizeof path) return;
    // Others may need to pass through it (the test PostgreSQL server runs as its own user). One left by
    // an earlier process of this ID is taken over only if it is this user's own directory.
    if (mkdir(path, 0755) != 0 && !(errno == EEXIST && is_own_directory(path))) return;
    chmod(path, 0755);
    snprintf(scratch, sizeof scratch, "%s", path);
    setenv("TMPDIR", scratch, 1);
    atexit(remove_scratch);
}
