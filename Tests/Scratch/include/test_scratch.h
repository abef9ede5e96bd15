#ifndef TEST_SCRATCH_H
#define TEST_SCRATCH_H

/// The test process's scratch directory (TMPDIR while it runs); empty when none could be made.
const char *storefront_test_scratch(void);

/// The temporary directory the scratch directory is in (TMPDIR before it), for what must outlive the
/// process's own clean-up, as a server a watcher stops after the process.
const char *storefront_test_scratch_base(void);

#endif
