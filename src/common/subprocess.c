/* SPDX-License-Identifier: MIT */
/* fork + execvp with pipes.  Output is read to the end (or the deadline) before waiting,
 * so a chatty program can never block on a full pipe. */
#include "common/subprocess.h"
#include "common/clock_ns.h"
#include "common/exit_status.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same number on every arch clockscope builds for */
#endif

int subprocess_find_program(const char *cmd, char *out, size_t len)
{
    if (strchr(cmd, '/')) {
        snprintf(out, len, "%s", cmd);
        if (access(out, F_OK) != 0)
            return ENOENT;
        return access(out, X_OK) == 0 ? 0 : EACCES;
    }
    const char *path = getenv("PATH");
    if (!path || !*path)
        path = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";
    int result = ENOENT;
    for (const char *p = path;; p += strcspn(p, ":") + 1) {
        size_t n = strcspn(p, ":");
        /* An empty entry is the current directory, as for execvp. */
        if ((size_t)snprintf(out, len, "%.*s%s%s", (int)n, p, n ? "/" : "", cmd) < len) {
            struct stat st;
            if (stat(out, &st) == 0 && S_ISREG(st.st_mode)) {
                if (access(out, X_OK) == 0)
                    return 0;
                result = EACCES;
            }
        }
        if (p[n] == 0)
            break;
    }
    return result;
}

bool subprocess_on_path(const char *program)
{
    char full[4096];
    return subprocess_find_program(program, full, sizeof full) == 0;
}

bool subprocess_write_fully(int fd, const void *data, size_t n)
{
    const char *p = data;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return false;
        p += w;
        n -= (size_t)w;
    }
    return true;
}

void subprocess_tail_append(char *buf, size_t cap, const char *p, size_t n)
{
    if (cap == 0)
        return;
    size_t used = strnlen(buf, cap - 1);
    if (n >= cap - 1) {
        p += n - (cap - 1);
        n = cap - 1;
    }
    if (used + n > cap - 1) {
        size_t drop = used + n - (cap - 1);
        memmove(buf, buf + drop, used - drop);
        used -= drop;
    }
    memcpy(buf + used, p, n);
    buf[used + n] = '\0';
}

pid_t subprocess_reap(pid_t pid, int *status)
{
    pid_t w;
    while ((w = waitpid(pid, status, 0)) < 0 && errno == EINTR)
        ;
    return w;
}

