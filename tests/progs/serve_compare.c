/* SPDX-License-Identifier: MIT */
/* Issue 25's side-by-side comparison, for one boot of `clockscope vm --scenario x86_64-hpet`
 * (tests/test_vm_served.py, benchmarks/bench-vm-served.sh): each program read the time
 * unserved and under `clockscope run --mode MODE`, its ns per call and its syscalls per
 * call, and the served program's correctness checks.
 *
 *   serve_compare MODE CALLS SAMPLES PROGRAM...     PROGRAM is KIND:NAME:PATH
 *     go:NAME:PATH     the runtimes Go probe (runtimes/probes/probe.go, CGO_ENABLED=0)
 *     c:NAME:PATH      tests/progs/clock_probe.c (gcc -static, musl-gcc -static): the same
 *                      protocol, plus `pairs` served
 *     gocheck:NAME:PATH  tests/progs/go_clock: `bounds` served
 *     step:NAME:PATH   clock_probe's `step` served while this process steps the clock
 *                      (only inside a `clockscope vm` guest: refused elsewhere)
 *
 * The count is `clockscope runtimes`' (src/runtimes/syscall_count.c): a seccomp filter whose
 * time syscalls (clock_gettime, gettimeofday, time) answer SECCOMP_RET_USER_NOTIF, its
 * listener handed over a socket; every notification is counted against the number of whole
 * lines the program had written ("mark API" before each batch of CALLS calls) and the
 * syscall continues.  One difference: the probe installs the filter on itself
 * (CLOCKSCOPE_PROBE_COUNT_FD, the socket at fd 3), after its exec, instead of its parent
 * before it.  `run` forks its refresher before the exec: a filter installed before `run`
 * would hold the refresher too, and its clock reads, each a round trip through this process
 * (~100 us under TCG), could never complete a refresh within fastclock's 1 ms sample age:
 * the line would never go live.  Timed runs go without the filter.
 *
 * The REALTIME step (step:): the program is started served with `step 2 SECS`; after
 * its "ready" this process steps CLOCK_REALTIME forward by STEP_S with settimeofday, waits,
 * and steps it back: so it must run as root, in a guest, never on a host.
 *
 * The probes sleep 1.5 s before they read (CLOCKSCOPE_PROBE_SETTLE_MS, unless set).
 *
 * Output, one fact a line (the caller judges them):
 *   count NAME unserved|served API syscalls_per_call X
 *   time NAME unserved|served API ns_per_call X    best sample minus the best harness sample
 *   how NAME LINE        a `clockscope run: ...` line of the served runs' stderr
 *   check NAME LINE      a line of the served correctness run
 *   step NAME LINE       a line of the served step run
 *   FAIL ...             a run that could not be made or read
 * Exit 0 when every run could be made (whatever it found), 1 otherwise, 2 bad usage. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define RUN_PATH "/init"                /* the guest's clockscope; SERVE_COMPARE_RUN=PATH */
#define GUEST_MARK "/clockscope-vm/argv" /* only `clockscope vm`'s guest has it */
#define STEP_S 1000      /* the REALTIME step, both ways */
#define MAX_LINES 64
#define OUT_CAP (1 << 16)

static const char *mode;
static int failures;

struct result {
    char out[OUT_CAP], err[OUT_CAP];
    size_t outlen, errlen;
    long after_line[MAX_LINES + 1]; /* [k]: counted once exactly k lines were out */
    bool counted;                   /* the probe sent its listener */
    int status;
};

static void fail(const char *what, const char *name)
{
    printf("FAIL %s %s: %s\n", what, name, strerror(errno));
    failures++;
}

static bool drain(int fd, char *buf, size_t *len, int *lines)
{
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return true;
    if (n <= 0)
        return false;
    for (ssize_t i = 0; i < n; i++) {
        if (lines)
            *lines += chunk[i] == '\n';
        if (*len < OUT_CAP - 1)
            buf[(*len)++] = chunk[i];
    }
    buf[*len] = 0;
    return true;
}

/* Runs argv with stdout and stderr captured; counts its time syscalls when `count`.
 * `ready`: once the program's stdout holds "ready\n", calls it (once). */
