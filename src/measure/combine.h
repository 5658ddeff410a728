/* SPDX-License-Identifier: MIT */
/* One method measured by the engine in several processes (bench's workers, ladder's
 * runners), combined into one measurement (issue 29, docs/METHODOLOGY.md "Across
 * processes"). */
#ifndef CLOCKSCOPE_COMBINE_H
#define CLOCKSCOPE_COMBINE_H

#include "measure/across.h"
#include "measure/engine.h"
#include "measure/reference.h"

#include <stdbool.h>

/* One method's figures across processes. */
struct measure_runs {
    int n;                               /* processes that measured it */
    struct measurement *proc;            /* [nproc]: each process's own measurement */
};

/* The figures of one method over its processes: out's median is the median over processes,
 * its other quantiles those of all samples pooled, its spread the larger of the spread
 * across processes and the processes' median spread within; across says whether they fall
 * in two levels.  false when no process measured it (out->error says why). */
bool measure_combine(const struct measure_runs *runs, double noisy_spread,
                     struct measurement *out, struct across *across);

/* The reference over the processes that measured the method (measure/reference.h; the
 * engine's reference is a counter read: REFERENCE_MOVED_RATIO_COUNTER): n 0
 * when any of them has none (a ratio over some processes and a figure over all would not
 * be the same run's). */
void measure_combine_reference(const struct measure_runs *runs, struct reference_verdict *v);

#endif
