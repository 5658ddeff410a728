/* SPDX-License-Identifier: MIT */
/* A reference beside the figure (measure/reference.c): whether the machine's speed moved,
 * the figure relative to the reference, and what a run says, on synthetic per-process
 * figures: a stable run, a drifting reference (the machine), a bimodal figure with the
 * reference steady (each process's layout). */
#include "check.h"
#include "bench/bench_workers.h"
#include "measure/combine.h"
#include "measure/reference.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The text s holds sub; when it does not, s is printed before the failure. */
#define CHECK_STR_CONTAINS(s, sub)                                                     \
    do {                                                                               \
        if (!strstr((s), (sub)))                                                       \
            fprintf(stderr, "text: %s\n", (s));                                        \
        CHECK(strstr((s), (sub)) != NULL);                                             \
    } while (0)

TEST(reference_ratio_is_the_median_of_pairs)
{
    /* a spell that slows both by 60% in pairs 3-4 leaves the ratio alone */
    const double fig[] = {45.5, 45.6, 72.8, 73.0, 45.4};
    const double ref[] = {12.5, 12.5, 20.0, 20.1, 12.5};
    double r = reference_ratio(fig, ref, 5);
    CHECK(fabs(r - 45.5 / 12.5) < 1e-9);
    /* a pair without a reference is left out; none at all: NAN */
    const double bad[] = {0, 0, 0};
    CHECK(isnan(reference_ratio(fig, bad, 3)));
    const double one_bad[] = {12.5, 0, 12.5};
    CHECK(fabs(reference_ratio(fig, one_bad, 3) - (45.5 / 12.5 + 72.8 / 12.5) / 2) < 1e-9);
}

TEST(reference_stable_run_says_nothing)
{
    const double fig[] = {39.4, 39.6, 39.5, 40.1, 39.8};
    const double ref[] = {12.5, 12.6, 13.2, 12.5, 12.7}; /* layout's own 6% */
    const double rel[] = {3.15, 3.14, 2.99, 3.21, 3.13};
    struct across a;
    struct reference_verdict v;
    across_summarize(fig, 5, &a);
    reference_summarize(ref, rel, 5, REFERENCE_MOVED_RATIO, &v);
    CHECK(!v.moved);
    CHECK(v.n == 5);
    CHECK(v.ref_min == 12.5 && v.ref_max == 13.2);
    CHECK(fabs(v.relative - 3.14) < 1e-9);
    CHECK(v.rel_min == 2.99 && v.rel_max == 3.21);
    char buf[400];
    CHECK(reference_sentence(&a, &v, "abs(-1)", buf, sizeof buf) == 0);
    CHECK(buf[0] == 0);
}

TEST(reference_drifting_machine_is_unstable_not_a_level)
{
    /* issue 29 on a quiet machine: three processes in a slow spell, two out of it; the
     * reference moved with them and the ratio did not */
    const double fig[] = {39.1, 70.2, 71.0, 39.6, 69.5};
    const double ref[] = {12.4, 20.1, 20.6, 12.5, 19.8};
    const double rel[] = {3.15, 3.49, 3.45, 3.17, 3.51};
    struct across a;
    struct reference_verdict v;
    across_summarize(fig, 5, &a);
    reference_summarize(ref, rel, 5, REFERENCE_MOVED_RATIO, &v);
    CHECK(a.bimodal);
    CHECK(v.moved);
    CHECK(fabs(v.relative - 3.45) < 1e-9);
    char buf[400];
    int n = reference_sentence(&a, &v, "abs(-1)", buf, sizeof buf);
    CHECK(n == (int)strlen(buf));
    CHECK_STR_CONTAINS(buf, "unstable: this machine's speed changed during the run "
                            "(reference abs(-1) 12.4 ns to 20.6 ns)");
    CHECK_STR_CONTAINS(buf, "the figure that holds is 3.45x the reference");
    CHECK_STR_CONTAINS(buf, "the levels 39.4 ns / 70.2 ns (2 and 3 of 5 processes)");
    /* never one level as the truth, nor the reference said steady */
    CHECK(strstr(buf, "steady") == NULL);
    /* a drift that is not bimodal (a slow spell in one process) is still unstable */
    const double fig2[] = {39.1, 39.5, 52.0, 39.6, 39.3};
    const double ref2[] = {12.4, 12.5, 16.0, 12.5, 12.4};
    across_summarize(fig2, 5, &a);
    reference_summarize(ref2, rel, 5, REFERENCE_MOVED_RATIO, &v);
    CHECK(!a.bimodal && v.moved);
    reference_sentence(&a, &v, "abs(-1)", buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "unstable: this machine's speed changed during the run "
                            "(reference abs(-1) 12.4 ns to 16.0 ns)");
    CHECK(strstr(buf, "levels") == NULL);
    /* a ratio not above 0 (a harness-bound row) holds nothing */
    const double negative[] = {-2.5, -2.4, -2.6, -2.5, -2.5};
    reference_summarize(ref2, negative, 5, REFERENCE_MOVED_RATIO, &v);
    reference_sentence(&a, &v, "abs(-1)", buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "no figure holds (its ratio to the reference is not above 0)");
    CHECK(strstr(buf, "x the reference") == NULL);
}

