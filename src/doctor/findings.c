/* SPDX-License-Identifier: MIT */
#include "doctor/findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct finding *finding_add(struct diagnosis *d, const char *id, enum severity sev,
                            const char *title_fmt, ...)
{
    static struct finding overflow; /* rules never check for NULL: extra findings land here */
    struct finding *f = d->nfindings < FINDINGS_MAX ? &d->findings[d->nfindings++] : &overflow;
    memset(f, 0, sizeof *f);
    snprintf(f->id, sizeof f->id, "%s", id);
    f->severity = sev;
    va_list ap;
    va_start(ap, title_fmt);
    vsnprintf(f->title, sizeof f->title, title_fmt, ap);
    va_end(ap);
    return f;
}

void finding_evidence(struct finding *f, const char *fmt, ...)
{
    if (f->nevidence >= FINDING_EVIDENCE_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->evidence[f->nevidence++], sizeof f->evidence[0], fmt, ap);
    va_end(ap);
}

void finding_meaning(struct finding *f, const char *fmt, ...)
{
    size_t used = strlen(f->meaning);
    if (used + 2 >= sizeof f->meaning)
        return;
    if (used)
        f->meaning[used++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->meaning + used, sizeof f->meaning - used, fmt, ap);
    va_end(ap);
}

void finding_fix(struct finding *f, const char *fmt, ...)
{
    if (f->nfix >= FINDING_FIX_MAX)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->fix[f->nfix++], sizeof f->fix[0], fmt, ap);
    va_end(ap);
}

void finding_gain(struct finding *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->gain, sizeof f->gain, fmt, ap);
    va_end(ap);
}

void finding_log_evidence(struct finding *f, const struct log_event *e)
{
    for (int i = 0; i < e->nlines; i++)
        finding_evidence(f, "kernel log line %zu: %s", e->lineno + (size_t)i, e->lines[i]);
}

const char *when_after_boot(double ts, char *buf, size_t len)
{
    if (ts < 0) {
        snprintf(buf, len, "at a time the log does not show");
    } else if (ts < 60) {
        snprintf(buf, len, "%.1f s after boot (during boot)", ts);
    } else if (ts < 7200) {
        snprintf(buf, len, "%.0f s (%.0f min) after boot", ts, ts / 60);
    } else if (ts < 3 * 86400) {
        snprintf(buf, len, "%.0f s (%.1f h) after boot", ts, ts / 3600);
    } else {
        snprintf(buf, len, "%.0f s (%.1f days) after boot", ts, ts / 86400);
    }
    return buf;
}

const struct finding *finding_find(const struct diagnosis *d, const char *id)
{
    for (int i = 0; i < d->nfindings; i++)
        if (!strcmp(d->findings[i].id, id))
            return &d->findings[i];
    return NULL;
}

void set_verdict(struct diagnosis *d, enum verdict v, int fast_path, const char *fmt, ...)
{
    d->verdict = v;
    d->fast_path = fast_path;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->summary, sizeof d->summary, fmt, ap);
    va_end(ap);
}

void set_inferred(struct diagnosis *d, enum verdict v, int fast_path, const char *missing,
                  const char *fmt, ...)
{
    d->verdict = v;
    d->fast_path = fast_path;
    d->inferred = true;
    snprintf(d->missing, sizeof d->missing, "%s", missing);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->summary, sizeof d->summary, fmt, ap);
    va_end(ap);
    size_t n = strlen(d->summary);
    snprintf(d->summary + n, sizeof d->summary - n, " (inferred; not known: %s)", missing);
}
