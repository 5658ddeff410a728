/* SPDX-License-Identifier: MIT */
/* Where the kernel's clocks stand against one another and against the counter, for the
 * writer (fc_refresh.c) and the life cycle (fc_lifecycle.c): the REALTIME and BOOTTIME
 * offsets from MONOTONIC that a refresh publishes, and a look, which witnesses a namespace
 * change or a time set (fc_namespace_shift, fc_math.c).  Only reads: nothing here writes
 * the line. */
#define FASTCLOCK_BUILD
#include "fastclock/fastclock.h"

#include "fastclock/fc_counter.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_line.h"
#include "fastclock/fc_state.h"
#include "fastclock/fc_writer.h"

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

int64_t fc_clock_offset(clockid_t id)
{
    uint64_t width;
    return fc_clock_offset_w(id, &width);
}

/* The REALTIME offset read exactly: the kernel computes CLOCK_REALTIME and CLOCK_MONOTONIC
 * from one timekeeper (xtime, and wall_to_monotonic on top of it for MONOTONIC, both with
 * the same fractional nanoseconds), so their difference is an integer that changes only
 * when the time is set; the COARSE clocks are the same two values at the last tick, read
 * without the counter.  A REALTIME_COARSE read between two equal MONOTONIC_COARSE reads
 * came from the snapshot they did (every timekeeping update moves MONOTONIC_COARSE), so
 * its difference is the fine clocks' to the nanosecond; a sandwich of fine reads is off by
 * up to half its width, hundreds of ns where a kernel read costs a microsecond (hpet).
 * False when the try straddled a tick (a few us against a tick's ms), or the kernel
 * answered 0. */
static bool realtime_offset_exact(int64_t *offset)
{
    uint64_t a = fc_kernel_ns(CLOCK_MONOTONIC_COARSE), x = fc_kernel_ns(CLOCK_REALTIME_COARSE),
             b = fc_kernel_ns(CLOCK_MONOTONIC_COARSE);
    if (a != b || a == 0 || x == 0)
        return false;
    *offset = (int64_t)(x - a);
    return true;
}

/* The REALTIME or BOOTTIME offset from MONOTONIC, and the width of the interval it is known
 * to lie in (it is off by at most half of that).  REALTIME exactly (width 0) where the
 * coarse clocks allow.  Otherwise MONOTONIC sandwiches: each bounds the offset to
 * [x - b, x - a] (the read x lies between a and b), and the answer is the middle of their
 * intersection, whose ends come from the sandwiches with the shortest gap on each side: a
 * tighter bound than any one sandwich's middle, which assumes its two gaps equal.  Three
 * for BOOTTIME, two after REALTIME's COARSE try: a refresh step makes at most 9 kernel
 * reads. */
int64_t fc_clock_offset_w(clockid_t id, uint64_t *width)
{
    int64_t exact;
    int tries = 3;
    if (id == CLOCK_REALTIME) {
        if (realtime_offset_exact(&exact)) {
            *width = 0;
            return exact;
        }
        tries = 2;
    }
    int64_t lo = INT64_MIN, hi = INT64_MAX, last = 0;
    uint64_t last_w = 0;
    for (int i = 0; i < tries; i++) {
        uint64_t a = fc_kernel_ns(CLOCK_MONOTONIC), x = fc_kernel_ns(id), b = fc_kernel_ns(CLOCK_MONOTONIC);
        lo = (int64_t)(x - b) > lo ? (int64_t)(x - b) : lo;
        hi = (int64_t)(x - a) < hi ? (int64_t)(x - a) : hi;
        last = (int64_t)(x - (a + (b - a) / 2)), last_w = b - a;
    }
    if (lo > hi) { /* the offset moved between the tries (the time was set): the latest */
        *width = last_w;
        return last;
    }
    *width = (uint64_t)(hi - lo);
    return lo + (hi - lo) / 2;
}

void fc_take_look(struct fc_look *out, int tries)
{
    uint64_t mult = atomic_load_explicit(&fc_line.mult, memory_order_relaxed);
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < tries; i++) {
        uint64_t c1 = fc_counter_ordered();
        uint64_t a = fc_kernel_ns(CLOCK_MONOTONIC), x = fc_kernel_ns(CLOCK_REALTIME),
                 y = fc_kernel_ns(CLOCK_BOOTTIME), b = fc_kernel_ns(CLOCK_MONOTONIC);
        uint64_t c2 = fc_counter_ordered();
        if (c2 - c1 >= best)
            continue;
        best = c2 - c1;
        uint64_t mid = a + (b - a) / 2, w = fc_ticks_to_ns(c2 - c1, mult);
        *out = (struct fc_look){c1 + (c2 - c1) / 2, mid, (int64_t)(x - mid), (int64_t)(y - mid),
                                (w > b - a ? w : b - a) / 2 + 1};
    }
}