static bool run_prog(char *const argv[], bool count, void (*ready)(void), struct result *r)
{
    memset(r, 0, sizeof *r);
    int out[2], err[2], sv[2];
    if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
        return false;
    pid_t pid = fork();
    if (pid < 0)
        return false;
    if (pid == 0) {
        dup2(out[1], 1);
        dup2(err[1], 2);
        if (count) { /* the socket at fd 3, without close-on-exec: the probe sends on it */
            dup2(sv[1], 3);
            setenv("CLOCKSCOPE_PROBE_COUNT_FD", "3", 1);
            /* Go: no asynchronous preemption in the few instructions between the probe's
             * filter and its sending of the listener (runtimes/probes/probe.go, countMe) */
            setenv("GODEBUG", "asyncpreemptoff=1", 1);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    close(out[1]);
    close(err[1]);
    close(sv[1]);
    int listener = -1;
    int lines = 0;
    bool out_open = true, err_open = true, was_ready = false, waiting = count;
    while (out_open || err_open) {
        struct pollfd p[4] = {{out_open ? out[0] : -1, POLLIN, 0}, {err_open ? err[0] : -1, POLLIN, 0},
                              {listener, POLLIN, 0}, {waiting ? sv[0] : -1, POLLIN, 0}};
        if (poll(p, 4, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        /* The listener first: the probe sends it before it writes a line or reads a clock. */
        if (p[3].revents) { /* the probe's listener, or the end of every holder of the socket */
            waiting = false;
            char cbuf[CMSG_SPACE(sizeof(int))], one;
            struct iovec iov = {&one, 1};
            struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
                                 .msg_controllen = sizeof cbuf};
            struct cmsghdr *cm;
            if (recvmsg(sv[0], &msg, MSG_CMSG_CLOEXEC) == 1 && (cm = CMSG_FIRSTHDR(&msg)) &&
                cm->cmsg_type == SCM_RIGHTS)
                memcpy(&listener, CMSG_DATA(cm), sizeof listener);
            r->counted = listener >= 0;
            continue;
        }
        /* Output first: a line written before a syscall is counted before it. */
        if (p[0].revents) {
            out_open = drain(out[0], r->out, &r->outlen, &lines);
            if (ready && !was_ready && strstr(r->out, "ready\n")) {
                was_ready = true;
                ready();
            }
            continue;
        }
        if (p[1].revents) {
            err_open = drain(err[0], r->err, &r->errlen, NULL);
            continue;
        }
        if (p[2].revents & POLLIN) {
            struct seccomp_notif req;
            memset(&req, 0, sizeof req);
            if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) != 0)
                continue;
            r->after_line[lines < MAX_LINES ? lines : MAX_LINES]++;
            struct seccomp_notif_resp resp;
            memset(&resp, 0, sizeof resp);
            resp.id = req.id;
            resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
            (void)ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
        } else if (p[2].revents) {
            close(listener); /* POLLHUP: no filtered process is left */
            listener = -1;
        }
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    if (listener >= 0)
        close(listener);
    close(sv[0]);
    close(out[0]);
    close(err[0]);
    r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return true;
}

/* argv of the program, served (under `run`) or not. */
static void build_argv(char **av, bool served, const char *path, char *const args[])
{
    int n = 0;
    if (served) {
        static char *pre[] = {NULL, "run", "--mode", NULL, "--verbose", "--"};
        pre[0] = getenv("SERVE_COMPARE_RUN") ? getenv("SERVE_COMPARE_RUN") : RUN_PATH;
        pre[3] = (char *)mode;
        for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++)
            av[n++] = pre[i];
    }
    av[n++] = (char *)path;
    for (int i = 0; args[i]; i++)
        av[n++] = args[i];
    av[n] = NULL;
}

static void print_prefixed(const char *tag, const char *name, const char *text, const char *only)
{
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (!only || strncmp(p, only, strlen(only)) == 0)
            printf("%s %s %.*s\n", tag, name, (int)len, p);
        p += len + (e != NULL);
    }
}

/* The probe protocol's "row API CLOCK PATH HARNESS N t1,.. h1,..": best sample minus best
 * harness sample, per call. */
static bool parse_row(char *line, char *api, size_t apilen, double *ns)
{
    char *f[9];
    int k = 0;
    for (char *s = strtok(line, " "); s && k < 9; s = strtok(NULL, " "))
        f[k++] = s;
    if (k != 8 || strcmp(f[0], "row") != 0)
        return false;
    snprintf(api, apilen, "%s", f[1]);
    long n = atol(f[5]);
    double best[2] = {1e300, 1e300};
    for (int j = 0; j < 2; j++)
        for (char *s = f[6 + j]; *s; s = *s ? s + 1 : s) {
            double v = strtod(s, &s);
            best[j] = v < best[j] ? v : best[j];
        }
    *ns = n > 0 ? (best[0] - best[1]) / (double)n : -1;
    return n > 0;
}

