/* SPDX-License-Identifier: MIT */
/* Links against the installed libfastclock (pkg-config fastclock).  Prints "key value" lines:
 *   source N why...        fastclock_info() after the first call
 *   init_ns N
 *   live N                 1 once the first line is live (the cross-CPU check passed and its
 *                          thread committed it; polled for up to 5 s), else 0
 *   settled N why...       fastclock_info() then
 *   bound below above      sandwiches kernel / fastclock / kernel, max excursions in ns, for
 *                          monotonic, realtime and boottime (the worst of the three)
 *   width N                the narrowest sandwich seen (kernel after - kernel before), ns
 *   demoted N B why...     with FC_DEMO_FLIP=DIR (a fake clocksource0 directory): after the
 *                          watchdog's demotion is written there (current hpet, the counter
 *                          gone from available), the source after the re-check and the
 *                          backward steps B that 3 threads reading across the switch saw
 *   fork N below above     N: the child's restarted ticker advanced recent; below/above as
 *                          for bound, over the child's own reads
 *   wander N               with FC_DEMO_WANDER=1: how far the counter itself strays from a
 *                          straight line against CLOCK_MONOTONIC (peak to peak of the
 *                          residuals of 60 pairs 5 ms apart, ns): what no calibration can
 *                          remove (an emulator's counter: microseconds; hardware: tens of ns) */
#include <fastclock.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t kns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t fc(clockid_t id)
{
    return (int64_t)(id == CLOCK_MONOTONIC  ? fastclock_monotonic_ns()
                     : id == CLOCK_REALTIME ? fastclock_realtime_ns()
                                            : fastclock_boottime_ns());
}

static void bound(void)
{
    static const clockid_t ids[] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME};
    int64_t below = INT64_MIN, above = INT64_MIN, width = INT64_MAX;
    for (int i = 0; i < 60000; i++) {
        clockid_t id = ids[i % 3];
        int64_t a = kns(id), v = fc(id), b = kns(id);
        below = a - v > below ? a - v : below;
        above = v - b > above ? v - b : above;
        width = b - a < width ? b - a : width;
    }
    printf("bound %lld %lld\nwidth %lld\n", (long long)below, (long long)above, (long long)width);
}

/* The counter against the kernel's clock over 300 ms: the spread of the residuals from the
 * least-squares line, ns (each pair's kernel value the midpoint of a sandwich). */
static void counter_wander(void)
{
    enum { PAIRS = 60 };
    double t[PAIRS], k[PAIRS], st = 0, sk = 0, stt = 0, stk = 0;
    for (int i = 0; i < PAIRS; i++) {
        struct timespec nap = {0, 5000000};
        nanosleep(&nap, NULL);
        int64_t a = kns(CLOCK_MONOTONIC);
        uint64_t c = fastclock_ticks();
        int64_t b = kns(CLOCK_MONOTONIC);
        t[i] = (double)c;
        k[i] = (double)(a / 2 + b / 2);
    }
    for (int i = PAIRS - 1; i >= 0; i--) { /* relative to the first pair: no precision lost */
        t[i] -= t[0];
        k[i] -= k[0];
        st += t[i], sk += k[i], stt += t[i] * t[i], stk += t[i] * k[i];
    }
    double rate = (PAIRS * stk - st * sk) / (PAIRS * stt - st * st);
    double k0 = (sk - rate * st) / PAIRS, lo = 0, hi = 0;
    for (int i = 0; i < PAIRS; i++) {
        double r = k[i] - (k0 + rate * t[i]);
        lo = r < lo ? r : lo;
        hi = r > hi ? r : hi;
    }
    printf("wander %lld\n", (long long)(hi - lo));
}

static _Atomic uint64_t demotion_max;
static _Atomic int demotion_back;

static void *demotion_reader(void *arg)
{
    (void)arg;
    int64_t end = kns(CLOCK_MONOTONIC) + 400000000;
    while (kns(CLOCK_MONOTONIC) < end) {
        for (int i = 0; i < 100; i++) {
            uint64_t seen = atomic_load(&demotion_max);
            uint64_t v = fastclock_monotonic_ns();
            if (v < seen)
                atomic_fetch_add(&demotion_back, 1);
            uint64_t cur = atomic_load(&demotion_max);
            while (v > cur && !atomic_compare_exchange_weak(&demotion_max, &cur, v))
                ;
        }
    }
    return NULL;
}

int main(void)
{
    fastclock_monotonic_ns();
    struct fastclock_info info;
    fastclock_info(&info);
    printf("source %d %s\ninit_ns %llu\n", info.source, info.why, (unsigned long long)info.init_ns);
    for (int i = 0; i < 500 && info.source == FASTCLOCK_SOURCE_COUNTER && !info.refreshes; i++) {
        struct timespec nap = {0, 10000000};
        nanosleep(&nap, NULL);
        fastclock_info(&info);
    }
    printf("live %d\n", info.refreshes > 0);
    printf("settled %d %s\n", info.source, info.why);
    if (getenv("FC_DEMO_WANDER") && info.source == FASTCLOCK_SOURCE_COUNTER)
        counter_wander();
    bound();
    const char *flip = getenv("FC_DEMO_FLIP");
    if (flip) {
        char path[512];
        snprintf(path, sizeof path, "%s/current_clocksource", flip);
        FILE *f = fopen(path, "w");
        if (f) {
            fputs("hpet\n", f);
            fclose(f);
        }
        snprintf(path, sizeof path, "%s/available_clocksource", flip);
        f = fopen(path, "w");
        if (f) {
            fputs("hpet acpi_pm\n", f);
            fclose(f);
        }
        /* Three threads read across the switch, each checking its values against the
         * largest any of them had published before its read (a seq_cst load, then the
         * call, whose counter read is ordered after it). */
        pthread_t th[3];
        for (int i = 0; i < 3; i++)
            pthread_create(&th[i], NULL, demotion_reader, NULL);
        for (int i = 0; i < 3; i++)
            pthread_join(th[i], NULL);
        int back = atomic_load(&demotion_back);
        fastclock_info(&info);
        printf("demoted %d %d %s\n", info.source, back, info.why);
        bound();
    }
    fastclock_ticker_start(1000000);
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        uint64_t r0 = fastclock_recent_ns(), r1 = r0;
        for (int i = 0; i < 500 && r1 == r0; i++) { /* the restarted ticker; up to 5 s */
            struct timespec nap = {0, 10000000};
            nanosleep(&nap, NULL);
            r1 = fastclock_recent_ns();
        }
        int ok = r1 > r0;
        int64_t below = INT64_MIN, above = INT64_MIN;
        for (int i = 0; i < 3000; i++) {
            int64_t a = kns(CLOCK_MONOTONIC), v = (int64_t)fastclock_monotonic_ns(), b = kns(CLOCK_MONOTONIC);
            below = a - v > below ? a - v : below;
            above = v - b > above ? v - b : above;
        }
        printf("fork %d %lld %lld\n", ok, (long long)below, (long long)above);
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    fastclock_ticker_stop();
    return 0;
}
