/* SPDX-License-Identifier: MIT */
/* bench --gap: the sparse-read part of `clockscope bench` (measure/sparse.h), its table
 * and its JSON ("sparse" in clockscope.bench/2, docs/json.md). */
#ifndef CLOCKSCOPE_BENCH_GAP_H
#define CLOCKSCOPE_BENCH_GAP_H

#include "bench/gap_list.h"
#include "common/json.h"
#include "measure/bracket.h"
#include "measure/method.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct bench_gap_options {
    struct gap_list gaps;         /* gap 0 (the hot loop) is bench_cmd.c's; others are here */
    uint32_t reads;               /* --reads: for gaps without :N; 0 = gap_default_reads */
    enum bracket_request bracket; /* --bracket */
};

/* Whether the list has a gap other than 0 (then bench_gap_run has work). */
bool bench_gap_any_sparse(const struct gap_list *g);
/* Measures the sparse gaps for the methods sel[0..n) on the calling (pinned) thread, CPU
 * `cpu`, and prints the table, or writes the "sparse" member of the open JSON object j
 * (j non-NULL).  Returns 0, or 1 when nothing could be measured (the reason on stderr,
 * or in the JSON as "error").  pg: what is being done and how long is left. */
struct progress;
int bench_gap_run(const struct method *const *sel, size_t n, const struct bench_gap_options *o,
                  int cpu, struct json *j, struct progress *pg);
/* How long the sparse gaps will take, in seconds of sleep: per gap (methods + 1) x reads x
 * gap for nm methods with a single-read form (the warm-ups add about 10%). */
double bench_gap_sleep_s(const struct bench_gap_options *o, size_t nm);

#endif