TEST(reference_at_the_bound_moved_just_below_not)
{
    const double rel[] = {3, 3};
    struct reference_verdict v;
    const double at[] = {10.0, 10.0 * REFERENCE_MOVED_RATIO};
    reference_summarize(at, rel, 2, REFERENCE_MOVED_RATIO, &v);
    CHECK(v.moved);
    const double below[] = {10.0, 10.0 * REFERENCE_MOVED_RATIO - 0.01};
    reference_summarize(below, rel, 2, REFERENCE_MOVED_RATIO, &v);
    CHECK(!v.moved);
    /* a counter's bound is its own: 5% is a move for it, not for an interpreter's loop */
    const double counter[] = {18.4, 19.4};
    reference_summarize(counter, rel, 2, REFERENCE_MOVED_RATIO_COUNTER, &v);
    CHECK(v.moved);
    reference_summarize(counter, rel, 2, REFERENCE_MOVED_RATIO, &v);
    CHECK(!v.moved);
}

TEST(reference_bimodal_with_steady_reference_is_the_layout)
{
    const double fig[] = {39.2, 71.0, 40.1, 70.4, 39.8};
    const double ref[] = {12.5, 12.6, 12.4, 12.7, 12.5};
    const double rel[] = {3.1, 5.6, 3.2, 5.5, 3.2};
    struct across a;
    struct reference_verdict v;
    across_summarize(fig, 5, &a);
    reference_summarize(ref, rel, 5, REFERENCE_MOVED_RATIO, &v);
    CHECK(a.bimodal && !v.moved);
    char buf[400];
    reference_sentence(&a, &v, "abs(-1)", buf, sizeof buf);
    CHECK_STR_CONTAINS(buf, "bimodal across processes: 39.8 ns / 70.7 ns (3 and 2 of 5 processes) "
                            "with the reference steady (abs(-1) 12.5 ns)");
    CHECK_STR_CONTAINS(buf, "not a change of speed the reference sees; neither level is the "
                            "figure");
    CHECK(strstr(buf, "unstable") == NULL);
    /* without a reference: the bimodal sentence alone */
    reference_sentence(&a, NULL, "", buf, sizeof buf);
    CHECK(strcmp(buf, "bimodal across processes: 39.8 ns / 70.7 ns (3 and 2 of 5 processes): "
                      "neither level is the figure") == 0);
}

TEST(reference_none_is_nan_and_silent)
{
    struct reference_verdict v;
    reference_summarize(NULL, NULL, 0, REFERENCE_MOVED_RATIO, &v);
    CHECK(v.n == 0 && !v.moved && isnan(v.relative) && isnan(v.ref_min));
    struct across a;
    const double fig[] = {22.2, 22.3, 22.2};
    across_summarize(fig, 3, &a);
    char buf[8];
    CHECK(reference_sentence(&a, &v, "x", buf, sizeof buf) == 0 && buf[0] == 0);
}

/* bench's workers (measure/combine.c): each process's reference and ratio, from the
 * engine's measurements, over the processes */
static void proc(struct measurement *m, double fig, double ref, double rel)
{
    memset(m, 0, sizeof *m);
    m->ok = true;
    m->ns_per_call.median = fig;
    m->has_ref = ref > 0;
    m->ref_ns = ref;
    m->relative = rel;
}

TEST(reference_combined_over_bench_workers)
{
    static struct measurement p[5];
    struct measure_runs runs = {5, p};
    struct reference_verdict v;
    /* stable: the counter within 0.1%, nothing moved */
    for (int i = 0; i < 5; i++)
        proc(&p[i], 22.2 + 0.01 * i, 18.41 + 0.002 * i, 1.206 - 0.001 * i);
    measure_combine_reference(&runs, &v);
    CHECK(v.n == 5 && !v.moved);
    CHECK(fabs(v.relative - 1.204) < 1e-9);
    /* drifting: two processes in a slow spell, clock_gettime and the counter +5% */
    proc(&p[1], 23.5, 19.45, 1.208);
    proc(&p[3], 23.4, 19.40, 1.206);
    measure_combine_reference(&runs, &v);
    CHECK(v.moved);
    CHECK(fabs(v.ref_min - 18.41) < 1e-9 && fabs(v.ref_max - 19.45) < 1e-9);
    CHECK(fabs(v.relative - 1.206) < 1e-9);
    /* a failed process is left out; one without a reference: no reference at all */
    p[4].ok = false;
    measure_combine_reference(&runs, &v);
    CHECK(v.n == 4);
    p[4].ok = true;
    p[4].has_ref = false;
    measure_combine_reference(&runs, &v);
    CHECK(v.n == 0 && !v.moved);
}

/* bench's figure is the median of the processes' own medians: one process in a slow
 * spell moves it no further than the middle one, however many samples it kept (pooled,
 * its samples would outvote the other two). */
