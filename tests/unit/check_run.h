/* check_run.h: what every unit test's main() does with its suite. */
#ifndef MCPIDL_TESTS_CHECK_RUN_H
#define MCPIDL_TESTS_CHECK_RUN_H

#include <check.h>
#include <stdbool.h>

/* Run `s` and free it; the number of failed tests. `fork` false runs the
 * tests in this process (for tests whose threads or fixtures must outlive
 * one test, and to keep sanitizer reports in one place). */
static inline int check_run(Suite *s, bool fork)
{
    SRunner *sr = srunner_create(s);
    if (!fork)
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}

#endif
