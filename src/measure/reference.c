/* SPDX-License-Identifier: MIT */
#include "common/message.h"
#include "measure/reference.h"

#include "common/json_cost.h"
#include "common/stats.h"
#include "common/units.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double reference_ratio(const double *fig, const double *ref, size_t n)
{
    double r[REFERENCE_MAX_PAIRS];
    size_t k = 0;
    for (size_t i = 0; i < n && k < sizeof r / sizeof r[0]; i++)
        if (ref[i] > 0)
            r[k++] = fig[i] / ref[i];
    if (k == 0)
        return NAN;
    struct summary sum;
    stats_summarize(r, k, &sum);
    return sum.median;
}

size_t reference_figure_at_speed(const double *const *fig, const double *const *ref,
                                 const size_t *count, size_t n, double fastest,
                                 double moved_ratio, bool *at, double *figure)
{
    double per[ACROSS_MAX], sel[REFERENCE_MAX_PAIRS];
    size_t k = 0;
    *figure = NAN;
    if (n > ACROSS_MAX)
        n = ACROSS_MAX;
    for (size_t p = 0; p < n; p++) {
        size_t m = 0, pairs = count[p] < REFERENCE_MAX_PAIRS ? count[p] : REFERENCE_MAX_PAIRS;
        for (size_t i = 0; i < pairs; i++)
            if (fastest > 0 && ref[p][i] > 0 && ref[p][i] < moved_ratio * fastest)
                sel[m++] = fig[p][i];
        at[p] = m > 0 && 2 * m >= pairs;
        if (at[p]) {
            struct summary sum;
            stats_summarize(sel, m, &sum);
            per[k++] = sum.median;
        }
    }
    if (k > 0) {
        struct summary sum;
        stats_summarize(per, k, &sum);
        *figure = sum.median;
    }
    return k;
}

size_t reference_processes_at_speed(const double *speed, size_t n, double moved_ratio)
{
    double fastest = INFINITY, slowest = 0;
    for (size_t p = 0; p < n; p++) {
        if (speed[p] < fastest)
            fastest = speed[p];
        if (speed[p] > slowest)
            slowest = speed[p];
    }
    if (n == 0 || !(fastest > 0) || slowest < moved_ratio * fastest)
        return n;
    size_t k = 0;
    for (size_t p = 0; p < n; p++)
        k += speed[p] < moved_ratio * fastest;
    return k;
}

void reference_summarize(const double *ref, const double *rel, size_t n, double moved_ratio,
                         struct reference_verdict *out)
{
    memset(out, 0, sizeof *out);
    out->ref_median = out->ref_min = out->ref_max = NAN;
    out->relative = out->rel_min = out->rel_max = NAN;
    if (n > ACROSS_MAX)
        n = ACROSS_MAX;
    out->n = n;
    if (n == 0)
        return;
    double s[ACROSS_MAX];
    struct summary sum;
    memcpy(s, ref, n * sizeof *s);
    stats_summarize(s, n, &sum); /* sorts s */
    out->ref_median = sum.median;
    out->ref_min = sum.min;
    out->ref_max = sum.max;
    memcpy(s, rel, n * sizeof *s);
    stats_summarize(s, n, &sum);
    out->relative = sum.median;
    out->rel_min = sum.min;
    out->rel_max = sum.max;
    out->moved = out->ref_min > 0 && out->ref_max >= moved_ratio * out->ref_min;
    out->moved_ratio = moved_ratio;
}

int reference_sentence(const struct across *a, const struct reference_verdict *v,
                       const char *label, char *buf, size_t len)
{
    char levels[MSG_LINE] = "";
    if (a && a->bimodal)
        snprintf(levels, sizeof levels, "%s / %s (%zu and %zu of %zu processes)",
                 NS_TEXT(a->low), NS_TEXT(a->high), a->nlow, a->nhigh, a->n);
    if (v && v->n > 0 && v->moved) {
        char holds[MSG_REASON] = "no figure holds (its ratio to the reference is not above 0)";
        char added[MSG_LINE] = "";
        if (v->added)
            snprintf(added, sizeof added, "; %zu process%s more than the %zu asked, run for that",
                     v->added, v->added == 1 ? "" : "es", v->n - v->added);
        if (v->figure_at_speed && v->at_speed > 0)
            snprintf(holds, sizeof holds,
                     "the figure is the median of the %zu of %zu processes at its fastest "
                     "speed (reference within %.0f%%%s), %.2fx the reference", v->at_speed,
                     v->n, (v->moved_ratio - 1) * 100, added, v->relative);
        else if (v->relative > 0)
            snprintf(holds, sizeof holds, "the figure that holds is %.2fx the reference",
                     v->relative);
        return snprintf(buf, len,
                        "unstable: this machine's speed changed during the run (reference %s "
                        "%s to %s); %s%s%s", label, NS_TEXT(v->ref_min), NS_TEXT(v->ref_max), holds,
                        levels[0] ? "; the levels " : "", levels[0] ? levels : "");
    }
    if (levels[0] && v && v->n > 0)
        return snprintf(buf, len,
                        "bimodal across processes: %s with the reference steady (%s %s): "
                        "not a change of speed the reference sees; neither level is the figure",
                        levels, label, NS_TEXT(v->ref_median));
    if (levels[0])
        return snprintf(buf, len,
                        "bimodal across processes: %s: neither level is the figure", levels);
    if (len)
        buf[0] = 0;
    return 0;
}

void reference_cost_json(struct json *j, const struct reference_verdict *v)
{
    struct summary s = json_cost_unknown();
    s.median = v->ref_median;
    s.min = v->ref_min;
    s.max = v->ref_max;
    json_cost(j, "ns_per_call", &s, NULL, 0);
}
