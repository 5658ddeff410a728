/* SPDX-License-Identifier: MIT */
/* Generates, from one read expression, the single-read and the unrolled batch functions
 * that every arch's counter methods need.  Used only by src/arch/<arch>.c. */
#ifndef CLOCKSCOPE_COUNTER_FUNCS_H
#define CLOCKSCOPE_COUNTER_FUNCS_H

#include <stdint.h>

#define REPEAT8(x) x x x x x x x x
/* Keeps a value alive without costing an instruction. */
#define KEEP(v) __asm__ volatile("" : : "r"(v))

#define COUNTER_FUNCS(name, expr)                                               \
    static uint64_t read_##name(void) { return expr; }                          \
    static void batch_##name(uint64_t n)                                        \
    {                                                                           \
        for (uint64_t i = 0; i < n; i += 8) {                                   \
            REPEAT8({ uint64_t v = expr; KEEP(v); })                            \
        }                                                                       \
    }

#endif
