/* SPDX-License-Identifier: MIT */
#include "warp/warp_analysis.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

bool warp_matrix_init(struct warp_matrix *m, int n)
{
    m->n = n;
    m->pair = n > 0 ? calloc((size_t)n * (size_t)n, sizeof *m->pair) : NULL;
    return n > 0 && m->pair != NULL;
}

void warp_matrix_free(struct warp_matrix *m)
{
    free(m->pair);
    m->pair = NULL;
    m->n = 0;
}

struct warp_pair *warp_matrix_at(const struct warp_matrix *m, int from, int to)
{
    return &m->pair[(size_t)from * (size_t)m->n + (size_t)to];
}

void warp_pair_observe(struct warp_pair *p, uint64_t earlier, uint64_t later)
{
    /* Modular difference: correct across a counter wrap, and a backward step is a
     * "negative" delta however large the values. */
    int64_t delta = (int64_t)(later - earlier);
    if (p->comparisons == 0 || delta < p->min_delta)
        p->min_delta = delta;
    p->comparisons++;
    if (delta < 0) {
        p->backward++;
        uint64_t back = (uint64_t)0 - (uint64_t)delta;
        if (back > p->max_backward)
            p->max_backward = back;
    } else if (delta == 0) {
        p->equal++;
    }
}

void warp_pair_merge(struct warp_pair *dst, const struct warp_pair *src)
{
    if (!src->comparisons)
        return;
    if (!dst->comparisons || src->min_delta < dst->min_delta)
        dst->min_delta = src->min_delta;
    dst->comparisons += src->comparisons;
    dst->backward += src->backward;
    dst->equal += src->equal;
    if (src->max_backward > dst->max_backward)
        dst->max_backward = src->max_backward;
}

void warp_feed_trace(struct warp_matrix *m, const struct warp_read *trace, size_t n)
{
    for (size_t i = 1; i < n; i++)
        warp_pair_observe(warp_matrix_at(m, trace[i - 1].cpu, trace[i].cpu), trace[i - 1].value,
                          trace[i].value);
}

const char *warp_class_name(enum warp_class c)
{
    switch (c) {
    case WARP_NONE: return "none";
    case WARP_OFFSET: return "offset";
    case WARP_RANDOM: return "random";
    case WARP_SAME_CPU: return "same_cpu";
    }
    return "?";
}

struct warp_pair_verdict warp_classify_pair(const struct warp_matrix *m, int a, int b)
{
    const struct warp_pair *ab = warp_matrix_at(m, a, b), *ba = warp_matrix_at(m, b, a);
    struct warp_pair_verdict v = {.a = a, .b = b};
    if (a == b) {
        v.comparisons = ab->comparisons;
        v.backward_ab = ab->backward;
        v.max_backward = ab->max_backward;
        v.cls = ab->backward ? WARP_SAME_CPU : WARP_NONE;
        return v;
    }
    v.comparisons = ab->comparisons + ba->comparisons;
    v.backward_ab = ab->backward;
    v.backward_ba = ba->backward;
    v.max_backward = ab->max_backward > ba->max_backward ? ab->max_backward : ba->max_backward;
    /* With b ahead of a by d and a hand-off latency of at least L, a->b deltas are at least
     * L + d and b->a deltas at least L - d; the two minima give d without knowing L. */
    v.offset_known = ab->comparisons && ba->comparisons;
    if (v.offset_known)
        v.offset_b_minus_a = ((double)ab->min_delta - (double)ba->min_delta) / 2;
    uint64_t total = v.backward_ab + v.backward_ba;
    if (total == 0) {
        v.cls = WARP_NONE;
        return v;
    }
    /* An offset: enough steps, nearly all one way; most hand-overs that way going back (an
     * offset shifts every comparison, a CPU that sometimes reads early only a few); and the
     * estimated offset large enough to explain the worst step (with an offset d no step can
     * exceed d - L, so the estimate is at least the worst step; half of it leaves room for
     * noise in the two minima).  Steps a->b mean b is behind a: a negative estimate. */
    bool a_to_b = v.backward_ab >= v.backward_ba;
    uint64_t dominant = a_to_b ? v.backward_ab : v.backward_ba;
    uint64_t dominant_comparisons = a_to_b ? ab->comparisons : ba->comparisons;
    double offset_behind = a_to_b ? -v.offset_b_minus_a : v.offset_b_minus_a;
    if (v.offset_known && total >= WARP_OFFSET_MIN_STEPS &&
        (double)dominant >= WARP_OFFSET_MIN_SHARE * (double)total &&
        (double)dominant >= WARP_OFFSET_MIN_BACKWARD_FRACTION * (double)dominant_comparisons &&
        offset_behind >= (double)v.max_backward / 2)
        v.cls = WARP_OFFSET;
    else
        v.cls = WARP_RANDOM;
    return v;
}

void warp_summarize(const struct warp_matrix *m, struct warp_summary *out)
{
    memset(out, 0, sizeof *out);
    bool any_offset = false, any_random = false, any_same = false;
    for (int a = 0; a < m->n; a++) {
        bool compared = false;
        for (int b = 0; b < m->n; b++) {
            const struct warp_pair *p = warp_matrix_at(m, a, b);
            out->comparisons += p->comparisons;
            out->backward_steps += p->backward;
            out->equal += p->equal;
            if (p->max_backward > out->max_backward)
                out->max_backward = p->max_backward;
            if (a != b) {
                out->cross_cpu_comparisons += p->comparisons;
                compared |= p->comparisons || warp_matrix_at(m, b, a)->comparisons;
            }
            if (b < a)
                continue;
            enum warp_class c = warp_classify_pair(m, a, b).cls;
            any_offset |= c == WARP_OFFSET;
            any_random |= c == WARP_RANDOM;
            any_same |= c == WARP_SAME_CPU;
        }
        out->cpus_compared += compared;
    }
    out->classification = any_same                  ? "same_cpu"
                          : any_offset && any_random ? "mixed"
                          : any_offset               ? "offset"
                          : any_random               ? "random"
                          : !warp_enough_comparisons(out, m->n) ? "too_few_comparisons"
                                                     : "monotonic";
}

bool warp_enough_comparisons(const struct warp_summary *s, int ncpus)
{
    if (ncpus < 2)
        return true;
    return s->cross_cpu_comparisons >= WARP_MIN_CROSS_COMPARISONS && s->cpus_compared >= ncpus;
}

void resolution_init(struct resolution *r)
{
    memset(r, 0, sizeof *r);
}

void resolution_add(struct resolution *r, uint64_t value)
{
    if (r->reads++) {
        if (value == r->prev)
            r->stalls++;
        else if (value < r->prev)
            r->backward++;
        else if (!r->min_step || value - r->prev < r->min_step)
            r->min_step = value - r->prev;
    }
    r->prev = value;
}

double resolution_stall_fraction(const struct resolution *r)
{
    return r->reads < 2 ? NAN : (double)r->stalls / (double)(r->reads - 1);
}
