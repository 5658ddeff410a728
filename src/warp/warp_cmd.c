/* clockscope warp: does time ever go backwards between CPUs, does the counter tick at the
 * rate the platform states, and how fine does each clock really step. */
#include "commands.h"
#include "arch/arch.h"
#include "common/cli.h"
#include "common/cpuset.h"
#include "common/json.h"
#include "common/sysinfo.h"
#include "measure/batch.h"
#include "measure/clocks.h"
#include "measure/method.h"
#include "warp/kernel_log.h"
#include "warp/warp_analysis.h"
#include "warp/warp_collect.h"
#include "warp/warp_rate.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_PATTERNS 32
/* One lock shared by every CPU: beyond this many the test measures lock contention. */
#define WARP_MAX_CPUS 256
/* Share of the run spent on the resolution reads (the rest goes to the cross-CPU test). */
#define RESOLUTION_SHARE 0.1
/* Floor of a method's cross-CPU test when the budget is overrun (a slow machine). */
#define MIN_WARP_SECONDS 0.002

struct warp_options {
    double seconds;
    bool json;
    struct cpu_list cpus;
    const char *patterns[MAX_PATTERNS];
    int npatterns;
};

static const char help[] =
    "usage: clockscope warp [options]\n"
    "\n"
    "Checks that time never goes backwards between CPUs, for every way of reading it that\n"
    "yields a timestamp (clock_gettime clocks, gettimeofday, raw counters under each\n"
    "ordering): one thread per CPU reads under a shared lock and compares each read with\n"
    "the one published before it (docs/warp.md).  Also measures the counter's rate against\n"
    "CLOCK_MONOTONIC_RAW (error in ppm from the stated frequency), MONOTONIC's NTP slew,\n"
    "REALTIME steps, and each clock's smallest step and stalls.\n"
    "\n"
    "options:\n"
    "  --seconds S   duration of the whole run (default 5), shared among the methods\n"
    "  --cpus LIST   CPUs to use, e.g. 0-3 or 0,2 (default: every CPU this process may use)\n"
    "  --only GLOBS  only ids matching these comma-separated globs, e.g. 'counter.*'; without\n"
    "                it: counter.*, libc.* (no CPU-time clocks), vdso and syscall\n"
    "                clock_gettime.monotonic, and any other provider's methods\n"
    "  --json        machine-readable output (schema: docs/json.md)\n"
    "  --help        this text\n"
    "\n"
    "Exit status: 0 when every method that must be monotonic was (unordered counter reads\n"
    "may warp: shown, not a failure; CPU-time clocks are not judged; REALTIME-based clocks\n"
    "are excused when REALTIME was stepped during the run); 1 when one went backwards or a\n"
    "thread could not run; 2 bad usage.\n";

static void parse_args(int argc, char **argv, struct warp_options *o)
{
    static const struct option longopts[] = {
        {"seconds", required_argument, 0, 's'}, {"cpus", required_argument, 0, 'c'},
        {"only", required_argument, 0, 'o'},    {"json", no_argument, 0, 'j'},
        {"help", no_argument, 0, 'h'},          {0, 0, 0, 0},
    };
    struct cpu_list allowed;
    if (!cpus_allowed(&allowed))
        usage_error("warp", "cannot read this process's CPU affinity");
    memset(o, 0, sizeof *o);
    o->seconds = 5;
    const char *cpus_arg = NULL;
    char err[200];
    opterr = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (c) {
        case 's':
            if (!parse_seconds(optarg, 0.05, 3600, &o->seconds, err, sizeof err))
                usage_error("warp", "--seconds: %s", err);
            break;
        case 'c': cpus_arg = optarg; break;
        case 'o':
            cli_split_list("warp", optarg, o->patterns, &o->npatterns, MAX_PATTERNS,
                           "--only patterns");
            break;
        case 'j': o->json = true; break;
        case 'h': fputs(help, stdout); exit(0);
        default:
            cli_bad_option("warp", argv);
        }
    }
    if (optind < argc)
        usage_error("warp", "unexpected argument '%s'", argv[optind]);
    if (cpus_arg) {
        if (!parse_cpu_list(cpus_arg, &allowed, &o->cpus, err, sizeof err))
            usage_error("warp", "--cpus: %s", err);
    } else {
        o->cpus = allowed;
    }
    if (o->cpus.count > WARP_MAX_CPUS)
        usage_error("warp", "%d CPUs: at most %d at once (choose with --cpus)", o->cpus.count,
                    WARP_MAX_CPUS);
}

