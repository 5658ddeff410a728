/* SPDX-License-Identifier: MIT */
/* fastclock's logic on a counter it does not read from the CPU (issue 30): linked with
 * libfastclock-seam.a (src/fastclock/fc_counter.h, FC_COUNTER_SEAM), it supplies the counter
 * and the kernel clock of a virtual machine whose time moves only when the program says:
 * every counter read costs 20 virtual ns, every kernel clock read 40 and carries +-30 ns of
 * noise (a fixed pseudo-random sequence), and the readers' pauses are virtual.  So the
 * accuracy checks below (calibration from a stated rate 40 ppm off, convergence, a counter
 * that stalls or jumps, the bounded slew, sparse reads on a stale line, the kernel's clock
 * jumping 1000 s, the process entering time namespaces) give the same answer on any machine, loaded or not, natively or under
 * qemu-user: they can fail only when the code is wrong.  Prints "check NAME ok" or
 * "check NAME FAIL details", then "seam failed N" (tests/test_fastclock.py). */
#define _GNU_SOURCE
#include "arch/arch.h"
#include "fastclock/fastclock.h"
#include "fastclock/fc_counter.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_state.h"

#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define HZ_KHZ 2445406ull                 /* the counter's true rate: 2.445406 GHz */
#define STATED_HZ 2445503816ull           /* what the CPU states: 40 ppm fast */
static _Atomic uint64_t vt = 1000000000000ull; /* virtual true time, ns (1000 s: room below) */
static _Atomic int64_t shift_ns;          /* the kernel clock minus the true time */
static _Atomic int64_t ns_mono_ns, ns_boot_ns; /* a time namespace's offsets (not REALTIME's) */
static _Atomic uint64_t noise_state = 12345;
#define REALTIME_BASE_NS 1700000000000000000ull /* CLOCK_REALTIME - the true time */
static int failed;

uint64_t fc_seam_counter(void)
{
    uint64_t t = atomic_fetch_add(&vt, 20) + 20;
    return (uint64_t)((unsigned __int128)t * HZ_KHZ / 1000000);
}

uint64_t fc_seam_stated_hz(char *source, size_t len)
{
    snprintf(source, len, "the test's virtual CPU");
    return STATED_HZ;
}

static int64_t noise(void)
{
    uint64_t x = atomic_fetch_add(&noise_state, 0x9e3779b97f4a7c15ull);
    x ^= x >> 31, x *= 0xbf58476d1ce4e5b9ull, x ^= x >> 29;
    return (int64_t)(x % 61) - 30;
}

static uint64_t truth(void) { return atomic_load(&vt) + (uint64_t)atomic_load(&shift_ns); }

static int virtual_clock(clockid_t id, struct timespec *ts)
{
    uint64_t t = atomic_fetch_add(&vt, 40) + 40;
    uint64_t ns = t + (uint64_t)atomic_load(&shift_ns);
    /* The COARSE clocks are the fine ones at the last tick (every 4 ms), as the kernel's:
     * one snapshot, each clock's offset on top. */
    bool coarse = id == CLOCK_MONOTONIC_COARSE || id == CLOCK_REALTIME_COARSE;
    ns = coarse ? ns - ns % 4000000 : ns + (uint64_t)noise();
    if (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)
        ns += REALTIME_BASE_NS;
    else if (id == CLOCK_BOOTTIME)
        ns += 5000000000ull + (uint64_t)atomic_load(&ns_boot_ns);
    else if (id == CLOCK_MONOTONIC || id == CLOCK_MONOTONIC_COARSE)
        ns += (uint64_t)atomic_load(&ns_mono_ns);
    ts->tv_sec = (time_t)(ns / 1000000000u);
    ts->tv_nsec = (long)(ns % 1000000000u);
    return 0;
}

static void check(const char *name, int ok, const char *fmt, long long a, long long b)
{
    printf("check %s %s", name, ok ? "ok" : "FAIL");
    if (!ok) {
        printf(" ");
        printf(fmt, a, b);
        failed++;
    }
    printf("\n");
}

struct run {
    int64_t worst_after;  /* largest distance from [truth before, truth after] a read */
    uint64_t backwards;   /* values below the one before */
    double min_slope, max_slope; /* value steps over true steps, over 1 ms windows */
    uint64_t first_v, first_t, last_v, last_t;
};

