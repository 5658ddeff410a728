/* SPDX-License-Identifier: MIT */
/* See syscall_count.h. */
#include "runtimes/syscall_count.h"
#include "common/clock_ns.h"

#include "common/subprocess.h"
#include "measure/time_filter.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The child: filter, listener to the parent (or the errno that stopped it), exec. */
static _Noreturn void child(char *const argv[], int sock, int out_fd, pid_t parent)
{
    /* Above 2 first: with our own standard fds closed, the pipe may be fd 0 or 2. */
    out_fd = fcntl(out_fd, F_DUPFD_CLOEXEC, 3);
    sock = fcntl(sock, F_DUPFD_CLOEXEC, 3);
    int devnull = open("/dev/null", O_RDWR);
    dup2(devnull, 0);
    dup2(out_fd, 1);
    dup2(devnull, 2);
    /* A killed clockscope leaves no probe behind (it outlives exec). */
    subprocess_die_with_parent(parent);
    struct sock_filter f[TIME_FILTER_MAX];
    struct sock_fprog prog = {(unsigned short)time_filter_build(f, SECCOMP_RET_USER_NOTIF), f};
    int err = 0, listener = -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        err = errno;
    else if ((listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
                                      SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog)) < 0)
        err = errno;
    char cbuf[CMSG_SPACE(sizeof(int))];
    memset(cbuf, 0, sizeof cbuf);
    struct iovec iov = {&err, sizeof err};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (listener >= 0) {
        msg.msg_control = cbuf;
        msg.msg_controllen = sizeof cbuf;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &listener, sizeof(int));
    }
    if (sendmsg(sock, &msg, 0) < 0 || err)
        _exit(126);
    close(listener);
    close(sock);
    execv(argv[0], argv);
    _exit(127);
}

/* The listener fd the child sent, or -1 with why. */
static int receive_listener(int sock, int timeout_ms, char *why, size_t whylen)
{
    struct pollfd p = {sock, POLLIN, 0};
    int r;
    while ((r = poll(&p, 1, timeout_ms)) < 0 && errno == EINTR)
        ;
    if (r <= 0) {
        snprintf(why, whylen, "the counting child did not start");
        return -1;
    }
    int err = 0;
    char cbuf[CMSG_SPACE(sizeof(int))];
    struct iovec iov = {&err, sizeof err};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                         .msg_controllen = sizeof cbuf};
    ssize_t n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    if (n != (ssize_t)sizeof err) {
        snprintf(why, whylen, "the counting child did not report");
        return -1;
    }
    if (err) {
        snprintf(why, whylen, "seccomp user notification is not available here (%s)%s",
                 strerror(err), err == EINVAL ? ": it needs Linux 5.0 and seccomp filters "
                                                "(qemu-user refuses them)" : "");
        return -1;
    }
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    if (!cm || cm->cmsg_type != SCM_RIGHTS || cm->cmsg_len != CMSG_LEN(sizeof(int))) {
        snprintf(why, whylen, "the counting child sent no listener");
        return -1;
    }
    int fd;
    memcpy(&fd, CMSG_DATA(cm), sizeof fd);
    return fd;
}

/* Reads what the pipe has now; false at its end.  Counts whole lines. */
static bool take_output(int fd, struct count_result *r, size_t cap, int *lines)
{
    char chunk[8192];
    for (;;) {
        ssize_t n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno == EAGAIN)
            return true;
        if (n <= 0)
            return false;
        for (ssize_t i = 0; i < n; i++)
            *lines += chunk[i] == '\n';
        size_t keep = (size_t)n < cap - r->len ? (size_t)n : cap - r->len;
        memcpy(r->out + r->len, chunk, keep);
        r->len += keep;
    }
}

/* Takes one notification: counted, and the syscall continues.  false: the listener is
 * done (every filtered process has gone). */
static bool take_notification(int listener, struct count_result *r, int lines)
{
    struct seccomp_notif req;
    memset(&req, 0, sizeof req); /* the kernel requires it zeroed */
    if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
        return errno == EINTR || errno == ENOENT;
    r->after_line[lines < COUNT_MAX_LINES ? lines : COUNT_MAX_LINES]++;
    r->total++;
    struct seccomp_notif_resp resp;
    memset(&resp, 0, sizeof resp);
    resp.id = req.id;
    resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
    /* ENOENT: the caller was killed meanwhile; nothing to answer. */
    (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
    return true;
}

/* Until the program has ended and its output is read (or the deadline).  Returns whether
 * it reaped the program (its status then in r).  The listener's POLLHUP is not waited
 * for: some kernels (Debian 12's 6.1) release the filter only when the zombie is reaped,
 * so once the output has ended the program is polled for with waitpid. */
static bool supervise(pid_t pid, int listener, int out_fd, int timeout_ms, size_t cap,
                      struct count_result *r)
{
    long long deadline = clock_ns_ms(CLOCK_MONOTONIC) + timeout_ms;
    int lines = 0;
    bool out_open = true, listening = true;
    for (;;) {
        long long left = deadline - clock_ns_ms(CLOCK_MONOTONIC);
        if (left <= 0) {
            r->timed_out = true;
            return false;
        }
        int st;
        if (!out_open && waitpid(pid, &st, WNOHANG) == pid) {
            r->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
            r->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
            return true;
        }
        struct pollfd p[2] = {{out_open ? out_fd : -1, POLLIN, 0},
                              {listening ? listener : -1, POLLIN, 0}};
        int n = poll(p, 2, out_open ? (int)left : (int)(left < 20 ? left : 20));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return false;
        /* Output first: a line written before a syscall must be counted before it. */
        if (p[0].revents) {
            out_open = take_output(out_fd, r, cap, &lines);
            continue;
        }
        if (p[1].revents & POLLIN)
            listening = take_notification(listener, r, lines);
        else if (p[1].revents)
            listening = false; /* POLLHUP: no filtered process is left */
    }
}

bool count_syscalls_run(char *const argv[], int timeout_ms, size_t cap, struct count_result *r,
                        char *why, size_t whylen)
{
    memset(r, 0, sizeof *r);
    r->out = malloc(cap + 1);
    int sv[2], out[2];
    if (!r->out) {
        snprintf(why, whylen, "out of memory");
        return false;
    }
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        snprintf(why, whylen, "socketpair: %s", strerror(errno));
        return false;
    }
    if (pipe2(out, O_CLOEXEC) != 0) {
        snprintf(why, whylen, "pipe: %s", strerror(errno));
        close(sv[0]);
        close(sv[1]);
        return false;
    }
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0)
        child(argv, sv[1], out[1], parent);
    if (pid > 0)
        subprocess_track_child(pid); /* a stop signal reaches the probe (runtimes_cmd.c) */
    close(sv[1]);
    close(out[1]);
    bool ok = pid > 0;
    if (!ok)
        snprintf(why, whylen, "fork: %s", strerror(errno));
    int listener = ok ? receive_listener(sv[0], timeout_ms, why, whylen) : -1;
    close(sv[0]);
    bool reaped = false;
    if (listener >= 0) {
        fcntl(out[0], F_SETFL, fcntl(out[0], F_GETFL) | O_NONBLOCK);
        reaped = supervise(pid, listener, out[0], timeout_ms, cap, r);
        close(listener);
    }
    close(out[0]);
    r->out[r->len] = 0;
    if (pid > 0 && !reaped) {
        if (listener < 0 || r->timed_out)
            kill(pid, SIGKILL);
        int st = 0;
        subprocess_reap(pid, &st);
        r->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
        r->signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
    }
    subprocess_track_child(0);
    return listener >= 0;
}