/* A method warp can test: it yields a timestamp in ns or ticks. */
static bool has_timestamp(const struct method *m)
{
    return m->read && (m->unit == UNIT_NS || m->unit == UNIT_TICKS);
}

static bool is_cputime(const struct method *m)
{
    const struct clock_info *ci = m->clock ? clock_by_id(m->clock_id) : NULL;
    return ci && ci->cputime;
}

static bool is_realtime_based(const struct method *m)
{
    if (!m->clock)
        return strcmp(m->api, "gettimeofday") == 0;
    return m->clock_id == CLOCK_REALTIME || m->clock_id == CLOCK_REALTIME_COARSE ||
           strcmp(m->clock, "tai") == 0;
}

static bool selected(const struct warp_options *o, const struct method *m)
{
    if (!has_timestamp(m))
        return false;
    if (o->npatterns)
        return cli_matches_any(o->patterns, o->npatterns, m->id);
    /* The default keeps within a 5 s budget: the vDSO and syscall paths read the same
     * clocksource as libc's, so one clock of each is enough to see their path. */
    if (strcmp(m->path, "vdso") == 0 || strcmp(m->path, "syscall") == 0)
        return m->clock && m->clock_id == CLOCK_MONOTONIC && strcmp(m->api, "clock_gettime") == 0;
    if (strcmp(m->path, "libc") == 0)
        return !is_cputime(m);
    return true; /* counter.*, and any provider added later (fastclock) */
}

/* A per-thread clock has no common timeline across threads: nothing to compare. */
static bool per_thread_clock(const struct method *m)
{
    return m->clock && m->clock_id == CLOCK_THREAD_CPUTIME_ID;
}

/* Unordered counter reads may legitimately run ahead of the lock: their warps are shown,
 * not judged.  CPU-time clocks sum per-thread runtimes updated lazily, so reads on two
 * CPUs need not be ordered either. */
static bool must_be_monotonic(const struct method *m, bool realtime_stepped)
{
    if (m->unit == UNIT_TICKS)
        return m->ordered;
    if (is_cputime(m))
        return false;
    return !(realtime_stepped && is_realtime_based(m));
}

struct rate_entry {
    const struct method *m;
    struct bracket start, end;
    bool have_start, have_end;
    struct counter_rate rate;
    bool rate_ok;
};

struct method_result {
    const struct method *m;
    bool ran, cross_ok, compared;
    char error[200];
    struct warp_collected c;
    struct warp_summary s;
    struct resolution res;
    double getres_ns;        /* NaN when not a clock_* method */
    double ns_per_unit;      /* NaN when unknown (a counter whose rate failed) */
};

struct warp_run {
    struct warp_options *o;
    struct sysinfo si;
    struct method_result *results;
    size_t nresults;
    struct rate_entry *rates;
    size_t nrates;
    uint64_t stated_hz;
    char stated_source[120];
    struct kernel_tsc_claim kernel;
    struct clock_drift drift;
    double elapsed_s;
    int judged_backward, failures;
};

static double ns_per_unit_of(const struct warp_run *r, const struct method *m)
{
    if (m->unit == UNIT_NS)
        return 1;
    for (size_t i = 0; i < r->nrates; i++)
        if (r->rates[i].m == m && r->rates[i].rate_ok)
            return 1e9 / r->rates[i].rate.hz;
    return NAN;
}

static double to_ns(const struct method_result *mr, double units)
{
    return units * mr->ns_per_unit;
}

static void progress(bool on, size_t i, size_t n, const char *what, const char *id)
{
    if (on)
        fprintf(stderr, "\r[%zu/%zu] %s %-44s", i, n, what, id);
}

