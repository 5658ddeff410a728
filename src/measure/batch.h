/* SPDX-License-Identifier: MIT */
/* Helpers for writing batch functions: n calls, unrolled by 8, results kept alive. */
#ifndef CLOCKSCOPE_BATCH_H
#define CLOCKSCOPE_BATCH_H

#include "common/clock_ns.h"

#include "arch/counter_funcs.h" /* REPEAT8, KEEP */

#include <stdint.h>
#include <time.h>

/* Makes the compiler assume memory was read: the stores a call made must happen. */
#define CLOBBER_MEMORY() __asm__ volatile("" : : : "memory")

/* Defines `static void fname(uint64_t n, const void *ctx)` running `call` n times.
 * `setup` runs once before the loop (load the clock id, the function pointer). */
#define CALL_BATCH(fname, setup, call)                                           \
    static void fname(uint64_t n, const void *ctx)                               \
    {                                                                            \
        (void)ctx;                                                               \
        setup;                                                                   \
        for (uint64_t i_ = 0; i_ < n; i_ += 8) {                                 \
            REPEAT8({ call; CLOBBER_MEMORY(); })                                 \
        }                                                                        \
    }

#endif
