/* SPDX-License-Identifier: MIT */
#include "measure/bracket.h"
#include "common/clock_ns.h"

#include "arch/arch.h"
#include "common/trap_guard.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* Each rate window spins this long: ~1 us of timer uncertainty at each end (a slow
 * syscall clock) is then 100 ppm at worst, 0.01 ns on a 100 ns read. */
#define RATE_WINDOW_NS 20000000ull

bool read_bracket_request_parse(const char *s, enum bracket_request *out)
{
    static const char *const names[] = {"auto", "counter", "clock"};
    for (int i = 0; i < 3; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = (enum bracket_request)i;
            return true;
        }
    return false;
}

/* One counter read paired with the clock at the midpoint of a (clock, counter, clock)
 * sandwich: the counter's instant is known to within half the sandwich. */
static void sandwich(uint64_t *ticks, double *ns)
{
    uint64_t a = clock_ns_read(CLOCK_MONOTONIC_RAW);
    *ticks = arch_fast_counter_ordered();
    uint64_t b = clock_ns_read(CLOCK_MONOTONIC_RAW);
    *ns = (double)a + (double)(b - a) / 2;
}

static double measure_hz(void)
{
    uint64_t t0, t1;
    double n0, n1;
    sandwich(&t0, &n0);
    while (clock_ns_read(CLOCK_MONOTONIC_RAW) - (uint64_t)n0 < RATE_WINDOW_NS)
        arch_spin_pause();
    sandwich(&t1, &n1);
    return (double)(t1 - t0) * 1e9 / (n1 - n0);
}

bool read_bracket_open(enum bracket_request req, struct bracket *b, char *err, size_t errlen)
{
    memset(b, 0, sizeof *b);
    bool counter = req == BRACKET_COUNTER;
    if (req == BRACKET_AUTO)
        counter = arch_fast_counter_constant(b->why, sizeof b->why);
    if (counter && req == BRACKET_COUNTER) {
        uint64_t v;
        int signo;
        if (!trap_guard_read(arch_fast_counter_ordered, &v, &signo)) {
            snprintf(err, errlen, "the counter (%s) cannot be read here: signal %d",
                     arch_fast_counter_name(), signo);
            return false;
        }
    }
    if (counter) {
        b->kind = BRACKET_KIND_COUNTER;
        snprintf(b->name, sizeof b->name, "ordered %s", arch_fast_counter_name());
        b->why[0] = 0;
        b->hz_start = b->hz_end = measure_hz();
    } else {
        b->kind = BRACKET_KIND_CLOCK;
        snprintf(b->name, sizeof b->name, "CLOCK_MONOTONIC_RAW");
        b->hz_start = b->hz_end = 1e9;
    }
    return true;
}

void read_bracket_calibrate_end(struct bracket *b)
{
    if (b->kind == BRACKET_KIND_COUNTER)
        b->hz_end = measure_hz();
}

uint64_t read_bracket_read(const struct bracket *b)
{
    return b->kind == BRACKET_KIND_COUNTER ? arch_fast_counter_ordered()
                                           : clock_ns_read(CLOCK_MONOTONIC_RAW);
}

double read_bracket_ns_per_tick(const struct bracket *b)
{
    return 2e9 / (b->hz_start + b->hz_end);
}

double read_bracket_rate_disagreement_ppm(const struct bracket *b)
{
    return fabs(b->hz_end - b->hz_start) / b->hz_start * 1e6;
}
