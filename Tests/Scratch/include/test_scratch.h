#ifndef TEST_SCRATCH_H
#define TEST_SCRATCH_H

/// The test process's scratch directory (TMPDIR while it runs); empty when none could be made.
const char *storefront_test_scratch(void);

#endif
