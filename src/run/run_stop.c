/* SPDX-License-Identifier: MIT */
/* Stopping every thread of a running process (run/run_stop.h).  No thread may be executing
 * the bytes to write: if one is, it runs on alone a moment and is stopped again, a few
 * times, then run refuses. */
#include "run/run_stop.h"
#include "common/clock_ns.h"

#include "arch/inject.h"
#include "common/message.h"
#include "run/run_fit.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>

#define PC_ROUNDS 200

static bool have(const struct run_stopped *s, pid_t t)
{
    for (int i = 0; i < s->n; i++)
        if (s->tid[i] == t)
            return true;
    return false;
}

void run_stop_let_go(pid_t pid, struct run_stopped *s)
{
    for (int i = 0; i < s->n; i++) {
        if (s->tid[i] == s->inj)
            run_trace_detach_giving_back(pid, s->inj, &s->main_taken);
        else
            ptrace(PTRACE_DETACH, s->tid[i], NULL, (void *)(long)s->sig[i]);
    }
    s->n = 0;
}

/* The syscalls run in the main thread, or in another if it has ended or stands at a
 * signal (a signal-delivery stop: its signal is handed over at the detach, and would be
 * lost if run died after a step had replaced that stop).  None free: 0. */
static void pick_inj(pid_t pid, struct run_stopped *s)
{
    s->inj = 0;
    for (int i = 0; i < s->n; i++)
        if (!s->sig[i] && (s->tid[i] == pid || !s->inj))
            s->inj = s->tid[i];
}

/* PTRACE_SEIZE of thread t; 0, EALREADY with the tracer named in why (another tracer
 * holds it, seen at the moment of the refusal: it may be gone a moment later), or the
 * errno.  TRACESYSGOOD: run_heal's steps stop at syscall stops, told apart from a SIGTRAP
 * by the 0x80 bit.  EPERM while no tracer is seen is tried again for up to 50 ms: another
 * run -p that held the thread may have let it go between our seize and our look at its
 * TracerPid (then the seize succeeds, and the vDSO says it is served already); a policy
 * that forbids ptrace answers EPERM throughout. */
