/* SPDX-License-Identifier: MIT */
/* x86_64: the TSC for libfastclock's readers (see arch/counter.h).  rdtscp where the CPU
 * has it (as the kernel's rdtsc_ordered() prefers): it waits for every earlier instruction
 * and load, like lfence;rdtsc, and was the cheaper of the two here.  arch/x86_64.c decides
 * once (CPUID) and keeps the answer in arch_x86_fast_rdtscp.
 * Freestanding (-ffreestanding: a reader injected into another program, which has neither
 * that variable nor arch/x86_64.c): lfence;rdtsc, which every x86_64 CPU has (SSE2) and
 * which orders the read after earlier loads wherever Linux runs (Intel by specification;
 * AMD once the kernel made lfence dispatch-serializing, as it has since 2018). */
#ifndef CLOCKSCOPE_ARCH_X86_64_COUNTER_H
#define CLOCKSCOPE_ARCH_X86_64_COUNTER_H

/* 64-bit constants are instruction immediates (movabs): code that compares a word with one
 * carries no data beside it, so a reader copied alone to another address still works
 * (fastclock/fc_read.h: fc_line_on_counter reads the line's format words whole). */
#define ARCH_WORD_CONSTANTS_IN_CODE 1

#include <stdint.h>

#if __STDC_HOSTED__
/* 1: rdtscp, 0: lfence;rdtsc, -1: not decided yet (arch_fast_counter_ordered decides). */
extern __attribute__((visibility("hidden"))) int arch_x86_fast_rdtscp;
uint64_t arch_fast_counter_ordered(void);
#endif

static inline __attribute__((always_inline)) uint64_t arch_counter_ordered(void)
{
#if !__STDC_HOSTED__
    uint32_t flo, fhi;
    __asm__ volatile("lfence\n\trdtsc" : "=a"(flo), "=d"(fhi) : : "memory");
    return ((uint64_t)fhi << 32) | flo;
#else
    if (__builtin_expect(__atomic_load_n(&arch_x86_fast_rdtscp, __ATOMIC_RELAXED) > 0, 1)) {
        uint32_t lo, hi, aux;
        /* Waits for earlier loads; later ones may start early (the seqlock's s2 load is
         * ordered by the acquire fence after it, not by this). */
        __asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux) : : "memory");
        return ((uint64_t)hi << 32) | lo;
    }
    return arch_fast_counter_ordered(); /* first call, or no RDTSCP: out of line */
#endif
}

static inline __attribute__((always_inline)) uint64_t arch_counter_raw(void)
{
    uint32_t lo, hi;
    __asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
}

#endif
