/* SPDX-License-Identifier: MIT */
/* Whether a running process may be served or undone (run -p, --undo), decided before
 * anything in it changes (docs/run.md, "What is refused").  Each check returns true, or
 * false with the refusal in why. */
#ifndef CLOCKSCOPE_RUN_FIT_H
#define CLOCKSCOPE_RUN_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* A process that exists, is this user's (or run is root), has no tracer, and (attach) is
 * not a dynamic program the shim serves better. */
bool run_fit_to_serve(pid_t pid, bool attach, char *why, size_t whylen);
/* What could make a step or a jump harm it, checked before the threads are stopped and
 * again once they are (nothing of it can change then, but through a process sharing its
 * memory, which is refused): its vDSO mapped r-x (a step runs there: a fault would be a
 * signal the kernel forces on the program); no seccomp filter on any thread (its action
 * could kill the program at a step's syscall); no other process sharing its memory
 * (clone(CLONE_VM) without CLONE_THREAD, a vfork child before its exec: such a process is
 * not stopped, and could run into a jump while it is written).  A time namespace is no
 * reason: the reader learns the process's own at its first read (reader.c). */
bool run_fit_to_touch(pid_t pid, char *why, size_t whylen);
/* Why PTRACE_SEIZE of thread tid failed with EPERM when the process had no tracer a moment
 * before: another tracer came first (another run -p: named).  false when no tracer is seen
 * (the policy forbids ptrace). */
bool run_fit_tracer_came(pid_t pid, pid_t tid, char *why, size_t whylen);

#endif
