/* SPDX-License-Identifier: MIT */
/* A dynamically linked program for `clockscope run` tests.  Prints one line per fact,
 * "key value...", for the test to check:
 *   pair CLOCK below above   max (kernel_before - value) and max (value - kernel_after) in
 *                            ns over 2000 sandwiches syscall / libc call / syscall
 *   backwards CLOCK N        within-thread backward steps of the libc call
 *   invalid ID RET ERRNO     clock_gettime with an invalid id
 *   badptr ...               outcome of clock_gettime/gettimeofday with a bad pointer
 *   threads N                backward steps seen by 4 threads
 *   fork below above         as pair, CLOCK_MONOTONIC in a forked child
 *   forkpair CLOCK below above  as pair, every clock, in the forked child
 *   exec PRELOAD SHIM        LD_PRELOAD and whether the shim is mapped in an exec'd child
 *   execpair CLOCK below above  as pair, every clock, in the exec'd child
 *   getres CLOCK NS          clock_getres of realtime, monotonic, boottime and the two
 *                            _COARSE clocks, in ns
 * Before measuring, each process reads every clock densely for 50 ms: a served clock is
 * then answered from fastclock's live line, not from the kernel clock it serves until its
 * cross-CPU check has passed.
 * Usage: clockpairs [child] */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t sys_ns(clockid_t id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t lib_ns(clockid_t id); /* extern: count mode names it (-rdynamic) */
int64_t lib_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int64_t gtod_ns(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (int64_t)tv.tv_sec * 1000000000 + tv.tv_usec * 1000;
}

static void warm_up(void)
{
    int64_t end = sys_ns(CLOCK_MONOTONIC) + 50000000;
    while (sys_ns(CLOCK_MONOTONIC) < end)
        for (int i = 0; i < 1000; i++)
            (void)(lib_ns(CLOCK_MONOTONIC) + lib_ns(CLOCK_REALTIME) + lib_ns(CLOCK_BOOTTIME) + gtod_ns());
}

/* "PREFIX CLOCK below above" for every clock the shim serves, 1000 sandwiches each. */
static void pairs_all(const char *prefix)
{
    static const clockid_t ids[] = {CLOCK_REALTIME, CLOCK_MONOTONIC, CLOCK_BOOTTIME, CLOCK_REALTIME};
    static const char *names[] = {"realtime", "monotonic", "boottime", "gettimeofday"};
    warm_up();
    for (int c = 0; c < 4; c++) {
        int64_t below = INT64_MIN, above = INT64_MIN;
        for (int i = 0; i < 1000; i++) {
            int64_t a = sys_ns(ids[c]);
            int64_t v = c == 3 ? gtod_ns() : lib_ns(ids[c]);
            int64_t b = sys_ns(ids[c]);
            if (c == 3)
                a = a / 1000 * 1000; /* microseconds */
            below = a - v > below ? a - v : below;
            above = v - b > above ? v - b : above;
        }
        printf("%s %s %lld %lld\n", prefix, names[c], (long long)below, (long long)above);
    }
}

static void pair(const char *name, clockid_t id)
{
    int64_t below = INT64_MIN, above = INT64_MIN, prev = 0;
    int back = 0;
    for (int i = 0; i < 2000; i++) {
        int64_t a = sys_ns(id), v = lib_ns(id), b = sys_ns(id);
        below = a - v > below ? a - v : below;
        above = v - b > above ? v - b : above;
    }
    for (int i = 0; i < 200000; i++) {
        int64_t v = lib_ns(id);
        back += v < prev;
        prev = v;
    }
    printf("pair %s %lld %lld\nbackwards %s %d\n", name, (long long)below, (long long)above, name, back);
}

static void pair_gettimeofday(void)
{
    int64_t below = INT64_MIN, above = INT64_MIN;
    for (int i = 0; i < 2000; i++) {
        struct timeval tv;
        int64_t a = sys_ns(CLOCK_REALTIME) / 1000 * 1000;
        gettimeofday(&tv, NULL);
        int64_t b = sys_ns(CLOCK_REALTIME);
        int64_t v = (int64_t)tv.tv_sec * 1000000000 + tv.tv_usec * 1000;
        below = a - v > below ? a - v : below;
        above = v - b > above ? v - b : above;
    }
    printf("pair gettimeofday %lld %lld\n", (long long)below, (long long)above);
    time_t t0 = (time_t)(sys_ns(CLOCK_REALTIME_COARSE) / 1000000000), t = time(NULL);
    time_t t1 = (time_t)(sys_ns(CLOCK_REALTIME) / 1000000000);
    printf("time %d\n", t >= t0 && t <= t1);
}

/* In a child, so that a SIGSEGV (the vDSO writing through the pointer) is an outcome. */
static void badptr(const char *what, int which)
{
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        int r;
        errno = 0;
        if (which == 0)
            r = clock_gettime(CLOCK_MONOTONIC, (struct timespec *)16);
        else if (which == 1)
            r = clock_gettime(CLOCK_REALTIME, NULL);
        else
            r = gettimeofday((struct timeval *)16, NULL);
        printf("badptr %s ret %d errno %d\n", what, r, errno);
        fflush(stdout);
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    if (WIFSIGNALED(st))
        printf("badptr %s signal %d\n", what, WTERMSIG(st));
}

static int64_t thread_back[4];
static void *thread_main(void *arg)
{
    int64_t *out = arg, prev = 0;
    for (int i = 0; i < 100000; i++) {
        int64_t v = lib_ns(CLOCK_MONOTONIC);
        *out += v < prev;
        prev = v;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        const char *pre = getenv("LD_PRELOAD");
        FILE *maps = fopen("/proc/self/maps", "r");
        char line[512];
        int shim = 0;
        while (maps && fgets(line, sizeof line, maps))
            shim |= strstr(line, "libclockscope-shim") != NULL;
        if (maps)
            fclose(maps);
        printf("exec %s %d\n", pre && *pre ? pre : "-", shim);
        pairs_all("execpair");
        return 0;
    }
    warm_up();
    pair("realtime", CLOCK_REALTIME);
    pair("monotonic", CLOCK_MONOTONIC);
    pair("boottime", CLOCK_BOOTTIME);
    pair_gettimeofday();
    static const clockid_t invalid[] = {-1, 16, 99, 12345, (clockid_t)0x7fffffff};
    for (size_t i = 0; i < sizeof invalid / sizeof invalid[0]; i++) {
        struct timespec ts;
        errno = 0;
        int r = clock_gettime(invalid[i], &ts);
        printf("invalid %d %d %d\n", (int)invalid[i], r, r ? errno : 0);
    }
    static const struct {
        const char *name;
        clockid_t id;
    } res[] = {{"realtime", CLOCK_REALTIME}, {"monotonic", CLOCK_MONOTONIC},
               {"boottime", CLOCK_BOOTTIME}, {"realtime_coarse", CLOCK_REALTIME_COARSE},
               {"monotonic_coarse", CLOCK_MONOTONIC_COARSE}};
    for (size_t i = 0; i < sizeof res / sizeof res[0]; i++) {
        struct timespec r = {-1, -1};
        clock_getres(res[i].id, &r);
        printf("getres %s %lld\n", res[i].name, (long long)r.tv_sec * 1000000000LL + r.tv_nsec);
    }
    badptr("monotonic", 0);
    badptr("realtime_null", 1);
    badptr("gettimeofday", 2);
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&th[i], NULL, thread_main, &thread_back[i]);
    int64_t total = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        total += thread_back[i];
    }
    printf("threads %lld\n", (long long)total);
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        int64_t below = INT64_MIN, above = INT64_MIN;
        for (int i = 0; i < 1000; i++) {
            int64_t a = sys_ns(CLOCK_MONOTONIC), v = lib_ns(CLOCK_MONOTONIC), b = sys_ns(CLOCK_MONOTONIC);
            below = a - v > below ? a - v : below;
            above = v - b > above ? v - b : above;
        }
        printf("fork %lld %lld\n", (long long)below, (long long)above);
        pairs_all("forkpair");
        fflush(stdout);
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    int st;
    waitpid(p, &st, 0);
    return 0;
}
