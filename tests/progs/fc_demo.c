/* Links against the installed libfastclock (pkg-config fastclock).  Prints "key value" lines:
 *   source N why...        fastclock_info() after the first call
 *   init_ns N
 *   bound below above      sandwiches kernel / fastclock / kernel, max excursions in ns
 *   demoted N B why...     with FC_DEMO_FLIP=DIR (a fake clocksource0 directory): after the
 *                          watchdog's demotion is written there (current hpet, the counter
 *                          gone from available), the source after the re-check and the
 *                          backward steps B across the switch
 *   fork N                 the child's reads were in bounds and its ticker advanced recent */
#include <fastclock.h>

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

static void bound(void)
{
    int64_t below = INT64_MIN, above = INT64_MIN;
    for (int i = 0; i < 20000; i++) {
        int64_t a = kns(CLOCK_MONOTONIC), v = (int64_t)fastclock_monotonic_ns(), b = kns(CLOCK_MONOTONIC);
        below = a - v > below ? a - v : below;
        above = v - b > above ? v - b : above;
    }
    printf("bound %lld %lld\n", (long long)below, (long long)above);
}

int main(void)
{
    fastclock_monotonic_ns();
    struct fastclock_info info;
    fastclock_info(&info);
    printf("source %d %s\ninit_ns %llu\n", info.source, info.why, (unsigned long long)info.init_ns);
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
        uint64_t prev = 0;
        int back = 0;
        int64_t end = kns(CLOCK_MONOTONIC) + 400000000;
        while (kns(CLOCK_MONOTONIC) < end) {
            uint64_t v = fastclock_monotonic_ns();
            back += v < prev;
            prev = v;
        }
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
        for (int i = 0; i < 1000; i++) {
            int64_t a = kns(CLOCK_MONOTONIC), v = (int64_t)fastclock_monotonic_ns(), b = kns(CLOCK_MONOTONIC);
            ok &= v >= a - 20000 && v <= b + 20000;
        }
        printf("fork %d\n", ok);
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    fastclock_ticker_stop();
    return 0;
}
