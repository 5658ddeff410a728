/* SPDX-License-Identifier: MIT */
/* ptrace mechanics (run/run_trace.h).  Only processes `run` started and stopped at their
 * exec are ever touched. */
#include "run/run_trace.h"

#include "arch/inject.h"
#include "common/message.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int mem_io(pid_t pid, uint64_t addr, void *buf, size_t len, bool write)
{
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/%ld/mem", (long)pid);
    int fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
    if (fd < 0)
        return errno;
    size_t done = 0;
    int err = 0;
    while (done < len) {
        ssize_t n = write ? pwrite(fd, (const char *)buf + done, len - done, (off_t)(addr + done))
                          : pread(fd, (char *)buf + done, len - done, (off_t)(addr + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            err = n < 0 ? errno : EIO;
            break;
        }
        done += (size_t)n;
    }
    close(fd);
    return err;
}

int run_trace_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
    return mem_io(pid, addr, buf, len, false);
}

int run_trace_write(pid_t pid, uint64_t addr, const void *buf, size_t len)
{
    return mem_io(pid, addr, (void *)buf, len, true);
}

int run_trace_auxv(pid_t pid, unsigned long type, uint64_t *value)
{
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/%ld/auxv", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? ESRCH : errno;
    uint64_t pair[2];
    int res = ESRCH; /* an ended process's vector reads empty */
    ssize_t n;
    while ((n = read(fd, pair, sizeof pair)) == (ssize_t)sizeof pair) {
        res = ENOENT;
        if (pair[0] == 0)
            break;
        if (pair[0] == type) {
            *value = pair[1];
            res = 0;
            break;
        }
    }
    if (n < 0)
        res = errno == ESRCH ? ESRCH : errno;
    close(fd);
    return res;
}

bool run_trace_vdso_range(pid_t pid, uint64_t *start, uint64_t *end)
{
    char path[MSG_PROC_PATH], line[512];
    snprintf(path, sizeof path, "/proc/%ld/maps", (long)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    bool found = false;
    while (!found && fgets(line, sizeof line, f)) {
        uint64_t a, b;
        if (strstr(line, "[vdso]") && sscanf(line, "%" SCNx64 "-%" SCNx64, &a, &b) == 2 && b > a) {
            *start = a, *end = b;
            found = true;
        }
    }
    fclose(f);
    return found;
}

pid_t run_trace_wait(pid_t pid, int *st, int timeout_ms)
{
    /* A stop the tracer asked for comes within microseconds when the thread has a CPU:
     * the first looks only yield the CPU (each stop of an attach would otherwise cost a
     * 0.1 ms sleep, while every thread of the program is held), then 0.1 ms sleeps. */
    for (int yields = 0; yields < 200; yields++) {
        pid_t w = waitpid(pid, st, __WALL | WNOHANG);
        if (w != 0)
            return w < 0 && errno == EINTR ? 0 : w;
        sched_yield();
    }
    for (int waited = 0;; waited++) {
        pid_t w = waitpid(pid, st, __WALL | WNOHANG);
        if (w != 0 || waited >= timeout_ms * 10)
            return w < 0 && errno == EINTR ? 0 : w;
        nanosleep(&(struct timespec){0, 100000}, NULL); /* 0.1 ms */
    }
}

/* The state letter of /proc/PID/task/TID/stat (after the command's closing parenthesis),
 * or 0 when it cannot be read. */
static char thread_state(pid_t pid, pid_t tid)
{
    char path[MSG_PROC_PATH], buf[512] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = 0;
    const char *p = strrchr(buf, ')');
    return p && p[1] == ' ' ? p[2] : 0;
}

static bool live(char state)
{
    return state && state != 'Z' && state != 'X';
}

pid_t run_trace_live_thread(pid_t pid)
{
    if (live(thread_state(pid, pid)))
        return pid;
    char path[MSG_PROC_PATH];
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    if (!d)
        return 0;
    pid_t found = 0;
    struct dirent *e;
    while (!found && (e = readdir(d))) {
        pid_t t = (pid_t)atoi(e->d_name);
        if (t > 0 && live(thread_state(pid, t)))
            found = t;
    }
    closedir(d);
    return found;
}

bool run_trace_thread_is_zombie(pid_t pid, pid_t tid)
{
    char c = thread_state(pid, tid);
    return c == 'Z' || c == 'X';
}

void run_trace_thread_state(pid_t pid, pid_t tid, char *out, size_t len)
{
    char path[MSG_PROC_PATH], buf[256] = "";
    snprintf(path, sizeof path, "/proc/%d/task/%d/stat", (int)pid, (int)tid);
    FILE *f = fopen(path, "re");
    if (f) {
        if (!fgets(buf, sizeof buf, f))
            buf[0] = 0;
        fclose(f);
    }
    const char *close_paren = strrchr(buf, ')');
    const char *open_paren = strchr(buf, '(');
    if (close_paren && open_paren && close_paren[1] == ' ')
        snprintf(out, len, "thread %d %.*s in state %c", (int)tid,
                 (int)(close_paren - open_paren + 1), open_paren, close_paren[2]);
    else
        snprintf(out, len, "thread %d (gone)", (int)tid);
}

/* Whether tid's current ptrace stop is a signal-delivery stop (a signal it is about to
 * take, which the detach can hand over), not an event, group or syscall stop. */
static bool in_signal_stop(pid_t tid)
{
    siginfo_t si;
    if (ptrace(PTRACE_GETSIGINFO, tid, NULL, &si) != 0)
        return false;
    return (si.si_code >> 8) == 0 && si.si_code != (SIGTRAP | 0x80);
}

void run_trace_detach_giving_back(pid_t pid, pid_t tid, struct run_trace_signals *taken)
{
    int first = 0, sig = 0;
    if (taken->n > 0 && in_signal_stop(tid) &&
        ptrace(PTRACE_SETSIGINFO, tid, NULL, &taken->info[0]) == 0)
        sig = taken->info[0].si_signo, first = 1;
    ptrace(PTRACE_DETACH, tid, NULL, (void *)(long)sig);
    /* The others are queued again: a queued value (sigqueue, timers) through
     * rt_tgsigqueueinfo, which the kernel allows from another process for those codes
     * only; the rest (kill, tgkill, kernel-sent) by tgkill, with this process as sender. */
    for (int i = first; i < taken->n; i++) {
        siginfo_t *si = &taken->info[i];
        if (!(si->si_code < 0 && si->si_code != SI_TKILL &&
              syscall(SYS_rt_tgsigqueueinfo, pid, tid, si->si_signo, si) == 0))
            syscall(SYS_tgkill, pid, tid, si->si_signo);
    }
    taken->n = 0;
    taken->stepped = false;
}

/* Runs the syscall the registers are set for, up to its own trap, the signals dequeued on
 * the way kept in taken.  0 or an errno value with why; *abandoned when the thread did not
 * stop again within 30 s or has ended: its registers are then left as they stand. */
static int resume_to_trap(pid_t pid, struct run_trace_signals *taken, bool *abandoned,
                          char *why, size_t whylen)
{
    /* Each resume (a single step over the syscall instruction or, where the arch has
     * none, arch_inject_syscall_resume: a continue up to the breakpoint after it) goes back
     * through the kernel's signal code first: a pending signal is dequeued and reported
     * (signal-delivery stop) before the instruction runs, and a pending ptrace trap
     * (PTRACE_INTERRUPT, SIGCONT's notification) stops it again as an event stop.  Both are
     * taken and the resume done again, until the step's or the breakpoint's own SIGTRAP
     * (si_code > 0: sent by the kernel, not by kill). */
    int e = 0;
    for (int events = 0;;) {
        if (ptrace((enum __ptrace_request)arch_inject_syscall_resume(), pid, NULL, NULL) != 0) {
            e = errno;
            snprintf(why, whylen, "cannot single-step: %s", strerror(e));
            break;
        }
        int st;
        /* mmap, openat, mprotect, close: none blocks, but a loaded machine may keep the
         * thread off its CPU a long time; given up on, it would run on with these
         * registers. */
        pid_t w = run_trace_wait(pid, &st, 30000);
        if (w == 0) {
            snprintf(why, whylen, "the injected syscall did not complete within 30 s");
            *abandoned = true;
            return ETIMEDOUT;
        }
        if (w != pid || !WIFSTOPPED(st)) {
            snprintf(why, whylen, "the program ended while a syscall was run in it");
            *abandoned = true;
            return ESRCH;
        }
        siginfo_t si;
        if ((st >> 16) != 0 || ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) != 0) {
            if (++events > 64) {
                snprintf(why, whylen, "the single step never completed (stopped again %d times)", events);
                e = EAGAIN;
                break;
            }
            continue;
        }
        if (WSTOPSIG(st) == SIGTRAP && si.si_code > 0)
            break;
        if (taken->n == RUN_TRACE_MAX_SIGNALS) {
            snprintf(why, whylen, "more than %d signals were waiting for the thread", taken->n);
            e = EAGAIN;
            break;
        }
        taken->info[taken->n++] = si;
    }
    return e;
}

