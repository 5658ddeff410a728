/* SPDX-License-Identifier: MIT */
/* `clockscope runtimes`: what reading the time costs in each language runtime here
 * (docs/runtimes.md).  Shared by the command's files: the runtime table (runtime_table.c:
 * find each runtime, build and cache its probe), the runs (runtimes_run.c: timed run, count
 * run, rows), the output (runtimes_out.c) and the C probe (probe_c.c). */
#ifndef CLOCKSCOPE_RUNTIMES_H
#define CLOCKSCOPE_RUNTIMES_H

#include "common/message.h"
#include "measure/across.h"
#include "measure/reference.h"
#include "runtimes/probe_parse.h"

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

/* The C probe's raw syscall row: the syscall count's control (one syscall per call). */
#define RUNTIMES_CONTROL_API "syscall(clock_gettime)"
#define RUNTIMES_COUNT_CALLS 1000
#define RUNTIMES_MAX 8

struct runtimes_config {
    const char *python;      /* --python PATH, or NULL: python3 on PATH */
    const char *go_probe;    /* --go-probe PATH: a built Go probe (guests have no go) */
    char probes_dir[PATH_MAX]; /* the probe sources; "" when not found */
    char cache_dir[PATH_MAX];  /* where built probes are kept; "" when there is none */
    char cache_why[PATH_MAX + 200]; /* why there is none: what was tried, what failed */
    int samples, sample_us, timeout_ms;
    int processes;           /* probe runs the timed figures are taken across (issue 29) */
    bool processes_given;    /* --processes N: exactly N, none added when the speed moved */
    bool count;              /* count syscalls (not --no-count) */
};

/* How to run one runtime's probe: argv[0..argc) then the mode's arguments. */
struct probe_cmd {
    char *argv[8];
    int argc;
    char path[4][PATH_MAX];
    char env_name[32], env_value[64]; /* one variable for the probe run ("" none) */
};

enum runtime_state { RT_ABSENT, RT_FAILED, RT_READY };

struct runtime_def {
    const char *name;       /* "python": --only's name and the JSON's "runtime" */
    const char *how_to_get; /* said when it is absent */
    /* Finds the runtime and readies its probe (building it, or taking the cached one).
     * RT_ABSENT / RT_FAILED fill why. */
    enum runtime_state (*prepare)(const struct runtimes_config *cfg, struct probe_cmd *cmd,
                                  char *why, size_t whylen);
    /* Its share of a run, for --progress: seconds one run took on the development machine
     * (a 2-CPU KVM guest, default options, the probe built), so that Python's slow loop is
     * not counted as one step like C's. */
    double expected_s;
};

extern const struct runtime_def runtime_defs[];
extern const size_t runtime_ndefs;
const struct runtime_def *runtime_find(const char *name);
/* The probe sources' directory and the cache directory, into cfg. */
void runtimes_locate(struct runtimes_config *cfg);

/* One row of the result: an API measured, or a runtime absent or failed (api ""). */
struct runtime_row {
    const char *runtime;
    enum runtime_state state;    /* RT_READY: measured */
    char version[PROBE_TOKEN];
    char program[PATH_MAX];      /* what ran (the interpreter or the built probe) */
    char api[PROBE_TOKEN], clock[PROBE_TOKEN], via[PROBE_TOKEN], harness[PROBE_TOKEN];
    char why[MSG_REASON];        /* absent / failed: why */
    double ns_per_call;          /* median net of the harness median */
    double timed_ns, harness_ns; /* medians per call as timed, harness alone */
    double p10_ns, p90_ns;       /* net of the harness median */
    double spread;               /* (p90 - p10) / median of the timed figures */
    bool noisy, harness_bound;   /* spread > 10%; harness >= 80% of the figure */
    int nsamples;
    unsigned long long iterations;
    bool counted;                /* syscalls known */
    double syscalls_per_call;
    char count_why[MSG_REASON];  /* why not counted */
    /* Across the probe's processes (each its own run: its own memory layout; Python its
     * own PYTHONHASHSEED): the figures above are medians over them. */
    int nproc;
    double proc_ns[ACROSS_MAX];       /* each process's ns_per_call */
    double proc_timed_ns[ACROSS_MAX]; /* each process's as-timed median */
    unsigned proc_seed[ACROSS_MAX];   /* PYTHONHASHSEED of each (0: not set) */
    struct across across;             /* over proc_ns */
    /* The reference timed around each pair in the same process (probes that give one:
     * measure/reference.h): whether the machine's speed moved during the run, and the
     * figure relative to it, which holds when it did. */
    bool has_ref;
    char ref[PROBE_TOKEN];            /* what the reference loop calls: "abs(-1)" */
    double proc_ref_ns[ACROSS_MAX];   /* each process's reference, ns per loop turn */
    double proc_rel[ACROSS_MAX];      /* each process's ns_per_call / reference */
    struct reference_verdict refv;    /* over the processes */
    bool proc_at_speed[ACROSS_MAX];   /* ran at the run's fastest speed (reference.h):
                                       * when the reference moved, the figure is theirs */
};

/* A row whose spread is above this is noisy (marked '*'). */
#define RUNTIMES_NOISY_SPREAD 0.10

struct runtimes_result {
    struct runtime_row rows[RUNTIMES_MAX * PROBE_MAX_ROWS];
    int nrows;
    bool counted;                /* the control held: counts are trusted */
    char count_why[MSG_REASON];
};

/* Measures one runtime: its rows appended to res. */
void runtimes_measure(const struct runtime_def *def, const struct runtimes_config *cfg,
                      struct runtimes_result *res);
/* Runs the C probe's count alone: the control of every count; fills res->counted/why. */
void runtimes_check_count(const struct runtimes_config *cfg, struct runtimes_result *res);

struct sysinfo;
/* The table; verbose: each marked row's sentence under it (else one summary after it). */
void runtimes_print_table(const struct sysinfo *si, const struct runtimes_result *res,
                          bool verbose);
void runtimes_print_json(const struct sysinfo *si, const struct runtimes_result *res,
                         const struct runtimes_config *cfg);

/* The C probe (this binary with CLOCKSCOPE_RUNTIMES_PROBE=c): argv[2..] are the mode's. */
int runtimes_probe_c_main(int argc, char **argv);

#endif
