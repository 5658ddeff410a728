/* SPDX-License-Identifier: MIT */
/* The timer around one read, for sparse reads (bench --gap): every read is timed on its
 * own, so the two timer reads around it must cost far less than a slow read, and the
 * timer must not be the thing measured.
 *
 *  - counter: arch_fast_counter_ordered() (x86 rdtscp or lfence;rdtsc, arm64 isb;mrs
 *    cntvct_el0, riscv rdtime), ordered after every earlier load, so the closing read
 *    cannot run before the measured call's loads complete.  Ticks become ns with a rate
 *    measured against CLOCK_MONOTONIC_RAW at the start and at the end of the run (both
 *    reported: their disagreement shows a counter whose rate is not constant).
 *  - clock: clock_gettime(CLOCK_MONOTONIC_RAW).  Where the kernel's clocksource cannot be
 *    read from user space (hpet, acpi_pm) this is a syscall costing microseconds, which is
 *    why the counter is preferred: the clock is used only where the CPU does not promise
 *    a constant-rate counter and the counter was not asked for.
 * Either way the empty bracket's own cost is measured in the same schedule and
 * subtracted (docs/METHODOLOGY.md). */
#ifndef CLOCKSCOPE_BRACKET_H
#define CLOCKSCOPE_BRACKET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/message.h"

enum bracket_request { BRACKET_AUTO, BRACKET_COUNTER, BRACKET_CLOCK };
enum bracket_kind { BRACKET_KIND_COUNTER, BRACKET_KIND_CLOCK };

struct bracket {
    enum bracket_kind kind;
    char name[64];          /* "ordered rdtsc", "CLOCK_MONOTONIC_RAW" */
    char why[MSG_LINE];     /* auto: why the counter was not used, else "" */
    double hz_start, hz_end; /* measured ticks per second (1e9 for the clock) */
};

/* Parses "auto", "counter", "clock"; false on anything else. */
bool read_bracket_request_parse(const char *s, enum bracket_request *out);
/* Chooses the bracket and measures the counter's rate (hz_start; hz_end = hz_start until
 * bracket_calibrate_end).  A requested counter that cannot be read here (it traps) is an
 * error: false, with err filled. */
bool read_bracket_open(enum bracket_request req, struct bracket *b, char *err, size_t errlen);
/* Measures the rate again at the end of the run (hz_end). */
void read_bracket_calibrate_end(struct bracket *b);
/* One timer read: counter ticks, or ns of the clock. */
uint64_t read_bracket_read(const struct bracket *b);
/* Nanoseconds per tick (mean of the start and end rates). */
double read_bracket_ns_per_tick(const struct bracket *b);
/* |hz_end - hz_start| / hz_start in parts per million. */
double read_bracket_rate_disagreement_ppm(const struct bracket *b);

#endif
