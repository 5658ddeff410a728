/* SPDX-License-Identifier: MIT */
/* Real-time signals with payloads across `clockscope run -p` and `--undo`
 * (tests/test_run_attach_safety.py), built with -static.  Two modes of one program:
 *
 *   sigqueue_target recv spin|read
 * The receiver.  SIGRTMIN is blocked in every thread but one, which takes it with an
 * SA_SIGINFO | SA_RESTART handler recording each payload (si_value), its sender (si_pid)
 * and its si_code.  spin: that thread reads the clock without pause, while the main thread
 * reads its stdin; read: the main thread is that thread, blocked in read(2) on its stdin
 * (restarted after each handler: a read failing with EINTR is counted).  Two more threads
 * read the clock without pause.  It prints "ready pid P" once all run.  When its stdin
 * ends, having said "expect N" on it, it waits for the N payloads (until none has come for
 * 10 s), then prints
 *   ok sigqueue MODE got G expected N missing 0 duplicated 0 out_of_order 0 wrong_pid 0
 *      wrong_code 0 eintr 0 beyond 0 sender S
 * on one line ("FAIL ..." and exit 1 when any count but got is not 0 or G != N).  Missing:
 * payloads below N never received; duplicated: received twice; out of order: a payload
 * that is not the one after the previous (signals of one number queue in order); wrong
 * pid: a sender other than the first one seen; beyond: a payload >= N.
 *
 *   sigqueue_target send PID MIN
 * The sender: queues SIGRTMIN to PID with payloads 0, 1, 2 ... as fast as the queue
 * allows (sigqueue failing with EAGAIN is tried again), until it has sent at least MIN and
 * its stdin has ended; then prints "sent N".  The pending-signal limit is per user and
 * shared with every other process of that user, so it leaves three quarters of it to them
 * (SigQ in /proc/PID/status: it waits, up to 10 s at a time, while more are queued),
 * whatever the receiver does (stopped, for one). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CAPACITY (1L << 27) /* payloads the receiver can tell apart */

static uint8_t *seen; /* a bit per payload */
static volatile long got, duplicated, out_of_order, wrong_pid, wrong_code, beyond;
static volatile long last = -1;
static volatile pid_t sender;
static atomic_bool stop;

static void on_signal(int sig, siginfo_t *si, void *ctx)
{
    (void)sig, (void)ctx;
    long v = si->si_value.sival_int;
    got++;
    if (sender == 0)
        sender = si->si_pid;
    else if (si->si_pid != sender)
        wrong_pid++;
    if (si->si_code != SI_QUEUE)
        wrong_code++;
    if (v != last + 1)
        out_of_order++;
    last = v;
    if (v < 0 || v >= CAPACITY) {
        beyond++;
        return;
    }
    if (seen[v / 8] & (1u << (v % 8)))
        duplicated++;
    seen[v / 8] |= (uint8_t)(1u << (v % 8));
}

static void *spin(void *arg)
{
    bool receive = arg != NULL;
    if (receive) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGRTMIN);
        pthread_sigmask(SIG_UNBLOCK, &s, NULL);
    }
    struct timespec t;
    while (!atomic_load_explicit(&stop, memory_order_relaxed))
        clock_gettime(CLOCK_MONOTONIC, &t);
    return NULL;
}

