/* SPDX-License-Identifier: MIT */
/* clockscope warp: the analysis fed synthetic traces with known warps, offsets and stalls;
 * the rate and drift arithmetic; the kernel-log parser (with malformed input and an
 * in-process mutation fuzz); and the live collector driven by fake clocks whose
 * behaviour is known exactly. */
#include "check.h"
#include "common/cpuset.h"
#include "measure/method.h"
#include "facts/tsc_calibration.h"
#include "warp/warp_analysis.h"
#include "warp/warp_collect.h"
#include "warp/warp_rate.h"
#include "warp/warp_run.h"

#include <math.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* Deterministic pseudo-random numbers, so a failing trace can be replayed. */
static uint64_t lcg_state;
static uint32_t lcg(void)
{
    lcg_state = lcg_state * 6364136223846793005u + 1442695040888963407u;
    return (uint32_t)(lcg_state >> 33);
}

#define TRACE_LEN 20000

/* A trace of reads in real-time order: read i happens at time i * step on CPU cpu_of(i),
 * and returns that time plus the CPU's offset minus an early-execution error. */
struct trace_spec {
    int ncpus;
    int64_t offset[4];        /* per CPU */
    uint64_t step;            /* real time between consecutive reads */
    unsigned early_percent;   /* chance that a read executes early... */
    uint64_t early_max;       /* ...by up to this much */
};

static struct warp_read *make_trace(const struct trace_spec *s, size_t n)
{
    struct warp_read *t = calloc(n, sizeof *t);
    if (!t)
        return NULL;
    int cpu = 0;
    for (size_t i = 0; i < n; i++) {
        /* Mostly hand over to another CPU, sometimes stay: both kinds of comparison. */
        if (lcg() % 4 != 0)
            cpu = (cpu + 1 + (int)(lcg() % (unsigned)(s->ncpus > 1 ? s->ncpus - 1 : 1))) % s->ncpus;
        uint64_t now = 1000000 + i * s->step;
        uint64_t early = s->early_percent && lcg() % 100 < s->early_percent
                             ? 1 + lcg() % s->early_max : 0;
        t[i].cpu = cpu;
        t[i].value = (uint64_t)((int64_t)now + s->offset[cpu]) - early;
    }
    return t;
}

static bool analyze(const struct trace_spec *s, struct warp_matrix *m, struct warp_summary *sum)
{
    struct warp_read *t = make_trace(s, TRACE_LEN);
    if (!t || !warp_matrix_init(m, s->ncpus)) {
        free(t);
        return false;
    }
    warp_feed_trace(m, t, TRACE_LEN);
    free(t);
    warp_summarize(m, sum);
    return true;
}

TEST(warp_monotonic_trace_has_no_backward_step)
{
    lcg_state = 1;
    struct trace_spec s = {.ncpus = 3, .step = 50};
    struct warp_matrix m;
    struct warp_summary sum;
    CHECK(analyze(&s, &m, &sum));
    CHECK(sum.comparisons == TRACE_LEN - 1);
    CHECK(sum.cross_cpu_comparisons > TRACE_LEN / 2);
    CHECK(sum.backward_steps == 0 && sum.max_backward == 0);
    CHECK(strcmp(sum.classification, "monotonic") == 0);
    CHECK(sum.cpus_compared == 3);
    for (int a = 0; a < 3; a++)
        for (int b = a; b < 3; b++)
            CHECK(warp_classify_pair(&m, a, b).cls == WARP_NONE);
    warp_matrix_free(&m);
}

