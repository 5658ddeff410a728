/* SPDX-License-Identifier: MIT */
#include "doctor/findings.h"

#include <stdarg.h>
#include <stdbool.h>
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

static struct finding_action *action_add(struct finding *f, enum action_kind kind, const char *risk)
{
    if (f->naction >= FINDING_ACTION_MAX)
        return NULL;
    struct finding_action *a = &f->action[f->naction++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    snprintf(a->risk, sizeof a->risk, "%s", risk ? risk : "none");
    return a;
}

/* Space-separated words into a row table; returns how many. */
static int words(const char *text, char rows[][48], int max)
{
    int n = 0;
    if (!text)
        return 0;
    for (const char *p = text; *p && n < max;) {
        while (*p == ' ')
            p++;
        size_t w = strcspn(p, " ");
        if (w) {
            snprintf(rows[n++], sizeof rows[0], "%.*s", (int)w, p);
            p += w;
        }
    }
    return n;
}

void finding_action_sysfs(struct finding *f, const char *path, const char *value, const char *risk)
{
    struct finding_action *a = action_add(f, ACT_SYSFS, risk);
    if (a) {
        snprintf(a->path, sizeof a->path, "%s", path);
        snprintf(a->value, sizeof a->value, "%s", value);
    }
}

void finding_action_cmdline(struct finding *f, const char *add, const char *remove, const char *risk)
{
    struct finding_action *a = action_add(f, ACT_CMDLINE, risk);
    if (a) {
        a->nadd = words(add, a->add, ACTION_WORDS_MAX);
        a->nremove = words(remove, a->remove, ACTION_WORDS_MAX);
    }
}

void finding_action_run(struct finding *f, const char *mode, const char *risk)
{
    struct finding_action *a = action_add(f, ACT_RUN, risk);
    if (a)
        snprintf(a->mode, sizeof a->mode, "%s", mode);
}

void finding_action_code(struct finding *f, const char *text, const char *risk)
{
    struct finding_action *a = action_add(f, ACT_CODE, risk);
    if (a)
        snprintf(a->text, sizeof a->text, "%s", text);
}

void finding_action_firmware(struct finding *f, const char *text, const char *risk)
{
    struct finding_action *a = action_add(f, ACT_FIRMWARE, risk);
    if (a)
        snprintf(a->text, sizeof a->text, "%s", text);
}

const char *action_kind_name(enum action_kind k)
{
    static const char *const names[] = {"sysfs", "cmdline", "run", "code", "firmware"};
    return names[k];
}

bool action_same(const struct finding_action *a, const struct finding_action *b)
{
    if (a->kind != b->kind || a->nadd != b->nadd || a->nremove != b->nremove)
        return false;
    for (int i = 0; i < a->nadd; i++)
        if (strcmp(a->add[i], b->add[i]))
            return false;
    for (int i = 0; i < a->nremove; i++)
        if (strcmp(a->remove[i], b->remove[i]))
            return false;
    return !strcmp(a->path, b->path) && !strcmp(a->value, b->value) && !strcmp(a->mode, b->mode) &&
           !strcmp(a->text, b->text);
}

/* " --args=WORD" or ' --args="WORD WORD"' appended at n; returns the new length. */
static size_t grubby_args(char *buf, size_t len, size_t n, const char *option,
                          const char (*words)[48], int nwords)
{
    const char *quote = nwords > 1 ? "\"" : "";
    if (nwords > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, " %s=%s", option, quote);
    for (int i = 0; i < nwords && n < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", words[i]);
    if (nwords > 0 && n < len)
        n += (size_t)snprintf(buf + n, len - n, "%s", quote);
    return n;
}

void action_command_line(const struct finding_action *a, char *buf, size_t len)
{
    size_t n = 0;
    buf[0] = '\0';
    switch (a->kind) {
    case ACT_SYSFS:
        snprintf(buf, len, "echo %s | sudo tee %s", a->value, a->path);
        return;
    case ACT_CMDLINE:
        n = (size_t)snprintf(buf, len, "sudo grubby --update-kernel=ALL");
        n = grubby_args(buf, len, n, "--args", a->add, a->nadd);
        grubby_args(buf, len, n, "--remove-args", a->remove, a->nremove);
        return;
    case ACT_RUN:
        snprintf(buf, len, "clockscope run --mode %s -- PROGRAM [ARGS]", a->mode);
        return;
    default:
        return;
    }
}

int diagnosis_actions(const struct diagnosis *d, struct ranked_action *out, int max)
{
    int n = 0;
    /* Kinds in enum order are the preference; severity from the most severe down. */
    for (int kind = ACT_SYSFS; kind <= ACT_FIRMWARE; kind++)
        for (int sev = SEV_CRITICAL; sev >= SEV_INFO; sev--)
            for (int i = 0; i < d->nfindings; i++) {
                const struct finding *f = &d->findings[i];
                if ((int)f->severity != sev)
                    continue;
                for (int k = 0; k < f->naction && n < max; k++) {
                    const struct finding_action *a = &f->action[k];
                    bool seen = (int)a->kind != kind;
                    for (int m = 0; m < n && !seen; m++)
                        seen = action_same(out[m].action, a);
                    if (!seen)
                        out[n++] = (struct ranked_action){a, f};
                }
            }
    return n;
}
