/* SPDX-License-Identifier: MIT */
/* clockscope bench's output: the table or the JSON (clockscope.bench/2, docs/json.md),
 * printed from a run's result (bench_cmd.h) on stdout; nothing is measured here. */
#ifndef CLOCKSCOPE_BENCH_OUTPUT_H
#define CLOCKSCOPE_BENCH_OUTPUT_H

#include "bench/bench_cmd.h"
#include "common/json.h"

#include <stdbool.h>

/* --list: the selected methods and whether each can run here (JSON: clockscope.bench.list/1). */
void bench_output_list(const struct bench_result *r);

/* The output up to the sparse part (bench_gap.c): the header, the answer and the hot-loop
 * table with the unavailable methods after it, or the JSON document up to its "results",
 * left open in j for the sparse part and bench_output_end. */
void bench_output_table(const struct bench_result *r, struct json *j);

/* The output's end: what served fastclock.* reads, the elapsed time (and the JSON closed).
 * false: standard output could not be written (said on stderr). */
bool bench_output_end(const struct bench_result *r, struct json *j);

#endif
