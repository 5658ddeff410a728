/* SPDX-License-Identifier: MIT */
/* What `clockscope profile` shows: the tally and where it came from, the notes that say
 * where the time really goes (profile_notes.c), as a table or clockscope.profile/2 JSON
 * (profile_output.c). */
#ifndef CLOCKSCOPE_PROFILE_VIEW_H
#define CLOCKSCOPE_PROFILE_VIEW_H

#include "facts/sysinfo.h"
#include "profile/count_table.h"
#include "profile/perf_access.h"
#include "profile/runtime_hint.h"
#include "profile/tally.h"

#include <stdbool.h>
#include <stdio.h>

#define PROFILE_MAX_NOTES 8

struct profile_view {
    const struct tally *t;
    const char *source;          /* "live", "perf-script", "perf-report", "perf-data" */
    const char *input;           /* the file read, NULL live */
    bool live;
    enum profile_target target;
    char **command;              /* live -- COMMAND */
    int pid;
    double seconds;              /* -p, -a */
    int command_status;          /* live: the command's exit status, -1 unknown */
    double elapsed_s;            /* live: perf record's wall time, < 0 unknown */
    const struct sysinfo *machine; /* live only */
    int top;                     /* symbols and call sites shown */
    double counter_ns;           /* live: the cheapest counter read (counter_cost.h), < 0 not measured */
    char counter_id[64];         /* its bench id */
    const struct count_table *counts; /* --count: run --mode count's tables, NULL none */
    bool dwarf;                  /* live: --call-graph dwarf (else frame pointers) */
    struct runtime_hint runtime; /* live -- COMMAND or --pid: the program's runtime */
    char notes[PROFILE_MAX_NOTES][600];
    int nnotes;
};

/* Appends the notes that the tally calls for (pure). */
void profile_notes(struct profile_view *v);
/* Appends one note (printf-style); ignored past PROFILE_MAX_NOTES. */
void profile_note(struct profile_view *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void profile_print_table(FILE *out, const struct profile_view *v);
void profile_print_json(FILE *out, const struct profile_view *v);

#endif
