/* SPDX-License-Identifier: MIT */
/* The live profile: perf record (call graphs) on a command, a process or every CPU, then
 * perf script read back into a tally (perf_text.h).  perf runs as a child, never through
 * a shell; its data lives in a private temporary directory removed afterwards. */
#ifndef CLOCKSCOPE_PROFILE_PERF_RUN_H
#define CLOCKSCOPE_PROFILE_PERF_RUN_H

#include "profile/perf_access.h"
#include "profile/tally.h"

#include <stdbool.h>

struct perf_run_options {
    enum profile_target target;
    char **command;          /* TARGET_COMMAND: argv, NULL-terminated */
    int pid;                 /* TARGET_PID */
    double seconds;          /* TARGET_PID, TARGET_ALL: how long to sample */
    int frequency;           /* samples per second per CPU */
    const char *event;       /* perf's event name */
    bool user_only;          /* append ":u" (perf_plan_for said so) */
    bool command_stdout_to_stderr; /* --json: keep stdout for the document */
    bool dwarf;              /* --call-graph dwarf: unwind from stack copies (no frame pointers) */
};

struct perf_run_result {
    char event[64];          /* the event as recorded ("cpu-clock:u") */
    int command_status;      /* the command's exit status (perf record's), -1 unknown */
    double elapsed_s;        /* wall time of perf record */
};

/* Runs perf and fills t.  On failure, err says why (perf missing: which package) and
 * false is returned. */
bool perf_run_live(const struct perf_run_options *o, struct tally *t, struct perf_run_result *r,
                   char *err, size_t errlen);

/* perf script on an existing perf.data file into t (--perf-data FILE). */
bool perf_run_script(const char *perf_path, const char *data, struct tally *t, char *why,
                     size_t whylen);

/* Finds perf on PATH into out; false fills err with the package that provides it. */
bool perf_find(char *out, size_t len, char *why, size_t whylen);

#endif
