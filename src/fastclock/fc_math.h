/* SPDX-License-Identifier: MIT */
/* libfastclock's arithmetic, kept free of I/O so that unit tests can drive it with
 * synthetic counters and kernel clocks.
 *
 * The model (docs/fastclock.md): between two refreshes, fastclock is a straight segment
 *     ns(t) = anchor_ns + ((t - anchor_ticks) * mult) >> FC_SHIFT
 * where t is the counter and mult is nanoseconds per tick in 32.32 fixed point.  One unit
 * of mult is 2^-32 ns/tick: at 1 GHz a relative step of 2.3e-10 (0.0002 ppm), so rounding
 * is far below the 0.1 ppm rate target.  A refresh replaces the segment by one that starts
 * where the old one is at that moment (continuity: never a step backwards) and whose slope
 * is the measured rate, bent by a bounded amount so that the remaining offset from the
 * kernel's clock shrinks over the next period (a slew, as adjtime does).  The segment as
 * published for readers, with its limits and offsets, is the line (fc_line.h). */
#ifndef FASTCLOCK_MATH_H
#define FASTCLOCK_MATH_H

#include <stdbool.h>
#include <stdint.h>

#define FC_SHIFT 32
#define FC_NS_PER_S 1000000000ull

/* The read path (fc_read.h) computes (d * mult) >> FC_SHIFT in 64 bits.  d * mult is the
 * elapsed time in ns shifted left by FC_SHIFT (times the slew, at most 5% above the rate),
 * so it fits while a segment is extrapolated less than 2^(64 - FC_SHIFT) ns (4.29 s): lines
 * are limited to FC_MAX_EXTRAPOLATION_NS, half of that (fc_refresh.c asserts its periods
 * stay below). */
#define FC_MAX_EXTRAPOLATION_NS (1ull << (64 - FC_SHIFT - 1))
_Static_assert(FC_SHIFT == 32, "mult is 32.32 fixed point");

struct fc_segment {
    uint64_t anchor_ticks;
    uint64_t anchor_ns;
    uint64_t mult; /* ns per tick << FC_SHIFT */
};

/* The segment's value at t; t before the anchor counts as the anchor (a reader that read the
 * counter just before a refresh must not extrapolate backwards).  128-bit product, so any
 * delta is exact. */
static inline uint64_t fc_segment_eval(const struct fc_segment *s, uint64_t t)
{
    uint64_t d = t > s->anchor_ticks ? t - s->anchor_ticks : 0;
    return s->anchor_ns + (uint64_t)(((unsigned __int128)d * s->mult) >> FC_SHIFT);
}

/* Ticks -> ns for an interval, 128-bit. */
static inline uint64_t fc_ticks_to_ns(uint64_t ticks, uint64_t mult)
{
    return (uint64_t)(((unsigned __int128)ticks * mult) >> FC_SHIFT);
}

/* mult for a counter of hz ticks per second (rounded to nearest); 0 if hz is 0. */
uint64_t fc_mult_from_hz(uint64_t hz);
/* mult for `ns` nanoseconds elapsed over `ticks` ticks (rounded); 0 if ticks is 0. */
uint64_t fc_mult_from_ratio(uint64_t ns, uint64_t ticks);
/* The frequency a mult stands for, in Hz. */
double fc_mult_hz(uint64_t mult);

struct fc_slew_policy {
    uint32_t max_slew_ppm;      /* bound on the rate bend for ordinary offsets */
    uint32_t max_big_slew_ppm;  /* bound when |offset| >= big_offset_ns (after a suspend) */
    uint64_t big_offset_ns;
    uint64_t step_forward_ns;   /* behind the kernel by more than this: step forward */
};

/* The next segment, continuous with the current one.
 *   cur        the segment readers use now
 *   t_anchor   counter value where the new segment starts (read after readers were fenced out)
 *   offset_ns  fastclock minus kernel clock, measured just before, signed
 *   rate_mult  the measured rate (ns per tick, 32.32); 0 keeps cur's
 *   horizon_ns over how long the offset should be corrected
 * Guarantees, whatever the inputs: result(t_anchor) >= cur(t_anchor) (never backwards),
 * mult >= 1, and the slope differs from rate_mult by at most the policy's bound, except
 * when fastclock is behind by more than step_forward_ns: then it steps forward. */
struct fc_segment fc_next_segment(const struct fc_segment *cur, uint64_t t_anchor, int64_t offset_ns,
                            uint64_t rate_mult, uint64_t horizon_ns,
                            const struct fc_slew_policy *policy);

/* The segment after a stale period: no reader has returned a value from `cur` for a
 * counter past cur.anchor_ticks + limit_ticks (readers refuse to extrapolate further,
 * fc_read.h), so the new segment may start at the kernel's value, as long as it is not below
 * cur(cur.anchor_ticks + limit_ticks).  Used after idle periods and suspend. */
struct fc_segment fc_stale_segment(const struct fc_segment *cur, uint64_t t_anchor, uint64_t kernel_ns,
                             uint64_t limit_ticks, uint64_t rate_mult);

/* A look at the kernel's clocks against the counter, all from one sandwich
 * counter/MONOTONIC/REALTIME/BOOTTIME/MONOTONIC/counter, so that no clock change falls
 * between its parts: the pair (ticks, mono_ns) at the sandwich's midpoints, the offsets
 * REALTIME - MONOTONIC and BOOTTIME - MONOTONIC, and noise_ns, how far each may be off
 * (half the sandwich's width). */
struct fc_look {
    uint64_t ticks, mono_ns;
    int64_t real, boot;
    uint64_t noise_ns;
};

/* Slack on top of the two looks' noise: the kernel's clocks are computed from separate
 * bases, rounded to the ns (a few ns), and a sandwich's parts are not evenly spaced. */
#define FC_NAMESPACE_MARGIN_NS 1000
/* How far the kernel's MONOTONIC may drift from the counter at the measured rate: the rate's
 * own error (50 ppm stated, far less measured) plus NTP's frequency (+-500 ppm) and its
 * offset slew (at most 500 ppm). */
#define FC_NAMESPACE_RATE_SLACK_PPM 1000

/* How far a time namespace change moved CLOCK_MONOTONIC between look a and the later look b
 * (0: no change seen).  A namespace shifts MONOTONIC (and BOOTTIME) against the counter and
 * never REALTIME, whose offset from MONOTONIC the kernel changes only when the time is set;
 * so a change shows as REALTIME - MONOTONIC falling by exactly the amount MONOTONIC moved
 * against the counter (at rate_mult).  Both witnesses must agree: a REALTIME step alone moves
 * only the offset, a counter step (a paused VM) only the pair, and neither is a shift.
 * Exact to the looks' noise plus the rate's slack over the time between them: a change
 * larger than that is always seen, whatever its size or sign.
 * *like_suspend: BOOTTIME - MONOTONIC moved with REALTIME - MONOTONIC, as in a suspend
 * during which the counter ran on (MONOTONIC paused, BOOTTIME and REALTIME went on), which
 * the clocks cannot tell from a namespace that shifts MONOTONIC alone: a caller that must
 * never step back (values were served meanwhile) treats it as a suspend. */
int64_t fc_namespace_shift(const struct fc_look *a, const struct fc_look *b, uint64_t rate_mult,
                           bool *like_suspend);

/* The mult after bending rate_mult to remove offset_ns over horizon_ns, bounded by
 * max_ppm (positive offset = fastclock ahead = slow down). */
uint64_t fc_slewed_mult(uint64_t rate_mult, int64_t offset_ns, uint64_t horizon_ns,
                        uint32_t max_ppm);

#endif