TEST(warp_constant_offset_is_found_and_estimated)
{
    lcg_state = 2;
    /* CPU 1 runs 1000 units behind CPUs 0 and 2. */
    struct trace_spec s = {.ncpus = 3, .offset = {0, -1000, 0}, .step = 100};
    struct warp_matrix m;
    struct warp_summary sum;
    CHECK(analyze(&s, &m, &sum));
    CHECK(strcmp(sum.classification, "offset") == 0);
    /* Only reads handed to CPU 1 go back, by 1000 - 100 at most. */
    CHECK(sum.max_backward == 900);
    struct warp_pair_verdict v01 = warp_classify_pair(&m, 0, 1);
    CHECK(v01.cls == WARP_OFFSET);
    CHECK(v01.backward_ab > 0 && v01.backward_ba == 0);
    CHECK(v01.backward_ab == warp_matrix_at(&m, 0, 1)->comparisons); /* every 0->1 */
    CHECK(v01.offset_known && fabs(v01.offset_b_minus_a - -1000) < 1e-9);
    struct warp_pair_verdict v12 = warp_classify_pair(&m, 1, 2);
    CHECK(v12.cls == WARP_OFFSET);
    CHECK(v12.backward_ab == 0 && v12.backward_ba > 0);
    CHECK(fabs(v12.offset_b_minus_a - 1000) < 1e-9);
    CHECK(warp_classify_pair(&m, 0, 2).cls == WARP_NONE);
    CHECK(warp_classify_pair(&m, 1, 1).cls == WARP_NONE);
    warp_matrix_free(&m);
}

TEST(warp_random_warps_are_not_an_offset)
{
    lcg_state = 3;
    /* 5% of reads execute up to 300 units early: missing ordering, both directions. */
    struct trace_spec s = {.ncpus = 2, .step = 100, .early_percent = 5, .early_max = 300};
    struct warp_matrix m;
    struct warp_summary sum;
    CHECK(analyze(&s, &m, &sum));
    struct warp_pair_verdict v = warp_classify_pair(&m, 0, 1);
    CHECK(v.backward_ab > 10 && v.backward_ba > 10);
    CHECK(v.cls == WARP_RANDOM);
    CHECK(v.max_backward <= 300 - 100);
    CHECK(v.offset_known && fabs(v.offset_b_minus_a) < 100);
    /* Early reads right after a read on the same CPU go back too. */
    CHECK(strcmp(sum.classification, "same_cpu") == 0);
    warp_matrix_free(&m);
}

TEST(warp_random_warps_between_cpus_only)
{
    /* Strict alternation: every comparison is cross-CPU, so the class is "random". */
    struct warp_read t[] = {{0, 100}, {1, 200}, {0, 150}, {1, 300}, {0, 280}, {1, 400},
                            {0, 500}, {1, 450}, {0, 600}};
    struct warp_matrix m;
    CHECK(warp_matrix_init(&m, 2));
    warp_feed_trace(&m, t, sizeof t / sizeof t[0]);
    struct warp_summary sum;
    warp_summarize(&m, &sum);
    CHECK(sum.backward_steps == 3 && sum.max_backward == 50);
    CHECK(strcmp(sum.classification, "random") == 0);
    struct warp_pair_verdict v = warp_classify_pair(&m, 0, 1);
    CHECK(v.backward_ab == 1 && v.backward_ba == 2);
    warp_matrix_free(&m);
}

TEST(warp_few_one_sided_steps_are_not_called_an_offset)
{
    /* Three backward steps, all 0 -> 1: too few to tell an offset from chance. */
    struct warp_read t[] = {{0, 100}, {1, 90}, {0, 200}, {1, 190}, {0, 300}, {1, 295}, {0, 400}};
    struct warp_matrix m;
    CHECK(warp_matrix_init(&m, 2));
    warp_feed_trace(&m, t, sizeof t / sizeof t[0]);
    struct warp_pair_verdict v = warp_classify_pair(&m, 0, 1);
    CHECK(v.backward_ab == 3 && v.backward_ba == 0);
    CHECK(v.cls == WARP_RANDOM);
    warp_matrix_free(&m);
}