int run_trace_syscall(pid_t pid, uint64_t pc, long nr, const long args[6], long *ret,
                      struct run_trace_signals *taken, char *why, size_t whylen)
{
    struct arch_regs saved, regs;
    int e = arch_inject_get_regs(pid, &saved);
    if (e) {
        snprintf(why, whylen, "cannot read the registers: %s", strerror(e));
        return e;
    }
    /* A thread found in a signal-delivery stop would lose that signal at the first step
     * (stepping with signal 0 cancels it): keep it to give back. */
    if (!taken->stepped && in_signal_stop(pid)) {
        siginfo_t si;
        if (ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) == 0)
            taken->info[taken->n++] = si;
    }
    taken->stepped = true;
    arch_inject_syscall_regs(&regs, &saved, pc, nr, args);
    if ((e = arch_inject_set_regs(pid, &regs))) {
        snprintf(why, whylen, "cannot set the registers: %s", strerror(e));
        return e;
    }
    bool abandoned = false;
    e = resume_to_trap(pid, taken, &abandoned, why, whylen);
    if (abandoned)
        return e;
    struct arch_regs after;
    if (!e && (e = arch_inject_get_regs(pid, &after)))
        snprintf(why, whylen, "cannot read the registers after the syscall: %s", strerror(e));
    if (!e)
        *ret = arch_inject_syscall_result(&after);
    /* Its registers back as they were, orig_rax included (x86_64; the other arches keep
     * the syscall number apart the same way): a thread stopped on its way out of a
     * restartable syscall (nanosleep, futex, read) has rax -ERESTART... and orig_rax the
     * syscall's number; the kernel restarts that syscall when it resumes from this
     * stop (tests/test_run_attach.py: an interrupted sleep stays whole). */
    int re = arch_inject_set_regs(pid, &saved);
    if (re && !e) {
        snprintf(why, whylen, "cannot restore the registers: %s", strerror(re));
        e = re;
    }
    return e;
}