void subprocess_die_with_parent(pid_t parent)
{
    /* SIGKILL: a child that ignores SIGTERM (or is stopped) must not outlive us either. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
}

/* ---- stopping on SIGINT/SIGTERM/SIGHUP with the children ---- */

static const int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
static volatile sig_atomic_t stop_signal;
/* The child to forward a stop signal to; negative: a process group. */
static volatile sig_atomic_t current_child;

static void on_stop_signal(int sig)
{
    if (!stop_signal)
        stop_signal = sig;
    pid_t child = (pid_t)current_child;
    if (child != 0)
        kill(child, sig);
}

#define NSTOP (sizeof stop_signals / sizeof stop_signals[0])
/* Whether the command called subprocess_forward_signals (for its whole run). */
static bool forwarding;

/* Installs on_stop_signal for the stop signals, the previous actions in old (NULL: not
 * kept). */
static void catch_stop_signals(struct sigaction old[NSTOP])
{
    struct sigaction sa = {.sa_handler = on_stop_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSTOP; i++)
        sigaddset(&sa.sa_mask, stop_signals[i]);
    for (size_t i = 0; i < NSTOP; i++)
        sigaction(stop_signals[i], &sa, old ? &old[i] : NULL);
}

void subprocess_forward_signals(void)
{
    catch_stop_signals(NULL);
    forwarding = true;
}

/* The end of one run_capture_all in a command that does not forward stop signals itself:
 * the previous actions come back, and a stop signal that came during the run (forwarded,
 * its child reaped) is raised again, to do what it would have done (end us, by default). */
static void release_stop_signals(const struct sigaction old[NSTOP])
{
    for (size_t i = 0; i < NSTOP; i++)
        sigaction(stop_signals[i], &old[i], NULL);
    int sig = stop_signal;
    stop_signal = 0;
    if (sig)
        raise(sig);
}

int subprocess_stop_signal(void) { return stop_signal; }

void subprocess_track_child(pid_t pid) { current_child = pid; }

_Noreturn void subprocess_end_by_signal(int sig)
{
    fflush(NULL);
    signal(sig, SIG_DFL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    _exit(EXIT_SIGNAL_BASE + sig);
}

/* fork + execvp of argv in cwd (NULL: ours); the child's fds 0, 1, 2 become in_fd, out_fd,
 * err_fd (-1: /dev/null).  With own_group the child leads a process group of its own, so
 * that a timeout or a stop signal reaches whatever it started too (kill(-pid)).  Returns the
 * pid, or -1 when fork failed; an exec failure is the child's exit status 127 (with a
 * message on err_fd). */
static pid_t spawn(char *const argv[], const char *cwd, int in_fd, int out_fd, int err_fd,
                   bool own_group)
{
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid != 0) {
        if (pid > 0 && own_group)
            setpgid(pid, pid); /* in both: whichever runs first, the group exists at once */
        return pid;
    }
    if (own_group)
        setpgid(0, 0);
    subprocess_die_with_parent(parent);
    int devnull = open("/dev/null", O_RDWR);
    dup2(in_fd >= 0 ? in_fd : devnull, 0);
    dup2(out_fd >= 0 ? out_fd : devnull, 1);
    dup2(err_fd >= 0 ? err_fd : devnull, 2);
    if (cwd && chdir(cwd) != 0) {
        dprintf(2, "cannot enter %s: %s\n", cwd, strerror(errno));
        _exit(127);
    }
    execvp(argv[0], argv);
    dprintf(2, "cannot run %s: %s\n", argv[0], strerror(errno));
    _exit(127);
}

/* Reads fd to its end, handing each chunk to sink(ctx, bytes, n), then closes it.  With
 * timeout_ms > 0, stops when that much time has passed and returns false (timed out). */
static bool drain(int fd, int timeout_ms, void (*sink)(void *ctx, const char *p, size_t n),
                  void *ctx)
{
    bool timed_out = false;
    long long deadline = clock_ns_ms(CLOCK_MONOTONIC) + timeout_ms;
    char chunk[65536];
    for (;;) {
        long long left = timeout_ms > 0 ? deadline - clock_ns_ms(CLOCK_MONOTONIC) : -1;
        if (timeout_ms > 0 && left <= 0) {
            timed_out = true;
            break;
        }
        struct pollfd p = {fd, POLLIN, 0};
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            timed_out = r == 0;
            break;
        }
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0)
            break;
        sink(ctx, chunk, (size_t)n);
    }
    close(fd);
    return !timed_out;
}

/* Waits for pid, killing it first when kill_first.  Returns its exit code, or -1 when it
 * died by a signal or cannot be waited for. */
