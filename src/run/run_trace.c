/* SPDX-License-Identifier: MIT */
/* ptrace mechanics (run/run_trace.h).  Only processes `run` started and stopped at their
 * exec are ever touched. */
#include "run/run_trace.h"

#include "arch/inject.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int mem_io(pid_t pid, uint64_t addr, void *buf, size_t len, bool write)
{
    char path[48];
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
    char path[48];
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
    char path[48], line[512];
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
    for (int waited = 0;; waited++) {
        pid_t w = waitpid(pid, st, __WALL | WNOHANG);
        if (w != 0 || waited >= timeout_ms * 10)
            return w < 0 && errno == EINTR ? 0 : w;
        nanosleep(&(struct timespec){0, 100000}, NULL); /* 0.1 ms */
    }
}

void run_trace_thread_state(pid_t pid, pid_t tid, char *out, size_t len)
{
    char path[64], buf[256] = "";
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

int run_trace_syscall(pid_t pid, uint64_t pc, long nr, const long args[6], long *ret,
                      int *pending_sig, char *why, size_t wl)
{
    struct arch_regs saved, regs;
    int e = arch_inject_get_regs(pid, &saved);
    if (e) {
        snprintf(why, wl, "cannot read the registers: %s", strerror(e));
        return e;
    }
    arch_inject_syscall_regs(&regs, &saved, pc, nr, args);
    if ((e = arch_inject_set_regs(pid, &regs))) {
        snprintf(why, wl, "cannot set the registers: %s", strerror(e));
        return e;
    }
    /* One single step runs the whole syscall instruction; a signal that arrives first
     * stops the tracee before it (signal-delivery-stop): keep the signal for later and step
     * again without it. */
    for (int tries = 0;; tries++) {
        if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0) {
            e = errno;
            snprintf(why, wl, "cannot single-step: %s", strerror(e));
            return e;
        }
        int st;
        pid_t w;
        w = run_trace_wait(pid, &st, 2000);
        if (w == 0) {
            snprintf(why, wl, "the injected syscall did not complete within 2 s");
            return ETIMEDOUT;
        }
        if (w != pid || !WIFSTOPPED(st)) {
            snprintf(why, wl, "the program ended while a syscall was run in it");
            return ESRCH;
        }
        if (WSTOPSIG(st) == SIGTRAP && (st >> 16) == 0)
            break;
        if ((st >> 16) == 0 && WSTOPSIG(st) != SIGTRAP && pending_sig && !*pending_sig)
            *pending_sig = WSTOPSIG(st);
        if (tries > 64) {
            snprintf(why, wl, "the single step never completed");
            return EAGAIN;
        }
    }
    struct arch_regs after;
    if ((e = arch_inject_get_regs(pid, &after))) {
        snprintf(why, wl, "cannot read the registers after the syscall: %s", strerror(e));
        return e;
    }
    *ret = arch_inject_syscall_result(&after);
    /* A thread stopped on its way out of a restartable syscall (run -p: nanosleep, futex)
     * gets its registers back as they were, orig_rax included: the kernel restarts the
     * syscall when it resumes (tests/test_run_static.py: an interrupted sleep stays whole). */
    if ((e = arch_inject_set_regs(pid, &saved))) {
        snprintf(why, wl, "cannot restore the registers: %s", strerror(e));
        return e;
    }
    return 0;
}
