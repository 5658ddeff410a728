/* SPDX-License-Identifier: MIT */
/* The Prometheus text exposition writer (exposition.h). */
#include "metrics/exposition.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void prom_init(struct prom *p) { memset(p, 0, sizeof *p); }

void prom_free(struct prom *p)
{
    free(p->text);
    p->text = NULL;
    p->len = p->cap = 0;
}

const char *prom_error(const struct prom *p) { return p->error[0] ? p->error : NULL; }

static void fail(struct prom *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct prom *p, const char *fmt, ...)
{
    if (p->error[0])
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->error, sizeof p->error, fmt, ap);
    va_end(ap);
}

static void put(struct prom *p, const char *s, size_t n)
{
    if (p->error[0])
        return;
    if (p->len + n + 1 > p->cap) {
        size_t cap = p->cap ? p->cap : 4096;
        while (p->len + n + 1 > cap)
            cap *= 2;
        char *t = realloc(p->text, cap);
        if (!t) {
            fail(p, "out of memory");
            return;
        }
        p->text = t;
        p->cap = cap;
    }
    memcpy(p->text + p->len, s, n);
    p->len += n;
    p->text[p->len] = 0;
}

static void puts_(struct prom *p, const char *s) { put(p, s, strlen(s)); }

static bool name_ok(const char *s, bool colon)
{
    if (!s || !*s)
        return false;
    for (const char *c = s; *c; c++) {
        bool alpha = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '_' ||
                     (colon && *c == ':');
        bool digit = *c >= '0' && *c <= '9';
        if (!alpha && !(digit && c != s))
            return false;
    }
    return true;
}

bool prom_metric_name_ok(const char *name) { return name_ok(name, true); }
bool prom_label_name_ok(const char *name) { return name_ok(name, false) && strncmp(name, "__", 2) != 0; }

static bool ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), t = strlen(tail);
    return n >= t && strcmp(s + n - t, tail) == 0;
}

/* HELP text escapes backslash and newline; label values also escape the double quote. */
static void put_escaped(struct prom *p, const char *s, bool quote)
{
    for (; *s; s++) {
        if (*s == '\\')
            puts_(p, "\\\\");
        else if (*s == '\n')
            puts_(p, "\\n");
        else if (quote && *s == '"')
            puts_(p, "\\\"");
        else
            put(p, s, 1);
    }
}

void prom_family(struct prom *p, const char *name, enum prom_type type, const char *help)
{
    if (!prom_metric_name_ok(name) || strlen(name) >= sizeof p->family) {
        fail(p, "'%s' is not a valid metric name", name ? name : "(null)");
        return;
    }
    if (type == PROM_COUNTER && !ends_with(name, "_total")) {
        fail(p, "counter '%s' must end in _total", name);
        return;
    }
    if (type == PROM_GAUGE && ends_with(name, "_total")) {
        fail(p, "gauge '%s' must not end in _total (only counters do)", name);
        return;
    }
    for (int i = 0; i < p->nfamilies; i++)
        if (strcmp(p->families[i], name) == 0) {
            fail(p, "metric family '%s' written twice", name);
            return;
        }
    if (p->nfamilies >= PROM_MAX_FAMILIES) {
        fail(p, "more than %d metric families", PROM_MAX_FAMILIES);
        return;
    }
    snprintf(p->families[p->nfamilies++], sizeof p->families[0], "%s", name);
    snprintf(p->family, sizeof p->family, "%s", name);
    p->type = type;
    p->nsamples = 0;
    p->family_start = (size_t)-1;
    /* The family name of a counter is written without _total in HELP/TYPE by newer
     * clients; the classic format (and the textfile collector) takes the sample's name. */
    puts_(p, "# HELP ");
    puts_(p, name);
    puts_(p, " ");
    put_escaped(p, help ? help : "", false);
    puts_(p, "\n# TYPE ");
    puts_(p, name);
    puts_(p, type == PROM_COUNTER ? " counter\n" : " gauge\n");
}

static void put_value(struct prom *p, double v)
{
    char buf[40];
    if (isnan(v))
        snprintf(buf, sizeof buf, "NaN");
    else if (isinf(v))
        snprintf(buf, sizeof buf, v > 0 ? "+Inf" : "-Inf");
    else if (v == floor(v) && fabs(v) < 1e15)
        snprintf(buf, sizeof buf, "%.0f", v);
    else /* the shortest text that reads back as the same double */
        for (int digits = 15; digits <= 17; digits++) {
            snprintf(buf, sizeof buf, "%.*g", digits, v);
            if (strtod(buf, NULL) == v)
                break;
        }
    puts_(p, buf);
}

/* Whether the series just written at text[start..len) (name, labels and the space before
 * the value) is already among the current family's samples: a scrape with a series twice
 * is rejected. */
static bool series_seen(const struct prom *p, size_t start)
{
    size_t n = p->len - start;
    for (size_t at = p->family_start; at + n <= start;) {
        if (memcmp(p->text + at, p->text + start, n) == 0)
            return true;
        const char *nl = memchr(p->text + at, '\n', start - at);
        if (!nl)
            break;
        at = (size_t)(nl - p->text) + 1;
    }
    return false;
}

void prom_sample(struct prom *p, const struct prom_label *labels, int n, double value)
{
    if (p->error[0])
        return;
    if (!p->family[0]) {
        fail(p, "a sample before any metric family");
        return;
    }
    for (int i = 0; i < n; i++) {
        if (!prom_label_name_ok(labels[i].name)) {
            fail(p, "%s: '%s' is not a valid label name", p->family,
                 labels[i].name ? labels[i].name : "(null)");
            return;
        }
        for (int k = 0; k < i; k++)
            if (strcmp(labels[k].name, labels[i].name) == 0) {
                fail(p, "%s: label '%s' given twice", p->family, labels[i].name);
                return;
            }
    }
    size_t start = p->len;
    if (p->family_start == (size_t)-1)
        p->family_start = start;
    puts_(p, p->family);
    if (n > 0) {
        puts_(p, "{");
        for (int i = 0; i < n; i++) {
            if (i)
                puts_(p, ",");
            puts_(p, labels[i].name);
            puts_(p, "=\"");
            put_escaped(p, labels[i].value ? labels[i].value : "", true);
            puts_(p, "\"");
        }
        puts_(p, "}");
    }
    puts_(p, " ");
    if (!p->error[0] && series_seen(p, start)) {
        p->len = start;
        p->text[start] = 0;
        fail(p, "%s: the same series (name and labels) written twice", p->family);
        return;
    }
    put_value(p, value);
    puts_(p, "\n");
    p->nsamples++;
}
