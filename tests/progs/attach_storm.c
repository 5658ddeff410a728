/* SPDX-License-Identifier: MIT */
/* A target for `clockscope run -p` under the conditions that broke its first version
 * (tests/test_run_attach.py), built with -static:
 *   attach_storm T [leader-exits]
 * T threads read CLOCK_MONOTONIC without pause (a value below the highest any thread has
 * published is a backward step); a sender thread queues a real-time signal to every reader
 * and to the main thread, without pause, at most 64 not yet handled (real-time signals
 * queue one by one: sent and handled must end equal, so a signal lost by the attach shows);
 * two threads queue it to themselves without pause (always on their way into a signal
 * handler: a PTRACE_INTERRUPT meets them in the kernel's signal code); a thread creates and
 * joins short-lived threads reading the clock, without pause (threads appear during the
 * attach); the main thread reads its stdin (a read restarted after each signal, SA_RESTART)
 * until it ends, then prints
 *   ok storm threads T reads R backwards B sent S handled H made M read_errors E
 * ("FAIL ..." when B > 0, S != H or E > 0).  leader-exits: the main thread hands all of this
 * to another thread and calls pthread_exit: the process runs on with its main thread a
 * zombie, whose /proc/PID/{auxv,maps,mem} read empty. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
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

#define MAX_READERS 64

static atomic_bool stop, stop_sending;
static atomic_long handled, sent, reads, backwards, made;
static _Atomic uint64_t latest;
static pid_t tids[MAX_READERS + 1];
static atomic_int ntids;

static void on_signal(int sig)
{
    (void)sig;
    atomic_fetch_add(&handled, 1);
}

static uint64_t now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* the vDSO, patched or not */
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *reader(void *arg)
{
    (void)arg;
    tids[atomic_fetch_add(&ntids, 1)] = (pid_t)syscall(SYS_gettid);
    long n = 0;
    while (!atomic_load(&stop)) {
        uint64_t before = atomic_load(&latest);
        uint64_t v = now();
        if (v < before)
            atomic_fetch_add(&backwards, 1);
        uint64_t cur = atomic_load(&latest);
        while (v > cur && !atomic_compare_exchange_weak(&latest, &cur, v))
            ;
        n++;
    }
    atomic_fetch_add(&reads, n);
    return NULL;
}

static void *sender(void *arg)
{
    int want = *(int *)arg + 1; /* the readers and the main thread */
    while (atomic_load(&ntids) < want && !atomic_load(&stop_sending))
        sched_yield();
    pid_t pid = getpid();
    while (!atomic_load(&stop_sending)) {
        for (int i = 0; i < want; i++) {
            if (atomic_load(&sent) - atomic_load(&handled) >= 64)
                break;
            if (syscall(SYS_tgkill, pid, tids[i], SIGRTMIN) == 0)
                atomic_fetch_add(&sent, 1);
        }
        sched_yield();
    }
    return NULL;
}

static void *raiser(void *arg)
{
    (void)arg;
    pid_t pid = getpid(), me = (pid_t)syscall(SYS_gettid);
    while (!atomic_load(&stop_sending))
        if (syscall(SYS_tgkill, pid, me, SIGRTMIN) == 0)
            atomic_fetch_add(&sent, 1);
    return NULL;
}

/* A short-lived thread reads the clock too, for about a millisecond: one created while an
 * attach seizes the others, and missed by it, would be at a clock entry point while it is
 * written. */
static void *brief(void *arg)
{
    uint64_t last = now();
    for (int i = 0; i < 20000; i++) {
        uint64_t v = now();
        if (v < last)
            atomic_fetch_add(&backwards, 1);
        last = v;
    }
    return arg;
}

static void *churner(void *arg)
{
    (void)arg;
    /* Two at a time: each new thread is created while the one before is still reading. */
    pthread_t prev;
    bool have_prev = false;
    while (!atomic_load(&stop)) {
        pthread_t t;
        if (pthread_create(&t, NULL, brief, NULL) == 0) {
            atomic_fetch_add(&made, 1);
            if (have_prev)
                pthread_join(prev, NULL);
            prev = t, have_prev = true;
        }
    }
    if (have_prev)
        pthread_join(prev, NULL);
    return NULL;
}

static int threads_wanted;

static void *run_all(void *arg)
{
    (void)arg;
    int t = threads_wanted;
    tids[atomic_fetch_add(&ntids, 1)] = (pid_t)syscall(SYS_gettid);
    pthread_t r[MAX_READERS], s, c, rs[2];
    for (int i = 0; i < t; i++)
        pthread_create(&r[i], NULL, reader, NULL);
    pthread_create(&s, NULL, sender, &t);
    pthread_create(&c, NULL, churner, NULL);
    for (int i = 0; i < 2; i++)
        pthread_create(&rs[i], NULL, raiser, NULL);
    char buf[256];
    long read_errors = 0;
    for (;;) {
        ssize_t n = read(0, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0) {
            /* SA_RESTART: a read interrupted by the handler is restarted by the kernel; an
             * EINTR here is a restart the attach broke. */
            fprintf(stderr, "attach_storm: read: %s\n", strerror(errno));
            if (++read_errors > 100)
                break;
        }
    }
    /* The signals still queued are handled while their threads live (a thread's own
     * queue ends with it): stop sending, wait for them (bounded), then stop the rest. */
    atomic_store(&stop_sending, true);
    pthread_join(s, NULL);
    for (int i = 0; i < 2; i++)
        pthread_join(rs[i], NULL);
    for (int i = 0; i < 5000 && atomic_load(&handled) < atomic_load(&sent); i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    atomic_store(&stop, true);
    for (int i = 0; i < t; i++)
        pthread_join(r[i], NULL);
    pthread_join(c, NULL);
    long b = atomic_load(&backwards), se = atomic_load(&sent), h = atomic_load(&handled);
    printf("%s storm threads %d reads %ld backwards %ld sent %ld handled %ld made %ld read_errors %ld\n",
           b || se != h || read_errors ? "FAIL" : "ok", t, atomic_load(&reads), b, se, h,
           atomic_load(&made), read_errors);
    fflush(stdout);
    exit(0);
}

int main(int argc, char **argv)
{
    threads_wanted = argc >= 2 ? atoi(argv[1]) : 0;
    if (threads_wanted < 1 || threads_wanted > MAX_READERS) {
        fprintf(stderr, "usage: attach_storm THREADS (1..%d) [leader-exits]\n", MAX_READERS);
        return 2;
    }
    struct sigaction sa = {.sa_handler = on_signal, .sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGRTMIN, &sa, NULL);
    if (argc >= 3 && !strcmp(argv[2], "leader-exits")) {
        pthread_t w;
        pthread_create(&w, NULL, run_all, NULL);
        pthread_exit(NULL);
    }
    run_all(NULL);
    return 0;
}
