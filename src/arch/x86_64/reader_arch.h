/* SPDX-License-Identifier: MIT */
/* x86_64 for the injected reader (arch/reader_arch.h). */
#ifndef CLOCKSCOPE_ARCH_X86_64_READER_ARCH_H
#define CLOCKSCOPE_ARCH_X86_64_READER_ARCH_H

/* for a process's first read: which time namespace it is in (reader.c) */
#define READER_NR_READ 0
#define READER_NR_CLOSE 3
#define READER_NR_OPENAT 257
#define READER_NR_NEWFSTATAT 262
#define READER_NR_GETTIMEOFDAY 96
#define READER_NR_TIME 201 /* the vDSO has __vdso_time: the reader serves it */
#define READER_NR_CLOCK_GETTIME 228

static inline long reader_syscall2(long nr, long a, long b)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
    return ret;
}

static inline long reader_syscall4(long nr, long a, long b, long c, long d)
{
    long ret;
    register long r10 __asm__("r10") = d;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
                     : "rcx", "r11", "memory");
    return ret;
}

/* The label run_reader_code_start (reader.c), RIP-relative: resolved by the assembler. */
static inline char *reader_code_start(void)
{
    char *p;
    __asm__("lea run_reader_code_start(%%rip), %0" : "=r"(p));
    return p;
}

static inline void reader_spin_pause(void) { __asm__ volatile("pause"); }

#endif