TEST(warp_mixed_offset_and_random_pairs)
{
    lcg_state = 4;
    struct trace_spec s = {.ncpus = 3, .offset = {0, -5000, 0}, .step = 100};
    struct warp_read *t = make_trace(&s, TRACE_LEN);
    CHECK(t);
    /* CPU 2's reads sometimes run early by up to 300: random against 0 (and the offset of
     * 1 dominates the 1-2 pair). */
    for (size_t i = 0; i < TRACE_LEN; i++)
        if (t[i].cpu == 2 && lcg() % 100 < 10)
            t[i].value -= 1 + lcg() % 300;
    struct warp_matrix m;
    CHECK(warp_matrix_init(&m, 3));
    warp_feed_trace(&m, t, TRACE_LEN);
    free(t);
    CHECK(warp_classify_pair(&m, 0, 1).cls == WARP_OFFSET);
    struct warp_pair_verdict v02 = warp_classify_pair(&m, 0, 2);
    CHECK(v02.cls == WARP_RANDOM);
    struct warp_summary sum;
    warp_summarize(&m, &sum);
    CHECK(strcmp(sum.classification, "same_cpu") == 0 || strcmp(sum.classification, "mixed") == 0);
    /* Without same-CPU comparisons of CPU 2, the verdict is "mixed". */
    *warp_matrix_at(&m, 2, 2) = (struct warp_pair){0};
    warp_summarize(&m, &sum);
    CHECK(strcmp(sum.classification, "mixed") == 0);
    warp_matrix_free(&m);
}

TEST(warp_same_cpu_backward_step)
{
    struct warp_read t[] = {{0, 100}, {0, 90}, {0, 120}};
    struct warp_matrix m;
    CHECK(warp_matrix_init(&m, 1));
    warp_feed_trace(&m, t, 3);
    struct warp_summary sum;
    warp_summarize(&m, &sum);
    CHECK(sum.backward_steps == 1 && sum.max_backward == 10);
    CHECK(sum.cross_cpu_comparisons == 0 && sum.cpus_compared == 0);
    CHECK(strcmp(sum.classification, "same_cpu") == 0);
    CHECK(warp_classify_pair(&m, 0, 0).cls == WARP_SAME_CPU);
    warp_matrix_free(&m);
}

TEST(warp_pair_counts_equal_and_wraps)
{
    struct warp_pair p = {0};
    warp_pair_observe(&p, 10, 10);
    CHECK(p.equal == 1 && p.backward == 0 && p.min_delta == 0);
    /* A counter that wraps goes forward by a small modular step, not back by 2^64 - 6. */
    warp_pair_observe(&p, UINT64_MAX - 2, 3);
    CHECK(p.backward == 0 && p.comparisons == 2);
    warp_pair_observe(&p, 50, 20);
    CHECK(p.backward == 1 && p.max_backward == 30 && p.min_delta == -30);
    struct warp_pair q = {0};
    warp_pair_merge(&q, &p);
    warp_pair_merge(&q, &(struct warp_pair){0});
    CHECK(q.comparisons == 3 && q.backward == 1 && q.max_backward == 30 && q.min_delta == -30);
    CHECK(strcmp(warp_class_name(WARP_OFFSET), "offset") == 0);
}

TEST(resolution_counts_stalls_and_smallest_step)
{
    uint64_t v[] = {0, 0, 0, 10, 10, 20, 20, 20, 35};
    struct resolution r;
    resolution_init(&r);
    CHECK(isnan(resolution_stall_fraction(&r)));
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        resolution_add(&r, v[i]);
    CHECK(r.reads == 9 && r.stalls == 5 && r.min_step == 10 && r.backward == 0);
    CHECK(fabs(resolution_stall_fraction(&r) - 5.0 / 8) < 1e-12);
    resolution_add(&r, 30);
    CHECK(r.backward == 1 && r.min_step == 10);
    /* A clock that never moves shows no step at all. */
    resolution_init(&r);
    for (int i = 0; i < 100; i++)
        resolution_add(&r, 7);
    CHECK(r.min_step == 0 && r.stalls == 99 && resolution_stall_fraction(&r) == 1.0);
}

