/* SPDX-License-Identifier: MIT */
/* The live proof: not what the names say, but what the calls do.
 *
 * Syscall counting: a forked child installs a seccomp filter that answers
 * clock_gettime / gettimeofday / time (and clock_gettime64 where it exists) with
 * SECCOMP_RET_TRAP, so that every one of these syscalls, wherever it comes from (libc,
 * the vDSO's own fallback), raises SIGSYS.  The handler counts it and performs the call
 * itself, marked with a magic third argument the filter lets through, and puts the result
 * in the return register: the program sees correct times, and we see how many syscalls
 * N library calls really made.  A control loop of raw syscalls must count exactly N, or
 * the count is not trusted.  Needs no privilege (PR_SET_NO_NEW_PRIVS); where seccomp is
 * missing (qemu-user refuses it, old kernels) the proof says so and the timing decides.
 *
 * Timing: the measurement engine (measure_method) times libc clock_gettime against the
 * raw syscall and the raw counter read, with a short configuration (docs/doctor.md). */
#ifndef CLOCKSCOPE_PROOF_H
#define CLOCKSCOPE_PROOF_H

#include <stdbool.h>

#include "common/message.h"
#include "common/stats.h"

#define PROOF_CALLS 1000
#define PROOF_MAX_TIMINGS 8

/* The two controls: raw syscalls (the filter sees them) and CLOCK_PROCESS_CPUTIME_ID
 * through libc (never served by the vDSO: its fallback syscall must be seen too). */
enum proof_call { PC_MONOTONIC, PC_REALTIME, PC_GETTIMEOFDAY, PC_CONTROL, PC_CPUTIME, PC_COUNT };

struct proof_timing {
    char id[64];          /* the bench method id */
    bool ok;
    double ns_per_call;   /* median, net of loop cost */
    double min_ns;        /* the fastest sample, net of loop cost (0: not known): what the
                           * operation costs when nothing interrupts it */
    double spread;
    bool noisy;
    struct summary cost;  /* the whole summary, net of loop cost (n 0: only ns_per_call) */
    char why[MSG_REASON];
};

struct proof {
    bool ran;                        /* the proof was attempted (live runs only) */
    bool counted;                    /* syscall counts are valid */
    char count_why[MSG_LINE];        /* why not, when !counted */
    long calls;                      /* N */
    long syscalls[PC_COUNT];         /* syscalls made by N calls of each */
    long call_errors[PC_COUNT];      /* calls that returned an error */
    long backwards;                  /* MONOTONIC readings lower than the one before */
    bool vdso_present;
    char vdso_why[MSG_LINE];
    int ntimings;
    struct proof_timing timing[PROOF_MAX_TIMINGS];
    long res_ns_monotonic, res_ns_monotonic_coarse, res_ns_realtime_coarse; /* -1 unknown */
    double elapsed_s;
    double count_deadline_s;         /* the counting child's deadline, scaled to this machine */
    double probe_syscall_ns;         /* the raw syscall cost it was scaled by */
};

void proof_run(struct proof *p);
/* The call as bench names the same method ("libc.clock_gettime.monotonic"): the id that
 * metrics' labels, bench and warp share, so that series of one method join. */
const char *proof_call_method(enum proof_call c);
const char *proof_call_name(enum proof_call c);
const struct proof_timing *proof_timing_find(const struct proof *p, const char *id);
/* Pure: the counting child's deadline (s) on a machine where libc's clock_gettime costs
 * libc_call_ns and a raw syscall syscall_ns. */
double proof_child_deadline_s(double libc_call_ns, double syscall_ns);

#endif