static void run_all(struct warp_run *r, struct method_list *ml)
{
    struct warp_options *o = r->o;
    bool show = !o->json && isatty(STDERR_FILENO);
    size_t nwarp = 0;
    for (size_t i = 0; i < ml->count; i++)
        if (selected(o, &ml->m[i]) && ml->m[i].available) {
            r->results[r->nresults++].m = &ml->m[i];
            nwarp += !per_thread_clock(&ml->m[i]);
        }
    for (size_t i = 0; i < ml->count; i++)
        if (ml->m[i].unit == UNIT_TICKS && ml->m[i].read && ml->m[i].available)
            r->rates[r->nrates++].m = &ml->m[i];
    double res_each = r->nresults ? o->seconds * RESOLUTION_SHARE / (double)r->nresults : 0;

    /* The main thread stays on the first CPU: rate brackets must read one CPU's counter. */
    pin_to_cpu(o->cpus.cpu[0]);
    r->stated_hz = arch_counter_stated_hz(r->stated_source, sizeof r->stated_source);
    if (arch_kernel_logs_counter_calibration())
        kernel_log_tsc_claim(&r->kernel);
    struct clock_sample drift_start, drift_end;
    clock_sample_take(&drift_start);
    for (size_t i = 0; i < r->nrates; i++)
        r->rates[i].have_start = bracket_read(r->rates[i].m, &r->rates[i].start);
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC_RAW, &w0);
    double deadline = (double)w0.tv_sec + (double)w0.tv_nsec / 1e9 + o->seconds;

    size_t step = 0, nsteps = r->nresults + nwarp, warp_left = nwarp;
    for (size_t i = 0; i < r->nresults; i++) {
        struct method_result *mr = &r->results[i];
        progress(show, ++step, nsteps, "resolution", mr->m->id);
        resolution_collect(mr->m, res_each, &mr->res);
        struct timespec ts;
        mr->getres_ns = mr->m->clock && clock_getres(mr->m->clock_id, &ts) == 0
                            ? (double)timespec_ns(&ts) : NAN;
    }
    for (size_t i = 0; i < r->nresults; i++) {
        struct method_result *mr = &r->results[i];
        if (per_thread_clock(mr->m)) {
            snprintf(mr->error, sizeof mr->error,
                     "per-thread clock: no common timeline across threads, not compared");
            continue;
        }
        progress(show, ++step, nsteps, "warp", mr->m->id);
        mr->ran = true;
        /* Each method gets an equal share of what is left, so that thread start-up and the
         * resolution phase's overshoot do not push the run past --seconds. */
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC_RAW, &now);
        double left = deadline - ((double)now.tv_sec + (double)now.tv_nsec / 1e9);
        double warp_each = left / (double)warp_left--;
        if (warp_each < MIN_WARP_SECONDS)
            warp_each = MIN_WARP_SECONDS;
        mr->cross_ok = warp_collect(mr->m, o->cpus.cpu, o->cpus.count, warp_each, &mr->c,
                                    mr->error, sizeof mr->error);
        if (mr->cross_ok)
            warp_summarize(&mr->c.matrix, &mr->s);
        else
            r->failures++;
    }
    if (show)
        fprintf(stderr, "\r%70s\r", "");
    clock_sample_take(&drift_end);
    for (size_t i = 0; i < r->nrates; i++) {
        struct rate_entry *e = &r->rates[i];
        e->have_end = bracket_read(e->m, &e->end);
        e->rate_ok = e->have_start && e->have_end &&
                     counter_rate_between(&e->start, &e->end, &e->rate);
    }
    clock_drift_between(&drift_start, &drift_end, &r->drift);
    clock_gettime(CLOCK_MONOTONIC_RAW, &w1);
    r->elapsed_s = (double)(w1.tv_sec - w0.tv_sec) + (double)(w1.tv_nsec - w0.tv_nsec) / 1e9;

    for (size_t i = 0; i < r->nresults; i++) {
        struct method_result *mr = &r->results[i];
        mr->ns_per_unit = ns_per_unit_of(r, mr->m);
        if (mr->cross_ok && mr->s.backward_steps &&
            must_be_monotonic(mr->m, r->drift.realtime_stepped))
            r->judged_backward++;
    }
}

/* ---- text output ---- */

static void fmt_ns(char *buf, size_t len, double ns)
{
    if (!isfinite(ns))
        snprintf(buf, len, "-");
    else if (ns >= 1e6)
        snprintf(buf, len, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3)
        snprintf(buf, len, "%.2f us", ns / 1e3);
    else
        snprintf(buf, len, "%.1f ns", ns);
}

