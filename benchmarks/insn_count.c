/* SPDX-License-Identifier: MIT */
/* benchmarks/bench_run_patterns.py's instruction count: how many instructions one
 * clock_gettime through libc executes (the vDSO, patched by `clockscope run` or not), and
 * how many of them transfer control (a jump, call or return taken: the next instruction is
 * not the one after it).  Counted by single-stepping a forked child (ptrace), so the count
 * does not depend on the machine's load, and works where no hardware counter is exposed
 * (a VM without a PMU, where `perf stat -e instructions` says "not supported").  A child
 * forked from a served program stays served (its mapping of the reader and the line is
 * inherited), so `clockscope run -- insn_count` counts the served path.
 *   insn_count CLOCK_ID [ROUNDS]   "insns N transfers M" (the smallest of ROUNDS, default 5:
 *                                   a round that met a line being refreshed runs longer)
 * Built static (gcc -static).  x86_64 only. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
/* The child: stop, read (or not), stop; what lies between the two stops is counted. */
static void child(int clock_id, int read)
{
    struct timespec ts;
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) != 0)
        _exit(3);
    /* Warm: the first call of the process is not the one counted. */
    clock_gettime(clock_id, &ts);
    raise(SIGSTOP);
    if (read)
        clock_gettime(clock_id, &ts);
    raise(SIGSTOP);
    _exit(0);
}

/* Steps from the first stop to the second: instructions and control transfers. */
static int count(int clock_id, int read, long *insns, long *transfers)
{
    pid_t pid = fork();
    if (pid == 0)
        child(clock_id, read);
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st))
        return -1;
    long n = 0, jumps = 0;
    uint64_t prev = 0;
    for (;;) {
        if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0 || waitpid(pid, &st, 0) != pid)
            return -1;
        if (!WIFSTOPPED(st))
            return -1;
        if (WSTOPSIG(st) == SIGSTOP)
            break;
        struct user_regs_struct r;
        ptrace(PTRACE_GETREGS, pid, NULL, &r);
        /* x86 instructions are at most 15 bytes: a RIP outside (prev, prev + 15] is a
         * transfer (a rare short forward jump is not seen: the count is a lower bound). */
        if (n && (r.rip <= prev || r.rip > prev + 15))
            jumps++;
        prev = r.rip;
        n++;
    }
    kill(pid, SIGKILL);
    waitpid(pid, &st, 0);
    *insns = n, *transfers = jumps;
    return 0;
}

int main(int argc, char **argv)
{
    int id = argc > 1 ? atoi(argv[1]) : CLOCK_MONOTONIC, rounds = argc > 2 ? atoi(argv[2]) : 5;
    long best = -1, best_j = 0, base = -1, base_j = 0;
    for (int i = 0; i < rounds; i++) {
        long n, j;
        if (count(id, 1, &n, &j) != 0 || (best >= 0 && n >= best))
            continue;
        best = n, best_j = j;
    }
    for (int i = 0; i < rounds; i++) {
        long n, j;
        if (count(id, 0, &n, &j) != 0 || (base >= 0 && n >= base))
            continue;
        base = n, base_j = j;
    }
    if (best < 0 || base < 0) {
        fprintf(stderr, "insn_count: could not single-step a child (ptrace denied?)\n");
        return 1;
    }
    /* The stops' own instructions (raise) counted once without the read: subtracted. */
    printf("insns %ld transfers %ld\n", best - base, best_j - base_j);
    return 0;
}
#else
int main(void)
{
    fprintf(stderr, "insn_count: x86_64 only\n");
    return 2;
}
#endif
