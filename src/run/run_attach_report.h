/* SPDX-License-Identifier: MIT */
/* What run -p and --undo say (run_attach.c does the work): refusals, the threads a stop made
 * return EINTR, and with --verbose what was done. */
#ifndef CLOCKSCOPE_RUN_ATTACH_REPORT_H
#define CLOCKSCOPE_RUN_ATTACH_REPORT_H

#include "run/run_stop.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* "clockscope run: cannot VERB pid PID: WHY" (verb: "serve" or "undo"). */
void run_attach_say_cannot(pid_t pid, const char *verb, const char *why);
/* "clockscope run: pid PID is not served: WHY". */
void run_attach_say_not_served(pid_t pid, const char *why);
/* Why run_stop_outside's errno value err refused to serve pid: for EPERM, what forbids
 * ptrace (Yama's scope, else seccomp or a container), else why or the errno's text. */
void run_attach_say_refusal(pid_t pid, int err, const char *why);
/* Says which stopped threads were in a call the stop made return EINTR (the kernel does so
 * for any ptrace stop: strace -p and gdb too): the program sees -1 EINTR there, which a
 * service written for signals handles, and its operator should know of. */
void run_attach_say_interrupted(pid_t pid, const struct run_stopped *s, const char *verb);

/* The reasons run -p gives for a vDSO it does not patch: it jumps to run's reader at region
 * already; it has no scratch bytes for the injected step. */
void run_attach_served_already(char *why, size_t whylen, uint64_t region, pid_t pid);
void run_attach_no_scratch(char *why, size_t whylen);

/* --verbose: pid's vDSO patched as how says, and what is served. */
void run_attach_say_serving(pid_t pid, const char *how, bool count);

/* --undo: pid's vDSO is not one run patched (it differs elsewhere); writing it back failed
 * with err; it is pristine already; with --verbose, its `patched` entry points are pristine
 * again. */
void run_attach_say_not_ours(pid_t pid);
void run_attach_say_undo_failed(pid_t pid, int err);
void run_attach_say_pristine(pid_t pid);
void run_attach_say_undone(pid_t pid, int patched);

#endif
