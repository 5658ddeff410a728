/* SPDX-License-Identifier: MIT */
#include "bench/bench_answer.h"

#include "common/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Durations in the project's one form (common/units.c: 4.60 ns, 23.0 ns, 245 ns, 12.68 µs). */
static void ns_text(double ns, char *buf, size_t len)
{
    units_format_ns(ns, buf, len);
}

static bool have(const struct answer_figure *f)
{
    return f->measured && isfinite(f->ns);
}

/* "23.0 ns", or "22.2 or 25.4 ns (bimodal across processes)" */
static void figure_text(const struct answer_figure *f, char *buf, size_t len)
{
    if (f->bimodal) {
        char lo[FORMAT_NS_MAX], hi[FORMAT_NS_MAX];
        ns_text(f->low, lo, sizeof lo);
        ns_text(f->high, hi, sizeof hi);
        /* one unit when both levels have the same: "22.2 or 25.4 ns" */
        const char *ulo = strrchr(lo, ' '), *uhi = strrchr(hi, ' ');
        if (ulo && uhi && strcmp(ulo, uhi) == 0)
            lo[ulo - lo] = 0;
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
