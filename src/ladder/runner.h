/* SPDX-License-Identifier: MIT */
/* Every measurement of the ladder runs in a disposable child process, a *runner*: its
 * threads and its own children can never outlive the command, and one that deadlocks is
 * killed at its deadline and reported, while the rest of the ladder goes on.
 *
 *  - the runner and every process it forks set PR_SET_PDEATHSIG(SIGKILL) and then check
 *    getppid() (the parent may have died before the prctl): killing `clockscope ladder` in
 *    any way (SIGTERM, SIGINT, SIGKILL) kills the runner, which kills its own children;
 *  - the result comes back through a MAP_SHARED mapping made before the fork;
 *  - the parent waits on a pidfd (poll with a timeout), falling back to polling waitpid on
 *    kernels without pidfd_open. */
#ifndef CLOCKSCOPE_LADDER_RUNNER_H
#define CLOCKSCOPE_LADDER_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "common/message.h"

struct runner_outcome {
    bool ok;          /* the runner exited 0: the shared result is valid */
    bool timed_out;   /* killed at its deadline */
    int signal;       /* the signal that ended it (other than the deadline's), else 0 */
    int exit_status;  /* its exit status when it exited */
    double elapsed_s;
    char why[MSG_LINE]; /* when not ok: what happened, in words */
};

/* A MAP_SHARED anonymous mapping of len bytes (zeroed), or NULL. */
void *runner_shared_alloc(size_t len);
void runner_shared_free(void *p, size_t len);

/* Runs fn(shared, arg) in a runner; fn's return value is the runner's exit status.
 * Kills it (SIGKILL) after timeout_s. */
bool runner_run(int (*fn)(void *shared, const void *arg), void *shared, const void *arg,
                double timeout_s, struct runner_outcome *out);

/* In a runner: fork a child that dies with its parent (PDEATHSIG + getppid check).
 * Returns fork()'s value. */
pid_t runner_fork_child(void);

#endif
