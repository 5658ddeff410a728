/* SPDX-License-Identifier: MIT */
/* Rate of the counters and drift between the kernel's clocks, from two bracketed samples
 * taken at the start and the end of the run (the whole run is the baseline, so a 5 s run
 * resolves a counter's rate to a few ppb of reading error). */
#ifndef CLOCKSCOPE_WARP_RATE_H
#define CLOCKSCOPE_WARP_RATE_H

#include "measure/method.h"

#include <stdbool.h>
#include <stdint.h>

/* One read of a method, bracketed by two CLOCK_MONOTONIC_RAW reads: the best (narrowest)
 * of a few tries.  ref_ns is the bracket's midpoint, half_width_ns its uncertainty. */
struct bracket {
    uint64_t value;
    double ref_ns;
    double half_width_ns;
};

bool bracket_read(const struct method *m, struct bracket *out);

/* Rate of a tick counter between two brackets; false when time did not advance. */
struct counter_rate {
    double hz;
    double uncertainty_ppm;   /* from the brackets' widths */
};
bool counter_rate_between(const struct bracket *start, const struct bracket *end,
                          struct counter_rate *out);

/* (measured - stated) / stated, in ppm. */
double rate_error_ppm(double measured_hz, double stated_hz);

/* MONOTONIC against MONOTONIC_RAW and REALTIME against MONOTONIC. */
struct clock_sample {
    struct bracket mono;      /* CLOCK_MONOTONIC bracketed by MONOTONIC_RAW */
    int64_t real_minus_mono_ns;  /* exact: as a double, 1.7e18 ns would round to 256 ns */
    double real_half_width_ns;
};
void clock_sample_take(struct clock_sample *s);

struct clock_drift {
    double seconds;                   /* MONOTONIC_RAW elapsed */
    double monotonic_slew_ppm;        /* MONOTONIC's rate against MONOTONIC_RAW - 1 */
    double slew_uncertainty_ppm;
    double realtime_step_ns;          /* change of REALTIME - MONOTONIC */
    double realtime_step_uncertainty_ns;
    bool realtime_stepped;            /* change beyond uncertainty + 1 us */
};
void clock_drift_between(const struct clock_sample *a, const struct clock_sample *b,
                         struct clock_drift *out);

#endif