/* Reads every gap_ns of virtual time for span_ns; judges values from settle_ns on.  A read
 * takes virtual time too (a refresh step: kernel reads, the write section's 2 us wait): its
 * value is judged against the truth before and after it, as a real test brackets it. */
static struct run reads(uint64_t span_ns, uint64_t gap_ns, uint64_t settle_ns)
{
    struct run r = {0, 0, 1e9, 0, 0, 0, 0, 0};
    uint64_t start = atomic_load(&vt), prev = 0, prev_t = 0, win_v = 0, win_t = 0;
    while (atomic_load(&vt) - start < span_ns) {
        atomic_fetch_add(&vt, gap_ns);
        uint64_t tb = truth(), v = fastclock_monotonic_ns(), ta = truth();
        if (!r.first_v)
            r.first_v = v, r.first_t = tb, win_v = v, win_t = tb;
        r.last_v = v, r.last_t = tb;
        if (prev && v < prev)
            r.backwards++;
        prev = v, prev_t = tb;
        if (tb - win_t >= 1000000) {
            double slope = (double)(int64_t)(v - win_v) / (double)(tb - win_t);
            r.min_slope = slope < r.min_slope ? slope : r.min_slope;
            r.max_slope = slope > r.max_slope ? slope : r.max_slope;
            win_v = v, win_t = tb;
        }
        int64_t e = v < tb ? (int64_t)(tb - v) : v > ta ? (int64_t)(v - ta) : 0;
        if (atomic_load(&vt) - start >= settle_ns && e > r.worst_after)
            r.worst_after = e;
    }
    (void)prev_t;
    return r;
}

/* The process enters a time namespace (setns: its MONOTONIC and BOOTTIME move by their
 * offsets at once, REALTIME does not) while it reads every 10 us for 400 ms: each clock
 * against the truth read before and after it.  REALTIME must never leave it by 1 us (not
 * even before the next refresh sees the change: the line's REALTIME is line + offset, both
 * from before); MONOTONIC and BOOTTIME from 150 ms on (one period and the refresh's steps).
 * Worst of the three in *worst_rt and *worst_mb; backward MONOTONIC steps only at the change
 * (the kernel's own go back there) in *backwards when mono_ms >= 0. */
static void enter_namespace(int64_t mono_ms, int64_t boot_ms, int64_t *worst_rt, int64_t *worst_mb,
                            uint64_t *backwards)
{
    static const uint64_t base[3] = {0, 5000000000ull, REALTIME_BASE_NS};
    uint64_t (*const rd[3])(void) = {fastclock_monotonic_ns, fastclock_boottime_ns, fastclock_realtime_ns};
    reads(100000000ull, 10000, 0); /* a fresh, live line first */
    atomic_store(&ns_mono_ns, mono_ms * 1000000);
    atomic_store(&ns_boot_ns, boot_ms * 1000000);
    uint64_t start = atomic_load(&vt), prev = 0;
    *worst_rt = *worst_mb = 0, *backwards = 0;
    for (int i = 0; atomic_load(&vt) - start < 400000000ull; i++) {
        atomic_fetch_add(&vt, 10000);
        int c = i % 3;
        int64_t off = c == 0 ? atomic_load(&ns_mono_ns) : c == 1 ? atomic_load(&ns_boot_ns) : 0;
        uint64_t tb = truth() + base[c] + (uint64_t)off, v = rd[c](), ta = truth() + base[c] + (uint64_t)off;
        int64_t e = v < tb ? (int64_t)(tb - v) : v > ta ? (int64_t)(v - ta) : 0;
        if (c == 2 && e > *worst_rt)
            *worst_rt = e;
        if (c < 2 && atomic_load(&vt) - start >= 150000000ull && e > *worst_mb)
            *worst_mb = e;
        if (c == 0) {
            *backwards += prev && v < prev;
            prev = v;
        }
    }
}

