/* SPDX-License-Identifier: MIT */
/* bench across worker processes (issue 29, docs/METHODOLOGY.md "Across processes"): the
 * hot-loop figures are taken in several short processes, each this binary exec'ed anew
 * (its own address-space layout), one after the other on the same CPUs; each worker
 * measures every selected method and prints what the engine found in a line protocol;
 * the parent pools them: the figure is the median over processes (measure/combine.c). */
#ifndef CLOCKSCOPE_BENCH_WORKERS_H
#define CLOCKSCOPE_BENCH_WORKERS_H

#include "bench/bench_cmd.h"
#include "measure/combine.h"

#include <stdbool.h>
#include <stdio.h>


/* The processes a run takes its hot-loop figures in: requested (--processes), or as many
 * as the samples allow with each process keeping the engine's minimum (41 / 7: 5; quick
 * 15 / 5: 3), so that the run takes about as long as one process taking every sample did. */
int bench_processes_for(int requested, const struct measure_config *cfg);

/* A worker's share of the warm-up (at least 1 ms: calibration warms up as well) and of the
 * budget, one of nproc (nothing for nproc <= 1); its samples come with --samples. */
void bench_worker_share(struct measure_config *cfg, int nproc);

/* Each process's share: the samples divided among the processes (at least a worker's
 * minimum), the warm-up and the budget (bench_worker_share). */
void bench_share_config(struct measure_config *cfg, int nproc);

/* Runs the nproc worker processes one after the other, each parsed into runs (the
 * methods ids[0..nids), in the order the workers measure them).  false: one failed (said
 * on stderr).  pg: which worker is running. */
struct progress;
bool bench_run_workers(const struct bench_options *o, const struct measure_config *cfg,
                       int nproc, const char *const *ids, size_t nids,
                       struct measure_runs *runs, struct progress *pg);

/* The worker's whole run, on the calling thread already pinned for a single thread: every
 * available method of sel[0..nsel) measured on cpus[0..threads), in the protocol on
 * stdout.  Returns the exit status. */
int bench_worker_main(const struct method *const *sel, size_t nsel,
                      const struct measure_config *cfg, const int *cpus, int threads);

/* The worker's side: one measured (or failed) method in the protocol. */
void bench_worker_print(FILE *f, const char *id, const struct measurement *r);

/* Parses one worker's output: for each method id in ids[0..nids), its measurement goes to
 * runs[i].proc[runs[i].n++] (a failure keeps ok false and the error).  false: the output
 * does not follow the protocol (why says where). */
bool bench_worker_parse(const char *out, const char *const *ids, size_t nids,
                        struct measure_runs *runs, char *why, size_t whylen);

#endif
