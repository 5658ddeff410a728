/* SPDX-License-Identifier: MIT */
/* A running program for `clockscope run -p` and `--undo` to be killed in the middle of
 * (tests/test_run_attach_safety.py), built with -static:
 *   live_target T
 * T threads (1 to 16) read the time through the vDSO without pause: clock_gettime of
 * CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME, CLOCK_MONOTONIC_COARSE and
 * CLOCK_REALTIME_COARSE, gettimeofday and time (every entry point run patches), each read
 * between two raw syscalls: the kernel's value of the same clock before and of its fine
 * twin after (for a coarse clock, the kernel's coarse value before <= the read <= the
 * fine value after; a served coarse read is answered by the fine clock).  A read that
 * fails or lies outside is written at once to stderr ("outside ..."), so that the test
 * sees which step broke it.  Signal dispositions are the defaults: a stray SIGTRAP,
 * SIGSEGV or SIGILL (a thread run on at injected registers, a syscall instruction left in
 * the vDSO, half a jump) kills the program visibly.  It prints "ready pid P threads T"
 * once they run; the main thread reads its stdin until it ends, then prints
 *   ok live_target threads T reads R outside 0
 * and exits 0 ("FAIL ... outside N" and 1 when a read was outside). */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define MAX_THREADS 16

static atomic_bool stop;
static atomic_long reads, outside;

static int64_t ns(const struct timespec *t)
{
    return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static int64_t kernel(clockid_t id)
{
    struct timespec t;
    if (syscall(SYS_clock_gettime, id, &t) != 0)
        abort();
    return ns(&t);
}

static void report(const char *what, int64_t before, int64_t v, int64_t after, int r)
{
    if (atomic_fetch_add(&outside, 1) < 20) {
        char line[200];
        int n = snprintf(line, sizeof line, "outside %s: %lld not in [%lld, %lld] r %d\n", what,
                         (long long)v, (long long)before, (long long)after, r);
        if (write(2, line, (size_t)n) < 0)
            abort();
    }
}

static void check_clock(const char *name, clockid_t id, clockid_t fine)
{
    struct timespec t = {0, 0};
    int64_t before = kernel(id);
    int r = clock_gettime(id, &t); /* the vDSO, patched or not */
    int64_t after = kernel(fine);
    if (r != 0 || ns(&t) < before || ns(&t) > after)
        report(name, before, ns(&t), after, r);
}

static void *reader(void *arg)
{
    (void)arg;
    long n = 0;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        check_clock("CLOCK_MONOTONIC", CLOCK_MONOTONIC, CLOCK_MONOTONIC);
        check_clock("CLOCK_REALTIME", CLOCK_REALTIME, CLOCK_REALTIME);
        check_clock("CLOCK_BOOTTIME", CLOCK_BOOTTIME, CLOCK_BOOTTIME);
        check_clock("CLOCK_MONOTONIC_COARSE", CLOCK_MONOTONIC_COARSE, CLOCK_MONOTONIC);
        check_clock("CLOCK_REALTIME_COARSE", CLOCK_REALTIME_COARSE, CLOCK_REALTIME);

        struct timeval tv = {0, 0};
        int64_t before = kernel(CLOCK_REALTIME_COARSE) / 1000;
        int r = gettimeofday(&tv, NULL);
        int64_t after = kernel(CLOCK_REALTIME) / 1000;
        int64_t us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
        if (r != 0 || us < before || us > after)
            report("gettimeofday", before, us, after, r);

        before = kernel(CLOCK_REALTIME_COARSE) / 1000000000;
        time_t s = time(NULL);
        after = kernel(CLOCK_REALTIME) / 1000000000;
        if (s < before || s > after)
            report("time", before, s, after, 0);
        n += 7;
    }
    atomic_fetch_add(&reads, n);
    return NULL;
}

int main(int argc, char **argv)
{
    int nthreads = argc > 1 ? atoi(argv[1]) : 3;
    if (nthreads < 1 || nthreads > MAX_THREADS) {
        fprintf(stderr, "usage: live_target T (1 to %d threads)\n", MAX_THREADS);
        return 2;
    }
    pthread_t th[MAX_THREADS];
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&th[i], NULL, reader, NULL) != 0) {
            perror("pthread_create");
            return 2;
        }
    printf("ready pid %d threads %d\n", (int)getpid(), nthreads);
    fflush(stdout);
    char buf[256];
    ssize_t r;
    while ((r = read(0, buf, sizeof buf)) != 0)
        if (r < 0 && errno != EINTR) {
            perror("read");
            break;
        }
    atomic_store(&stop, true);
    for (int i = 0; i < nthreads; i++)
        pthread_join(th[i], NULL);
    long bad = atomic_load(&outside);
    printf("%s live_target threads %d reads %ld outside %ld\n", bad ? "FAIL" : "ok", nthreads,
           atomic_load(&reads), bad);
    return bad != 0;
}
