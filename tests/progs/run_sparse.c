/* SPDX-License-Identifier: MIT */
/* A dynamically linked program for `clockscope run` tests of sparse readers (issue 18): what
 * a program that reads the time now and then gets from the shim, in every mode.
 *
 *   run_sparse [GAP_US:READS ...]     default 1000:300 20000:40 150000:8
 *   run_sparse idle                   only: after the dense phase, no read for 2.5 s (the
 *                                     automatic ticker parks after 2 s), then prints
 *                                     "idle wakeups N" (the ticker's voluntary context
 *                                     switches over the next second; 20 when it ticks)
 * Prints:
 *   ticker N SIGBLK        threads of this process named "fastclock" (the automatic ticker)
 *                          and the first one's blocked-signal mask (hex, "-" if none)
 *   gap US max NS reads N discarded D below NS above NS back B slow S
 *                          per gap: the longest clock_gettime(CLOCK_MONOTONIC) read that
 *                          was not preempted (getrusage RUSAGE_THREAD; discarded: the
 *                          preempted ones), timed between two raw syscalls; slow: how many
 *                          of those kept took over 20 us (a VM's host preempts the guest
 *                          unseen by getrusage, so a few may on a busy host); below/above:
 *                          the most a value fell below / rose above that bracket (ns, >= 0);
 *                          back: values below the one before
 *   fork ticker N          the same count in a forked child, 200 ms after the fork
 * The first read happens before anything is printed; the ticker count is taken after a
 * short dense phase (50 ms) and up to 2 s of waiting for the thread (it starts when the
 * cross-CPU check has passed). */
#define _GNU_SOURCE /* RUSAGE_THREAD */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t sys_ns(void)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t lib_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long involuntary(void)
{
    struct rusage ru;
    getrusage(RUSAGE_THREAD, &ru);
    return ru.ru_nivcsw;
}

static void nap_us(long us)
{
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&ts, NULL);
}

/* Threads named "fastclock" now; the first one's SigBlk into mask (or "-"), and its
 * voluntary context switches into *wakeups (if not NULL). */
static int tickers_w(char *mask, size_t len, long long *wakeups)
{
    int n = 0;
    snprintf(mask, len, "-");
    DIR *d = opendir("/proc/self/task");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], line[128] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int is = fgets(line, sizeof line, f) && strcmp(line, "fastclock\n") == 0;
        fclose(f);
        if (!is)
            continue;
        if (n++ == 0) {
            snprintf(path, sizeof path, "/proc/self/task/%s/status", e->d_name);
            f = fopen(path, "r");
            while (f && fgets(line, sizeof line, f))
                if (strncmp(line, "SigBlk:", 7) == 0)
                    snprintf(mask, len, "%s", line + 7 + strspn(line + 7, " \t"));
                else if (wakeups && strncmp(line, "voluntary_ctxt_switches:", 24) == 0)
                    *wakeups = atoll(line + 24);
            if (f)
                fclose(f);
            mask[strcspn(mask, "\n")] = 0;
        }
    }
    if (d)
        closedir(d);
    return n;
}

static int tickers(char *mask, size_t len)
{
    return tickers_w(mask, len, NULL);
}

static int wait_tickers(char *mask, size_t len)
{
    int n = 0;
    for (int i = 0; i < 200 && (n = tickers(mask, len)) == 0; i++)
        nap_us(10000);
    return n;
}

int main(int argc, char **argv)
{
    static const char *defaults[] = {"1000:300", "20000:40", "150000:8"};
    int ngaps = argc > 1 ? argc - 1 : 3;
    int64_t dense_end = sys_ns() + 50000000;
    while (sys_ns() < dense_end)
        for (int i = 0; i < 1000; i++)
            (void)lib_ns();
    char mask[64];
    int n = wait_tickers(mask, sizeof mask);
    printf("ticker %d %s\n", n, mask);
    fflush(stdout);
    if (argc == 2 && strcmp(argv[1], "idle") == 0) {
        long long w0 = -1, w1 = -1;
        nap_us(2500000);
        tickers_w(mask, sizeof mask, &w0);
        nap_us(1000000);
        tickers_w(mask, sizeof mask, &w1);
        printf("idle wakeups %lld\n", w1 - w0);
        return 0;
    }
    for (int g = 0; g < ngaps; g++) {
        const char *spec = argc > 1 ? argv[g + 1] : defaults[g];
        long gap = -1, reads = -1;
        if (sscanf(spec, "%ld:%ld", &gap, &reads) != 2 || gap < 0 || gap > 10000000 || reads < 1 ||
            reads > 1000000) {
            fprintf(stderr, "run_sparse: bad GAP_US:READS '%s'\n", spec);
            return 2;
        }
        int64_t worst = 0, prev = 0;
        int64_t below = 0, above = 0;
        long kept = 0, discarded = 0, back = 0, slow = 0;
        for (long i = 0; i < reads; i++) {
            nap_us(gap);
            long before = involuntary();
            int64_t a = sys_ns(), v = lib_ns(), b = sys_ns();
            below = a - v > below ? a - v : below;
            above = v - b > above ? v - b : above;
            back += v < prev;
            prev = v;
            if (involuntary() != before) {
                discarded++;
                continue;
            }
            kept++;
            slow += b - a > 20000;
            worst = b - a > worst ? b - a : worst;
        }
        printf("gap %ld max %lld reads %ld discarded %ld below %lld above %lld back %ld slow %ld\n",
               gap, (long long)worst, kept, discarded, (long long)below, (long long)above, back,
               slow);
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        (void)lib_ns();
        nap_us(200000);
        printf("fork ticker %d\n", wait_tickers(mask, sizeof mask));
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(pid, &st, 0);
    return 0;
}
