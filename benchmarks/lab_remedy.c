/* SPDX-License-Identifier: MIT */
/* The application-side remedy measured before and after in one process, for the lab's
 * scenarios whose kernel has no fix (docs/benchmarks/lab.md, benchmarks/bench_lab_remedy.py).
 * Run it under `clockscope run --mode coarse` (as `vm --apply-fix` does when the doctor
 * recommends that remedy):
 *   before  clock_gettime(CLOCK_MONOTONIC) through libc's own definition, found with
 *           dlsym in libc.so.6 itself: what the program pays without the remedy (the shim
 *           interposes the program's calls, not libc's own symbol);
 *   after   the program's ordinary call, which the preloaded shim answers.
 * Each loop is timed by the raw syscall on CLOCK_MONOTONIC_RAW, which nobody serves.
 * Prints "key value" lines:
 *   before_calls_per_s X, after_calls_per_s Y, ratio Y/X
 *   served 1|0       whether the ordinary call went elsewhere than libc's (the shim is there)
 *   behind_ns N      max (kernel read before - served value) over 1000 sandwiches: the
 *                    served value's lag (a tick at most for COARSE)
 *   ahead_ns N       max (served value - kernel read after): <= 0 when never ahead
 *   coarse_behind_ns N, coarse_ahead_ns N   the same over 1000 sandwiches whose kernel reads
 *                    are CLOCK_MONOTONIC_COARSE: both <= 0 exactly when the served value is
 *                    the kernel's coarse clock (one timekeeper, updated each tick), however
 *                    long the machine takes between the reads
 * Usage: lab_remedy [N]   (default 20000 calls per loop) */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

typedef int (*gettime_fn)(clockid_t, struct timespec *);

static int64_t raw_ns(clockid_t id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Calls per second of fn(CLOCK_MONOTONIC) over n calls; the last value into *sink. */
static double rate(gettime_fn fn, long n, int64_t *sink)
{
    struct timespec ts = {0, 0};
    int64_t t0 = raw_ns(CLOCK_MONOTONIC_RAW);
    for (long i = 0; i < n; i++)
        fn(CLOCK_MONOTONIC, &ts);
    int64_t t1 = raw_ns(CLOCK_MONOTONIC_RAW);
    *sink += ts.tv_nsec;
    return t1 > t0 ? (double)n * 1e9 / (double)(t1 - t0) : 0;
}

/* 1000 sandwiches of the program's clock_gettime(CLOCK_MONOTONIC) between raw syscalls on
 * `kernel`: the largest (before - value) into *behind, (value - after) into *ahead. */
static void sandwiches(clockid_t kernel, int64_t *behind, int64_t *ahead)
{
    for (int i = 0; i < 1000; i++) {
        struct timespec ts;
        int64_t a = raw_ns(kernel);
        clock_gettime(CLOCK_MONOTONIC, &ts);
        int64_t b = raw_ns(kernel);
        int64_t v = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        *behind = a - v > *behind ? a - v : *behind;
        *ahead = v - b > *ahead ? v - b : *ahead;
    }
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 20000;
    if (n < 1 || n > 100000000) {
        fprintf(stderr, "usage: lab_remedy [N], N from 1 to 1e8\n");
        return 2;
    }
    void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
    gettime_fn own = libc ? (gettime_fn)dlsym(libc, "clock_gettime") : NULL;
    if (!own) {
        fprintf(stderr, "lab_remedy: cannot find libc's clock_gettime: %s\n", dlerror());
        return 1;
    }
    gettime_fn ordinary = clock_gettime;
    int64_t sink = 0;
    /* Interleaved, twice each, so that neither side gets a quieter moment of the host. */
    double before = rate(own, n, &sink), after = rate(ordinary, n, &sink);
    double before2 = rate(own, n, &sink), after2 = rate(ordinary, n, &sink);
    before = before2 > before ? before2 : before;
    after = after2 > after ? after2 : after;
    int64_t behind = INT64_MIN, ahead = INT64_MIN;
    int64_t coarse_behind = INT64_MIN, coarse_ahead = INT64_MIN;
    sandwiches(CLOCK_MONOTONIC, &behind, &ahead);
    sandwiches(CLOCK_MONOTONIC_COARSE, &coarse_behind, &coarse_ahead);
    printf("before_calls_per_s %.0f\n", before);
    printf("after_calls_per_s %.0f\n", after);
    printf("ratio %.1f\n", before > 0 ? after / before : 0);
    printf("served %d\n", ordinary != own);
    printf("behind_ns %lld\n", (long long)behind);
    printf("ahead_ns %lld\n", (long long)ahead);
    printf("coarse_behind_ns %lld\n", (long long)coarse_behind);
    printf("coarse_ahead_ns %lld\n", (long long)coarse_ahead);
    return sink == 42; /* keeps the loops */
}
