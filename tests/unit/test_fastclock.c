/* libfastclock: the calibration math with synthetic counters (fixed point, continuity,
 * bounded slew, convergence), the clocksource check against a fake sysfs tree, and the
 * live library against the kernel's clocks, from several threads. */
#include "check.h"
#include "arch/arch.h"
#include "fastclock/fastclock.h"
#include "fastclock/fc_internal.h"
#include "fastclock/fc_math.h"
#include "fastclock/fc_safety.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const struct fc_slew_policy policy = {200, 50000, 100000, 1000000};

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

TEST(fastclock_mult_rounding_is_far_below_the_rate_target)
{
    static const uint64_t hzs[] = {10000000, 24000000, 1000000000, 2445406000ull, 3000000000ull,
                                   5200000000ull};
    for (size_t i = 0; i < sizeof hzs / sizeof hzs[0]; i++) {
        uint64_t m = fc_mult_from_hz(hzs[i]);
        /* One hour of ticks converts to one hour of ns within 0.001 ppm (3.6 us). */
        uint64_t hour = fc_ticks_to_ns(hzs[i] * 3600, m);
        int64_t err = (int64_t)hour - (int64_t)(3600 * FC_NS_PER_S);
        CHECK(err < 3600 && err > -3600);
        double hz = fc_mult_hz(m);
        CHECK(hz > hzs[i] * (1 - 1e-9) && hz < hzs[i] * (1 + 1e-9));
    }
    CHECK(fc_mult_from_hz(0) == 0);
    CHECK(fc_mult_from_ratio(1000000000, 2000000000) == 1ull << 31);
    CHECK(fc_mult_from_ratio(5, 0) == 0);
}

TEST(fastclock_line_is_monotonic_and_clamps_before_anchor)
{
    struct fc_line l = {1000000, 5000000000ull, fc_mult_from_hz(2445406000ull)};
    CHECK(fc_line_eval(&l, 0) == l.anchor_ns);
    CHECK(fc_line_eval(&l, l.anchor_ticks) == l.anchor_ns);
    uint64_t prev = 0;
    for (uint64_t t = l.anchor_ticks; t < l.anchor_ticks + 100000; t += 7) {
        uint64_t v = fc_line_eval(&l, t);
        CHECK(v >= prev);
        prev = v;
    }
    /* Large deltas are exact in 128 bits: 10 years of a 5 GHz counter. */
    struct fc_line big = {0, 0, fc_mult_from_hz(5000000000ull)};
    uint64_t ten_years = 10ull * 365 * 86400;
    uint64_t v = fc_line_eval(&big, ten_years * 5000000000ull);
    CHECK(v / FC_NS_PER_S == ten_years || v / FC_NS_PER_S + 1 == ten_years);
}

TEST(fastclock_slew_is_bounded_and_signed)
{
    uint64_t rate = fc_mult_from_hz(1000000000);
    /* Ahead by 1 us over 100 ms wants -10 ppm: within bound, applied exactly. */
    uint64_t m = fc_slewed_mult(rate, 1000, 100000000, 200);
    double ppm = ((double)m - (double)rate) / (double)rate * 1e6;
    CHECK(ppm < -9.9 && ppm > -10.1);
    /* Behind: speeds up. */
    CHECK(fc_slewed_mult(rate, -1000, 100000000, 200) > rate);
    /* Huge offsets are clamped to the bound. */
    m = fc_slewed_mult(rate, 1000000000, 1000, 200);
    ppm = ((double)m - (double)rate) / (double)rate * 1e6;
    CHECK(ppm > -200.01 && ppm < -199.99);
    CHECK(fc_slewed_mult(rate, 0, 0, 200) == rate);
    CHECK(fc_slewed_mult(1, INT64_MAX, 1, 1000000) >= 1);
}

