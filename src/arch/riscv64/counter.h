/* SPDX-License-Identifier: MIT */
/* riscv64: the time CSR for libfastclock's readers (arch/counter.h).
 * Ordering: the ISA (Zicsr, "CSR Access Ordering") does not order CSR accesses with memory
 * accesses, and "for the purposes of the FENCE instruction, CSR read accesses are
 * classified as device input (I)".  So `fence r, i` before the read orders it after every
 * earlier load, which is what the seqlock argument in src/fastclock/fc_read.h needs of
 * arch_counter_ordered (the kernel's vDSO reads it without a fence: its seqlock does not
 * promise monotonicity across threads on its own).  Looked for after fastclock's
 * cross-thread stress test saw values 30-370 ns below ones another thread had returned
 * under qemu-riscv64; there they remain with the fence too, since qemu-user's time CSR is
 * the host's plain rdtsc, which no guest fence orders (docs/fastclock.md, Caveats). */
#ifndef CLOCKSCOPE_ARCH_RISCV64_COUNTER_H
#define CLOCKSCOPE_ARCH_RISCV64_COUNTER_H

/* A 64-bit constant comes from .rodata.cst8, data beside the code, which a reader copied
 * alone to another address would not carry: fastclock/fc_read.h compares the line's
 * format field by field here. */
#define ARCH_WORD_CONSTANTS_IN_CODE 0

#include <stdint.h>

static inline __attribute__((always_inline)) uint64_t arch_counter_ordered(void)
{
    uint64_t v;
    /* Earlier loads (R) before the CSR read (I); time by number, for assemblers without
     * Zicntr. */
    __asm__ volatile("fence r, i\n\tcsrr %0, 0xc01" : "=r"(v) : : "memory");
    return v;
}

static inline __attribute__((always_inline)) uint64_t arch_counter_raw(void)
{
    uint64_t v;
    __asm__ volatile("csrr %0, 0xc01" : "=r"(v));
    return v;
}

#endif