TEST(bench_figure_is_the_median_over_processes_not_of_the_pooled_samples)
{
    static struct measurement p[3];
    struct measure_runs runs = {3, p};
    const double fig[3] = {20.0, 21.0, 60.0};
    const size_t kept[3] = {3, 3, 9};
    for (int i = 0; i < 3; i++) {
        proc(&p[i], fig[i], 0, 0);
        p[i].samples = kept[i];
        p[i].nkept = kept[i];
        p[i].nthreads = 1;
        for (size_t j = 0; j < kept[i]; j++)
            p[i].kept[j] = fig[i];
    }
    static struct measurement out;
    struct across a;
    CHECK(measure_combine(&runs, 0.5, &out, &a));
    CHECK(a.n == 3 && fabs(a.median - 21.0) < 1e-9);
    CHECK(fabs(out.ns_per_call.median - 21.0) < 1e-9); /* pooled, 9 of 15 say 60 */
    CHECK(out.samples == 15 && out.nkept == 15);
}

/* The figure at the machine's speed (runtimes, when the reference moved): a process is at
 * speed when at least half its pairs are (reference below 1.2x the fastest process's),
 * and its figure is then the median of those pairs. */
TEST(reference_figure_at_speed_leaves_out_the_slow_spells)
{
    /* p0: all pairs slow; p1: 1 of 3 at speed (out); p2: 2 of 3 (in, 40); p3: all (41) */
    const double f0[] = {70, 71, 72}, r0[] = {21, 21, 22};
    const double f1[] = {40, 70, 70}, r1[] = {12.5, 21, 21};
    const double f2[] = {70, 40, 40}, r2[] = {21, 12.5, 12.5};
    const double f3[] = {41, 41, 41}, r3[] = {12.5, 13, 13};
    const double *fig[] = {f0, f1, f2, f3}, *ref[] = {r0, r1, r2, r3};
    const size_t count[] = {3, 3, 3, 3};
    bool at[4];
    double figure;
    CHECK(reference_figure_at_speed(fig, ref, count, 4, 12.5, 1.2, at, &figure) == 2);
    CHECK(!at[0] && !at[1] && at[2] && at[3]);
    CHECK(fabs(figure - 40.5) < 1e-9);
    /* nothing at speed (no fastest): NAN, none */
    CHECK(reference_figure_at_speed(fig, ref, count, 4, 0, 1.2, at, &figure) == 0);
    CHECK(isnan(figure) && !at[3]);
    /* the bound is strict: a reference at exactly 1.2x the fastest is not at speed */
    const double f4[] = {50}, r4[] = {15};
    const double *fig4[] = {f4}, *ref4[] = {r4};
    const size_t one[] = {1};
    CHECK(reference_figure_at_speed(fig4, ref4, one, 1, 12.5, 1.2, at, &figure) == 0);
}

TEST(reference_processes_at_speed_counts_those_within_the_bound_of_the_fastest)
{
    /* moved (21.875 >= 1.2 x 12.5): the two at 12.5 and 14.9 count, 15.0 (1.2x) does not */
    const double speed[] = {21.875, 12.5, 15.0, 14.9, 21.875};
    CHECK(reference_processes_at_speed(speed, 5, 1.2) == 2);
    /* not moved (every process within the bound): all of them count */
    const double steady[] = {12.5, 13.0, 14.9};
    CHECK(reference_processes_at_speed(steady, 3, 1.2) == 3);
    /* none, or no speed known: as many as given */
    CHECK(reference_processes_at_speed(speed, 0, 1.2) == 0);
    const double unknown[] = {0, 0};
    CHECK(reference_processes_at_speed(unknown, 2, 1.2) == 2);
}

TEST(reference_travels_in_the_worker_protocol)
{
    static struct measurement m, back[2];
    proc(&m, 22.2, 18.41, 1.2059);
    m.samples = 8;
    m.nthreads = 1;
    m.nkept = 2;
    m.kept[0] = 22.1;
    m.kept[1] = 22.3;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    CHECK(f != NULL);
    bench_worker_print(f, "libc.x", &m);
    m.has_ref = false;
    bench_worker_print(f, "libc.y", &m);
    fclose(f);
    const char *ids[] = {"libc.x", "libc.y"};
    struct measure_runs runs[2] = {{0, &back[0]}, {0, &back[1]}};
    char why[200] = "";
    bool ok = bench_worker_parse(buf, ids, 2, runs, why, sizeof why);
    free(buf);
    CHECK(ok);
    CHECK(back[0].ok && back[0].has_ref && back[0].ref_ns == 18.41 && back[0].relative == 1.2059);
    CHECK(back[1].ok && !back[1].has_ref);
    /* a reference line with no result before it is refused */
    struct measure_runs none[1] = {{0, &back[0]}};
    CHECK(!bench_worker_parse("q 18.4 1.2\n", ids, 1, none, why, sizeof why));
    CHECK(strcmp(why, "worker output line 1: not a reference after a result") == 0);
}
