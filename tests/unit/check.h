/* SPDX-License-Identifier: MIT */
/* A minimal C test harness: TEST(name) { CHECK(...); }.  Tests register themselves;
 * tests/unit/main.c runs them (or those named on the command line) and accounts for every
 * one: "unit: R registered, S selected, N ran, P passed, F failed, K skipped".
 *
 * A test that cannot run on this machine says so with SKIP("why") instead of returning
 * early: an early return would count as a pass.  tests/test_unit.py fails any skip under
 * CLOCKSCOPE_REQUIRE_ALL=1 that docs/testing.md does not list. */
#ifndef CLOCKSCOPE_CHECK_H
#define CLOCKSCOPE_CHECK_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void check_register(const char *name, void (*fn)(void));
void check_fail(const char *file, int line, const char *what);
void check_skip(const char *file, int line, const char *reason);
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

/* Ends the test as skipped, with the reason (a string literal: it is printed after the
 * test returns). */
#define SKIP(reason)                                                                   \
    do {                                                                               \
        check_skip(__FILE__, __LINE__, reason);                                        \
        return;                                                                        \
    } while (0)

/* One random edit of the NUL-terminated text in buf (capacity cap) for in-process mutation
 * fuzzing: replace, delete or insert a character of `alphabet`, driven by the LCG state *x. */
/* Whether the tests run under an emulator (CLOCKSCOPE_TEST_EMULATED, set by
 * tests/test_unit.py and tests/test_fastclock.py under qemu-user): every duration is then
 * emulated time, which a loaded host stretches anywhere (docs/testing.md). */
static inline bool test_emulated(void)
{
    const char *e = getenv("CLOCKSCOPE_TEST_EMULATED");
    return e && *e && strcmp(e, "0") != 0;
}

static inline void check_mutate(char *buf, size_t cap, const char *alphabet, uint64_t *x)
{
    *x = *x * 6364136223846793005ull + 1442695040888963407ull;
    size_t len = strlen(buf), n = strlen(alphabet);
    size_t pos = len ? (*x >> 33) % len : 0;
    char c = alphabet[(*x >> 20) % n];
    switch ((*x >> 40) % 3) {
    case 0: if (len) buf[pos] = c; break;
    case 1: if (len) memmove(buf + pos, buf + pos + 1, len - pos); break;
    default:
        if (len + 1 < cap) {
            memmove(buf + pos + 1, buf + pos, len - pos + 1);
            buf[pos] = c;
        }
    }
}

#endif
