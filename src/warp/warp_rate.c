/* SPDX-License-Identifier: MIT */
#include "warp/warp_rate.h"

#include "measure/batch.h"

#include <math.h>
#include <string.h>
#include <time.h>

#define BRACKET_TRIES 7

static uint64_t raw_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return clock_ns_of(&ts);
}

static uint64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return clock_ns_of(&ts);
}

/* Narrowest of a few tries: an interrupt or preemption between the three reads widens
 * that try's bracket, and it loses. */
bool bracket_read(const struct method *m, struct bracket *out)
{
    double best = INFINITY;
    for (int i = 0; i < BRACKET_TRIES; i++) {
        uint64_t r0 = raw_ns();
        uint64_t v = m->read(m->ctx);
        uint64_t r1 = raw_ns();
        if (r1 < r0)
            continue;
        double width = (double)(r1 - r0);
        if (width < best) {
            best = width;
            out->value = v;
            out->ref_ns = (double)r0 + width / 2;
            out->half_width_ns = width / 2;
        }
    }
    return isfinite(best);
}

bool counter_rate_between(const struct bracket *start, const struct bracket *end,
                          struct counter_rate *out)
{
    double dt = end->ref_ns - start->ref_ns;
    if (dt <= 0 || end->value <= start->value)
        return false;
    out->hz = (double)(end->value - start->value) / (dt / 1e9);
    out->uncertainty_ppm = (start->half_width_ns + end->half_width_ns) / dt * 1e6;
    return true;
}

double rate_error_ppm(double measured_hz, double stated_hz)
{
    return stated_hz > 0 ? (measured_hz - stated_hz) / stated_hz * 1e6 : NAN;
}

void clock_sample_take(struct clock_sample *s)
{
    memset(s, 0, sizeof *s);
    double best = INFINITY;
    for (int i = 0; i < BRACKET_TRIES; i++) {
        uint64_t r0 = raw_ns();
        uint64_t m0 = clock_ns(CLOCK_MONOTONIC);
        uint64_t real = clock_ns(CLOCK_REALTIME);
        uint64_t m1 = clock_ns(CLOCK_MONOTONIC);
        uint64_t r1 = raw_ns();
        if (r1 < r0 || m1 < m0)
            continue;
        double width = (double)(r1 - r0);
        if (width < best) {
            best = width;
            s->mono.value = m0 + (m1 - m0) / 2;
            s->mono.ref_ns = (double)r0 + width / 2;
            s->mono.half_width_ns = width / 2;
            s->real_minus_mono_ns = (int64_t)(real - (m0 + (m1 - m0) / 2));
            s->real_half_width_ns = (double)(m1 - m0) / 2;
        }
    }
}

void clock_drift_between(const struct clock_sample *a, const struct clock_sample *b,
                         struct clock_drift *out)
{
    double raw = b->mono.ref_ns - a->mono.ref_ns;
    double mono = (double)(int64_t)(b->mono.value - a->mono.value);
    out->seconds = raw / 1e9;
    out->monotonic_slew_ppm = raw > 0 ? (mono - raw) / raw * 1e6 : NAN;
    out->slew_uncertainty_ppm =
        raw > 0 ? 2 * (a->mono.half_width_ns + b->mono.half_width_ns) / raw * 1e6 : NAN;
    out->realtime_step_ns = (double)(b->real_minus_mono_ns - a->real_minus_mono_ns);
    out->realtime_step_uncertainty_ns = a->real_half_width_ns + b->real_half_width_ns;
    out->realtime_stepped =
        fabs(out->realtime_step_ns) > out->realtime_step_uncertainty_ns + 1000;
}
