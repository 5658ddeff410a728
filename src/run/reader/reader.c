/* SPDX-License-Identifier: MIT */
/* The reader `clockscope run` injects into a static or Go program (docs/run.md): the code
 * the vDSO's clock entry points jump to.  Built freestanding and position-independent
 * (-ffreestanding -fPIC -nostdlib -fno-stack-protector, no jump tables, one .text), so
 * that its .text, copied to any address, runs as is: no relocations (the build and
 * tests/test_run_static.py check), no libc, no TLS, no global data outside .text.  Its data
 * is the page mapped right after its code (run/run_reader_abi.h).
 *
 * Every call either answers from fastclock's line (a served clock, a fresh line) or makes
 * the real syscall: slow, never wrong.  The original vDSO function is never called: a copy
 * of it elsewhere would read the kernel's vvar page at a wrong RIP-relative address. */
#include "run/run_reader_abi.h"

#include <stdint.h>

/* The first bytes of .text: the code page's start, from which the data page is found
 * (the build checks that this label lies at offset 0). */
__asm__(".text\n"
        "run_reader_code_start:\n");

struct k_timespec { int64_t tv_sec, tv_nsec; };
struct k_timeval { int64_t tv_sec, tv_usec; };

#define NR_GETTIMEOFDAY 96
#define NR_TIME 201
#define NR_CLOCK_GETTIME 228

static inline long raw_syscall2(long nr, long a, long b)
{
    long ret;
    __asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b) : "rcx", "r11", "memory");
    return ret;
}

static inline struct run_page_header *page(void)
{
    char *p;
    __asm__("lea run_reader_code_start(%%rip), %0" : "=r"(p));
    return (struct run_page_header *)(p + RUN_HEADER_OFFSET);
}

static inline void count(struct run_page_header *h, unsigned slot)
{
    __atomic_fetch_add(&h->calls[slot], 1, __ATOMIC_RELAXED);
}

static inline void count_kernel(struct run_page_header *h)
{
    __atomic_fetch_add(&h->kernel_calls, 1, __ATOMIC_RELAXED);
}

long run_reader_clock_gettime(long clk, struct k_timespec *ts)
{
    struct run_page_header *h = page();
    uint32_t flags = __atomic_load_n(&h->flags, __ATOMIC_RELAXED);
    if (flags & RUN_FLAG_COUNT)
        count(h, (unsigned long)clk < RUN_COUNT_CLOCKS ? (unsigned)clk : RUN_COUNT_OTHER_CLOCK);
    count_kernel(h);
    return raw_syscall2(NR_CLOCK_GETTIME, clk, (long)ts);
}

long run_reader_gettimeofday(struct k_timeval *tv, void *tz)
{
    struct run_page_header *h = page();
    uint32_t flags = __atomic_load_n(&h->flags, __ATOMIC_RELAXED);
    if (flags & RUN_FLAG_COUNT)
        count(h, RUN_COUNT_GETTIMEOFDAY);
    count_kernel(h);
    return raw_syscall2(NR_GETTIMEOFDAY, (long)tv, (long)tz);
}

long run_reader_time(int64_t *t)
{
    struct run_page_header *h = page();
    uint32_t flags = __atomic_load_n(&h->flags, __ATOMIC_RELAXED);
    if (flags & RUN_FLAG_COUNT)
        count(h, RUN_COUNT_TIME);
    count_kernel(h);
    return raw_syscall2(NR_TIME, (long)t, 0);
}