static int seize_one(pid_t pid, pid_t t, char *why, size_t whylen)
{
    for (int tries = 0;; tries++) {
        if (ptrace(PTRACE_SEIZE, t, NULL, (void *)(long)PTRACE_O_TRACESYSGOOD) == 0)
            return 0;
        int err = errno;
        if (err != EPERM || run_trace_thread_is_zombie(pid, t))
            return err;
        if (run_fit_tracer_came(pid, t, why, whylen))
            return EALREADY;
        if (tries == 50)
            return err;
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
}

/* Seizes and stops every thread of pid not in s yet, until the list is stable.  0, or an
 * errno value with why (then every thread is let go).
 *
 * A thread is stopped at the first ptrace stop after PTRACE_INTERRUPT, whatever its
 * kind: the event stop the interrupt asks for, a group stop (SIGSTOP'ed: it stays so), or a
 * signal-delivery stop when a signal was being taken first (SIGPROF, Go's SIGURG).  The
 * kernel clears the pending interrupt at ANY ptrace stop ("any trap clears pending STOP
 * trap", ptrace_stop()), so resuming a thread from its signal-delivery stop to wait for the
 * event stop lets it run on with none to come: the attach hung, or ran while a thread
 * believed stopped executed the vDSO being written.  That thread stays where it is, its
 * signal handed back by the detach. */
static int seize_new(pid_t pid, struct run_stopped *s, char *why, size_t whylen)
{
    for (bool grew = true; grew;) {
        grew = false;
        char path[MSG_PROC_PATH];
        snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
        DIR *d = opendir(path);
        if (!d) {
            snprintf(why, whylen, "no process %d", (int)pid);
            run_stop_let_go(pid, s);
            return ESRCH;
        }
        struct dirent *e;
        while ((e = readdir(d))) {
            pid_t t = (pid_t)atoi(e->d_name);
            if (t <= 0 || have(s, t))
                continue;
            if (s->n == RUN_STOP_MAX_THREADS) {
                closedir(d);
                snprintf(why, whylen, "more than %d threads", RUN_STOP_MAX_THREADS);
                run_stop_let_go(pid, s);
                return E2BIG;
            }
            int err = seize_one(pid, t, why, whylen);
            if (err) {
                if (err == ESRCH || (err == EPERM && run_trace_thread_is_zombie(pid, t)))
                    continue; /* it ended (a main thread that called pthread_exit, too) */
                closedir(d);
                run_stop_let_go(pid, s);
                return err;
            }
            ptrace(PTRACE_INTERRUPT, t, NULL, NULL);
            int st = 0;
            pid_t w = run_trace_wait(t, &st, 10000);
            if (w == 0) {
                /* Interrupted but never stopped (a thread in uninterruptible sleep): say
                 * which, never hang. */
                char state[160];
                run_trace_thread_state(pid, t, state, sizeof state);
                closedir(d);
                snprintf(why, whylen, "%s did not stop within 10 s of PTRACE_INTERRUPT", state);
                ptrace(PTRACE_DETACH, t, NULL, NULL);
                run_stop_let_go(pid, s);
                return ETIMEDOUT;
            }
            if (w < 0 || !WIFSTOPPED(st))
                continue; /* it exited */
            s->tid[s->n] = t, s->sig[s->n] = (st >> 16) == 0 ? WSTOPSIG(st) : 0;
            s->n++;
            grew = true;
        }
        closedir(d);
    }
    if (s->n == 0) {
        snprintf(why, whylen, "no thread of it could be stopped (it has ended?)");
        return ESRCH;
    }
    pick_inj(pid, s);
    return 0;
}

static int stop_all(pid_t pid, struct run_stopped *s, char *why, size_t whylen)
{
    s->n = 0, s->inj = 0;
    s->main_taken.n = 0, s->main_taken.stepped = false;
    return seize_new(pid, s, why, whylen);
}

static bool avoided(uint64_t pc, const struct run_avoid *a, size_t n, bool strict)
{
    for (size_t i = 0; i < n; i++)
        if (pc >= a[i].lo && pc < a[i].hi && (strict || !a[i].soft))
            return true;
    return false;
}

static int index_of(const struct run_stopped *s, pid_t t)
{
    for (int i = 0; i < s->n; i++)
        if (s->tid[i] == t)
            return i;
    return -1;
}

/* The threads rerun[0..n) run on for 0.2 ms as if untraced: a signal they stop at is
 * delivered at once (a traced thread stops at every signal; under a storm of them it would
 * otherwise run nothing but its handlers between two rounds). */
static void run_on(struct run_stopped *s, const int *rerun, int n)
{
    for (int k = 0; k < n; k++) {
        int i = rerun[k];
        ptrace(PTRACE_CONT, s->tid[i], NULL, (void *)(long)s->sig[i]);
        s->sig[i] = 0;
    }
    uint64_t t0 = clock_ns_read(CLOCK_MONOTONIC);
    for (;;) {
        if (clock_ns_read(CLOCK_MONOTONIC) - t0 > 200000)
            break;
        int st;
        pid_t w = waitpid(-1, &st, __WALL | WNOHANG);
        if (w <= 0) {
            nanosleep(&(struct timespec){0, 20000}, NULL);
            continue;
        }
        if (index_of(s, w) < 0 || !WIFSTOPPED(st))
            continue; /* an exit: the interrupt below finds it gone */
        ptrace(PTRACE_CONT, w, NULL, (void *)(long)((st >> 16) == 0 ? WSTOPSIG(st) : 0));
    }
}

int run_stop_outside(pid_t pid, struct run_stopped *s, const struct run_avoid *a, size_t na,
                     char *why, size_t whylen)
{
    int e = stop_all(pid, s, why, whylen);
    if (e)
        return e;
    if (!run_fit_to_touch(pid, why, whylen)) {
        run_stop_let_go(pid, s);
        return ECANCELED;
    }
    static int rerun[RUN_STOP_MAX_THREADS];
    for (int round = 0; round < PC_ROUNDS; round++) {
        int n = 0;
        for (int i = 0; i < s->n; i++) {
            struct arch_regs r;
            if (!arch_inject_get_regs(s->tid[i], &r) &&
                avoided(arch_inject_pc(&r), a, na, round < PC_ROUNDS / 2))
                rerun[n++] = i;
        }
        if (n == 0 && s->inj)
            return 0;
        if (n == 0) {
            for (int i = 0; i < s->n; i++)
                if (s->tid[i] == pid || n == 0)
                    rerun[0] = i, n = 1;
        }
        run_on(s, rerun, n);
        for (int k = n - 1; k >= 0; k--) {
            int i = rerun[k];
            pid_t t = s->tid[i];
            ptrace(PTRACE_INTERRUPT, t, NULL, NULL);
            int st = 0;
            pid_t w = run_trace_wait(t, &st, 10000);
            if (w == 0) {
                run_trace_thread_state(pid, t, why, whylen);
                strncat(why, " did not stop within 10 s of PTRACE_INTERRUPT", whylen - strlen(why) - 1);
                run_stop_let_go(pid, s);
                return ETIMEDOUT;
            }
            if (w < 0 || !WIFSTOPPED(st)) { /* it ended: off the list */
                s->tid[i] = s->tid[s->n - 1], s->sig[i] = s->sig[s->n - 1];
                s->n--;
                continue;
            }
            s->sig[i] = (st >> 16) == 0 ? WSTOPSIG(st) : 0;
        }
        if ((e = seize_new(pid, s, why, whylen)))
            return e;
    }
    run_stop_let_go(pid, s);
    snprintf(why, whylen, "a thread was inside the bytes to write, or no thread was free to run "
             "the syscalls, after %d rounds", PC_ROUNDS);
    return EBUSY;
}

