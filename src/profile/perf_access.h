/* SPDX-License-Identifier: MIT */
/* May perf sample here, and how much: perf_event_paranoid and privileges -> a plan or a
 * refusal that says the value and what would be needed (never changing anything); and,
 * where perf is missing, which package provides it on this distribution. */
#ifndef CLOCKSCOPE_PROFILE_PERF_ACCESS_H
#define CLOCKSCOPE_PROFILE_PERF_ACCESS_H

#include <stdbool.h>
#include <stddef.h>

#include "common/message.h"

/* TARGET_CLOCK_LOOP: this process itself (perf record -p), reading CLOCK_MONOTONIC through
 * libc in a loop while perf records: the built-in workload of `profile --clock-loop`. */
enum profile_target { TARGET_COMMAND, TARGET_PID, TARGET_ALL, TARGET_CLOCK_LOOP };

struct perf_access {
    bool paranoid_known;
    int paranoid;       /* kernel.perf_event_paranoid */
    bool privileged;    /* root, or CAP_PERFMON / CAP_SYS_ADMIN in the effective set */
};

struct perf_plan {
    bool allowed;
    bool user_only;     /* sample user space only (event:u): kernel frames are not allowed */
    char why[MSG_REASON]; /* the refusal, or the limit of what is allowed ("" when none) */
};

/* Pure: what this access allows for this target. */
void perf_plan_for(const struct perf_access *a, enum profile_target target, struct perf_plan *p);

/* This process's access: /proc/sys/kernel/perf_event_paranoid (read here: a permission of
 * the profiler, not a fact about the clock, so not in the machine model), the effective
 * user and capabilities (/proc/self/status CapEff). */
void perf_access_read(struct perf_access *a);

/* "perf is not installed: ..." with the package that provides it, from an os-release
 * text (ID and ID_LIKE); pure. */
void perf_missing_message(const char *os_release, char *out, size_t len);

#endif
