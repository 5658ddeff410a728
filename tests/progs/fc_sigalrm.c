/* SPDX-License-Identifier: MIT */
/* Reads the clock from a SIGALRM handler that fires every 50 us while main() reads the
 * same clock in a loop (issue 9.1): the handler regularly interrupts main inside fastclock's
 * own refresh, where a seqlock reader that waits for the writer would spin for ever.
 *
 * Built two ways (tests/test_fastclock.py, tests/test_run.py):
 *   -DUSE_FASTCLOCK  linked against libfastclock: the handler calls every fastclock reader
 *                    (monotonic, realtime, boottime, ticks, recent), main fastclock_monotonic_ns
 *   plain            libc's clock_gettime / gettimeofday, for `clockscope run --mode fast|auto`
 * Every value the handler gets is checked against a bracket of raw syscalls (which neither
 * the shim nor fastclock serve) read inside the handler around it.  Prints "key value" lines:
 *   signals N            handler runs
 *   below CLOCK NS       max (kernel_before - value) over the handler's reads of CLOCK
 *   above CLOCK NS       max (value - kernel_after)
 *   main_backwards N     backward steps of main's monotonic reads
 *   handler_backwards N  handler monotonic values below the last value main had returned
 * Usage: fc_sigalrm [SECONDS]   (default 2) */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifdef USE_FASTCLOCK
#include <fastclock.h>
#endif

enum { C_MONO, C_REAL, C_BOOT, C_GTOD, NCLOCKS };
static const char *names[NCLOCKS] = {"monotonic", "realtime", "boottime", "gettimeofday"};
static const clockid_t ids[NCLOCKS] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME,
                                       CLOCK_REALTIME};

static volatile sig_atomic_t signals;
static volatile int64_t below[NCLOCKS], above[NCLOCKS];
static volatile int64_t main_last; /* the last monotonic value main returned */
static volatile long handler_backwards;

static int64_t sys_ns(clockid_t id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t read_clock(int c)
{
#ifdef USE_FASTCLOCK
    switch (c) {
    case C_MONO: return (int64_t)fastclock_monotonic_ns();
    case C_REAL: return (int64_t)fastclock_realtime_ns();
    case C_BOOT: return (int64_t)fastclock_boottime_ns();
    default: return (int64_t)fastclock_realtime_ns();
    }
#else
    if (c == C_GTOD) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        return (int64_t)tv.tv_sec * 1000000000 + (int64_t)tv.tv_usec * 1000;
    }
    struct timespec ts;
    clock_gettime(ids[c], &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#endif
}

static void note(int c, int64_t a, int64_t v, int64_t b)
{
    if (c == C_GTOD) /* microseconds: the value may be up to 1 us below the bracket */
        a -= 1000;
    if (a - v > below[c])
        below[c] = a - v;
    if (v - b > above[c])
        above[c] = v - b;
}

static void on_alarm(int sig)
{
    (void)sig;
    signals++;
    int64_t seen = main_last;
    for (int c = 0; c < NCLOCKS; c++) {
        int64_t a = sys_ns(ids[c]), v = read_clock(c), b = sys_ns(ids[c]);
        note(c, a, v, b);
        if (c == C_MONO && v < seen)
            handler_backwards++;
    }
#ifdef USE_FASTCLOCK
    /* The other readers: they must return (the test's timeout catches a spin), and be sane. */
    uint64_t t0 = fastclock_ticks(), r = fastclock_recent_ns();
    uint64_t t1 = fastclock_ticks();
    if (t1 < t0 || r == 0 || fastclock_ticks_to_ns(t1 - t0) > 1000000000ull)
        handler_backwards++;
#endif
}

int main(int argc, char **argv)
{
    double secs = argc > 1 ? atof(argv[1]) : 2.0;
    if (!(secs > 0 && secs < 600)) {
        fprintf(stderr, "usage: fc_sigalrm [SECONDS], 0 < SECONDS < 600\n");
        return 2;
    }
    for (int c = 0; c < NCLOCKS; c++)
        below[c] = above[c] = INT64_MIN;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sa.sa_flags = SA_RESTART;
    sigaction(SIGALRM, &sa, NULL);
    struct itimerval it = {{0, 50}, {0, 50}};
    setitimer(ITIMER_REAL, &it, NULL);
    int64_t end = sys_ns(CLOCK_MONOTONIC) + (int64_t)(secs * 1e9);
    long backwards = 0, reads = 0;
    int64_t prev = 0;
    while (sys_ns(CLOCK_MONOTONIC) < end) {
        for (int i = 0; i < 1000; i++) {
            int64_t v = read_clock(C_MONO);
            backwards += v < prev;
            prev = v;
            main_last = v;
            reads++;
        }
    }
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_REAL, &off, NULL);
    printf("signals %ld\nreads %ld\n", (long)signals, reads);
    for (int c = 0; c < NCLOCKS; c++)
        printf("below %s %lld\nabove %s %lld\n", names[c], (long long)below[c], names[c],
               (long long)above[c]);
    printf("main_backwards %ld\nhandler_backwards %ld\n", backwards, handler_backwards);
    return 0;
}
