/* SPDX-License-Identifier: MIT */
/* What each step of a ladder run is expected to take (a rung, a matrix cell, a sweep item),
 * from its configuration, and the progress lines weighed by it: the fraction is the work
 * done, not the steps, and the time left follows how the run compares with the plan. */
#ifndef CLOCKSCOPE_LADDER_PROGRESS_H
#define CLOCKSCOPE_LADDER_PROGRESS_H

#include "common/progress.h"
#include "ladder/plan.h"
#include "ladder/rungs.h"

#include <stdbool.h>

struct ladder_progress {
    struct progress *pg;     /* NULL: nothing said */
    struct progress_work w;  /* done: the steps begun before this one */
};

/* One rung: each runner's measurement (measure_expected_s for a call, each_expected_s for
 * round trips at a usual cost of the mechanism) and its start, times the runners. */
double ladder_rung_expected_s(const struct rung_def *d, const struct ladder_plan *p);
/* The matrix: its cells (n x (n - 1) of the first MATRIX_MAX_CPUS CPUs), one runner each;
 * 0 with fewer than two CPUs (nothing is measured). */
double ladder_matrix_expected_s(const struct ladder_plan *p);
double ladder_cell_expected_s(const struct ladder_plan *p);
/* The sweep: its rows x modes items, each a warm-up and a window (waits: they take their
 * time however busy the machine is); 0 with one CPU.  *waits_s (may be NULL): of which
 * waits. */
double ladder_sweep_expected_s(const struct ladder_plan *p, double *waits_s);
double ladder_sweep_item_expected_s(const struct ladder_plan *p, double *waits_s);
/* The whole run: the selected rungs, the matrix and the sweep when selected; waits_s (may
 * be NULL) the waits among it. */
double ladder_plan_expected_s(const struct ladder_plan *p, const struct rung_def *defs,
                              const bool *selected, size_t n, bool matrix, bool sweep,
                              double *waits_s);

/* Says what step begins ("rung X (12%, about 9 s left)") and counts its expected_s (of
 * which waits_s waits) as done for the next one. */
void ladder_progress_step(struct ladder_progress *lp, double expected_s, double waits_s,
                          const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
