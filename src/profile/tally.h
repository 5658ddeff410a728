/* SPDX-License-Identifier: MIT */
/* A profile's tally: samples attributed to categories (attribution.h), the clocksources
 * read, the symbols that read the time and their call sites.  Both parsers feed it: perf
 * script one call chain at a time (tally_chain), perf report one entry at a time
 * (tally_entry).  Pure: fixed-size tables, no allocation, no I/O. */
#ifndef CLOCKSCOPE_PROFILE_TALLY_H
#define CLOCKSCOPE_PROFILE_TALLY_H

#include "profile/attribution.h"

#include <stdbool.h>
#include <stdint.h>

#define TALLY_NAMES 48       /* symbols and call sites kept; the rest add to "(others)" */
#define TALLY_CLOCKSOURCES 12
#define TALLY_MAX_FRAMES 256 /* frames of one chain looked at (perf's default max is 127) */

struct tally_name {
    char name[128];
    char dso[96];
    enum profile_category category;   /* symbols: the category they were attributed to */
    double weight;
};

struct tally {
    double weight[CAT_COUNT]; /* perf script: samples; perf report: percent of all samples */
    double total;             /* the weight of all samples (script: samples; report: 100) */
    uint64_t samples;         /* samples seen (script) or the header's count (report) */
    bool no_samples;          /* perf recorded none: samples 0 is known, not unstated */
    bool from_report;         /* weights are perf report percentages */
    bool children_columns;    /* perf report had Children and Self: Self was used */
    bool report_chains;       /* perf report -g folded chains were attributed */
    bool kernel_frames;       /* any kernel frame seen */
    bool kernel_entry_unattributed; /* samples inside kernel entry with no syscall named */
    double entry_weight;      /* their weight */
    double interrupted_weight; /* an interrupt or fault inside a user-space time read */
    double fallback_weight;   /* kernel time (syscall, clocksource) under a user-space time
                               * frame: the vDSO or libc falling back to the syscall */
    char event[64];           /* "cpu-clock", from the header or the samples */
    unsigned arches;          /* bit i: an arch-specific row of arch i matched (tally_arch_name) */
    struct tally_name clocksources[TALLY_CLOCKSOURCES];
    int nclocksources;
    struct tally_name symbols[TALLY_NAMES]; /* the innermost time frame of each sample */
    int nsymbols;
    struct tally_name call_sites[TALLY_NAMES]; /* the frame that called the time read */
    int ncall_sites;
    double dropped_names;     /* weight of names past the tables' end */
};

void tally_init(struct tally *t);

/* One perf script sample: frames[0] is the leaf (where the sample hit), then its callers. */
void tally_chain(struct tally *t, const struct attr_frame *frames, int nframes, double weight);

/* The attribution of tally_chain without counting a sample: a perf report -g folded chain,
 * weighted by its percentage. */
void tally_attribute(struct tally *t, const struct attr_frame *frames, int nframes, double weight);

/* One perf report entry: its self percentage and its one frame. */
void tally_entry(struct tally *t, const struct attr_frame *frame, double percent);

/* Percent of all samples in category c (0 when there are none). */
double tally_percent(const struct tally *t, enum profile_category c);
/* Percent of all samples reading the time, by any path. */
double tally_time_percent(const struct tally *t);
/* A weight as a percent of all samples. */
double tally_share(const struct tally *t, double weight);

/* The arch bit's name ("x86_64", ...), NULL past the last. */
const char *tally_arch_name(int bit);

/* Sorts the name tables by weight, largest first. */
void tally_sort(struct tally *t);

#endif
