/* SPDX-License-Identifier: MIT */
/* What libfastclock's automatic ticker costs the process it serves (issue 18): the ticker
 * thread's own CPU time (/proc/self/task/TID/schedstat, ns on the CPU) and wake-ups
 * (voluntary context switches), over a phase in which the program reads the time every
 * 20 ms, then over a phase in which it does not read at all, measured from 3 s on (the
 * ticker parks after 2 s without reads);
 * and, for reference, the same figures for a bare thread that only sleeps 50 ms at a time
 * on a condition variable (what any periodic thread costs on this machine); and the wall
 * time of one whole refresh (what the ticker does at each wake-up), called directly after
 * 60 ms sleeps with the ticker stopped: fc_refresh_ahead() is libfastclock's internal,
 * hidden (not exported from the .so) but linkable from the static library.
 *
 *   cc -O2 -Isrc/fastclock -o ticker_cost benchmarks/ticker_cost.c build/libfastclock.a -lpthread
 *   ./ticker_cost [SECONDS]          (default 10 per phase)
 * Prints per phase: seconds, the ticker's CPU time (µs), its share of one CPU, wake-ups per
 * second and fastclock refreshes per second. */
#include <fastclock.h>

#define _GNU_SOURCE /* syscall */
#include <dirent.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static char task[300];

static int find_ticker(void)
{
    DIR *d = opendir("/proc/self/task");
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d));) {
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(name, sizeof name, f) && strcmp(name, "fastclock\n") == 0) {
            snprintf(task, sizeof task, "/proc/self/task/%s", e->d_name);
            found = 1;
        }
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

static void sample(uint64_t *cpu_ns, uint64_t *wakeups)
{
    char path[340], line[256];
    snprintf(path, sizeof path, "%s/schedstat", task);
    FILE *f = fopen(path, "r");
    unsigned long long run = 0, w = 0;
    if (f && fscanf(f, "%llu", &run) != 1)
        run = 0;
    if (f)
        fclose(f);
    snprintf(path, sizeof path, "%s/status", task);
    f = fopen(path, "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "voluntary_ctxt_switches:", 24) == 0)
            w = strtoull(line + 24, NULL, 10);
    if (f)
        fclose(f);
    *cpu_ns = run, *wakeups = w;
}

static void nap_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

uint64_t fc_refresh_ahead(void); /* libfastclock internal (src/fastclock/fc_state.h) */

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void refresh_time(void)
{
    uint64_t d[100];
    for (int i = 0; i < 100; i++) {
        nap_ms(60); /* past half the 100 ms period: a whole refresh is due for the ticker */
        uint64_t a = mono_ns();
        (void)fc_refresh_ahead();
        d[i] = mono_ns() - a;
    }
    qsort(d, 100, sizeof d[0], cmp_u64);
    printf("%-32s 100 x  p50 %.1f us, p90 %.1f us, max %.1f us (wall time, cold after the sleep)\n",
           "one whole refresh", d[50] / 1e3, d[90] / 1e3, d[99] / 1e3);
}

static pthread_mutex_t bare_mx = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bare_cv;
static volatile long bare_tid;

static void *bare_main(void *arg)
{
    (void)arg;
    bare_tid = syscall(SYS_gettid);
    for (;;) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += 50000000;
        if (until.tv_nsec >= 1000000000) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000;
        }
        pthread_mutex_lock(&bare_mx);
        while (pthread_cond_timedwait(&bare_cv, &bare_mx, &until) == 0)
            ;
        pthread_mutex_unlock(&bare_mx);
    }
    return NULL;
}

static void phase(const char *name, int seconds, int reading)
{
    struct fastclock_info a, b;
    uint64_t c0, w0, c1, w1;
    if (!reading)
        nap_ms(3000); /* not measured: the 2 s before the ticker parks */
    fastclock_info(&a);
    sample(&c0, &w0);
    for (int i = 0; i < seconds * 50; i++) {
        nap_ms(20);
        if (reading)
            (void)fastclock_monotonic_ns();
    }
    sample(&c1, &w1);
    fastclock_info(&b);
    double cpu_us = (double)(c1 - c0) / 1e3;
    printf("%-32s %3d s  ticker CPU %8.1f us (%.4f%% of a CPU)  %6.1f wake-ups/s  %5.1f refreshes/s\n",
           name, seconds, cpu_us, cpu_us / (seconds * 1e6) * 100, (double)(w1 - w0) / seconds,
           (double)(b.refreshes - a.refreshes) / seconds);
}

int main(int argc, char **argv)
{
    int seconds = argc > 1 ? atoi(argv[1]) : 10;
    if (seconds < 1 || seconds > 3600) {
        fprintf(stderr, "ticker_cost: SECONDS from 1 to 3600\n");
        return 2;
    }
    (void)fastclock_monotonic_ns();
    for (int i = 0; i < 300 && !find_ticker(); i++)
        nap_ms(10);
    if (!task[0]) {
        struct fastclock_info info;
        fastclock_info(&info);
        fprintf(stderr, "ticker_cost: no ticker thread (source: %s)\n", info.why);
        return 1;
    }
    nap_ms(500); /* past the first refreshes (periods doubling from 2 ms) */
    phase("reads every 20 ms", seconds, 1);
    phase("no reads, from 3 s on (parked)", seconds, 0);
    fastclock_ticker_stop();
    refresh_time();
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&bare_cv, &ca);
    pthread_t th;
    if (pthread_create(&th, NULL, bare_main, NULL) != 0)
        return 1;
    while (!bare_tid)
        nap_ms(1);
    snprintf(task, sizeof task, "/proc/self/task/%ld", bare_tid);
    nap_ms(500);
    uint64_t c0, w0, c1, w1;
    sample(&c0, &w0);
    nap_ms(seconds * 1000L);
    sample(&c1, &w1);
    double cpu_us = (double)(c1 - c0) / 1e3;
    printf("%-32s %3d s  thread CPU %8.1f us (%.4f%% of a CPU)  %6.1f wake-ups/s\n",
           "bare thread, 50 ms sleeps", seconds, cpu_us, cpu_us / (seconds * 1e6) * 100,
           (double)(w1 - w0) / seconds);
    return 0;
}
