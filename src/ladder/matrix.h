/* SPDX-License-Identifier: MIT */
/* The CPU-by-CPU cache-line handoff matrix: for every ordered pair of CPUs (from, to), two
 * threads pinned there bounce one cache line (mechanism MECH_CACHELINE), timed by the
 * engine on `from`.  A cell is one way: half the measured round trip (two handoffs).  It
 * is also the smallest offset `warp` can see between those two CPUs: a read on one CPU
 * cannot be published to another faster than a line moves. */
#ifndef CLOCKSCOPE_LADDER_MATRIX_H
#define CLOCKSCOPE_LADDER_MATRIX_H

#include "common/message.h"
#include "ladder/plan.h"

#include <stdbool.h>

#define MATRIX_MAX_CPUS 16

struct matrix_cell {
    bool measured;
    double round_trip_ns;  /* median round trip (two handoffs), as measured */
    double one_way_ns;     /* round_trip_ns / 2 */
    double p99_one_way_ns; /* p99 of the samples' round trips / 2 */
    bool noisy;
    char why[MSG_LINE];    /* not measured: why (diagonal: the same CPU) */
};

struct cpu_matrix {
    bool available;
    char why[MSG_LINE];
    int n;                  /* CPUs in the matrix (the first MATRIX_MAX_CPUS allowed) */
    int cpus[MATRIX_MAX_CPUS];
    int cpus_left_out;      /* allowed CPUs beyond MATRIX_MAX_CPUS */
    struct matrix_cell cell[MATRIX_MAX_CPUS][MATRIX_MAX_CPUS]; /* [from][to] */
};

struct ladder_progress;
/* lp: a progress line per cell (NULL: none). */
void matrix_measure(const struct ladder_plan *p, struct cpu_matrix *out, struct ladder_progress *lp);
/* The smallest and largest measured off-diagonal cell (false when none). */
bool matrix_range(const struct cpu_matrix *m, double *lo, double *hi);

#endif
