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
