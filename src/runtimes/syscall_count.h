/* SPDX-License-Identifier: MIT */
/* Counting another program's time syscalls, attributed to the lines of its output.
 *
 * The doctor's proof counts its own calls with a SIGSYS handler; a handler does not
 * survive exec, so for a program in another language the same filter
 * (measure/time_filter.h) answers with SECCOMP_RET_USER_NOTIF instead: the
 * child installs it, hands the listener to us over a socket (SCM_RIGHTS) and execs the
 * program; we count each notification and let the syscall continue
 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the program sees real times.  The program writes a
 * line before each batch of calls ("mark API"); its stdout is drained before each
 * notification is taken, so a syscall is counted against the lines written before it.
 * Needs Linux 5.5 (CONTINUE) and seccomp filters; without them it says why. */
#ifndef CLOCKSCOPE_SYSCALL_COUNT_H
#define CLOCKSCOPE_SYSCALL_COUNT_H

#include <stdbool.h>
#include <stddef.h>

#define COUNT_MAX_LINES 64

struct count_result {
    char *out;                          /* its stdout (malloc'ed, NUL-terminated) */
    size_t len;
    long after_line[COUNT_MAX_LINES + 1]; /* [k]: syscalls made once exactly k whole lines
                                            were out (the last slot: k >= COUNT_MAX_LINES) */
    long total;
    bool timed_out;
    int exit_status;                    /* -1: killed by a signal */
    int signal;
};

/* Runs argv (a path, no PATH lookup) with stdin and stderr on /dev/null, counting.  false:
 * why says why it could not count (the program may not have run at all). */
bool count_syscalls_run(char *const argv[], int timeout_ms, size_t cap, struct count_result *r,
                        char *why, size_t whylen);

#endif
