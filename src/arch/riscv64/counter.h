/* riscv64: the time CSR for libfastclock's readers (arch/counter.h).  Like the kernel's
 * vDSO, no fence: the ordering proofs in src/fastclock are for x86 and arm64. */
#ifndef CLOCKSCOPE_ARCH_RISCV64_COUNTER_H
#define CLOCKSCOPE_ARCH_RISCV64_COUNTER_H

#include <stdint.h>

static inline __attribute__((always_inline)) uint64_t arch_counter_ordered(void)
{
    uint64_t v;
    __asm__ volatile("csrr %0, 0xc01" : "=r"(v) : : "memory"); /* time; by number, for assemblers without Zicntr */
    return v;
}

static inline __attribute__((always_inline)) uint64_t arch_counter_raw(void)
{
    uint64_t v;
    __asm__ volatile("csrr %0, 0xc01" : "=r"(v));
    return v;
}

#endif
