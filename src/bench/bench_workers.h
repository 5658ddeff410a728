/* SPDX-License-Identifier: MIT */
/* bench across worker processes (issue 29, docs/METHODOLOGY.md "Across processes"): the
 * hot-loop figures are taken in several short processes, each this binary exec'ed anew
 * (its own address-space layout), one after the other on the same CPUs; each worker
 * measures every selected method and prints what the engine found in a line protocol;
 * the parent pools them: the figure is the median over processes (measure/across.c). */
#ifndef CLOCKSCOPE_BENCH_WORKERS_H
#define CLOCKSCOPE_BENCH_WORKERS_H

#include "measure/combine.h"

#include <stdbool.h>
#include <stdio.h>

/* Set in a worker's environment to the number of processes of the run: this bench is a
 * worker (an environment variable, as runtimes' C probe, so that no option meant for
 * machines appears in the help). */
#define BENCH_WORKER_ENV "CLOCKSCOPE_BENCH_WORKER"

/* The worker's side: one measured (or failed) method in the protocol. */
void bench_worker_print(FILE *f, const char *id, const struct measurement *r);

/* Parses one worker's output: for each method id in ids[0..nids), its measurement goes to
 * runs[i].proc[runs[i].n++] (a failure keeps ok false and the error).  false: the output
 * does not follow the protocol (why says where). */
bool bench_worker_parse(const char *out, const char *const *ids, size_t nids,
                        struct measure_runs *runs, char *why, size_t whylen);

#endif
