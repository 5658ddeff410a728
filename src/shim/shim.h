/* SPDX-License-Identifier: MIT */
/* libclockscope-shim.so, preloaded by `clockscope run` (docs/run.md).  The environment
 * `run` sets is the protocol between the two:
 *   CLOCKSCOPE_RUN_MODE     auto | fast | coarse | count
 *   CLOCKSCOPE_RUN_COARSE   coarse mode: bit mask of the clock ids answered from *_COARSE
 *   CLOCKSCOPE_RUN_INHERIT  1: leave LD_PRELOAD as it is for programs this one executes
 *   CLOCKSCOPE_RUN_FOLLOW_PID  the command is a script: follow it into what it execs (shim_env.c)
 *   CLOCKSCOPE_RUN_OUTPUT   count mode: append the table to this file instead of stderr
 *   CLOCKSCOPE_RUN_VERBOSE  1: say on stderr at start what is served and why
 *   CLOCKSCOPE_RUN_SLOW     test hook for auto: 1 = treat the kernel path as slow, 0 = fast */
#ifndef CLOCKSCOPE_SHIM_H
#define CLOCKSCOPE_SHIM_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define SHIM_MAX_CLOCK 16 /* clock ids 0..15 have per-clock decisions and counters */

typedef int (*real_clock_gettime_fn)(clockid_t, struct timespec *);

/* Count mode (shim_count.c). */
void shim_count_start(void);
void shim_count_clock(clockid_t id, const void *caller);
void shim_count_call(int which, const void *caller); /* 0 gettimeofday, 1 time */
void shim_count_report(void);
void shim_count_after_fork(void);

/* At start: keeps `self` (the shim's path) in LD_PRELOAD or removes it, as `run` asked
 * (CLOCKSCOPE_RUN_INHERIT, CLOCKSCOPE_RUN_FOLLOW_PID: shim_env.c); false when this process
 * is one a wrapper script started rather than the program, which the shim leaves alone. */
bool shim_env_start(const char *self);
/* A process forked (not exec'd into) by a followed wrapper script: a subshell, say. */
bool shim_env_in_wrapper_child(void);

#endif