static void fmt_count(char *buf, size_t len, uint64_t v)
{
    if (v >= 10000000)
        snprintf(buf, len, "%.1fM", (double)v / 1e6);
    else if (v >= 100000)
        snprintf(buf, len, "%.0fk", (double)v / 1e3);
    else
        snprintf(buf, len, "%llu", (unsigned long long)v);
}

static const char *judgement(const struct method_result *mr, bool realtime_stepped)
{
    if (!mr->s.backward_steps)
        return "";
    if (must_be_monotonic(mr->m, realtime_stepped))
        return "  FAULT: must be monotonic";
    if (mr->m->unit == UNIT_TICKS)
        return "  (unordered read: expected)";
    if (is_cputime(mr->m))
        return "  (CPU-time clock: not judged)";
    return "  (REALTIME stepped during the run)";
}

static void print_pairs(const struct warp_run *r, const struct method_result *mr)
{
    const struct warp_matrix *mx = &mr->c.matrix;
    for (int a = 0; a < mx->n; a++)
        for (int b = a; b < mx->n; b++) {
            struct warp_pair_verdict v = warp_classify_pair(mx, a, b);
            if (v.cls == WARP_NONE)
                continue;
            char worst[32], off[32];
            fmt_ns(worst, sizeof worst, to_ns(mr, (double)v.max_backward));
            int ca = r->o->cpus.cpu[a], cb = r->o->cpus.cpu[b];
            if (a == b) {
                printf("    CPU %d alone: %llu backward, worst %s\n", ca,
                       (unsigned long long)v.backward_ab, worst);
                continue;
            }
            fmt_ns(off, sizeof off, v.offset_known ? to_ns(mr, v.offset_b_minus_a) : NAN);
            printf("    CPU %d->%d: %llu backward, %d->%d: %llu; worst %s; CPU %d - CPU %d "
                   "offset est. %s: %s\n",
                   ca, cb, (unsigned long long)v.backward_ab, cb, ca,
                   (unsigned long long)v.backward_ba, worst, cb, ca, off, warp_class_name(v.cls));
        }
}

