/* SPDX-License-Identifier: MIT */
/* Auto mode's question: does clock_gettime(id) enter the kernel here?  Compared directly:
 * the libc call (the vDSO where it works) against the raw syscall, both timed with the
 * bare counter, best of a few rounds.  About 20 calls per clock: well under 100 us even
 * where every call is a syscall. */
#include "shim/shim.h"

#include "arch/arch.h"

#include <sys/syscall.h>
#include <unistd.h>

int shim_kernel_path_slow(real_clock_gettime_fn real, clockid_t id, uint64_t *libc_ticks,
                          uint64_t *syscall_ticks)
{
    struct timespec ts;
    uint64_t best_libc = UINT64_MAX, best_sys = UINT64_MAX;
    for (int round = 0; round < 4; round++) {
        uint64_t a = arch_fast_counter_ordered();
        for (int i = 0; i < 4; i++)
            real(id, &ts);
        uint64_t b = arch_fast_counter_ordered();
        syscall(SYS_clock_gettime, id, &ts);
        uint64_t c = arch_fast_counter_ordered();
        if ((b - a) / 4 < best_libc)
            best_libc = (b - a) / 4;
        if (c - b < best_sys)
            best_sys = c - b;
    }
    *libc_ticks = best_libc;
    *syscall_ticks = best_sys;
    return best_libc * 2 >= best_sys;
}

/* Over 50 us: the two clock reads at the ends are ~0.1% of the span. */
double shim_counter_ticks_per_ns(real_clock_gettime_fn real)
{
    struct timespec a, b;
    real(CLOCK_MONOTONIC, &a);
    uint64_t c0 = arch_fast_counter_ordered();
    int64_t ns = 0;
    /* A clock that stands still must not hold the program here: 10^6 reads at most. */
    for (int i = 0; i < 1000000 && ns < 50000; i++) {
        real(CLOCK_MONOTONIC, &b);
        ns = (int64_t)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec);
    }
    uint64_t c1 = arch_fast_counter_ordered();
    return ns > 0 && c1 > c0 ? (double)(c1 - c0) / (double)ns : 0;
}
