/* SPDX-License-Identifier: MIT */
/* A program for `clockscope run` on static binaries (tests/test_run_static.py), built with
 * gcc -static.  Every check compares libc's clock calls (the vDSO, patched or not) with the
 * raw syscall, which nothing in user space intercepts.
 *   static_clock pairs N          each served clock between two raw syscalls, N times (a
 *                                 coarse clock: its raw value before, the fine one after)
 *   static_clock threads T SECS   T threads read CLOCK_MONOTONIC with SIGPROF at 1 kHz whose
 *                                 handler reads it too: no value below one read before it
 *   static_clock fork N           the same pairs in a forked child
 *   static_clock nosyscall N      clock syscalls made to fail (seccomp): how many of N libc
 *                                 calls failed, i.e. went to the kernel
 *   static_clock sleep MS         one nanosleep of MS ms: its result and how long it took
 * Prints "ok ..." lines or "FAIL ..." lines; exit 0 unless something could not run.
 * STATIC_CLOCK_SETTLE_MS=N sleeps N ms first. */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t ns(const struct timespec *ts) { return (uint64_t)ts->tv_sec * 1000000000u + (uint64_t)ts->tv_nsec; }

static uint64_t raw(clockid_t id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, id, &ts);
    return ns(&ts);
}

static uint64_t libc(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ns(&ts);
}

static int pairs(long n, const char *who)
{
    static const clockid_t ids[] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME, CLOCK_MONOTONIC_RAW};
    long bad = 0;
    for (long i = 0; i < n; i++) {
        for (size_t c = 0; c < sizeof ids / sizeof ids[0]; c++) {
            uint64_t a = raw(ids[c]), v = libc(ids[c]), b = raw(ids[c]);
            if (v < a || v > b) {
                if (bad++ < 5)
                    printf("FAIL %s pair clock %d: %llu not in [%llu, %llu]\n", who, (int)ids[c],
                           (unsigned long long)v, (unsigned long long)a, (unsigned long long)b);
            }
        }
        /* The coarse clocks: at or above the kernel's coarse value before, at or below its
         * fine value after (the kernel's own coarse answer lags the fine clock by up to a
         * tick; a served one is the fine value). */
        static const clockid_t coarse[][2] = {{CLOCK_MONOTONIC_COARSE, CLOCK_MONOTONIC},
                                              {CLOCK_REALTIME_COARSE, CLOCK_REALTIME}};
        for (size_t c = 0; c < 2; c++) {
            uint64_t a = raw(coarse[c][0]), v = libc(coarse[c][0]), b = raw(coarse[c][1]);
            if (v < a || v > b) {
                if (bad++ < 5)
                    printf("FAIL %s pair coarse clock %d: %llu not in [%llu, %llu]\n", who,
                           (int)coarse[c][0], (unsigned long long)v, (unsigned long long)a,
                           (unsigned long long)b);
            }
        }
        struct timeval tv;
        uint64_t a = raw(CLOCK_REALTIME) / 1000;
        gettimeofday(&tv, NULL);
        uint64_t b = raw(CLOCK_REALTIME) / 1000, v = (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
        if (v < a || v > b) {
            if (bad++ < 5)
                printf("FAIL %s gettimeofday %llu not in [%llu, %llu]\n", who, (unsigned long long)v,
                       (unsigned long long)a, (unsigned long long)b);
        }
        /* time() may be the coarse clock (the kernel's time syscall, and glibc's time() on
         * aarch64 and riscv64: clock_gettime(CLOCK_REALTIME_COARSE)), up to a tick behind
         * CLOCK_REALTIME: its lower bound is the coarse clock read before. */
        uint64_t s0 = raw(CLOCK_REALTIME_COARSE) / 1000000000u, t = (uint64_t)time(NULL),
                 s1 = raw(CLOCK_REALTIME) / 1000000000u;
        if (t < s0 || t > s1) {
            if (bad++ < 5)
                printf("FAIL %s time %llu not in [%llu, %llu]\n", who, (unsigned long long)t,
                       (unsigned long long)s0, (unsigned long long)s1);
        }
    }
    printf("%s %s pairs %ld bad %ld\n", bad ? "FAIL" : "ok", who, n, bad);
    return 0;
}

static _Atomic uint64_t latest;
static _Atomic long backwards, reads, handler_reads;
static volatile int stop;