static void measure(const char *kind, const char *name, const char *path, const char *calls,
                    const char *samples)
{
    static struct result r;
    char *av[16];
    for (int served = 0; served < 2; served++) {
        const char *how = served ? "served" : "unserved";
        char *count_args[] = {"count", (char *)calls, NULL};
        build_argv(av, served, path, count_args);
        if (!run_prog(av, true, NULL, &r)) {
            fail("count run", name);
            continue;
        }
        if (served)
            print_prefixed("how", name, r.err, "clockscope run:");
        if (!r.counted)
            printf("FAIL count %s %s: the probe sent no listener: %.300s\n", name, how, r.err);
        /* line i a mark: its calls are counted once i + 1 lines were out */
        int i = 0;
        for (const char *p = r.out; r.counted && *p && i < MAX_LINES; i++) {
            const char *e = strchr(p, '\n');
            if (!e)
                break;
            if (strncmp(p, "mark ", 5) == 0)
                printf("count %s %s %.*s syscalls_per_call %.4f\n", name, how, (int)(e - p - 5),
                       p + 5, (double)r.after_line[i + 1] / atof(calls));
            p = e + 1;
        }
        if (r.status != 0)
            printf("FAIL count %s %s: exit %d: %.300s\n", name, how, r.status, r.err);
        /* Go: time SAMPLES SAMPLE_US (20 ms samples); C: time SAMPLES CALLS */
        char *time_args[] = {"time", (char *)samples, strcmp(kind, "go") == 0 ? "20000" : (char *)calls, NULL};
        build_argv(av, served, path, time_args);
        if (!run_prog(av, false, NULL, &r)) {
            fail("time run", name);
            continue;
        }
        if (served)
            print_prefixed("how", name, r.err, "clockscope run:");
        for (const char *p = r.out; *p;) {
            const char *e = strchr(p, '\n');
            size_t len = e ? (size_t)(e - p) : strlen(p);
            char line[4096], api[200];
            double ns;
            snprintf(line, sizeof line, "%.*s", (int)len, p);
            if (parse_row(line, api, sizeof api, &ns))
                printf("time %s %s %s ns_per_call %.1f\n", name, how, api, ns);
            p += len + (e != NULL);
        }
        if (r.status != 0)
            printf("FAIL time %s %s: exit %d: %.300s\n", name, how, r.status, r.err);
    }
}

static void step_clock(int64_t by_s)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    tv.tv_sec += by_s;
    if (settimeofday(&tv, NULL) != 0)
        printf("FAIL settimeofday: %s\n", strerror(errno));
}

/* While the served program reads: forward, then back (so the guest's clock ends where it
 * was, give or take the time this took). */
static void make_steps(void)
{
    fflush(stdout);
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    step_clock(STEP_S);
    nanosleep(&(struct timespec){0, 300000000}, NULL);
    step_clock(-STEP_S);
}

static void checks(const char *kind, const char *name, const char *path, const char *calls)
{
    static struct result r;
    char *av[16];
    char *pairs[] = {strcmp(kind, "c") == 0 ? "pairs" : "bounds", (char *)calls, NULL};
    build_argv(av, true, path, pairs);
    if (!run_prog(av, false, NULL, &r)) {
        fail("check run", name);
        return;
    }
    print_prefixed("check", name, r.out, NULL);
    print_prefixed("how", name, r.err, "clockscope run:");
}

/* The step run: refused outside a `clockscope vm` guest (it sets the clock). */
static void step_run(const char *name, const char *path)
{
    static struct result r;
    char *av[16];
    if (access(GUEST_MARK, F_OK) != 0) {
        printf("FAIL step %s: not inside a clockscope vm guest: the clock is never set here\n", name);
        failures++;
        return;
    }
    char *step[] = {"step", "2", "30", NULL};
    build_argv(av, true, path, step);
    if (!run_prog(av, false, make_steps, &r)) {
        fail("step run", name);
        return;
    }
    print_prefixed("step", name, r.out, NULL);
    print_prefixed("how", name, r.err, "clockscope run:");
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: serve_compare MODE CALLS SAMPLES KIND:NAME:PATH...\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    /* Measured once the served program's line is live: `run`'s refresher, under the
     * counting filter too, takes its time when every clock read it makes is a round trip
     * through this process (until then reads are syscalls: correct, slow). */
    setenv("CLOCKSCOPE_PROBE_SETTLE_MS", "1500", 0);
    mode = argv[1];
    for (int i = 4; i < argc; i++) {
        char *kind = argv[i], *name = strchr(kind, ':'), *path;
        if (!name || !(path = strchr(name + 1, ':'))) {
            fprintf(stderr, "serve_compare: %s is not KIND:NAME:PATH\n", argv[i]);
            return 2;
        }
        *name++ = 0;
        *path++ = 0;
        if (strcmp(kind, "go") == 0 || strcmp(kind, "c") == 0)
            measure(kind, name, path, argv[2], argv[3]);
        if (strcmp(kind, "c") == 0 || strcmp(kind, "gocheck") == 0)
            checks(kind, name, path, argv[2]);
        else if (strcmp(kind, "step") == 0)
            step_run(name, path);
        else if (strcmp(kind, "go") != 0) {
            fprintf(stderr, "serve_compare: unknown kind %s\n", kind);
            return 2;
        }
    }
    return failures ? 1 : 0;
}
