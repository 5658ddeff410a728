/* SPDX-License-Identifier: MIT */
/* clockscope bench's options and the result of a run: what bench_cmd.c parses and
 * measures, bench_workers.c hands to its worker processes and bench_output.c prints. */
#ifndef CLOCKSCOPE_BENCH_CMD_H
#define CLOCKSCOPE_BENCH_CMD_H

#include "bench/bench_gap.h"
#include "common/cpuset.h"
#include "common/message.h"
#include "facts/sysinfo.h"
#include "measure/clocks.h"
#include "measure/combine.h"
#include "measure/method.h"

#include <stdbool.h>
#include <stddef.h>

#define BENCH_MAX_PATTERNS 32

struct bench_options {
    bool quick, json, list, progress;
    bool verbose; /* each marked row's sentence under it (measure/reference.h) */
    int threads;
    const char *cpus_arg;
    struct cpu_list allowed, cpus;
    int samples;
    int processes; /* --processes (0: as many as the budget holds) */
    const char *patterns[BENCH_MAX_PATTERNS];
    int npatterns;
    const char *clock_names[16];
    int nclock_names;
    const struct clock_info *clocks[16];
    int nclocks;
    const char *gap_arg;
    int reads, bracket; /* --reads (0: not given), --bracket (index in bracket_names, -1) */
    struct bench_gap_options gap; /* --gap, --reads, --bracket (bench_gap.c) */
};

/* One row of the hot-loop table: a selected method and its figures. */
struct bench_row {
    const struct method *m;
    struct measurement res;      /* the figure (combined over processes), or the error */
    struct across acr;           /* across processes (zero where not measured) */
    struct reference_verdict refv;
    struct measure_runs *runs;   /* each process's measurement; NULL: not available */
};

/* Everything a run found, in the order the output says it. */
struct bench_result {
    const struct bench_options *o;
    const struct method *sel[METHODS_MAX]; /* the selected methods, in the list's order */
    size_t nsel;
    bool hot_loop;               /* gap 0 measured: the table */
    struct measure_config cfg;   /* what each process had (cfg.reference: the reference) */
    int nproc;                   /* processes the figures were taken in */
    struct sysinfo si;
    /* Each selected, available method's measurements, one per process (hot loop only). */
    const char *ids[METHODS_MAX];
    struct measure_runs runs[METHODS_MAX];
    size_t nids;
    struct bench_row rows[METHODS_MAX];
    size_t nrows;
    char answer[MSG_REASON];     /* "" when none */
    int failures;
    /* Whether a fastclock.* method was selected; if so, what served its reads at the end. */
    bool fastclock_selected, fastclock_on_counter;
    char fastclock_counter[32], fastclock_why[MSG_LINE];
    double elapsed_s;
};

#endif
