/* SPDX-License-Identifier: MIT */
#include "bench/bench_answer.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* 4.6 ns, 23 ns, 245 ns, 12.68 us: as the table's precision allows a reader to compare;
 * with_unit false: the number alone (the first of two levels in the same unit). */
static void ns_text_unit(double ns, char *buf, size_t len, bool with_unit)
{
    if (ns >= 10000)
        snprintf(buf, len, "%.2f%s", ns / 1000, with_unit ? " us" : "");
    else if (ns >= 10)
        snprintf(buf, len, "%.0f%s", ns, with_unit ? " ns" : "");
    else
        snprintf(buf, len, "%.1f%s", ns, with_unit ? " ns" : "");
}

static void ns_text(double ns, char *buf, size_t len)
{
    ns_text_unit(ns, buf, len, true);
}

static bool have(const struct answer_figure *f)
{
    return f->measured && isfinite(f->ns);
}

/* "23 ns", or "22 or 25 ns (bimodal across processes)" */
static void figure_text(const struct answer_figure *f, char *buf, size_t len)
{
    if (f->bimodal) {
        char lo[32], hi[32];
        ns_text_unit(f->low, lo, sizeof lo, (f->low >= 10000) != (f->high >= 10000));
        ns_text(f->high, hi, sizeof hi);
        snprintf(buf, len, "%s or %s (bimodal across processes)", lo, hi);
        return;
    }
    ns_text(f->ns, buf, len);
}

static void append(char *buf, size_t len, const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(buf);
    if (n < len)
        snprintf(buf + n, len - n, fmt, a, b);
}

void bench_answer(const struct bench_answer_in *in, char *buf, size_t len)
{
    buf[0] = 0;
    char a[96], b[96];
    if (have(&in->libc)) {
        figure_text(&in->libc, a, sizeof a);
        /* the path: a libc call costing half a syscall or more is the syscall (the vDSO
         * falls back to it, or the clocksource has no vDSO read) */
        const char *path = "";
        if (have(&in->syscall))
            path = in->libc.ns >= 0.5 * in->syscall.ns ? " in the kernel (a syscall each time)"
                                                       : " through the vDSO";
        else if (have(&in->vdso))
            path = " through the vDSO";
        append(buf, len, "clock_gettime(MONOTONIC) %s%s", a, path);
        if (have(&in->syscall)) {
            figure_text(&in->syscall, a, sizeof a);
            snprintf(b, sizeof b, "%.1fx", in->libc.ns > 0 ? in->syscall.ns / in->libc.ns : 0);
            append(buf, len, "; the syscall %s (%s)", a, b);
        }
    } else if (have(&in->syscall)) {
        figure_text(&in->syscall, a, sizeof a);
        append(buf, len, "the clock_gettime(MONOTONIC) syscall %s%s", a, "");
    }
    if (have(&in->coarse)) {
        figure_text(&in->coarse, a, sizeof a);
        append(buf, len, "%sCOARSE %s", buf[0] ? "; " : "", a);
    }
    if (have(&in->counter)) {
        figure_text(&in->counter, a, sizeof a);
        snprintf(b, sizeof b, "%s the counter read (%s) ", buf[0] ? ";" : "",
                 in->counter_name ? in->counter_name : "counter");
        append(buf, len, "%s%s", buf[0] ? b : b + 1, a);
    }
    if (!buf[0] && in->fastest_id && in->slowest_id && in->fastest_id != in->slowest_id) {
        ns_text(in->fastest_ns, a, sizeof a);
        ns_text(in->slowest_ns, b, sizeof b);
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "fastest %s %s; slowest %s %s", in->fastest_id, a,
                 in->slowest_id, b);
    } else if (!buf[0] && in->fastest_id) {
        ns_text(in->fastest_ns, a, sizeof a);
        size_t n = strlen(buf);
        snprintf(buf + n, len - n, "%s %s", in->fastest_id, a);
    }
}
