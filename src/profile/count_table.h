/* SPDX-License-Identifier: MIT */
/* The table `clockscope run --mode count --output FILE` appends at each counted process's
 * exit (src/shim/shim_count.c), read back for `profile --count`: calls and calls/s per
 * clock, per process.  Pure: buffer in, table out, an error naming the line. */
#ifndef CLOCKSCOPE_PROFILE_COUNT_TABLE_H
#define CLOCKSCOPE_PROFILE_COUNT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define COUNT_MAX_PROCS 16
#define COUNT_MAX_CALLS 16

struct count_call {
    char call[96];           /* "clock_gettime(CLOCK_MONOTONIC)", "gettimeofday", "time" */
    uint64_t calls;
    double calls_per_sec;
};

struct count_proc {
    int pid;
    char program[160];
    double seconds;          /* from the shim's start to the table */
    int ncalls;
    struct count_call calls[COUNT_MAX_CALLS];
};

struct count_table {
    int nprocs;              /* processes past COUNT_MAX_PROCS are dropped (dropped counts) */
    int dropped;
    struct count_proc procs[COUNT_MAX_PROCS];
};

bool count_table_parse(const char *buf, size_t len, struct count_table *t, char *why, size_t whylen);

#endif