TEST(rate_and_drift_arithmetic)
{
    struct bracket a = {.value = 1000, .ref_ns = 5e8, .half_width_ns = 10};
    struct bracket b = {.value = 1000 + 2000002000u, .ref_ns = 1.5e9, .half_width_ns = 10};
    struct counter_rate r;
    CHECK(counter_rate_between(&a, &b, &r));
    CHECK(fabs(r.hz - 2000002000.0) < 1e-3);
    CHECK(fabs(r.uncertainty_ppm - 0.02) < 1e-9);
    CHECK(fabs(rate_error_ppm(r.hz, 2e9) - 1.0) < 1e-6);
    CHECK(isnan(rate_error_ppm(r.hz, 0)));
    CHECK(!counter_rate_between(&b, &a, &r)); /* time going backwards: no rate */

    struct clock_sample s0 = {.mono = {.value = 1000000000, .ref_ns = 2e9, .half_width_ns = 20},
                              .real_minus_mono_ns = 1763800000123456789, .real_half_width_ns = 15};
    struct clock_sample s1 = s0;
    s1.mono.ref_ns += 1e9;                  /* one second of MONOTONIC_RAW */
    s1.mono.value += 1000000000 + 10000;    /* MONOTONIC ran 10 us (10 ppm) faster */
    struct clock_drift d;
    clock_drift_between(&s0, &s1, &d);
    CHECK(fabs(d.seconds - 1) < 1e-12);
    CHECK(fabs(d.monotonic_slew_ppm - 10) < 1e-6);
    CHECK(!d.realtime_stepped && d.realtime_step_ns == 0);
    s1.real_minus_mono_ns -= 5000;          /* REALTIME stepped back 5 us */
    clock_drift_between(&s0, &s1, &d);
    CHECK(d.realtime_stepped && fabs(d.realtime_step_ns - -5000) < 1e-6);
    s1.real_minus_mono_ns = s0.real_minus_mono_ns + 500; /* within the 1 us allowance */
    clock_drift_between(&s0, &s1, &d);
    CHECK(!d.realtime_stepped);
}

static bool parse_line(const char *text, uint64_t *hz, bool *refined)
{
    /* An exact-size heap copy, no terminating NUL: ASan catches any read past the end. */
    size_t n = strlen(text);
    char *copy = malloc(n ? n : 1);
    if (!copy)
        return false;
    memcpy(copy, text, n);
    struct tsc_calibration cal = {0};
    bool ok = tsc_calibration_parse(copy, n, &cal);
    *hz = cal.hz;
    *refined = cal.refined;
    free(copy);
    return ok;
}

