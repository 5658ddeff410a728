/* SPDX-License-Identifier: MIT */
/* The C reference probe: libc's clock calls, timed in a C loop, speaking the same protocol
 * as the probes of other languages (docs/runtimes.md).  It runs as this binary re-executed
 * (CLOCKSCOPE_RUNTIMES_PROBE=c; argv[0] is "runtimes", the mode's arguments follow), so it goes through the same timeout, parser and syscall count as
 * the others, and its raw-syscall row is the count's control (it must count one per call).
 * The harness is the same loop calling an empty function through a pointer. */
#include "runtimes/runtimes.h"
#include "common/environment.h"
#include "common/clock_ns.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int call_monotonic(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_MONOTONIC, &ts);
}

static int call_realtime(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_REALTIME, &ts);
}

static int call_gettimeofday(void)
{
    struct timeval tv;
    return gettimeofday(&tv, NULL);
}

static int call_syscall(void)
{
    struct timespec ts;
    return (int)syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
}

static int call_empty(void)
{
    return 0;
}

static const struct {
    const char *api, *clock, *via;
    int (*call)(void);
} apis[] = {
    {"clock_gettime(MONOTONIC)", "monotonic", "libc", call_monotonic},
    {"clock_gettime(REALTIME)", "realtime", "libc", call_realtime},
    {"gettimeofday", "realtime", "libc", call_gettimeofday},
    {RUNTIMES_CONTROL_API, "monotonic", "syscall", call_syscall},
};
#define NAPIS (sizeof apis / sizeof apis[0])

/* The loop every row and the harness share: through a volatile pointer, so the compiler
 * can neither inline the call nor drop it. */
static uint64_t run(int (*call)(void), uint64_t n)
{
    int (*volatile fp)(void) = call;
    volatile int sink = 0;
    uint64_t t0 = clock_ns_read(CLOCK_MONOTONIC);
    for (uint64_t i = 0; i < n; i++)
        sink += fp();
    (void)sink;
    return clock_ns_read(CLOCK_MONOTONIC) - t0;
}

/* The count run's loop: the same calls, no clock read around them (a timer's own
 * clock_gettime would be counted against the API where the vDSO falls back). */
static void repeat(int (*call)(void), uint64_t n)
{
    int (*volatile fp)(void) = call;
    volatile int sink = 0;
    for (uint64_t i = 0; i < n; i++)
        sink += fp();
    (void)sink;
}

static uint64_t calibrate(int (*call)(void), uint64_t target)
{
    for (uint64_t n = 64;; n *= 4) {
        uint64_t t = run(call, n);
        if (t >= target / 4 || n >= (1u << 28))
            return n * target / (t ? t : 1) ? n * target / (t ? t : 1) : 1;
    }
}

static bool whole(const char *s, long max, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*s < '0' || *s > '9' || *end || v < 1 || v > max)
        return false;
    *out = v;
    return true;
}

int runtimes_probe_c_main(int argc, char **argv)
{
    long samples = 0, us = 0, calls = 0;
    bool timed = argc == 4 && strcmp(argv[1], "time") == 0 &&
                 whole(argv[2], PROBE_MAX_SAMPLES, &samples) && whole(argv[3], 1000000, &us);
    bool count = argc == 3 && strcmp(argv[1], "count") == 0 && whole(argv[2], 100000000, &calls);
    if (!timed && !count) {
        fprintf(stderr, "usage: %s=c clockscope runtimes time SAMPLES SAMPLE_US | count CALLS\n",
                ENV_RUNTIMES_PROBE);
        return 2;
    }
    printf("clockscope-probe 1 c libc\n");
    for (size_t a = 0; a < NAPIS; a++) {
        if (count) {
            printf("mark %s\n", apis[a].api);
            fflush(stdout); /* out before the calls: the counter attributes by it */
            repeat(apis[a].call, (uint64_t)calls);
            continue;
        }
        uint64_t n = calibrate(apis[a].call, (uint64_t)us * 1000);
        run(apis[a].call, n);
        run(call_empty, n);
        uint64_t t[PROBE_MAX_SAMPLES], h[PROBE_MAX_SAMPLES];
        for (long i = 0; i < samples; i++) { /* interleaved: a slow spell hits both */
            t[i] = run(apis[a].call, n);
            h[i] = run(call_empty, n);
        }
        printf("row %s %s %s empty() %llu", apis[a].api, apis[a].clock, apis[a].via,
               (unsigned long long)n);
        for (int k = 0; k < 2; k++)
            for (long i = 0; i < samples; i++)
                printf("%c%llu", i ? ',' : ' ', (unsigned long long)(k ? h[i] : t[i]));
        printf("\n");
        fflush(stdout);
    }
    printf("end %zu\n", NAPIS);
    return fflush(stdout) == 0 ? 0 : 1;
}
