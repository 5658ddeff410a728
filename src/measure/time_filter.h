/* SPDX-License-Identifier: MIT */
/* The seccomp filter that catches a process's time syscalls: the doctor's proof counts its
 * own (SIGSYS), `runtimes` another program's (a user notification: a SIGSYS handler does not
 * survive exec).  Only the filter is shared; what happens to a caught call is the caller's. */
#ifndef CLOCKSCOPE_MEASURE_TIME_FILTER_H
#define CLOCKSCOPE_MEASURE_TIME_FILTER_H

/* The third argument that marks a catcher's own calls: clock_gettime, gettimeofday and
 * time take at most two, so the kernel ignores it, and the filter lets them through. */
#define TIME_FILTER_MAGIC 0x5ecc0de7ea5e1100ull
/* Entries time_filter_build fills at most. */
#define TIME_FILTER_MAX 24

struct sock_filter;
/* The time syscalls (clock_gettime, gettimeofday, time, and clock_gettime64 where it
 * exists) answered with `action`, except calls carrying TIME_FILTER_MAGIC; everything else,
 * and every call of another syscall ABI, allowed.  Fills f (TIME_FILTER_MAX entries) and
 * returns its length. */
int time_filter_build(struct sock_filter *f, unsigned int action);

#endif