/* warp's method: a value read after another thread published v must not be below v. */
static void check_one(void)
{
    uint64_t before = atomic_load(&latest);
    uint64_t v = libc(CLOCK_MONOTONIC);
    if (v < before)
        atomic_fetch_add(&backwards, 1);
    uint64_t cur = atomic_load(&latest);
    while (v > cur && !atomic_compare_exchange_weak(&latest, &cur, v))
        ;
}

static void on_prof(int sig)
{
    (void)sig;
    int e = errno;
    check_one();
    atomic_fetch_add(&handler_reads, 1);
    errno = e;
}

static void *reader(void *arg)
{
    (void)arg;
    long n = 0;
    while (!stop) {
        check_one();
        n++;
    }
    atomic_fetch_add(&reads, n);
    return NULL;
}

static int threads(int t, double secs)
{
    signal(SIGPROF, on_prof);
    struct itimerval it = {{0, 1000}, {0, 1000}}; /* 1 kHz of CPU time, spread over threads */
    setitimer(ITIMER_PROF, &it, NULL);
    pthread_t th[64];
    for (int i = 0; i < t && i < 64; i++)
        pthread_create(&th[i], NULL, reader, NULL);
    struct timespec d = {(time_t)secs, (long)((secs - (time_t)secs) * 1e9)};
    while (nanosleep(&d, &d) != 0 && errno == EINTR)
        ;
    stop = 1;
    for (int i = 0; i < t && i < 64; i++)
        pthread_join(th[i], NULL);
    struct itimerval off = {{0, 0}, {0, 0}};
    setitimer(ITIMER_PROF, &off, NULL);
    printf("%s threads %d reads %ld handler_reads %ld backwards %ld\n",
           atomic_load(&backwards) ? "FAIL" : "ok", t, atomic_load(&reads),
           atomic_load(&handler_reads), atomic_load(&backwards));
    return 0;
}

static int nosyscall(long n)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_clock_gettime, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_gettimeofday, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOTRECOVERABLE),
    };
    struct sock_fprog prog = {sizeof f / sizeof f[0], f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        printf("skip seccomp: %s\n", strerror(errno));
        return 0;
    }
    long failed = 0;
    struct timespec ts;
    struct timeval tv;
    for (long i = 0; i < n; i++) {
        failed += clock_gettime(CLOCK_MONOTONIC, &ts) != 0;
        failed += clock_gettime(CLOCK_REALTIME, &ts) != 0;
        failed += gettimeofday(&tv, NULL) != 0;
        failed += clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) != 0;
    }
    printf("nosyscall calls %ld syscalls %ld\n", 4 * n, failed);
    return 0;
}

int main(int argc, char **argv)
{
    /* STATIC_CLOCK_SETTLE_MS: sleep first, so that a served program's checks of "no syscall"
     * see fastclock's steady lines (100 ms) rather than its first ones (2, 4, 8 ms ...), which
     * a busy machine can let go stale between two looks of the refresher. */
    const char *settle = getenv("STATIC_CLOCK_SETTLE_MS");
    if (settle && atoi(settle) > 0)
        usleep((useconds_t)atoi(settle) * 1000u);
    if (argc >= 3 && !strcmp(argv[1], "pairs"))
        return pairs(atol(argv[2]), "parent");
    if (argc >= 4 && !strcmp(argv[1], "threads"))
        return threads(atoi(argv[2]), atof(argv[3]));
    if (argc >= 3 && !strcmp(argv[1], "sleep")) {
        /* One nanosleep of N ms (no retry): run -p must not cut it short or fail it. */
        long ms = atol(argv[2]);
        struct timespec d = {ms / 1000, (ms % 1000) * 1000000}, rem;
        uint64_t a = raw(CLOCK_MONOTONIC);
        int r = nanosleep(&d, &rem);
        int e = r ? errno : 0;
        uint64_t b = raw(CLOCK_MONOTONIC);
        printf("sleep r %d errno %d slept_ms %llu\n", r, e, (unsigned long long)((b - a) / 1000000u));
        return 0;
    }
    if (argc >= 3 && !strcmp(argv[1], "nosyscall"))
        return nosyscall(atol(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "fork")) {
        fflush(stdout);
        pid_t p = fork();
        if (p == 0) {
            pairs(atol(argv[2]), "child");
            fflush(stdout);
            _exit(0);
        }
        int st;
        waitpid(p, &st, 0);
        return pairs(atol(argv[2]), "parent");
    }
    fprintf(stderr, "usage: static_clock pairs N | threads T SECS | fork N | nosyscall N | sleep MS\n");
    return 2;
}