static void print_text(const struct warp_run *r, const struct method_list *ml)
{
    const struct warp_options *o = r->o;
    const struct sysinfo *si = &r->si;
    sysinfo_print_header(stdout, "warp", si);
    printf("CPUs");
    for (int i = 0; i < o->cpus.count; i++)
        printf("%s%d", i ? "," : " ", o->cpus.cpu[i]);
    printf("; %.1f s in all\n", r->elapsed_s);
    if (o->cpus.count == 1)
        printf("only one CPU: nothing to compare across CPUs; each read is compared with the "
               "previous one on the same CPU\n");

    printf("\ncross-CPU monotonicity: one thread per CPU; each read is compared with the one "
           "published just before it\n");
    printf("%-36s %8s %8s %9s %11s  %s\n", "id", "reads", "cross", "backward", "worst",
           "class");
    for (size_t i = 0; i < r->nresults; i++) {
        const struct method_result *mr = &r->results[i];
        if (!mr->ran || !mr->cross_ok) {
            printf("%-36s %s\n", mr->m->id, mr->error);
            continue;
        }
        char reads[16], cross[16], worst[32];
        fmt_count(reads, sizeof reads, mr->c.reads);
        fmt_count(cross, sizeof cross, mr->s.cross_cpu_comparisons);
        fmt_ns(worst, sizeof worst,
               mr->s.backward_steps ? to_ns(mr, (double)mr->s.max_backward) : NAN);
        printf("%-36s %8s %8s %9llu %11s  %s%s\n", mr->m->id, reads, cross,
               (unsigned long long)mr->s.backward_steps, worst, mr->s.classification,
               judgement(mr, r->drift.realtime_stepped));
        if (mr->s.backward_steps)
            print_pairs(r, mr);
    }

    for (size_t i = 0; i < ml->count; i++)
        if (selected(o, &ml->m[i]) && !ml->m[i].available)
            printf("%-36s not available: %s\n", ml->m[i].id, ml->m[i].why);

    printf("\ncounter rate against CLOCK_MONOTONIC_RAW over the run (clocksource %s)\n",
           si->clocksource[0] ? si->clocksource : "unknown");
    printf("  when the clocksource is this counter, MONOTONIC_RAW is the counter scaled by the\n"
           "  kernel's calibration: the error checks that calibration, not the crystal; the NTP\n"
           "  slew below is the error against the time source, where NTP disciplines the clock\n");
    printf("  stated: ");
    if (r->stated_hz)
        printf("%.6f MHz (%s)\n", (double)r->stated_hz / 1e6, r->stated_source);
    else
        printf("none: %s\n", r->stated_source);
    if (r->kernel.hz)
        printf("  kernel: %.3f MHz (\"%s\"; its last digit is %.2f ppm)\n",
               (double)r->kernel.hz / 1e6, r->kernel.line,
               (double)r->kernel.step_hz / (double)r->kernel.hz * 1e6);
    for (size_t i = 0; i < r->nrates; i++) {
        const struct rate_entry *e = &r->rates[i];
        if (!e->rate_ok) {
            printf("  %-34s rate not measurable (the counter did not advance)\n", e->m->id);
            continue;
        }
        printf("  %-34s %.6f MHz +- %.3f ppm", e->m->id, e->rate.hz / 1e6, e->rate.uncertainty_ppm);
        if (r->stated_hz)
            printf("; vs stated %+.2f ppm", rate_error_ppm(e->rate.hz, (double)r->stated_hz));
        if (r->kernel.hz)
            printf("; vs kernel %+.2f ppm", rate_error_ppm(e->rate.hz, (double)r->kernel.hz));
        printf("\n");
    }

    const struct clock_drift *d = &r->drift;
    printf("\nclock drift over %.2f s\n", d->seconds);
    printf("  CLOCK_MONOTONIC vs CLOCK_MONOTONIC_RAW: %+.3f ppm +- %.3f (NTP slew)\n",
           d->monotonic_slew_ppm, d->slew_uncertainty_ppm);
    printf("  CLOCK_REALTIME - CLOCK_MONOTONIC changed by %+.0f ns +- %.0f: %s\n",
           d->realtime_step_ns, d->realtime_step_uncertainty_ns,
           d->realtime_stepped ? "REALTIME was stepped" : "no step");

    printf("\nresolution: back-to-back reads on CPU %d\n", o->cpus.cpu[0]);
    printf("%-36s %9s %12s %12s %8s\n", "id", "reads", "getres", "smallest", "stalls");
    for (size_t i = 0; i < r->nresults; i++) {
        const struct method_result *mr = &r->results[i];
        char reads[16], getres[32], step[32];
        fmt_count(reads, sizeof reads, mr->res.reads);
        fmt_ns(getres, sizeof getres, mr->getres_ns);
        fmt_ns(step, sizeof step, mr->res.min_step ? to_ns(mr, (double)mr->res.min_step) : NAN);
        printf("%-36s %9s %12s %12s %7.1f%%\n", mr->m->id, reads, getres, step,
               100 * resolution_stall_fraction(&mr->res));
    }
    printf("\n%s\n", r->judged_backward
                         ? "FAULT: a method that must be monotonic went backwards (exit 1)"
                         : "every method that must be monotonic was");
}

/* ---- JSON output ---- */

static void kv_ns(struct json *j, const char *k, double ns)
{
    if (isfinite(ns))
        json_kv_double(j, k, ns);
    else
        json_kv_null(j, k);
}

static void pairs_json(struct json *j, const struct warp_run *r, const struct method_result *mr)
{
    const struct warp_matrix *mx = &mr->c.matrix;
    json_key(j, "pairs");
    json_begin_array(j);
    for (int a = 0; a < mx->n; a++)
        for (int b = a; b < mx->n; b++) {
            struct warp_pair_verdict v = warp_classify_pair(mx, a, b);
            if (!v.comparisons)
                continue;
            json_begin_object(j);
            json_kv_int(j, "cpu_a", r->o->cpus.cpu[a]);
            json_kv_int(j, "cpu_b", r->o->cpus.cpu[b]);
            json_kv_uint(j, "comparisons", v.comparisons);
            json_kv_uint(j, "backward_a_to_b", v.backward_ab);
            json_kv_uint(j, "backward_b_to_a", v.backward_ba);
            kv_ns(j, "max_backward_ns", v.max_backward ? to_ns(mr, (double)v.max_backward) : 0);
            kv_ns(j, "offset_b_minus_a_ns",
                  v.offset_known ? to_ns(mr, v.offset_b_minus_a) : NAN);
            json_kv_string(j, "class", warp_class_name(v.cls));
            json_end_object(j);
        }
    json_end_array(j);
}

