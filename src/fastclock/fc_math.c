/* SPDX-License-Identifier: MIT */
#include "fastclock/fc_math.h"

uint64_t fc_mult_from_hz(uint64_t hz)
{
    if (hz == 0)
        return 0;
    unsigned __int128 num = (unsigned __int128)FC_NS_PER_S << FC_SHIFT;
    return (uint64_t)((num + hz / 2) / hz);
}

uint64_t fc_mult_from_ratio(uint64_t ns, uint64_t ticks)
{
    if (ticks == 0)
        return 0;
    unsigned __int128 num = (unsigned __int128)ns << FC_SHIFT;
    unsigned __int128 q = (num + ticks / 2) / ticks;
    return q > UINT64_MAX ? UINT64_MAX : (uint64_t)q;
}

double fc_mult_hz(uint64_t mult)
{
    return mult ? (double)FC_NS_PER_S * (double)(1ull << FC_SHIFT) / (double)mult : 0.0;
}

uint64_t fc_slewed_mult(uint64_t rate_mult, int64_t offset_ns, uint64_t horizon_ns,
                        uint32_t max_ppm)
{
    if (horizon_ns == 0)
        horizon_ns = 1;
    /* bend = rate * offset / horizon (as a fraction of the rate), clamped to max_ppm. */
    __int128 bend = (__int128)rate_mult * -(__int128)offset_ns / (__int128)horizon_ns;
    __int128 limit = (__int128)rate_mult * max_ppm / 1000000;
    if (bend > limit)
        bend = limit;
    if (bend < -limit)
        bend = -limit;
    __int128 m = (__int128)rate_mult + bend;
    if (m < 1)
        m = 1;
    if (m > (__int128)UINT64_MAX)
        m = UINT64_MAX;
    return (uint64_t)m;
}

struct fc_segment fc_next_segment(const struct fc_segment *cur, uint64_t t_anchor, int64_t offset_ns,
                            uint64_t rate_mult, uint64_t horizon_ns,
                            const struct fc_slew_policy *policy)
{
    struct fc_segment next;
    next.anchor_ticks = t_anchor;
    next.anchor_ns = fc_segment_eval(cur, t_anchor);
    uint64_t magnitude = offset_ns < 0 ? (uint64_t)-(offset_ns + 1) + 1 : (uint64_t)offset_ns;
    if (offset_ns < 0 && magnitude > policy->step_forward_ns) {
        /* Behind by a lot: a forward step keeps monotonicity, so catch up at once. */
        next.anchor_ns += magnitude;
        next.mult = rate_mult ? rate_mult : 1;
        return next;
    }
    uint32_t bound = magnitude >= policy->big_offset_ns ? policy->max_big_slew_ppm
                                                        : policy->max_slew_ppm;
    next.mult = fc_slewed_mult(rate_mult ? rate_mult : cur->mult, offset_ns, horizon_ns, bound);
    return next;
}

struct fc_segment fc_stale_segment(const struct fc_segment *cur, uint64_t t_anchor, uint64_t kernel_ns,
                             uint64_t limit_ticks, uint64_t rate_mult)
{
    uint64_t returned_at_most = fc_segment_eval(cur, cur->anchor_ticks + limit_ticks);
    struct fc_segment next = {t_anchor, kernel_ns > returned_at_most ? kernel_ns : returned_at_most,
                           rate_mult ? rate_mult : cur->mult};
    return next;
}

static int64_t abs64(int64_t v) { return v < 0 ? -v : v; }

int64_t fc_namespace_shift(const struct fc_look *a, const struct fc_look *b, uint64_t rate_mult,
                           bool *like_suspend)
{
    *like_suspend = false;
    int64_t d_real = b->real - a->real, d_boot = b->boot - a->boot;
    int64_t noise = (int64_t)(a->noise_ns + b->noise_ns) + FC_NAMESPACE_MARGIN_NS;
    if (abs64(d_real) <= noise || b->ticks < a->ticks)
        return 0;
    uint64_t elapsed = fc_ticks_to_ns(b->ticks - a->ticks, rate_mult);
    /* MONOTONIC's move against the counter: what it advanced beyond the counter's time. */
    int64_t moved = (int64_t)(b->mono_ns - a->mono_ns) - (int64_t)elapsed;
    int64_t slack = (int64_t)((unsigned __int128)elapsed * FC_NAMESPACE_RATE_SLACK_PPM / 1000000u);
    if (abs64(moved + d_real) > noise + slack)
        return 0;
    *like_suspend = abs64(d_boot - d_real) <= noise;
    return -d_real;
}
