/* SPDX-License-Identifier: MIT */
/* Disposable child processes for the ladder's measurements (runner.h). */
#include "ladder/runner.h"
#include "common/subprocess.h"
#include "common/clock_ns.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every arch clockscope builds for */
#endif

void *runner_shared_alloc(size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

void runner_shared_free(void *p, size_t len)
{
    if (p)
        munmap(p, len);
}

pid_t runner_fork_child(void)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* The parent may have died between fork and prctl: then getppid() is no longer
         * it, and no death signal would ever come. */
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(127);
    }
    return pid;
}

/* Waits for pid until the deadline: true when it was reaped (status in *status). */
static bool wait_until(pid_t pid, double deadline, int *status)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid || (r < 0 && errno != EINTR)) {
            if (pidfd >= 0)
                close(pidfd);
            return r == pid;
        }
        double left = deadline - clock_ns_monotonic_s();
        if (left <= 0)
            break;
        if (pidfd >= 0) {
            struct pollfd pfd = {.fd = pidfd, .events = POLLIN};
            int ms = (int)(left * 1000) + 1;
            poll(&pfd, 1, ms);
        } else {
            struct timespec ts = {0, 2 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    if (pidfd >= 0)
        close(pidfd);
    return false;
}

bool runner_run(int (*fn)(void *shared, const void *arg), void *shared, const void *arg,
                double timeout_s, struct runner_outcome *out)
{
    memset(out, 0, sizeof *out);
    fflush(NULL); /* nothing buffered may be written twice */
    double t0 = clock_ns_monotonic_s();
    pid_t pid = runner_fork_child();
    if (pid < 0) {
        snprintf(out->why, sizeof out->why, "cannot fork: %s", strerror(errno));
        return false;
    }
    if (pid == 0)
        _exit(fn(shared, arg));
    int status = 0;
    if (!wait_until(pid, t0 + timeout_s, &status)) {
        kill(pid, SIGKILL);
        subprocess_reap(pid, &status);
        out->timed_out = true;
        out->elapsed_s = clock_ns_monotonic_s() - t0;
        snprintf(out->why, sizeof out->why, "timed out: no result after %.1f s (killed)",
                 timeout_s);
        return false;
    }
    out->elapsed_s = clock_ns_monotonic_s() - t0;
    if (WIFSIGNALED(status)) {
        out->signal = WTERMSIG(status);
        snprintf(out->why, sizeof out->why, "the measuring process died of signal %d (%s)",
                 out->signal, strsignal(out->signal));
        return false;
    }
    out->exit_status = WEXITSTATUS(status);
    if (out->exit_status != 0) {
        snprintf(out->why, sizeof out->why, "the measuring process failed (exit status %d)",
                 out->exit_status);
        return false;
    }
    out->ok = true;
    return true;
}