static void method_json(struct json *j, const struct warp_run *r, const struct method_result *mr,
                        const struct method *m)
{
    json_begin_object(j);
    json_kv_string(j, "id", m->id);
    json_kv_string(j, "path", m->path);
    json_kv_string(j, "api", m->api);
    json_kv_string(j, "clock", m->clock);
    json_kv_string(j, "value_unit", method_unit_name(m->unit));
    json_kv_bool(j, "available", m->available);
    json_kv_string(j, "why_unavailable", m->available ? NULL : m->why);
    json_kv_bool(j, "ordered", m->ordered);
    json_kv_bool(j, "must_be_monotonic", must_be_monotonic(m, r->drift.realtime_stepped));
    bool done = mr && mr->ran && mr->cross_ok;
    if (done) {
        json_kv_uint(j, "reads", mr->c.reads);
        json_kv_uint(j, "comparisons", mr->s.comparisons);
        json_kv_uint(j, "cross_cpu_comparisons", mr->s.cross_cpu_comparisons);
        json_kv_uint(j, "backward_steps", mr->s.backward_steps);
        kv_ns(j, "max_backward_ns",
              mr->s.backward_steps ? to_ns(mr, (double)mr->s.max_backward) : 0);
        json_kv_uint(j, "max_backward_units", mr->s.max_backward);
        json_kv_uint(j, "equal_steps", mr->s.equal);
        json_kv_string(j, "classification", mr->s.classification);
        json_kv_double(j, "seconds", mr->c.elapsed_s);
        json_key(j, "reads_per_cpu");
        json_begin_array(j);
        for (int c = 0; c < r->o->cpus.count; c++) {
            json_begin_object(j);
            json_kv_int(j, "cpu", r->o->cpus.cpu[c]);
            json_kv_uint(j, "reads", mr->c.reads_per_cpu[c]);
            json_end_object(j);
        }
        json_end_array(j);
        pairs_json(j, r, mr);
    } else {
        json_kv_null(j, "reads");
        json_kv_null(j, "backward_steps");
        json_kv_null(j, "max_backward_ns");
        json_kv_null(j, "classification");
    }
    json_kv_string(j, "error", mr && mr->error[0] ? mr->error : NULL);
    if (mr) {
        json_key(j, "resolution");
        json_begin_object(j);
        json_kv_uint(j, "reads", mr->res.reads);
        json_kv_uint(j, "stalls", mr->res.stalls);
        kv_ns(j, "stall_fraction", resolution_stall_fraction(&mr->res));
        json_kv_uint(j, "backward", mr->res.backward);
        kv_ns(j, "min_step_ns", mr->res.min_step ? to_ns(mr, (double)mr->res.min_step) : NAN);
        if (mr->res.min_step)
            json_kv_uint(j, "min_step_units", mr->res.min_step);
        else
            json_kv_null(j, "min_step_units");
        kv_ns(j, "getres_ns", mr->getres_ns);
        json_end_object(j);
    } else {
        json_kv_null(j, "resolution");
    }
    json_end_object(j);
}