static double now(void)
{
    struct timespec t;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int receive(const char *mode)
{
    bool in_read = !strcmp(mode, "read");
    if (!in_read && strcmp(mode, "spin")) {
        fprintf(stderr, "sigqueue_target recv: spin or read\n");
        return 2;
    }
    seen = calloc(CAPACITY / 8, 1);
    if (!seen) {
        perror("calloc");
        return 2;
    }
    sigset_t rt;
    sigemptyset(&rt);
    sigaddset(&rt, SIGRTMIN);
    pthread_sigmask(SIG_BLOCK, &rt, NULL); /* every thread created below inherits it */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGRTMIN, &sa, NULL);
    pthread_t th[3];
    int n = 0;
    for (; n < 2; n++)
        pthread_create(&th[n], NULL, spin, NULL);
    if (!in_read)
        pthread_create(&th[n++], NULL, spin, (void *)1);
    else
        pthread_sigmask(SIG_UNBLOCK, &rt, NULL);
    printf("ready pid %d\n", (int)getpid());
    fflush(stdout);

    char input[4096];
    size_t used = 0;
    long eintr = 0;
    for (;;) {
        ssize_t r = read(0, input + used, sizeof input - 1 - used);
        if (r < 0 && errno == EINTR) {
            eintr++; /* SA_RESTART: the kernel restarts the read; it never fails so */
            continue;
        }
        if (r <= 0)
            break;
        used += (size_t)r;
        if (used == sizeof input - 1)
            used = 0;
    }
    input[used] = 0;
    long expect = -1;
    const char *e = strstr(input, "expect ");
    if (e)
        expect = atol(e + 7);

    /* Wait for what is still queued (or held by a tracer): until all have come, or none
     * has for 10 s. */
    long seen_got = -1;
    double since = now();
    while (got < expect && now() - since < 10) {
        if (got != seen_got)
            seen_got = got, since = now();
        usleep(1000);
    }
    atomic_store(&stop, true);
    for (int i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    pthread_sigmask(SIG_BLOCK, &rt, NULL);

    long missing = 0;
    for (long v = 0; v < expect && v < CAPACITY; v++)
        if (!(seen[v / 8] & (1u << (v % 8))))
            missing++;
    for (long v = expect < 0 ? 0 : expect; v < CAPACITY; v++)
        if (seen[v / 8] & (1u << (v % 8)))
            beyond++;
    bool ok = expect >= 0 && got == expect && !missing && !duplicated && !out_of_order &&
              !wrong_pid && !wrong_code && !eintr && !beyond;
    printf("%s sigqueue %s got %ld expected %ld missing %ld duplicated %ld out_of_order %ld "
           "wrong_pid %ld wrong_code %ld eintr %ld beyond %ld sender %d\n",
           ok ? "ok" : "FAIL", mode, got, expect, missing, duplicated, out_of_order, wrong_pid,
           wrong_code, eintr, beyond, (int)sender);
    return ok ? 0 : 1;
}

/* The user's queued signals and their limit, from SigQ in /proc/PID/status. */
static bool queue_use(pid_t pid, long *queued, long *limit)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t r = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (r <= 0)
        return false;
    buf[r] = 0;
    const char *q = strstr(buf, "\nSigQ:");
    return q && sscanf(q + 6, " %ld/%ld", queued, limit) == 2;
}

static int send_to(pid_t pid, long min)
{
    bool ended = false;
    long i = 0;
    while (i < CAPACITY && (i < min || !ended)) {
        if (i % 64 == 0) {
            /* Others' signals count too: wait for the queue to drain, for 10 s at most. */
            long queued, limit;
            double since = now();
            while (queue_use(pid, &queued, &limit) && queued > limit / 4 && now() - since < 10)
                sched_yield();
        }
        if (!ended && i % 1024 == 0) {
            struct pollfd p = {.fd = 0, .events = POLLIN};
            char c[64];
            if (poll(&p, 1, 0) > 0 && read(0, c, sizeof c) <= 0)
                ended = true;
        }
        union sigval v = {.sival_int = (int)i};
        if (sigqueue(pid, SIGRTMIN, v) == 0)
            i++;
        else if (errno == EAGAIN)
            sched_yield();
        else {
            printf("FAIL sent %ld: sigqueue: %s\n", i, strerror(errno));
            return 1;
        }
    }
    printf("sent %ld\n", i);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "recv"))
        return receive(argv[2]);
    if (argc == 4 && !strcmp(argv[1], "send"))
        return send_to((pid_t)atoi(argv[2]), atol(argv[3]));
    fprintf(stderr, "usage: sigqueue_target recv spin|read | send PID MIN\n");
    return 2;
}
