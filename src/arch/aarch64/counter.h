/* SPDX-License-Identifier: MIT */
/* aarch64: the generic timer's virtual count for libfastclock's readers (arch/counter.h).
 * isb keeps the mrs from executing before earlier instructions (and their loads). */
#ifndef CLOCKSCOPE_ARCH_AARCH64_COUNTER_H
#define CLOCKSCOPE_ARCH_AARCH64_COUNTER_H

/* A 64-bit constant may come from a literal pool beside the code (ldr =imm), which a
 * reader copied alone to another address would not carry: fastclock/fc_read.h compares
 * the line's format field by field here. */
#define ARCH_WORD_CONSTANTS_IN_CODE 0

#include <stdint.h>

static inline __attribute__((always_inline)) uint64_t arch_counter_ordered(void)
{
    uint64_t v;
    __asm__ volatile("isb\n\tmrs %0, cntvct_el0" : "=r"(v) : : "memory");
    return v;
}

static inline __attribute__((always_inline)) uint64_t arch_counter_raw(void)
{
    uint64_t v;
    __asm__ volatile("mrs %0, cntvct_el0" : "=r"(v));
    return v;
}

#endif