int main(void)
{
    char root[] = "/tmp/fc_seam_XXXXXX", dir[256], path[300];
    if (!mkdtemp(root))
        return 2;
    snprintf(dir, sizeof dir, "%s/sys/devices/system/clocksource/clocksource0", root);
    for (char *p = dir + strlen(root) + 1; (p = strchr(p, '/')); *p++ = '/') {
        *p = 0;
        mkdir(dir, 0700);
    }
    mkdir(dir, 0700);
    const char *names[] = {"current_clocksource", "available_clocksource"};
    for (int i = 0; i < 2; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        FILE *f = fopen(path, "w");
        if (!f)
            return 2;
        fprintf(f, "%s\n", arch_fast_counter_clocksource());
        fclose(f);
    }
    setenv("FASTCLOCK_SYSFS_ROOT", root, 1);
    setenv("FASTCLOCK_TICKER", "0", 1); /* refreshes come from the reads: deterministic */
    setenv(FC_ASSUME_INVARIANT_ENV, "1", 1); /* the CPU's flags are not the virtual counter's */
    fc_set_kernel_clock(virtual_clock);

    /* Live: the cross-CPU check (its own thread, the virtual counter) passes, the first
     * segment goes live.  Real time only here (at most 20 s). */
    struct fastclock_info info;
    for (int i = 0; i < 2000; i++) {
        fastclock_info(&info);
        if (info.source != FASTCLOCK_SOURCE_COUNTER || info.refreshes > 0)
            break;
        struct timespec nap = {0, 10000000};
        nanosleep(&nap, NULL);
    }
    printf("source %d refreshes %llu why %s\n", (int)info.source,
           (unsigned long long)info.refreshes, info.why);
    check("live", info.source == FASTCLOCK_SOURCE_COUNTER && info.refreshes > 0, "%lld %lld",
          (long long)info.source, (long long)info.refreshes);
    /* The REALTIME offset to the nanosecond, though every fine kernel read carries +-30 ns
     * of noise: it comes from the COARSE clocks' one snapshot (fc_clock_offset_w). */
    int64_t real_offset = atomic_load_explicit(&fc_line.real_offset, memory_order_relaxed);
    check("realtime_offset_exact", real_offset == (int64_t)REALTIME_BASE_NS, "off by %lld ns %lld",
          (long long)(real_offset - (int64_t)REALTIME_BASE_NS), 0);

    /* Calibration: the stated rate is 40 ppm fast (4 us per 100 ms).  Reads every 10 us
     * for 3 s: after 1 s within 200 ns of the truth; over the last second the rate is the
     * true one within 0.1 ppm (100 ns per second); never backwards. */
    struct run r = reads(1000000000ull, 10000, 1000000000ull);
    struct run last = reads(2000000000ull, 10000, 0);
    double rate = (double)(last.last_v - last.first_v) / (double)(last.last_t - last.first_t) - 1;
    check("converges_from_a_stated_rate_40ppm_off", last.worst_after < 200, "worst %lld ns", last.worst_after, 0);
    check("rate_within_0.1ppm", rate < 0.1e-6 && rate > -0.1e-6, "rate off by %lld ppb %lld", (long long)(rate * 1e9), 0);
    check("never_backwards_calibrating", r.backwards + last.backwards == 0, "%lld backward steps %lld", (long long)(r.backwards + last.backwards), 0);

    /* The counter stalls for 5 ms (the kernel clock moves 5 ms ahead of it): fastclock is
     * behind by more than 1 ms and steps forward at its next refresh; within 1 s it is
     * within 1 us and stays there; never backwards. */
    atomic_store(&shift_ns, 5000000);
    r = reads(1500000000ull, 10000, 1000000000ull);
    check("counter_stalled_steps_forward", r.worst_after < 1000 && r.backwards == 0, "worst %lld ns, %lld backward", r.worst_after, (long long)r.backwards);

    /* The counter jumps 5 ms ahead (the kernel clock 5 ms behind it): fastclock is ahead and
     * slews, never stepping back and never bending its rate by more than 5% (over 1 ms
     * windows, with 1% for a read's own duration); the offset halves every period (100 ms),
     * so within 3 s it is within 1 us, and stays. */
    atomic_store(&shift_ns, 0);
    r = reads(4000000000ull, 10000, 3000000000ull);
    check("counter_jumped_slews_back", r.worst_after < 1000 && r.backwards == 0, "worst %lld ns, %lld backward", r.worst_after, (long long)r.backwards);
    check("slew_bounded_at_5_percent", r.min_slope > 0.94 && r.max_slope < 1.06, "slope x1000 %lld..%lld", (long long)(r.min_slope * 1000), (long long)(r.max_slope * 1000));

    /* Sparse reads (every 300 ms, past the line's limit): the line is stale and the kernel
     * answers, never below what the line returned; the values stay within the noise. */
    r = reads(3000000000ull, 300000000ull, 0);
    check("sparse_reads_follow_the_kernel", r.worst_after < 1000 && r.backwards == 0, "worst %lld ns, %lld backward", r.worst_after, (long long)r.backwards);

    /* The kernel's clock moves 1000 s back against the counter (a new time namespace, a
     * restored checkpoint): within 100 ms of dense reads fastclock follows it, never
     * slewing across (issue 30.2); and 1000 s forward, the same. */
    for (int dir_sign = -1; dir_sign <= 1; dir_sign += 2) {
        reads(100000000ull, 10000, 0); /* a fresh, live line first */
        atomic_store(&shift_ns, (int64_t)dir_sign * 1000000000000ll);
        r = reads(300000000ull, 10000, 100000000ull);
        check(dir_sign < 0 ? "kernel_clock_jumped_back_1000s_followed" : "kernel_clock_jumped_ahead_1000s_followed",
              r.worst_after < 1000, "worst %lld ns %lld", r.worst_after, 0);
        atomic_store(&shift_ns, 0);
        r = reads(300000000ull, 10000, 100000000ull);
        check("and_back", r.worst_after < 1000, "worst %lld ns %lld", r.worst_after, 0);
    }
    /* Time namespaces entered under a live line (issue 34.3), offsets in ms below
     * FC_CLOCK_JUMP_NS and past it, MONOTONIC's and BOOTTIME's apart, each way, and back to
     * none: the refresh after the change re-anchors on the kernel (no slew across it) and
     * REALTIME never moves.  Going back is the kernel's own: a MONOTONIC offset that grows
     * must never step back. */
    static const int64_t ns_offsets[][2] = {{-200, -200}, {200, 200}, {-1, -1}, {150, -3000},
                                            {0, 5}, {-240, 100}, {0, 0}};
    int ns_ok = 1;
    int64_t prev_mono_ms = 0;
    for (size_t i = 0; i < sizeof ns_offsets / sizeof ns_offsets[0]; i++) {
        int64_t rt, mb;
        uint64_t back;
        enter_namespace(ns_offsets[i][0], ns_offsets[i][1], &rt, &mb, &back);
        int ok = rt < 1000 && mb < 1000 && (ns_offsets[i][0] < prev_mono_ms || back == 0);
        if (!ok)
            printf("namespace %lld:%lld: realtime %lld ns off, monotonic/boottime %lld, %llu backward\n",
                   (long long)ns_offsets[i][0], (long long)ns_offsets[i][1], (long long)rt,
                   (long long)mb, (unsigned long long)back);
        ns_ok &= ok;
        prev_mono_ms = ns_offsets[i][0];
    }
    check("time_namespace_entered_reanchors_and_realtime_stays", ns_ok, "%lld %lld", 0, 0);

    /* A 50 ms suspend during which the counter ran on: MONOTONIC paused, REALTIME and
     * BOOTTIME went on (the clocks of a namespace that shifts MONOTONIC alone).  Values
     * were served up to the line's, above the kernel's now: MONOTONIC must never step back
     * (the suspend's handling: a slew, or a stale line held at its floor). */
    reads(100000000ull, 10000, 0);
    atomic_fetch_add(&vt, 50000000);
    atomic_fetch_sub(&ns_mono_ns, 50000000);
    r = reads(3000000000ull, 10000, 0);
    check("suspend_with_a_running_counter_never_steps_back", r.backwards == 0,
          "%lld backward %lld", (long long)r.backwards, 0);
    printf("seam failed %d\n", failed);
    snprintf(path, sizeof path, "rm -rf %s", root);
    return system(path) == 0 && failed == 0 ? 0 : 1;
}
