/* SPDX-License-Identifier: MIT */
/* libfastclock lending its line to other processes (fc_host.h). */
#include "fastclock/fc_host.h"
#include "fastclock/fc_state.h"
#include "fastclock/fc_writer.h"
#include "common/clock_ns.h"

#include "arch/arch.h"

#include <sys/syscall.h>
#include <unistd.h>

_Static_assert(FC_HOST_PAGE_SIZE == FC_HOT_PAGE_SIZE, "the lent page is the hot page");

uintptr_t fc_host_line_page(void)
{
    uintptr_t pg = (uintptr_t)&fc_line;
    __asm__("" : "+r"(pg)); /* the page, not the 128-byte object the compiler knows */
    bool alone = pg % FC_HOT_PAGE_SIZE == 0 &&
                 (uintptr_t)fc_hot_page_end + FC_HOT_PAGE_SIZE - 256 == pg + FC_HOT_PAGE_SIZE;
    return alone ? pg : 0;
}

/* The source is set at initialisation, the limit when the cross-CPU check's thread commits
 * the first line: acquire loads, so that a caller that sees the line live sees it whole. */
bool fc_host_line_pending(void)
{
    return __atomic_load_n(&fc_line.source, __ATOMIC_ACQUIRE) == FC_SOURCE_COUNTER &&
           __atomic_load_n(&fc_line.limit_ticks, __ATOMIC_ACQUIRE) == 0;
}

bool fc_host_line_live(void)
{
    return __atomic_load_n(&fc_line.limit_ticks, __ATOMIC_ACQUIRE) != 0;
}

void fc_host_hold_writer(void)
{
    fc_take_refreshing();
}

void fc_host_release_writer(void)
{
    fc_release_refreshing();
}

int fc_host_kernel_path_slow(fc_host_clock_fn real, clockid_t id, uint64_t *libc_ticks,
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
double fc_host_counter_ticks_per_ns(fc_host_clock_fn real)
{
    struct timespec a, b;
    real(CLOCK_MONOTONIC, &a);
    uint64_t c0 = arch_fast_counter_ordered();
    int64_t ns = 0;
    /* A clock that stands still must not hold the program here: 10^6 reads at most. */
    for (int i = 0; i < 1000000 && ns < 50000; i++) {
        real(CLOCK_MONOTONIC, &b);
        ns = (int64_t)(clock_ns_of(&b) - clock_ns_of(&a));
    }
    uint64_t c1 = arch_fast_counter_ordered();
    return ns > 0 && c1 > c0 ? (double)(c1 - c0) / (double)ns : 0;
}
