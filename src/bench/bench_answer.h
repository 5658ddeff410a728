/* SPDX-License-Identifier: MIT */
/* bench's answer, said before the table (issue 27): what a program's clock_gettime costs
 * here and by which path, beside the syscall, the COARSE clock and the counter read, e.g.
 * "clock_gettime(MONOTONIC) 23.0 ns through the vDSO; the syscall 245 ns (10.7x); COARSE
 * 4.60 ns; the counter read (rdtsc) 18.2 ns" (durations as common/units.c writes them).
 * Pure: figures in, one line out. */
#ifndef CLOCKSCOPE_BENCH_ANSWER_H
#define CLOCKSCOPE_BENCH_ANSWER_H

#include <stdbool.h>
#include <stddef.h>

/* One figure: NaN (or not measured) leaves its part out; bimodal says the two levels. */
struct answer_figure {
    bool measured;
    double ns;
    bool bimodal;
    double low, high;
};

struct bench_answer_in {
    struct answer_figure libc;     /* libc.clock_gettime.monotonic: what programs call */
    struct answer_figure vdso;     /* vdso.clock_gettime.monotonic */
    struct answer_figure syscall;  /* syscall.clock_gettime.monotonic */
    struct answer_figure coarse;   /* libc.clock_gettime.monotonic_coarse */
    struct answer_figure counter;  /* the arch's plain counter read */
    const char *counter_name;      /* "rdtsc", "cntvct_el0", "rdtime" */
    /* When libc's row was not selected: the fastest and slowest rows measured. */
    const char *fastest_id, *slowest_id;
    double fastest_ns, slowest_ns;
};

/* Writes the answer (no newline); "" when nothing was measured. */
void bench_answer(const struct bench_answer_in *in, char *buf, size_t len);

#endif
