/* SPDX-License-Identifier: MIT */
/* The pure half of `clockscope warp`: from a sequence of clock reads ordered in real time
 * to findings.  Nothing here reads a clock or starts a thread, so the unit tests feed it
 * synthetic traces with known warps, offsets and stalls (tests/unit/test_warp.c).
 *
 * A trace is what the live collector's shared sequence produces (docs/warp.md): reads, each tagged
 * with the CPU it ran on, in the order they were published.  Every read is compared with
 * the one published just before it; a smaller value is a backward step from the previous
 * read's CPU to this read's CPU.  Values are in the method's unit (ns or ticks); callers
 * convert to ns with `ns_per_unit`. */
#ifndef CLOCKSCOPE_WARP_ANALYSIS_H
#define CLOCKSCOPE_WARP_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A pair needs this many backward steps before a one-sided pattern is called an offset:
 * fewer could be a few random warps that happened to fall one way. */
#define WARP_OFFSET_MIN_STEPS 8
/* ...and at least this fraction of them in the dominant direction. */
#define WARP_OFFSET_MIN_SHARE 0.95
/* ...and at least this fraction of the hand-overs in that direction going back: an offset
 * shifts every comparison, sporadic early reads only a few. */
#define WARP_OFFSET_MIN_BACKWARD_FRACTION 0.5

/* Comparisons of reads on CPU `from` followed (in real time) by reads on CPU `to`. */
struct warp_pair {
    uint64_t comparisons;
    uint64_t backward;      /* later read < earlier read */
    uint64_t equal;         /* later read == earlier read */
    uint64_t max_backward;  /* largest (earlier - later), in units */
    int64_t min_delta;      /* smallest (later - earlier), signed; valid if comparisons */
};

/* Every ordered pair of `n` CPUs (indices 0..n-1, not CPU numbers): pair[from * n + to]. */
struct warp_matrix {
    int n;
    struct warp_pair *pair;
};

bool warp_matrix_init(struct warp_matrix *m, int n); /* false when out of memory */
void warp_matrix_free(struct warp_matrix *m);
struct warp_pair *warp_matrix_at(const struct warp_matrix *m, int from, int to);

/* Accounts one comparison: `later` (read on CPU index `to`) was published after
 * `earlier` (read on CPU index `from`). */
void warp_pair_observe(struct warp_pair *p, uint64_t earlier, uint64_t later);
void warp_pair_merge(struct warp_pair *dst, const struct warp_pair *src);

struct warp_read {
    int cpu;        /* index into the matrix */
    uint64_t value;
};

/* Feeds a whole trace: each read compared with the one before it. */
void warp_feed_trace(struct warp_matrix *m, const struct warp_read *trace, size_t n);

enum warp_class {
    WARP_NONE,     /* no backward step */
    WARP_OFFSET,   /* one direction, explained by a constant offset between the CPUs */
    WARP_RANDOM,   /* both directions, or too few to tell: missing ordering, not an offset */
    WARP_SAME_CPU, /* backward between two reads on one CPU */
};
const char *warp_class_name(enum warp_class c);

/* The verdict on the unordered pair {a, b}, a <= b (a == b: the same CPU). */
struct warp_pair_verdict {
    int a, b;
    uint64_t comparisons;         /* both directions */
    uint64_t backward_ab, backward_ba;
    uint64_t max_backward;        /* units, either direction */
    /* b's clock minus a's, estimated as (min_delta(a->b) - min_delta(b->a)) / 2: the hand-off
     * latency cancels, as in a two-way time transfer.  Valid when offset_known. */
    bool offset_known;
    double offset_b_minus_a;
    enum warp_class cls;
};

struct warp_pair_verdict warp_classify_pair(const struct warp_matrix *m, int a, int b);

struct warp_summary {
    uint64_t comparisons, cross_cpu_comparisons;
    uint64_t backward_steps;      /* all pairs, same-CPU included */
    uint64_t max_backward;        /* units */
    uint64_t equal;               /* comparisons where the later read equalled the earlier */
    int cpus_compared;            /* CPUs that took part in at least one cross-CPU comparison */
    /* "monotonic", "offset", "random", "mixed" (offset and random pairs), "same_cpu",
     * "too_few_comparisons" (none went back, but too few cross-CPU comparisons to say so). */
    const char *classification;
};

/* The least cross-CPU comparisons (on a run over two CPUs or more) before a method with no
 * backward step is called monotonic.  A warp that shows in a share p of the comparisons is
 * missed by N of them with probability (1 - p)^N; with none seen in N, p < 3/N at 95%
 * confidence (the "rule of three"): 300 say it would show in fewer than 1 in 100.  Fewer
 * than that, and every CPU taking part, and the run cannot tell. */
#define WARP_MIN_CROSS_COMPARISONS 300u

void warp_summarize(const struct warp_matrix *m, struct warp_summary *out);
/* Whether a summary with no backward step has enough cross-CPU comparisons to be called
 * monotonic: on one CPU there is nothing to compare across (the same-CPU judgement
 * stands); on more, at least WARP_MIN_CROSS_COMPARISONS and every CPU compared. */
bool warp_enough_comparisons(const struct warp_summary *s, int ncpus);

/* Resolution and stalls of one thread's back-to-back reads. */
struct resolution {
    uint64_t reads;
    uint64_t stalls;      /* reads equal to the previous read */
    uint64_t backward;    /* reads smaller than the previous read (same thread) */
    uint64_t min_step;    /* smallest positive difference seen; 0 = none */
    uint64_t prev;
};

void resolution_init(struct resolution *r);
void resolution_add(struct resolution *r, uint64_t value);
/* Stalls as a fraction of the comparisons (reads - 1); NaN with fewer than two reads. */
double resolution_stall_fraction(const struct resolution *r);

#endif