static void print_json(const struct warp_run *r, const struct method_list *ml)
{
    struct json j;
    json_init(&j, stdout, 2);
    json_begin_object(&j);
    json_kv_string(&j, "schema", "clockscope.warp/1");
    json_key(&j, "machine");
    sysinfo_json(&j, &r->si);
    json_key(&j, "config");
    json_begin_object(&j);
    json_kv_double(&j, "seconds", r->o->seconds);
    json_key(&j, "cpus");
    json_begin_array(&j);
    for (int i = 0; i < r->o->cpus.count; i++)
        json_int(&j, r->o->cpus.cpu[i]);
    json_end_array(&j);
    json_end_object(&j);
    json_kv_bool(&j, "cross_cpu", r->o->cpus.count > 1);
    json_key(&j, "methods");
    json_begin_array(&j);
    for (size_t i = 0; i < ml->count; i++) {
        const struct method *m = &ml->m[i];
        if (!selected(r->o, m))
            continue;
        const struct method_result *mr = NULL;
        for (size_t k = 0; k < r->nresults; k++)
            if (r->results[k].m == m)
                mr = &r->results[k];
        method_json(&j, r, mr, m);
    }
    json_end_array(&j);

    json_key(&j, "rate");
    json_begin_object(&j);
    if (r->stated_hz)
        json_kv_uint(&j, "stated_hz", r->stated_hz);
    else
        json_kv_null(&j, "stated_hz");
    json_kv_string(&j, "stated_source", r->stated_source);
    if (r->kernel.hz) {
        json_kv_uint(&j, "kernel_tsc_hz", r->kernel.hz);
        json_kv_bool(&j, "kernel_tsc_refined", r->kernel.refined);
        json_kv_string(&j, "kernel_tsc_line", r->kernel.line);
        json_kv_double(&j, "kernel_tsc_digit_ppm",
                       (double)r->kernel.step_hz / (double)r->kernel.hz * 1e6);
    } else {
        json_kv_null(&j, "kernel_tsc_hz");
    }
    json_key(&j, "counters");
    json_begin_array(&j);
    for (size_t i = 0; i < r->nrates; i++) {
        const struct rate_entry *e = &r->rates[i];
        json_begin_object(&j);
        json_kv_string(&j, "id", e->m->id);
        /* Whole Hz: the writer's 6 significant digits would hide ppm-level errors. */
        if (e->rate_ok)
            json_kv_uint(&j, "measured_hz", (uint64_t)llround(e->rate.hz));
        else
            json_kv_null(&j, "measured_hz");
        kv_ns(&j, "uncertainty_ppm", e->rate_ok ? e->rate.uncertainty_ppm : NAN);
        kv_ns(&j, "error_ppm",
              e->rate_ok ? rate_error_ppm(e->rate.hz, (double)r->stated_hz) : NAN);
        kv_ns(&j, "error_ppm_vs_kernel",
              e->rate_ok ? rate_error_ppm(e->rate.hz, (double)r->kernel.hz) : NAN);
        json_end_object(&j);
    }
    json_end_array(&j);
    json_end_object(&j);

    const struct clock_drift *d = &r->drift;
    json_key(&j, "drift");
    json_begin_object(&j);
    json_kv_double(&j, "seconds", d->seconds);
    kv_ns(&j, "monotonic_slew_ppm", d->monotonic_slew_ppm);
    kv_ns(&j, "slew_uncertainty_ppm", d->slew_uncertainty_ppm);
    json_kv_double(&j, "realtime_step_ns", d->realtime_step_ns);
    json_kv_double(&j, "realtime_step_uncertainty_ns", d->realtime_step_uncertainty_ns);
    json_kv_bool(&j, "realtime_stepped", d->realtime_stepped);
    json_end_object(&j);

    json_kv_int(&j, "faults", r->judged_backward);
    json_kv_int(&j, "failures", r->failures);
    json_kv_double(&j, "elapsed_s", r->elapsed_s);
    json_end_object(&j);
    json_finish(&j);
}

int cmd_warp(int argc, char **argv)
{
    static struct warp_options o;
    parse_args(argc, argv, &o);
    static struct method_list ml;
    methods_collect(&ml);
    size_t nsel = 0;
    for (size_t i = 0; i < ml.count; i++)
        nsel += selected(&o, &ml.m[i]);
    if (!nsel)
        usage_error("warp", "no method matches --only (warp takes methods that return a "
                            "timestamp in ns or ticks; see 'clockscope bench --list')");

    struct warp_run r = {.o = &o};
    r.results = calloc(ml.count, sizeof *r.results);
    r.rates = calloc(ml.count, sizeof *r.rates);
    if (!r.results || !r.rates) {
        fprintf(stderr, "clockscope warp: out of memory\n");
        return 1;
    }
    sysinfo_read(&r.si);
    run_all(&r, &ml);
    if (o.json)
        print_json(&r, &ml);
    else
        print_text(&r, &ml);
    for (size_t i = 0; i < r.nresults; i++)
        if (r.results[i].cross_ok)
            warp_collected_free(&r.results[i].c);
    free(r.results);
    free(r.rates);
    return r.judged_backward || r.failures ? 1 : 0;
}
