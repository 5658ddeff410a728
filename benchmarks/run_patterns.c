/* SPDX-License-Identifier: MIT */
/* benchmarks/bench_run_patterns.py's static C program: what one clock_gettime(MONOTONIC)
 * through libc (the vDSO, patched by `clockscope run` or not) costs outside a hot loop.
 * Each read is timed alone by the TSC (lfence;rdtsc on both sides, the cost of an empty
 * pair subtracted), converted to ns by a rate taken from raw syscalls (untouched by any
 * patch) after the reads.
 *   run_patterns first            the first read of the process (nothing before it)
 *   run_patterns sparse MS N      N reads, each after a pause of MS ms: the median, and
 *                                 every read ("all X ...", for the tail)
 *   run_patterns threads T N [MS] T threads reading N times each at once: the median of
 *                                 their ns per call (a loop, timed as a whole), after a
 *                                 pause of MS ms (default 0: at once)
 *   run_patterns signal N         N reads, each inside a SIGUSR1 handler: the median and
 *                                 every read, as for sparse
 *   run_patterns fork N           N children forked one after another, each timing its
 *                                 first read (a served child learns its time namespace
 *                                 then): the median and every read, as for sparse
 * Prints "ns X" (x86_64 only: exit 2 elsewhere). */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)
static inline uint64_t ticks(void)
{
    uint32_t lo, hi;
    /* lfence: the read waits for what came before (the call being timed) to finish. */
    __asm__ volatile("lfence\n\trdtsc" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

static uint64_t raw_ns(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* TSC ticks per ns, over 20 ms. */
static double rate(void)
{
    uint64_t n0 = raw_ns(), t0 = ticks();
    struct timespec p = {0, 20000000};
    nanosleep(&p, NULL);
    uint64_t n1 = raw_ns(), t1 = ticks();
    return (double)(t1 - t0) / (double)(n1 - n0);
}

/* The smallest cost of an empty pair of ticks(). */
static uint64_t empty_pair(void)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 1000; i++) {
        uint64_t a = ticks(), b = ticks();
        if (b - a < best)
            best = b - a;
    }
    return best;
}

static volatile uint64_t sink;

static uint64_t one_read(void)
{
    struct timespec ts;
    uint64_t a = ticks();
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t b = ticks();
    sink += (uint64_t)ts.tv_nsec;
    return b - a;
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, long n)
{
    qsort(v, (size_t)n, sizeof *v, cmp);
    return v[n / 2];
}

static void print_ns(uint64_t t, uint64_t empty)
{
    printf("ns %.1f\n", (double)(t > empty ? t - empty : 0) / rate());
}

/* The median as print_ns does, then every read on one line ("all X ..."): the script pools
 * them over rounds for the tail (p99, max), which one process's few reads cannot give. */
static void print_all(uint64_t *v, long n, uint64_t empty)
{
    double r = rate();
    qsort(v, (size_t)n, sizeof *v, cmp);
    printf("ns %.1f\nall", (double)(v[n / 2] > empty ? v[n / 2] - empty : 0) / r);
    for (long i = 0; i < n; i++)
        printf(" %.1f", (double)(v[i] > empty ? v[i] - empty : 0) / r);
    printf("\n");
}

static uint64_t *samples;
static volatile long taken;

static void on_usr1(int sig)
{
    (void)sig;
    samples[taken] = one_read();
    taken++;
}

struct worker {
    pthread_barrier_t *go;
    long n;
    uint64_t ticks_per_call_x1000;
};

static void *loop(void *p)
{
    struct worker *w = p;
    struct timespec ts;
    pthread_barrier_wait(w->go);
    uint64_t a = ticks();
    for (long i = 0; i < w->n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        sink += (uint64_t)ts.tv_nsec;
    }
    w->ticks_per_call_x1000 = (ticks() - a) * 1000 / (uint64_t)w->n;
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "first")) {
        uint64_t t = one_read(); /* before anything else reads a clock */
        print_ns(t, empty_pair());
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "sparse")) {
        long ms = atol(argv[2]), n = atol(argv[3]);
        uint64_t *v = calloc((size_t)n, sizeof *v);
        struct timespec p = {ms / 1000, (ms % 1000) * 1000000};
        for (long i = 0; i < n; i++) {
            nanosleep(&p, NULL);
            v[i] = one_read();
        }
        print_all(v, n, empty_pair());
        return 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "threads")) {
        long t = atol(argv[2]), n = atol(argv[3]);
        if (t < 1 || t > 64 || n < 1)
            return 2;
        long settle = argc >= 5 ? atol(argv[4]) : 0;
        struct timespec p = {settle / 1000, (settle % 1000) * 1000000};
        if (settle > 0)
            nanosleep(&p, NULL);
        pthread_barrier_t go;
        pthread_barrier_init(&go, NULL, (unsigned)t);
        pthread_t th[64];
        struct worker w[64];
        uint64_t v[64];
        for (long i = 0; i < t; i++) {
            w[i] = (struct worker){.go = &go, .n = n};
            pthread_create(&th[i], NULL, loop, &w[i]);
        }
        for (long i = 0; i < t; i++) {
            pthread_join(th[i], NULL);
            v[i] = w[i].ticks_per_call_x1000;
        }
        printf("ns %.1f\n", (double)median(v, t) / 1000.0 / rate());
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "signal")) {
        long n = atol(argv[2]);
        samples = calloc((size_t)n, sizeof *samples);
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_usr1;
        sigaction(SIGUSR1, &sa, NULL);
        while (taken < n)
            raise(SIGUSR1);
        print_all(samples, n, empty_pair());
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "fork")) {
        long n = atol(argv[2]);
        uint64_t *v = calloc((size_t)n, sizeof *v);
        (void)one_read(); /* the parent's own first read, before the children's */
        for (long i = 0; i < n; i++) {
            int fd[2];
            if (pipe(fd) != 0)
                return 1;
            pid_t pid = fork();
            if (pid == 0) {
                uint64_t t = one_read();
                _exit(write(fd[1], &t, sizeof t) == (ssize_t)sizeof t ? 0 : 1);
            }
            close(fd[1]);
            if (pid < 0 || read(fd[0], &v[i], sizeof v[i]) != (ssize_t)sizeof v[i])
                return 1;
            close(fd[0]);
            waitpid(pid, NULL, 0);
        }
        print_all(v, n, empty_pair());
        return 0;
    }
    fprintf(stderr, "usage: run_patterns first | sparse MS N | threads T N [MS] | signal N | fork N\n");
    return 2;
}
#else
int main(void)
{
    fprintf(stderr, "run_patterns: x86_64 only (it times reads by the TSC)\n");
    return 2;
}
#endif
