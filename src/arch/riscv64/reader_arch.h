/* SPDX-License-Identifier: MIT */
/* riscv64 for the injected reader (arch/reader_arch.h).  The reader is built with
 * -ffixed-s11 (Makefile): s11 (x27) is Go's g register, read by Go's signal handler
 * wherever the signal lands, including inside the reader (see READER_CFLAGS_riscv64). */
#ifndef CLOCKSCOPE_ARCH_RISCV64_READER_ARCH_H
#define CLOCKSCOPE_ARCH_RISCV64_READER_ARCH_H

/* asm-generic numbers; there is no time syscall (nor a vDSO time entry) */
#define READER_NR_CLOCK_GETTIME 113
/* for a process's first read: which time namespace it is in (reader.c) */
#define READER_NR_OPENAT 56
#define READER_NR_CLOSE 57
#define READER_NR_READ 63
#define READER_NR_NEWFSTATAT 79
#define READER_NR_GETTIMEOFDAY 169

static inline long reader_syscall2(long nr, long a, long b)
{
    register long a7 __asm__("a7") = nr;
    register long a0 __asm__("a0") = a;
    register long a1 __asm__("a1") = b;
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a7), "r"(a1) : "memory");
    return a0;
}

static inline long reader_syscall4(long nr, long a, long b, long c, long d)
{
    register long a7 __asm__("a7") = nr;
    register long a0 __asm__("a0") = a;
    register long a1 __asm__("a1") = b;
    register long a2 __asm__("a2") = c;
    register long a3 __asm__("a3") = d;
    __asm__ volatile("ecall" : "+r"(a0) : "r"(a7), "r"(a1), "r"(a2), "r"(a3) : "memory");
    return a0;
}

/* auipc + addi to a label in the same section, with relaxation off so that the assembler
 * resolves the pair itself: no relocation. */
static inline char *reader_code_start(void)
{
    char *p;
    __asm__(".option push\n\t.option norelax\n\t"
            "1: auipc %0, %%pcrel_hi(run_reader_code_start)\n\t"
            "addi %0, %0, %%pcrel_lo(1b)\n\t"
            ".option pop" : "=r"(p));
    return p;
}

/* Zihintpause's pause: a fence encoding older cores run as a no-op fence. */
static inline void reader_spin_pause(void) { __asm__ volatile(".4byte 0x0100000f"); }

#endif
