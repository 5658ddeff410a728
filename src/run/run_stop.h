/* SPDX-License-Identifier: MIT */
/* Every thread of a running process stopped by ptrace, for run -p and --undo (docs/run.md,
 * "A running process"): seized and interrupted, the thread list read again until it is
 * stable (a thread created meanwhile is seized too), none standing in an address range that
 * must not be executing while run writes. */
#ifndef CLOCKSCOPE_RUN_STOP_H
#define CLOCKSCOPE_RUN_STOP_H

#include "run/run_trace.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define RUN_STOP_MAX_THREADS 4096

struct run_stopped {
    pid_t tid[RUN_STOP_MAX_THREADS];
    /* The signal a thread stands at (its signal-delivery stop), handed over at the detach;
     * 0 for an event or group stop.  inj's is in main_taken instead, with the signals the
     * injected syscalls made it dequeue. */
    int sig[RUN_STOP_MAX_THREADS];
    int n;
    pid_t inj; /* the thread the syscalls run in: the main thread, unless it has ended */
    struct run_trace_signals main_taken;
};

/* An address range no stopped thread may stand in: bytes about to be written, or code
 * whose result must not come after the writes. */
struct run_avoid {
    uint64_t lo, hi;
    bool soft; /* given up after half the rounds */
};

/* Stops every thread with no PC in an avoided range and one thread free to run the steps.
 * A thread found in a range (or, when no thread is free, the main thread) runs on alone
 * for 0.2 ms and is stopped again, the others staying stopped: a thread reading the time
 * without pause is in the vDSO or the reader a good part of the time, and all threads
 * being outside at once grows unlikely with their number.  Threads it creates meanwhile
 * are seized too.  0 or an errno value. */
int run_stop_outside(pid_t pid, struct run_stopped *s, const struct run_avoid *a, size_t na,
                     char *why, size_t whylen);

/* Lets every thread of s go, each with the signal it stood at (inj's given back). */
void run_stop_let_go(pid_t pid, struct run_stopped *s);

#endif