TEST(kernel_log_tsc_lines)
{
    uint64_t hz = 0;
    bool refined = false;
    CHECK(parse_line("tsc: Refined TSC clocksource calibration: 2445.406 MHz", &hz, &refined));
    CHECK(hz == 2445406000u && refined);
    CHECK(parse_line("6,17,28,-;tsc: Detected 1996.250 MHz processor\n", &hz, &refined));
    CHECK(hz == 1996250000u && !refined);
    CHECK(parse_line("tsc: Detected 3000 MHz processor", &hz, &refined) && hz == 3000000000u);
    CHECK(parse_line("tsc: Detected 2.000001 MHz processor", &hz, &refined) && hz == 2000001);
    struct tsc_calibration cal = {0};
    CHECK(tsc_calibration_parse("tsc: Detected 1996.250 MHz processor", 36, &cal) && cal.step_hz == 1000);
    CHECK(tsc_calibration_parse("tsc: Detected 3000 MHz", 22, &cal) && cal.step_hz == 1000000);
    CHECK(!tsc_calibration_parse("tsc: nothing", 12, &cal));
    /* The 2.6.x forms, without the "tsc: " prefix; "Detected" alone needs " MHz processor". */
    CHECK(parse_line("Detected 2394.000 MHz processor.", &hz, &refined) && hz == 2394000000u && !refined);
    CHECK(parse_line("Refined TSC clocksource calibration: 2394.011 MHz.", &hz, &refined) &&
          hz == 2394011000u && refined);
    CHECK(parse_line("TSC: DETECTED 2400 mhz TSC", &hz, &refined) && hz == 2400000000u);
    CHECK(!parse_line("hpet: Detected 25 MHz timer", &hz, &refined));
    CHECK(!parse_line("Detected 2394.000 MHz", &hz, &refined));
    CHECK(!parse_line("Detected 2394.000 MHz process", &hz, &refined));
    const char *bad[] = {
        "", "tsc:", "tsc: Detected ", "tsc: Detected MHz processor",
        "tsc: Detected 1996.250", "tsc: Detected 1996.250 MH", "tsc: Detected 1996. MHz",
        "tsc: Detected .5 MHz", "tsc: Detected 1996.2500001 MHz", "tsc: Detected 99999999 MHz",
        "tsc: Detected -5 MHz", "tsc: Detected 0 MHz processor", "tsc: Detected 0.0 MHz",
        "tsc: Fast TSC calibration using PIT", "clocksource: Switched to clocksource tsc",
        "tsc: Refined TSC clocksource calibration: x MHz",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(!parse_line(bad[i], &hz, &refined));
}

TEST(kernel_log_parser_survives_mutations)
{
    static const char *seeds[] = {
        "tsc: Refined TSC clocksource calibration: 2445.406 MHz",
        "6,17,28,-;tsc: Detected 1996.250 MHz processor",
    };
    lcg_state = 5;
    char buf[128];
    int accepted = 0;
    for (int iter = 0; iter < 200000; iter++) {
        const char *seed = seeds[iter % 2];
        size_t n = strlen(seed);
        memcpy(buf, seed, n);
        int edits = 1 + (int)(lcg() % 4);
        for (int e = 0; e < edits; e++) {
            switch (lcg() % 4) {
            case 0: buf[lcg() % n] = (char)lcg(); break;                     /* flip a byte */
            case 1: buf[lcg() % n] = (char)('0' + lcg() % 10); break;        /* a digit */
            case 2: n = lcg() % (n + 1); break;                              /* truncate */
            case 3: if (n < sizeof buf) buf[n++] = (char)lcg(); break;       /* append */
            }
            if (n == 0)
                break;
        }
        char *copy = malloc(n ? n : 1);
        CHECK(copy);
        memcpy(copy, buf, n);
        struct tsc_calibration cal = {0};
        if (tsc_calibration_parse(copy, n, &cal)) {
            accepted++;
            CHECK(cal.hz > 0 && cal.hz < 10000000ull * 1000000ull && cal.step_hz > 0);
        }
        free(copy);
    }
    CHECK(accepted > 0); /* the mutations left many lines intact enough to parse */
}

/* ---- the live collector, with fake clocks whose behaviour is known ---- */

static atomic_uint_fast64_t fake_time;
static int fake_behind_cpu;

/* A perfect clock: every read returns a larger value than any read before it. */
static uint64_t perfect_read(const void *ctx)
{
    (void)ctx;
    return atomic_fetch_add(&fake_time, 1) + 1;
}

/* The same clock, but CPU fake_behind_cpu sees it 10^6 units behind. */
static uint64_t offset_read(const void *ctx)
{
    (void)ctx;
    uint64_t t = atomic_fetch_add(&fake_time, 1) + 1000001;
    return sched_getcpu() == fake_behind_cpu ? t - 1000000 : t;
}

static struct method fake_method(method_read_fn read)
{
    struct method m = {.id = "fake.clock", .path = "fake", .api = "clock", .read = read,
                       .unit = UNIT_NS, .available = true};
    return m;
}

TEST(warp_collect_perfect_clock_never_goes_back)
{
    struct cpu_list cpus;
    CHECK(cpuset_allowed(&cpus));
    int n = cpus.count > 4 ? 4 : cpus.count;
    struct method m = fake_method(perfect_read);
    struct warp_collected c;
    char err[200];
    CHECK(warp_collect(&m, cpus.cpu, n, 0.05, &c, err, sizeof err));
    struct warp_summary s;
    warp_summarize(&c.matrix, &s);
    CHECK(c.reads > 0 && s.comparisons == c.reads - 1);
    uint64_t sum = 0;
    for (int i = 0; i < n; i++)
        sum += c.reads_per_cpu[i];
    CHECK(sum == c.reads);
    CHECK(s.backward_steps == 0 && s.equal == 0);
    /* Monotonic, unless the threads met too rarely to say so (an emulator pinned to one host
     * CPU runs them in turns): then exactly that, never a verdict about going back. */
    CHECK(strcmp(s.classification, warp_enough_comparisons(&s, n) ? "monotonic"
                                                                  : "too_few_comparisons") == 0);
    CHECK(c.elapsed_s > 0.04);
    for (int i = 0; i < n; i++)
        CHECK(c.reads_per_cpu[i] >= 64); /* every thread reads, however short the run */
    warp_collected_free(&c);
    /* A run far shorter than thread start-up still reads on every CPU. */
    CHECK(warp_collect(&m, cpus.cpu, n, 1e-6, &c, err, sizeof err));
    for (int i = 0; i < n; i++)
        CHECK(c.reads_per_cpu[i] >= 64);
    warp_collected_free(&c);
}

TEST(warp_collect_finds_an_offset_cpu)
{
    struct cpu_list cpus;
    CHECK(cpuset_allowed(&cpus));
    if (cpus.count < 2)
        SKIP("needs two CPUs in the affinity mask");
    fake_behind_cpu = cpus.cpu[1];
    struct method m = fake_method(offset_read);
    struct warp_collected c;
    char err[200];
    CHECK(warp_collect(&m, cpus.cpu, 2, 0.1, &c, err, sizeof err));
    /* Every hand-over to the CPU behind goes back; none the other way. */
    const struct warp_pair *to_behind = warp_matrix_at(&c.matrix, 0, 1);
    const struct warp_pair *from_behind = warp_matrix_at(&c.matrix, 1, 0);
    CHECK(to_behind->backward == to_behind->comparisons);
    CHECK(from_behind->backward == 0);
    CHECK(warp_matrix_at(&c.matrix, 0, 0)->backward == 0);
    CHECK(warp_matrix_at(&c.matrix, 1, 1)->backward == 0);
    struct warp_pair_verdict v = warp_classify_pair(&c.matrix, 0, 1);
    if (to_behind->comparisons >= WARP_OFFSET_MIN_STEPS && from_behind->comparisons) {
        CHECK(v.cls == WARP_OFFSET);
        CHECK(fabs(v.offset_b_minus_a - -1000000) < 1000);
    }
    warp_collected_free(&c);
}

TEST(warp_collect_reports_a_cpu_it_cannot_pin)
{
    struct method m = fake_method(perfect_read);
    struct warp_collected c;
    char err[200] = "";
    int cpus[2] = {0, CPUSET_MAX + 5}; /* no such CPU */
    CHECK(!warp_collect(&m, cpus, 2, 0.05, &c, err, sizeof err));
    CHECK(strstr(err, "cannot pin"));
    CHECK(c.reads_per_cpu == NULL && c.matrix.pair == NULL);
}

/* ---- policy: which methods a run takes, and which must be monotonic ---- */

static uint64_t zero_read(const void *ctx)
{
    (void)ctx;
    return 0;
}

static struct method *policy_method(struct method_list *l, const char *path, const char *api,
                                    const char *clock, clockid_t id, enum method_unit unit)
{
    struct method *m = method_add(l, path, api, clock);
    if (m) {
        m->clock_id = id;
        m->unit = unit;
        m->read = unit == UNIT_NONE ? NULL : zero_read;
    }
    return m;
}

TEST(warp_policy_defaults_and_judgement)
{
    static struct method_list l;
    l.count = 0;
    struct method *mono = policy_method(&l, "libc", "clock_gettime", "monotonic", CLOCK_MONOTONIC, UNIT_NS);
    struct method *real = policy_method(&l, "libc", "clock_gettime", "realtime", CLOCK_REALTIME, UNIT_NS);
    struct method *gtod = policy_method(&l, "libc", "gettimeofday", NULL, 0, UNIT_NS);
    struct method *proc = policy_method(&l, "libc", "clock_gettime", "process_cputime_id",
                                        CLOCK_PROCESS_CPUTIME_ID, UNIT_NS);
    struct method *thr = policy_method(&l, "libc", "clock_gettime", "thread_cputime_id",
                                       CLOCK_THREAD_CPUTIME_ID, UNIT_NS);
    struct method *secs = policy_method(&l, "libc", "time", NULL, 0, UNIT_SECONDS);
    struct method *res = policy_method(&l, "libc", "clock_getres", "monotonic", CLOCK_MONOTONIC, UNIT_NONE);
    struct method *vmono = policy_method(&l, "vdso", "clock_gettime", "monotonic", CLOCK_MONOTONIC, UNIT_NS);
    struct method *vreal = policy_method(&l, "vdso", "clock_gettime", "realtime", CLOCK_REALTIME, UNIT_NS);
    struct method *sraw = policy_method(&l, "syscall", "clock_gettime", "monotonic_raw",
                                        CLOCK_MONOTONIC_RAW, UNIT_NS);
    struct method *tsc = policy_method(&l, "counter", "rdtsc", NULL, 0, UNIT_TICKS);
    struct method *ltsc = policy_method(&l, "counter", "lfence_rdtsc", NULL, 0, UNIT_TICKS);
    struct method *fast = policy_method(&l, "fastclock", "now", NULL, 0, UNIT_NS);
    CHECK(fast);
    ltsc->ordered = true;

    struct warp_options o = {0};
    CHECK(warp_selected(&o, mono) && warp_selected(&o, real) && warp_selected(&o, gtod));
    CHECK(!warp_selected(&o, proc) && !warp_selected(&o, thr));   /* CPU time: --only */
    CHECK(!warp_selected(&o, secs) && !warp_selected(&o, res));   /* no ns/ticks value */
    CHECK(warp_selected(&o, vmono) && !warp_selected(&o, vreal) && !warp_selected(&o, sraw));
    CHECK(warp_selected(&o, tsc) && warp_selected(&o, ltsc));
    CHECK(warp_selected(&o, fast)); /* a provider added later is tested without changes */

    o.patterns[0] = "libc.clock_gettime.*_cputime_id";
    o.npatterns = 1;
    CHECK(warp_selected(&o, proc) && warp_selected(&o, thr) && !warp_selected(&o, mono));
    o.patterns[0] = "libc.*";
    CHECK(!warp_selected(&o, secs)); /* --only never takes a method without a timestamp */

    CHECK(warp_per_thread_clock(thr) && !warp_per_thread_clock(proc));
    CHECK(warp_must_be_monotonic(mono, false) && warp_must_be_monotonic(mono, true));
    CHECK(warp_must_be_monotonic(real, false) && !warp_must_be_monotonic(real, true));
    CHECK(!warp_must_be_monotonic(gtod, true));
    CHECK(!warp_must_be_monotonic(proc, false));
    CHECK(!warp_must_be_monotonic(tsc, false) && warp_must_be_monotonic(ltsc, false));
    CHECK(warp_must_be_monotonic(fast, false));
}

/* Issue 27: a method is not called monotonic on the strength of a handful of cross-CPU
 * comparisons: the same clean trace, cut short, is "too few comparisons to tell". */
static void summarize_first(size_t n, int ncpus, struct warp_summary *sum)
{
    lcg_state = 7;
    struct trace_spec s = {.ncpus = ncpus, .step = 50};
    struct warp_read *t = make_trace(&s, n);
    struct warp_matrix m;
    CHECK(t && warp_matrix_init(&m, ncpus));
    warp_feed_trace(&m, t, n);
    warp_summarize(&m, sum);
    warp_matrix_free(&m);
    free(t);
}

TEST(warp_too_few_cross_cpu_comparisons_are_not_called_monotonic)
{
    struct warp_summary sum;
    summarize_first(3, 2, &sum); /* one or two cross-CPU comparisons */
    CHECK(sum.backward_steps == 0);
    CHECK(sum.cross_cpu_comparisons >= 1 && sum.cross_cpu_comparisons < WARP_MIN_CROSS_COMPARISONS);
    CHECK(strcmp(sum.classification, "too_few_comparisons") == 0);
    CHECK(!warp_enough_comparisons(&sum, 2));
    /* just below and at the minimum */
    struct warp_summary edge = {.cross_cpu_comparisons = WARP_MIN_CROSS_COMPARISONS - 1,
                                .cpus_compared = 2};
    CHECK(!warp_enough_comparisons(&edge, 2));
    edge.cross_cpu_comparisons = WARP_MIN_CROSS_COMPARISONS;
    CHECK(warp_enough_comparisons(&edge, 2));
    /* enough in all, but one CPU never compared with another: cannot tell for it */
    edge.cpus_compared = 2;
    CHECK(!warp_enough_comparisons(&edge, 3));
    /* a long clean trace is monotonic */
    summarize_first(TRACE_LEN, 2, &sum);
    CHECK(strcmp(sum.classification, "monotonic") == 0);
    /* one CPU: nothing to compare across, the same-CPU judgement stands */
    summarize_first(50, 1, &sum);
    CHECK(sum.cross_cpu_comparisons == 0 && strcmp(sum.classification, "monotonic") == 0);
}
