/* SPDX-License-Identifier: MIT */
/* One ladder run's results: what ladder_cmd.c measures and ladder_report.c prints. */
#ifndef CLOCKSCOPE_LADDER_RUN_H
#define CLOCKSCOPE_LADDER_RUN_H

#include "facts/sysinfo.h"
#include "ladder/matrix.h"
#include "ladder/plan.h"
#include "ladder/rungs.h"
#include "ladder/sweep.h"

#include <stdbool.h>
#include <stdio.h>

struct ladder_run {
    struct ladder_plan plan;
    struct sysinfo machine;       /* at the start */
    double loadavg_end;           /* the 1-minute load average at the end (-1 unknown) */
    size_t nrungs;
    struct rung_def defs[RUNGS_MAX];
    struct rung_result rungs[RUNGS_MAX];
    bool selected[RUNGS_MAX];
    bool matrix_selected, sweep_selected;
    struct cpu_matrix matrix;
    struct sweep sweep;
    double elapsed_s;
};

void ladder_print_text(FILE *out, const struct ladder_run *r);
void ladder_print_json(FILE *out, const struct ladder_run *r);
/* 0.74 -> "74% lower than futex's"; -3.2 -> "4.2x futex's (higher)" (a poller that lost
 * its CPU to other work); NaN -> not comparable. */
void ladder_format_reduction(double reduction, const char *what, char *buf, size_t len);

#endif