static int wait_exit(pid_t pid, bool kill_first)
{
    if (kill_first)
        kill(pid, SIGKILL);
    int st = 0;
    if (subprocess_reap(pid, &st) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first cap bytes of a stream, in a malloc'ed buffer of cap + 1. */
struct head {
    char *buf;
    size_t cap, got;
};

static void head_append(void *ctx, const char *p, size_t n)
{
    struct head *h = ctx;
    size_t keep = n < h->cap - h->got ? n : h->cap - h->got;
    memcpy(h->buf + h->got, p, keep);
    h->got += keep;
}

bool subprocess_capture(char *const argv[], int timeout_ms, size_t cap, char **out, size_t *len,
                 char *why, size_t whylen)
{
    *out = NULL;
    *len = 0;
    struct head h = {malloc(cap + 1), cap, 0};
    if (!h.buf) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    int fds[2];
    if (pipe2(fds, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        free(h.buf);
        return false;
    }
    pid_t pid = spawn(argv, NULL, -1, fds[1], -1, false);
    close(fds[1]);
    if (pid < 0) {
        close(fds[0]);
        snprintf(why, whylen, "fork: %s", strerror(errno));
        free(h.buf);
        return false;
    }
    bool timed_out = !drain(fds[0], timeout_ms, head_append, &h);
    int code = wait_exit(pid, timed_out);
    h.buf[h.got] = 0;
    if (timed_out) {
        snprintf(why, whylen, "%s did not finish within %d ms", argv[0], timeout_ms);
        free(h.buf);
        return false;
    }
    if (code != 0) {
        if (code == 127)
            snprintf(why, whylen, "%s: cannot run", argv[0]);
        else
            snprintf(why, whylen, "%s failed (status %d)", argv[0], code);
        /* systemd-detect-virt exits 1 while printing "none": keep what it said. */
        if (h.got > 0) {
            *out = h.buf;
            *len = h.got;
        } else {
            free(h.buf);
        }
        return false;
    }
    *out = h.buf;
    *len = h.got;
    return true;
}

/* The last bytes of a stream, in the caller's buffer. */
struct tail {
    char *buf;
    size_t cap;
};

static void tail_append(void *ctx, const char *p, size_t n)
{
    struct tail *t = ctx;
    subprocess_tail_append(t->buf, t->cap, p, n);
}

static void drain_tail(int fd, char *out, size_t outlen)
{
    if (outlen)
        out[0] = '\0';
    struct tail t = {out, outlen};
    drain(fd, 0, tail_append, &t);
}

int subprocess_run_tool(char *const argv[], const char *cwd, int stdout_fd, char *out, size_t outlen)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return -1;
    pid_t pid = spawn(argv, cwd, -1, stdout_fd >= 0 ? stdout_fd : p[1], p[1], false);
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        return -1;
    }
    drain_tail(p[0], out, outlen);
    return wait_exit(pid, false);
}

int subprocess_pipe(char *const left[], char *const right[], const char *cwd, char *why, size_t whylen)
{
    int data[2], errp[2];
    if (pipe2(data, O_CLOEXEC) != 0)
        return -1;
    if (pipe2(errp, O_CLOEXEC) != 0) {
        close(data[0]);
        close(data[1]);
        return -1;
    }
    pid_t a = spawn(left, cwd, -1, data[1], errp[1], false);
    close(data[1]);
    pid_t b = a < 0 ? -1 : spawn(right, cwd, data[0], -1, errp[1], false);
    close(data[0]);
    close(errp[1]);
    drain_tail(errp[0], why, whylen);
    int sa = a < 0 ? -1 : wait_exit(a, false);
    int sb = b < 0 ? -1 : wait_exit(b, false);
    return sa == 0 && sb == 0 ? 0 : -1;
}

/* Whether pid has ended.  WNOWAIT leaves it a zombie: its process group id stays reserved
 * (no new process can take it) for a kill(-pid) of whatever it left in that group. */
static bool has_ended(pid_t pid)
{
    siginfo_t si = {0};
    int r = waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT);
    return (r < 0 && errno != EINTR) || (r == 0 && si.si_pid == pid);
}

/* One read from each of the two pipes that poll found ready: stdout into h, stderr's tail
 * into why; a pipe at end of file is closed and its slot set to -1 (poll skips it). */
