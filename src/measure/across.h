/* SPDX-License-Identifier: MIT */
/* Figures taken across worker processes (issue 29, docs/METHODOLOGY.md "Across
 * processes"): one process's figure depends on where its code and data landed in memory
 * (address-space layout, and for Python the hash seed), so that two runs of the same
 * measurement can each report a tight spread around two different levels.  The figure is
 * the median over processes, the spread the one across them, and a set of processes that
 * falls into two distinct levels is said to be bimodal instead of being summed up by one
 * of its levels.  Pure: no clock, no process, unit-tested (tests/unit/test_across.c). */
#ifndef CLOCKSCOPE_ACROSS_H
#define CLOCKSCOPE_ACROSS_H

#include <stdbool.h>
#include <stddef.h>

#define ACROSS_MAX 64
/* Two levels are distinct when the upper one is at least this much above the lower
 * one: within one process the spread of a clock read is 1-4%, and the two levels issue 29
 * found (Python's time.time(): 39 and 71 ns; libc's clock_gettime: 22 and 25 ns) are 14%
 * to 80% apart. */
#define ACROSS_LEVEL_RATIO 1.10

struct across {
    size_t n;              /* processes */
    double median;         /* the figure: the median of the processes' figures */
    double min, max;
    double spread;         /* (p90 - p10) / median over the processes' figures */
    bool bimodal;          /* the processes fall into two distinct levels */
    double low, high;      /* bimodal: the median of each level */
    size_t nlow, nhigh;    /* bimodal: how many processes in each */
};

/* Summarizes v[0..n) (each process's figure; not modified).  Bimodal when the sorted
 * figures split in two groups of at least two processes each, the gap between the groups
 * is wider than either group's own range, and the upper group's median is at least
 * ACROSS_LEVEL_RATIO times the lower's; of several such splits, the widest gap decides. */
void across_summarize(const double *v, size_t n, struct across *out);

struct json;
/* Writes a as the key "across_processes" of the open JSON object (docs/json.md): count,
 * median, min, max, spread, bimodal, and levels (each level's figure and processes, or
 * null).  bench and runtimes write each process's own figures beside it. */
void across_json(struct json *j, const struct across *a);

#endif
