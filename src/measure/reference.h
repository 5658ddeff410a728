/* SPDX-License-Identifier: MIT */
/* A reference measured beside a figure, sample by sample, in the same processes (issue 29,
 * docs/benchmarks/across_processes.md): what says whether the machine's speed moved during
 * a run, and the figure relative to it, which holds when it did.
 *
 * Why: on a shared machine (a KVM guest here) the speed of interpreted code moves by 50-70%
 * in spells of 0.1 s to several seconds, whatever the process (the same Python process
 * goes from 45 to 74 ns per time.time() and back within its life), and every process of a
 * run can sit in one spell.  No statistic over one run's processes can give a level that
 * holds then; a reference that moves in proportion, timed between the samples, can: the
 * ratio of the two does not move.  A C loop is not such a reference for Python (it moves
 * 3%, where the interpreter moves 60%); a call of a builtin in the same interpreter is.
 * Pure: no clock, no process; unit-tested in tests/unit/test_reference.c. */
#ifndef CLOCKSCOPE_REFERENCE_H
#define CLOCKSCOPE_REFERENCE_H

#include "measure/across.h"

#include <stdbool.h>
#include <stddef.h>

/* The reference moved when the slowest process's median is this much above the fastest's:
 * above what a process's own layout moves it, below what the machine's spells do.
 * An interpreter's reference (Python's loop of abs(-1)): 12.5 to 13.6 ns over eight
 * processes of one quiet spell (9%), the spells +50% and more. */
#define REFERENCE_MOVED_RATIO 1.20
/* A counter read's (bench: lfence; rdtsc): 18.41 to 18.42 ns over five processes (0.1%),
 * the spells +5% (18.7 to 19.7 ns, with clock_gettime 22.2 to 23.5). */
#define REFERENCE_MOVED_RATIO_COUNTER 1.03

/* The most pairs one process's ratio is taken over (a probe gives at most 200). */
#define REFERENCE_MAX_PAIRS 256

struct reference_verdict {
    size_t n;                 /* processes with a reference */
    double ref_median;        /* median over processes of each one's reference median (ns) */
    double ref_min, ref_max;  /* the fastest and slowest process's reference median */
    double relative;          /* median over processes of each one's relative figure */
    double rel_min, rel_max;  /* the processes' relative figures' extremes */
    bool moved;               /* ref_max >= moved_ratio * ref_min */
    double moved_ratio;       /* the bound the run was judged by */
    /* Set by a caller whose figure, when the reference moved, is the one at the machine's
     * speed (reference_figure_at_speed; runtimes): how many processes it is over, and
     * that it is (the sentence says so). */
    size_t at_speed;
    bool figure_at_speed;
    /* Set by a caller that ran more processes than asked because the reference moved with
     * too few at speed (runtimes): how many of n. */
    size_t added;
};

/* ref[i]: process i's reference median, ns per call of the reference; rel[i]: its
 * relative figure (the median over its samples of figure / reference); moved_ratio: the
 * reference's REFERENCE_MOVED_RATIO*.  n 0: all NAN. */
void reference_summarize(const double *ref, const double *rel, size_t n, double moved_ratio,
                         struct reference_verdict *out);

/* "ns_per_call": the reference's cost over the processes, in the one shape of a cost
 * (common/json_cost.h): the median, the fastest and the slowest process's; the rest null. */
void reference_cost_json(struct json *j, const struct reference_verdict *v);

/* The figure at the machine's speed, for a run whose reference moved.  A pair (a sample of
 * the figure and the reference timed around it) taken in a slow spell is slow in both, so
 * its figure is the spell's, not the call's; spells last from tens of ms to seconds, so
 * they cover whole processes or parts of one.  Process p's pairs fig[p][i], ref[p][i]
 * (i < count[p]): its pairs at speed are those whose reference is below moved_ratio *
 * fastest (the fastest process's reference median); the process is at speed (at[p]) when
 * at least half its pairs are, and its figure is then the median of those pairs.  Returns
 * how many processes are at speed, with *figure the median of their figures (NAN: none).
 * What it does and does not hold on a quiet machine (a spell over a whole run is not
 * seen): docs/benchmarks/across_processes.md. */
size_t reference_figure_at_speed(const double *const *fig, const double *const *ref,
                                 const size_t *count, size_t n, double fastest,
                                 double moved_ratio, bool *at, double *figure);

/* The fewest processes a figure at speed is taken over when more can be run (runtimes):
 * one or two at speed among five is a spell's accident as much as the machine's speed. */
#define REFERENCE_AT_SPEED_MIN 3

/* How many of the n processes, speed[p] each one's reference median (ns), ran at the
 * fastest one's speed (below moved_ratio times it), or n when the reference did not move
 * (every process counts).  What decides whether a run whose speed moved is given more
 * processes. */
size_t reference_processes_at_speed(const double *speed, size_t n, double moved_ratio);

/* One process's relative figure: the median over its samples of fig[i] / ref[i], each
 * pair taken in the same few milliseconds (a spell that slows both cancels in the ratio).
 * Pairs whose reference is not above 0 are left out, and pairs past REFERENCE_MAX_PAIRS;
 * none left: NAN. */
double reference_ratio(const double *fig, const double *ref, size_t n);

/* What a run may say about its figure, in one line (no newline), or "" when there is
 * nothing to say (the reference held and the processes agree):
 *   the reference moved:  "unstable: this machine's speed changed during the run
 *                          (reference LABEL X to Y ns); the figure that holds is Z x the
 *                          reference" (and the levels, when bimodal, are the machine's;
 *                          "no figure holds" when the ratio is not above 0); with
 *                          figure_at_speed: "...; the figure is the median of the K of N
 *                          processes at its fastest speed (reference within 20%), Z x the
 *                          reference"
 *   bimodal, reference steady: "bimodal across processes: A / B ns (...) with the
 *                          reference steady (LABEL X ns): not a change of speed the
 *                          reference sees; neither level is the figure" (the processes'
 *                          own layout, or something only the figure's path meets: bench
 *                          saw clock_gettime at 84 ns with lfence; rdtsc steady)
 *   bimodal, no reference: the bimodal sentence without the reference.
 * v may be NULL (no reference).  Returns the length written (as snprintf). */
int reference_sentence(const struct across *a, const struct reference_verdict *v,
                       const char *label, char *buf, size_t len);

#endif
