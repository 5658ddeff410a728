/* SPDX-License-Identifier: MIT */
/* A plain ping-pong, the peer of `clockscope ladder`'s pipe round trips: what a user's own
 * program measures (tests/test_ladder.py, benchmarks/ladder_pingpong.py).
 *
 *   pingpong CPU_A CPU_B [ROUND_TRIPS [WARMUP_MS]]
 *
 * Two processes, the parent pinned to CPU_A and its child to CPU_B (the same CPU is
 * allowed), two pipes, one byte each way with blocking reads.  The parent runs round trips
 * for WARMUP_MS milliseconds (default 50), then ROUND_TRIPS more (default 20000), each
 * timed alone with clock_gettime(CLOCK_MONOTONIC) (one vDSO read per round trip is in the
 * figure: tens of ns against tens of µs).  Prints "key value" lines:
 *   round_trips N      timed round trips
 *   warmup_round_trips N
 *   median_ns X        median of the timed round trips
 *   p99_ns X           their 99th percentile (nearest rank)
 *   mean_ns X
 * Exit status: 0, 1 a system call failed, 2 bad usage. */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int pin(int cpu)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    return sched_setaffinity(0, sizeof set, &set);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The child's side: answers every byte until the parent closes its end. */
static void serve(int in, int out)
{
    char c;
    while (read(in, &c, 1) == 1)
        if (write(out, &c, 1) != 1)
            _exit(1);
    _exit(0);
}

static int round_trip(int out, int in)
{
    char c = 'x';
    return write(out, &c, 1) == 1 && read(in, &c, 1) == 1 ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 3 || argc > 5) {
        fprintf(stderr, "usage: pingpong CPU_A CPU_B [ROUND_TRIPS [WARMUP_MS]]\n");
        return 2;
    }
    int cpu_a = atoi(argv[1]), cpu_b = atoi(argv[2]);
    long n = argc > 3 ? atol(argv[3]) : 20000;
    double warmup_ms = argc > 4 ? atof(argv[4]) : 50;
    uint64_t *t = n > 0 ? malloc(sizeof *t * (size_t)n) : NULL;
    int req[2], ans[2];
    if (!t || warmup_ms < 0 || cpu_a < 0 || cpu_b < 0) {
        fprintf(stderr, "pingpong: bad arguments\n");
        return 2;
    }
    if (pipe(req) != 0 || pipe(ans) != 0)
        return 1;
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        close(req[1]);
        close(ans[0]);
        if (pin(cpu_b) != 0)
            _exit(1);
        serve(req[0], ans[1]);
    }
    close(req[0]);
    close(ans[1]);
    if (pin(cpu_a) != 0) {
        kill(child, SIGKILL);
        return 1;
    }
    long warm = 0;
    uint64_t until = now_ns() + (uint64_t)(warmup_ms * 1e6);
    while (now_ns() < until) {
        if (round_trip(req[1], ans[0]) != 0)
            return 1;
        warm++;
    }
    for (long i = 0; i < n; i++) {
        uint64_t t0 = now_ns();
        if (round_trip(req[1], ans[0]) != 0)
            return 1;
        t[i] = now_ns() - t0;
    }
    close(req[1]);
    int status;
    if (waitpid(child, &status, 0) != child || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    double sum = 0;
    for (long i = 0; i < n; i++)
        sum += (double)t[i];
    qsort(t, (size_t)n, sizeof *t, cmp_u64);
    long p99 = (long)((double)n * 0.99 + 0.999999) - 1;
    printf("round_trips %ld\nwarmup_round_trips %ld\n", n, warm);
    printf("median_ns %.1f\np99_ns %llu\nmean_ns %.1f\n",
           n % 2 ? (double)t[n / 2] : ((double)t[n / 2 - 1] + (double)t[n / 2]) / 2,
           (unsigned long long)t[p99 < 0 ? 0 : p99], sum / (double)n);
    free(t);
    return 0;
}
