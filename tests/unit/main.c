/* SPDX-License-Identifier: MIT */
/* The unit test runner: runs every registered test (or those whose names contain one of
 * the arguments) and accounts for each one:
 *
 *     SKIP name: reason          a test that could not run here, and why
 *     FAIL name                  after the CHECK lines that failed
 *     unit: R registered, S selected, N ran, P passed, F failed, K skipped
 *
 * No test is ever dropped (the table grows as tests register), and a name argument that
 * matches no test is an error: a filter that silently selects nothing would pass.
 * Exit status: 0 when nothing failed, 1 when a test failed, 2 for a bad argument. */
#include "check.h"

#include <stdlib.h>
#include <string.h>

struct registered_test {
    const char *name;
    void (*fn)(void);
};

static struct registered_test *tests;
static size_t ntests, capacity;
static bool registration_failed;
bool check_current_failed;
static const char *current_skip; /* reason given by the running test's SKIP, or NULL */

void check_register(const char *name, void (*fn)(void))
{
    if (ntests == capacity) {
        size_t cap = capacity ? capacity * 2 : 128;
        struct registered_test *t = realloc(tests, cap * sizeof *t);
        if (!t) {
            registration_failed = true; /* reported by main: never a silent drop */
            return;
        }
        tests = t;
        capacity = cap;
    }
    tests[ntests++] = (struct registered_test){name, fn};
}

void check_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "  %s:%d: CHECK(%s) failed\n", file, line, what);
    check_current_failed = true;
}

void check_skip(const char *file, int line, const char *reason)
{
    (void)file;
    (void)line;
    current_skip = reason;
}

static bool wanted(int argc, char **argv, const char *name)
{
    if (argc < 2)
        return true;
    for (int i = 1; i < argc; i++)
        if (strstr(name, argv[i]))
            return true;
    return false;
}

static void list_tests(void)
{
    for (size_t i = 0; i < ntests; i++)
        printf("%s\n", tests[i].name);
}

int main(int argc, char **argv)
{
    if (registration_failed) {
        fprintf(stderr, "unit_tests: out of memory registering tests\n");
        return 1;
    }
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        list_tests();
        return 0;
    }
    for (int a = 1; a < argc; a++) {
        bool any = false;
        for (size_t i = 0; i < ntests && !any; i++)
            any = strstr(tests[i].name, argv[a]) != NULL;
        if (!any) {
            fprintf(stderr, "unit_tests: no test name contains '%s' (--list shows them)\n",
                    argv[a]);
            return 2;
        }
    }
    size_t selected = 0, ran = 0, passed = 0, failed = 0, skipped = 0;
    for (size_t i = 0; i < ntests; i++) {
        if (!wanted(argc, argv, tests[i].name))
            continue;
        selected++;
        check_current_failed = false;
        current_skip = NULL;
        tests[i].fn();
        ran++;
        if (check_current_failed) {
            failed++;
            printf("FAIL %s\n", tests[i].name);
        } else if (current_skip) {
            skipped++;
            printf("SKIP %s: %s\n", tests[i].name, current_skip);
        } else {
            passed++;
        }
        fflush(stdout);
    }
    printf("unit: %zu registered, %zu selected, %zu ran, %zu passed, %zu failed, %zu skipped\n",
           ntests, selected, ran, passed, failed, skipped);
    return failed ? 1 : 0;
}
