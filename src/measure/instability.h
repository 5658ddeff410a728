/* SPDX-License-Identifier: MIT */
/* A run's instability said once: which rows of a table carry the one mark '*' (the
 * machine's speed moved more than the figure's own spread, or the figure is noisy),
 * counted over the rows, and at most three lines after the table saying how many, by how
 * much the reference moved, and what on this machine may have moved it (cpufreq governor,
 * turbo, a VM, other work), with the command that steadies it on a line of its own.
 * bench and runtimes print it; the per-row sentences (measure/reference.h) are --verbose's.
 * Pure but for instability_read_machine (sysfs) and instability_test_drift (a test hook). */
#ifndef CLOCKSCOPE_INSTABILITY_H
#define CLOCKSCOPE_INSTABILITY_H

#include "common/json.h"
#include "common/message.h"
#include "measure/reference.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* A reference that moved less than this (10%) never marks a figure: a counter read's
 * reference moves 3-5% on a quiet machine, and a mark on every row says nothing. */
#define INSTABILITY_MOVE_MIN 0.10
/* The width every line of the summary (but a command) keeps within. */
#define INSTABILITY_COLUMNS 100
#define INSTABILITY_LINES 3
/* The most rows whose reference medians are kept (bench has fewer methods). */
#define INSTABILITY_ROWS_MAX 256

/* What the rows said, accumulated by instability_add. */
struct instability {
    size_t figures;          /* rows with a figure */
    size_t marked;           /* rows marked '*': unstable + noisy */
    size_t unstable;         /* the reference moved beyond the figure's spread and 10% */
    size_t noisy;            /* not unstable, spread above noisy_spread */
    size_t bimodal;          /* two levels across processes (the lower shown, '~') */
    double ref_min, ref_max; /* the unstable rows' references' extremes (ns; NAN none) */
    double move_max;         /* the largest move among them (0.32: up to 32%) */
    double ref_medians[INSTABILITY_ROWS_MAX]; /* the unstable rows' references' medians */
    double noisy_spread;     /* the bound a noisy figure's spread is above */
};

/* What the machine says may move a figure, read once (instability_read_machine). */
struct instability_machine {
    char governor[32];        /* cpu0's cpufreq scaling governor; "" unknown */
    int turbo;                /* 1 on, 0 off, -1 unknown */
    char turbo_command[160];  /* the sysfs write that turns it off; "" none */
    char virtualization[96];  /* "" or "none": not a VM */
    double loadavg_1m;        /* -1 unknown */
    int cpus_online;
};

void instability_init(struct instability *s, double noisy_spread);

/* Whether a figure is unstable: its reference (v, may be NULL) moved, from the fastest
 * process's median to the slowest's, by more than the figure's own spread and more than
 * INSTABILITY_MOVE_MIN. */
bool instability_moved(const struct reference_verdict *v, double spread);

/* One row: counts it and returns whether it carries '*'. */
bool instability_add(struct instability *s, const struct reference_verdict *v, double spread,
                     bool noisy, bool bimodal);

/* v as a row's sentence should see it: moved only when instability_moved says so. */
struct reference_verdict instability_shown(const struct reference_verdict *v, double spread);

/* Reads the governor and turbo under sysroot ("" the live /sys) and the rest from the
 * facts already gathered (virtualization, load average, online CPUs). */
void instability_read_machine(const char *sysroot, const char *virtualization,
                              double loadavg_1m, int cpus_online, struct instability_machine *m);

/* The summary's lines (at most INSTABILITY_LINES, none when nothing is marked or
 * bimodal): what was marked and why, the likely cause, and the command (4 spaces, then
 * the command: never wrapped).  Returns how many. */
size_t instability_lines(const struct instability *s, const struct instability_machine *m,
                         char lines[INSTABILITY_LINES][MSG_REASON]);
void instability_print(FILE *out, const struct instability *s, const struct instability_machine *m);

/* "stability": the counts, the bound, the reference's extremes, the machine's facts, the
 * commands and the summary's lines (docs/json.md). */
void instability_json(struct json *j, const struct instability *s,
                      const struct instability_machine *m);

/* The spread cell: "2.5%", "131%", ">999%", with '*' after it when marked, else ' '. */
const char *instability_spread_cell(double spread, bool marked, char *buf, size_t len);

/* The test hook CLOCKSCOPE_TEST_REFERENCE_DRIFT=F (common/environment.h): process i of n's
 * reference scaled by 1 + F i / (n - 1), as a machine whose speed falls through the run.
 * Returns F, 0 when unset. */
double instability_test_drift(double *ref, size_t n);

#endif