TEST(fastclock_next_line_never_steps_backwards)
{
    for (int i = 0; i < 20000; i++) {
        struct fc_line cur = {rnd() >> 8, rnd() >> 8, (rnd() >> 28) + 1};
        uint64_t t_a = cur.anchor_ticks + (rnd() >> 34);
        int64_t offset = (int64_t)(rnd() >> 30) - (int64_t)(1ull << 33);
        uint64_t rate = cur.mult + (rnd() % (cur.mult / 1000 + 1)) - cur.mult / 2000;
        struct fc_line next = fc_next_line(&cur, t_a, offset, rate, 100000000, &policy);
        CHECK(next.anchor_ticks == t_a);
        CHECK(fc_line_eval(&next, t_a) >= fc_line_eval(&cur, t_a));
        CHECK(next.mult >= 1);
        if (offset >= -(int64_t)policy.step_forward_ns) {
            /* Continuous, and the slope within the bound of the rate. */
            CHECK(next.anchor_ns == fc_line_eval(&cur, t_a));
            uint64_t magnitude = offset < 0 ? (uint64_t)-offset : (uint64_t)offset;
            uint32_t bound = magnitude >= policy.big_offset_ns ? policy.max_big_slew_ppm
                                                               : policy.max_slew_ppm;
            double dev = ((double)next.mult - (double)rate) / (double)rate;
            CHECK(dev <= bound * 1e-6 + 1e-9 && dev >= -(bound * 1e-6) - 1e-9);
            CHECK((offset > 0) <= (next.mult <= rate));
        } else {
            CHECK(next.anchor_ns > fc_line_eval(&cur, t_a)); /* forward step */
        }
    }
}

TEST(fastclock_stale_line_never_below_what_readers_returned)
{
    struct fc_line cur = {1000, 1000000, fc_mult_from_hz(1000000000)};
    uint64_t limit = 102000000; /* ticks */
    uint64_t returned_max = fc_line_eval(&cur, cur.anchor_ticks + limit);
    /* Kernel far ahead (idle process): jump to it. */
    struct fc_line a = fc_stale_line(&cur, 5000000000ull, 9000000000ull, limit, cur.mult);
    CHECK(a.anchor_ns == 9000000000ull && a.anchor_ticks == 5000000000ull);
    /* Kernel behind what may have been returned (suspend): hold at that. */
    struct fc_line b = fc_stale_line(&cur, 5000000000ull, returned_max - 5, limit, cur.mult);
    CHECK(b.anchor_ns == returned_max);
}

/* A synthetic machine: the counter runs at true_hz, the kernel clock is exact.  fastclock
 * starts with a stated rate 40 ppm off and refreshes every 100 ms from noisy pairs
 * (+-30 ns), the rate from its baseline and the offset corrected over two periods, as fastclock.c
 * does.  After 2 s the offset stays within 200 ns, and the rate over any 1 s (what a user
 * measures) within 0.1 ppm; no value ever goes backwards. */
