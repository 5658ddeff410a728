/* A minimal C test harness: TEST(name) { CHECK(...); }.  Tests register themselves;
 * tests/unit/main.c runs them (or those named on the command line) and prints
 * "N passed, N failed". */
#ifndef CLOCKSCOPE_CHECK_H
#define CLOCKSCOPE_CHECK_H

#include <stdbool.h>
#include <stdio.h>

void check_register(const char *name, void (*fn)(void));
void check_fail(const char *file, int line, const char *what);
extern bool check_current_failed;

#define TEST(name)                                                                     \
    static void name(void);                                                            \
    __attribute__((constructor)) static void register_##name(void)                     \
    {                                                                                  \
        check_register(#name, name);                                                   \
    }                                                                                  \
    static void name(void)

/* Records a failure and returns from the test. */
#define CHECK(cond)                                                                    \
    do {                                                                               \
        if (!(cond)) {                                                                 \
            check_fail(__FILE__, __LINE__, #cond);                                     \
            return;                                                                    \
        }                                                                              \
    } while (0)

#endif
