/* SPDX-License-Identifier: MIT */
/* aarch64 for the injected reader (arch/reader_arch.h).  The reader is built with
 * -ffixed-x28 (Makefile): x28 is Go's g register, read by Go's signal handler wherever the
 * signal lands, including inside the reader (see READER_CFLAGS_aarch64). */
#ifndef CLOCKSCOPE_ARCH_AARCH64_READER_ARCH_H
#define CLOCKSCOPE_ARCH_AARCH64_READER_ARCH_H

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
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1) : "memory");
    return x0;
}

static inline long reader_syscall4(long nr, long a, long b, long c, long d)
{
    register long x8 __asm__("x8") = nr;
    register long x0 __asm__("x0") = a;
    register long x1 __asm__("x1") = b;
    register long x2 __asm__("x2") = c;
    register long x3 __asm__("x3") = d;
    __asm__ volatile("svc #0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2), "r"(x3) : "memory");
    return x0;
}

/* adr: PC-relative within 1 MiB, to a label in the same section: no relocation. */
static inline char *reader_code_start(void)
{
    char *p;
    __asm__("adr %0, run_reader_code_start" : "=r"(p));
    return p;
}

static inline void reader_spin_pause(void) { __asm__ volatile("yield"); }

#endif