static void read_ready(struct pollfd p[2], struct head *h, bool *truncated, char *why,
                       size_t whylen)
{
    char chunk[65536];
    for (int i = 0; i < 2; i++) {
        if (p[i].fd < 0 || !p[i].revents)
            continue;
        ssize_t n = read(p[i].fd, chunk, sizeof chunk);
        if (n < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (n <= 0) {
            close(p[i].fd);
            p[i].fd = -1;
        } else if (i == 0) {
            if ((size_t)n > h->cap - h->got)
                *truncated = true;
            head_append(h, chunk, (size_t)n);
        } else {
            subprocess_tail_append(why, whylen, chunk, (size_t)n);
        }
    }
}

/* How drain_both ended. */
struct drained {
    bool timed_out;  /* the deadline passed with a pipe open or the child alive */
    bool forwarded;  /* a stop signal was forwarded to the child's group */
};

/* Drains two pipes at once until both reach end of file and the child (pid, left a zombie
 * for the caller to reap) has ended, or the deadline passes: a child that closes its pipes
 * and lives on is waited for no longer than one that keeps them open.  The stop signals
 * are let in only inside ppoll, so that one arriving between two polls is never missed:
 * once asked to stop, the child's group gets the signal and SUBPROCESS_STOP_GRACE_MS to
 * end, then the deadline passes. */
static struct drained drain_both(pid_t pid, int out_fd, struct head *h, bool *truncated,
                                 int err_fd, char *why, size_t whylen, int timeout_ms)
{
    long long deadline = clock_ns_ms(CLOCK_MONOTONIC) + timeout_ms;
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0); /* readable once pid has ended */
    struct pollfd p[3] = {{out_fd, POLLIN, 0}, {err_fd, POLLIN, 0}, {pidfd, POLLIN, 0}};
    struct drained d = {false, false};
    sigset_t block, old;
    sigemptyset(&block);
    for (size_t i = 0; i < NSTOP; i++)
        sigaddset(&block, stop_signals[i]);
    sigprocmask(SIG_BLOCK, &block, &old);
    for (;;) {
        if (stop_signal && !d.forwarded) {
            d.forwarded = true;
            kill(-pid, stop_signal); /* it may have come before the child was tracked */
            if (deadline > clock_ns_ms(CLOCK_MONOTONIC) + SUBPROCESS_STOP_GRACE_MS)
                deadline = clock_ns_ms(CLOCK_MONOTONIC) + SUBPROCESS_STOP_GRACE_MS;
        }
        bool pipes_open = p[0].fd >= 0 || p[1].fd >= 0;
        if (!pipes_open && has_ended(pid))
            break;
        long long left = deadline - clock_ns_ms(CLOCK_MONOTONIC);
        if (left <= 0) {
            d.timed_out = true;
            break;
        }
        if (!pipes_open && p[2].fd < 0 && left > 10)
            left = 10; /* nothing to wake us when it ends: look again soon */
        struct timespec ts = {left / 1000, (left % 1000) * 1000000};
        int r = ppoll(p, 3, &ts, &old);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        if (p[2].revents)
            p[2].fd = -1; /* ended: has_ended says so from now on */
        read_ready(p, h, truncated, why, whylen);
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    for (int i = 0; i < 2; i++)
        if (p[i].fd >= 0)
            close(p[i].fd);
    if (pidfd >= 0)
        close(pidfd);
    return d;
}

static bool capture_all(char *const argv[], int timeout_ms, size_t cap, char **out, size_t *len,
                        char *err, size_t errlen, struct run_outcome *oc, char *why,
                        size_t whylen)
{
    *oc = (struct run_outcome){.exit_status = -1};
    *out = NULL;
    *len = 0;
    if (errlen)
        err[0] = '\0';
    struct head h = {malloc(cap + 1), cap, 0};
    int po[2], pe[2];
    if (!h.buf) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    if (pipe2(po, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        free(h.buf);
        return false;
    }
    if (pipe2(pe, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        close(po[0]);
        close(po[1]);
        free(h.buf);
        return false;
    }
    pid_t pid = spawn(argv, NULL, -1, po[1], pe[1], true);
    close(po[1]);
    close(pe[1]);
    if (pid < 0) {
        snprintf(why, whylen, "fork: %s", strerror(errno));
        close(po[0]);
        close(pe[0]);
        free(h.buf);
        return false;
    }
    current_child = -pid; /* the signal handler's kill() reaches its whole group */
    struct drained d = drain_both(pid, po[0], &h, &oc->truncated, pe[0], err, errlen,
                                  timeout_ms);
    oc->timed_out = d.timed_out;
    /* Whatever is left in its group goes too: all of it after a timeout; after a stop,
     * what outlived the child (the group id is still its zombie's: no one else's). */
    if (d.timed_out || d.forwarded)
        kill(-pid, SIGKILL);
    int st = 0;
    pid_t w;
    w = subprocess_reap(pid, &st);
    current_child = 0;
    if (w < 0)
        oc->exit_status = -1;
    else if (WIFEXITED(st))
        oc->exit_status = WEXITSTATUS(st);
    else if (WIFSIGNALED(st))
        oc->signal = WTERMSIG(st);
    h.buf[h.got] = 0;
    *out = h.buf;
    *len = h.got;
    return true;
}

bool run_capture_all(char *const argv[], int timeout_ms, size_t cap, char **out, size_t *len,
                     char *err, size_t errlen, struct run_outcome *oc, char *why, size_t whylen)
{
    /* A command that does not forward stop signals itself (bench) has them forwarded for
     * this one run: a stop ends the child's group and we reap the child before we end,
     * rather than die at once and leave it to its death signal, a zombie for init. */
    struct sigaction old[NSTOP];
    bool scoped = !forwarding;
    if (scoped)
        catch_stop_signals(old);
    bool started = capture_all(argv, timeout_ms, cap, out, len, err, errlen, oc, why, whylen);
    if (scoped)
        release_stop_signals(old);
    return started;
}