TEST(fastclock_converges_on_a_synthetic_counter)
{
    const double true_hz = 2445406000.0;
    struct fc_line cur = {0, 0, fc_mult_from_hz((uint64_t)(true_hz * (1 + 40e-6)))};
    uint64_t prev_value = 0;
    uint64_t value_at[61] = {0};
    for (int step = 1; step <= 60; step++) {
        uint64_t t = (uint64_t)(step * 0.1 * true_hz);
        /* Readers in the period before the refresh: increasing. */
        for (uint64_t r = cur.anchor_ticks; r < t; r += (t - cur.anchor_ticks) / 16 + 1) {
            uint64_t v = fc_line_eval(&cur, r);
            CHECK(v >= prev_value);
            prev_value = v;
        }
        value_at[step] = fc_line_eval(&cur, t);
        int64_t noise = (int64_t)(rnd() % 61) - 30;
        int64_t kernel = (int64_t)((double)t / true_hz * 1e9) + noise;
        int64_t offset = (int64_t)fc_line_eval(&cur, t) - kernel;
        if (step > 20)
            CHECK(offset < 200 && offset > -200);
        uint64_t rate = fc_mult_from_ratio((uint64_t)kernel, t);
        struct fc_line next = fc_next_line(&cur, t + 5000, offset, rate, 200000000, &policy);
        CHECK(fc_line_eval(&next, t + 5000) >= fc_line_eval(&cur, t + 5000));
        cur = next;
        if (step > 30) {
            double over_1s = (double)(value_at[step] - value_at[step - 10]) / 1e9 - 1;
            CHECK(over_1s < 0.1e-6 && over_1s > -0.1e-6);
        }
    }
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

TEST(fastclock_clocksource_check_reads_a_fake_sysfs)
{
    char root[] = "/tmp/fc_sysfs_XXXXXX";
    CHECK(mkdtemp(root));
    char dir[200], cur[300], avail[300], got[32], why[200];
    snprintf(dir, sizeof dir, "%s/sys/devices/system/clocksource/clocksource0", root);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    CHECK(system(cmd) == 0);
    snprintf(cur, sizeof cur, "%s/current_clocksource", dir);
    snprintf(avail, sizeof avail, "%s/available_clocksource", dir);
    const char *mine = arch_fast_counter_clocksource();
    char line[64];
    snprintf(line, sizeof line, "%s\n", mine);
    write_file(cur, line);
    snprintf(line, sizeof line, "%s hpet acpi_pm\n", mine);
    write_file(avail, line);
    CHECK(fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    CHECK(strcmp(got, mine) == 0);
    /* The watchdog demoted it: the kernel switched and dropped it from available. */
    write_file(cur, "hpet\n");
    write_file(avail, "hpet acpi_pm\n");
    CHECK(!fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    CHECK(strstr(why, "hpet") && strstr(why, "not in available") && strcmp(got, "hpet") == 0);
    /* Booted with clocksource=hpet (or kvm-clock current): the counter is still listed,
     * so it is usable (and there the vDSO falls back to the syscall). */
    snprintf(line, sizeof line, "hpet %s acpi_pm\n", mine);
    write_file(avail, line);
    CHECK(fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    CHECK(strcmp(got, "hpet") == 0);
    /* Current still names it but it is gone from available. */
    snprintf(line, sizeof line, "%s\n", mine);
    write_file(cur, line);
    snprintf(line, sizeof line, "x%s hpet\n", mine); /* a longer name must not match */
    write_file(avail, line);
    CHECK(!fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    CHECK(strstr(why, "available"));
    /* Unreadable. */
    unlink(cur);
    CHECK(!fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    CHECK(strstr(why, "cannot read") && got[0] == 0);
    unlink(avail);
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
}

static uint64_t ts_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

TEST(fastclock_live_values_follow_the_kernel_clocks)
{
    struct fastclock_info info;
    CHECK(fastclock_info(&info) == 0);
    CHECK(info.source == FASTCLOCK_SOURCE_COUNTER || info.source == FASTCLOCK_SOURCE_KERNEL);
    CHECK(info.why[0]);
    /* Sandwiches: kernel before <= fastclock <= kernel after, within 50 us slack (the
     * calibration bound is far tighter; slack covers preemption-free noise only). */
    for (int i = 0; i < 2000; i++) {
        uint64_t a = ts_ns(CLOCK_MONOTONIC), v = fastclock_monotonic_ns(), b = ts_ns(CLOCK_MONOTONIC);
        CHECK(v + 50000 >= a && v <= b + 50000);
        a = ts_ns(CLOCK_REALTIME), v = fastclock_realtime_ns(), b = ts_ns(CLOCK_REALTIME);
        CHECK(v + 50000 >= a && v <= b + 50000);
        a = ts_ns(CLOCK_BOOTTIME), v = fastclock_boottime_ns(), b = ts_ns(CLOCK_BOOTTIME);
        CHECK(v + 50000 >= a && v <= b + 50000);
    }
    uint64_t t0 = fastclock_ticks(), k0 = ts_ns(CLOCK_MONOTONIC);
    struct timespec nap = {0, 20000000};
    nanosleep(&nap, NULL);
    uint64_t t1 = fastclock_ticks(), k1 = ts_ns(CLOCK_MONOTONIC);
    int64_t diff = (int64_t)fastclock_ticks_to_ns(t1 - t0) - (int64_t)(k1 - k0);
    CHECK(diff < 100000 && diff > -100000);
    uint64_t r = fastclock_recent_ns();
    CHECK(r > 0 && r <= fastclock_monotonic_ns());
}

static _Atomic uint64_t shared_max;
static _Atomic int backwards;

static void *warp_thread(void *arg)
{
    (void)arg;
    uint64_t mine = 0;
    for (int i = 0; i < 300000; i++) {
        /* seq_cst load before the call: the call's counter read is ordered after it. */
        uint64_t seen = atomic_load(&shared_max);
        uint64_t v = fastclock_monotonic_ns();
        if (v < seen || v < mine)
            atomic_fetch_add(&backwards, 1);
        mine = v;
        uint64_t cur = atomic_load(&shared_max);
        while (v > cur && !atomic_compare_exchange_weak(&shared_max, &cur, v))
            ;
    }
    return NULL;
}

TEST(fastclock_never_goes_backwards_across_threads)
{
    pthread_t th[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&th[i], NULL, warp_thread, NULL) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    CHECK(atomic_load(&backwards) == 0);
}

TEST(fastclock_ticker_keeps_recent_fresh)
{
    CHECK(fastclock_ticker_start(10) != 0); /* below the minimum period */
    CHECK(fastclock_ticker_start(1000000) == 0);
    uint64_t r0 = fastclock_recent_ns(), r = r0;
    /* Nobody but the ticker reads the clock meanwhile.  Polled for up to 5 s: on a loaded
     * machine (or under qemu-user) the ticker thread may wait long to be scheduled. */
    for (int i = 0; i < 500 && r == r0; i++) {
        struct timespec nap = {0, 10000000};
        nanosleep(&nap, NULL);
        r = fastclock_recent_ns();
    }
    CHECK(r > r0);
    CHECK(r <= fastclock_monotonic_ns());
    fastclock_ticker_stop();
    fastclock_ticker_stop(); /* twice is harmless */
}

/* A suspend, as the kernel shows it: CLOCK_BOOTTIME moves ahead of CLOCK_MONOTONIC.  The
 * kernel clock is replaced by one that adds 5 s to BOOTTIME; fastclock must notice at a
 * refresh (it counts the suspend and restarts its rate baseline), serve BOOTTIME with the
 * new offset, and keep MONOTONIC continuous and close to the kernel's. */
static _Atomic int64_t boot_shift_ns;
static int shifted_clock(clockid_t id, struct timespec *ts)
{
    int r = clock_gettime(id, ts);
    if (id == CLOCK_BOOTTIME) {
        int64_t ns = (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec + atomic_load(&boot_shift_ns);
        ts->tv_sec = (time_t)(ns / 1000000000);
        ts->tv_nsec = (long)(ns % 1000000000);
    }
    return r;
}

TEST(fastclock_notices_a_suspend)
{
    struct fastclock_info before, after;
    fastclock_info(&before);
    if (before.source != FASTCLOCK_SOURCE_COUNTER)
        return; /* nothing to re-anchor: the kernel answers */
    fc_set_kernel_clock(shifted_clock);
    atomic_store(&boot_shift_ns, 5000000000ll);
    uint64_t prev = 0;
    bool seen = false;
    for (int i = 0; i < 3000000 && !seen; i++) {
        uint64_t v = fastclock_monotonic_ns();
        CHECK(v >= prev);
        prev = v;
        int64_t boot_diff = (int64_t)fastclock_boottime_ns() - (int64_t)(ts_ns(CLOCK_BOOTTIME) + 5000000000ull);
        seen = boot_diff < 1000000 && boot_diff > -1000000;
    }
    fc_set_kernel_clock(clock_gettime);
    atomic_store(&boot_shift_ns, 0);
    CHECK(seen);
    fastclock_info(&after);
    CHECK(after.suspends == before.suspends + 1);
    uint64_t a = ts_ns(CLOCK_MONOTONIC), v = fastclock_monotonic_ns(), b = ts_ns(CLOCK_MONOTONIC);
    CHECK(v + 50000 >= a && v <= b + 50000);
}

/* Malformed sysfs contents (a fake root can hold anything): never a crash, never a false
 * "usable" unless the counter's exact name is there as a whole word. */
TEST(fastclock_clocksource_check_survives_malformed_files)
{
    char root[] = "/tmp/fc_sysfs_bad_XXXXXX";
    CHECK(mkdtemp(root));
    char dir[200], cur[300], avail[300], got[32], why[200], cmd[300];
    snprintf(dir, sizeof dir, "%s/sys/devices/system/clocksource/clocksource0", root);
    snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
    CHECK(system(cmd) == 0);
    snprintf(cur, sizeof cur, "%s/current_clocksource", dir);
    snprintf(avail, sizeof avail, "%s/available_clocksource", dir);
    const char *mine = arch_fast_counter_clocksource();
    char long_line[600];
    memset(long_line, 'x', sizeof long_line - 1);
    long_line[sizeof long_line - 1] = 0;
    char prefixed[64], suffixed[64], glued[64];
    snprintf(prefixed, sizeof prefixed, "hpet x%s", mine);
    snprintf(suffixed, sizeof suffixed, "hpet %sx", mine);
    snprintf(glued, sizeof glued, "hpet,%s", mine);
    const char *bad_avail[] = {"", "\n", "hpet", prefixed, suffixed, glued, long_line};
    write_file(cur, "hpet\n");
    for (size_t i = 0; i < sizeof bad_avail / sizeof bad_avail[0]; i++) {
        write_file(avail, bad_avail[i]);
        CHECK(!fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
        CHECK(why[0]);
    }
    /* Current: empty, a long line (truncated into `got`), binary. */
    write_file(avail, "hpet\n");
    write_file(cur, "");
    CHECK(!fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    write_file(cur, long_line);
    CHECK(!fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    CHECK(strlen(got) < sizeof got);
    FILE *f = fopen(cur, "wb");
    if (f) {
        fwrite("\0tsc\0\xff", 1, 6, f);
        fclose(f);
    }
    CHECK(!fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    /* The name without a trailing newline is still the name. */
    write_file(cur, mine);
    write_file(avail, mine);
    CHECK(fc_check_clocksource(root, mine, got, sizeof got, why, sizeof why));
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    CHECK(system(cmd) == 0);
}

static bool fake_constant_yes(char *why, size_t len) { (void)why, (void)len; return true; }
static bool fake_constant_no(char *why, size_t len)
{
    snprintf(why, len, "TSC not invariant");
    return false;
}
static int fake_invariant_no(void) { return 0; }
static int fake_invariant_unknown(void) { return -1; }
static int fake_invariant_yes(void) { return 1; }

TEST(fastclock_invariance_override_flips_only_the_not_invariant_verdict)
{
    char why[64];
    bool assumed = true;
    const char *saved = getenv(FC_ASSUME_INVARIANT_ENV);
    char keep[16] = "";
    if (saved)
        snprintf(keep, sizeof keep, "%s", saved);
    unsetenv(FC_ASSUME_INVARIANT_ENV);
    CHECK(fc_check_constant_rate(fake_constant_yes, fake_invariant_yes, &assumed, why, sizeof why));
    CHECK(!assumed);
    CHECK(!fc_check_constant_rate(fake_constant_no, fake_invariant_no, &assumed, why, sizeof why));
    CHECK(!assumed && strstr(why, "not invariant"));
    /* Only exactly "1" enables it. */
    static const char *const not_one[] = {"", "0", "yes", "true", "11", " 1"};
    for (size_t i = 0; i < sizeof not_one / sizeof not_one[0]; i++) {
        setenv(FC_ASSUME_INVARIANT_ENV, not_one[i], 1);
        CHECK(!fc_check_constant_rate(fake_constant_no, fake_invariant_no, &assumed, why,
                                      sizeof why));
        CHECK(!assumed);
    }
    setenv(FC_ASSUME_INVARIANT_ENV, "1", 1);
    /* The CPU says "not invariant": assumed, and reported as such. */
    CHECK(fc_check_constant_rate(fake_constant_no, fake_invariant_no, &assumed, why, sizeof why));
    CHECK(assumed);
    /* The CPU cannot tell (no leaf), or the failure was something else: still refused. */
    CHECK(!fc_check_constant_rate(fake_constant_no, fake_invariant_unknown, &assumed, why,
                                  sizeof why));
    CHECK(!assumed);
    CHECK(!fc_check_constant_rate(fake_constant_no, fake_invariant_yes, &assumed, why, sizeof why));
    CHECK(!assumed);
    /* An invariant counter passes without the override being used. */
    CHECK(fc_check_constant_rate(fake_constant_yes, fake_invariant_no, &assumed, why, sizeof why));
    CHECK(!assumed);
    if (saved)
        setenv(FC_ASSUME_INVARIANT_ENV, keep, 1);
    else
        unsetenv(FC_ASSUME_INVARIANT_ENV);
}
