/* What libfastclock's automatic ticker costs the process it serves (issue 18): the ticker
 * thread's own CPU time (/proc/self/task/TID/schedstat, ns on the CPU) and wake-ups
 * (voluntary context switches), over a phase in which the program reads the time every
 * 20 ms, then over a phase in which it does not read at all (the ticker parks after 2 s).
 *
 *   cc -O2 -Isrc/fastclock -o ticker_cost benchmarks/ticker_cost.c build/libfastclock.a -lpthread
 *   ./ticker_cost [SECONDS]          (default 10 per phase)
 * Prints per phase: seconds, the ticker's CPU time (µs), its share of one CPU, wake-ups per
 * second and fastclock refreshes per second. */
#include <fastclock.h>

#include <dirent.h>
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

static void phase(const char *name, int seconds, int reading)
{
    struct fastclock_info a, b;
    uint64_t c0, w0, c1, w1;
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
    printf("%-28s %3d s  ticker CPU %8.1f us (%.4f%% of a CPU)  %6.1f wake-ups/s  %5.1f refreshes/s\n",
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
    phase("no reads (parks after 2 s)", seconds, 0);
    return 0;
}
