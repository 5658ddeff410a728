/* SPDX-License-Identifier: MIT */
/* Strict line parser of probe output; see probe_parse.h. */
#include "common/message.h"
#include "runtimes/probe_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MAX_VALUE (1ull << 53) /* a total in ns or a count: exact in a double */

struct cursor {
    const char *p, *end; /* the current line, without its '\n' */
    int line;
    char *err;
    size_t errlen;
};

static bool fail(struct cursor *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static bool fail(struct cursor *c, const char *fmt, ...)
{
    char what[MSG_LINE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(c->err, c->errlen, "line %d: %s", c->line, what);
    return false;
}

/* The next token of the line: up to the next space (exactly one between tokens). */
static bool token(struct cursor *c, const char **tok, size_t *n, const char *what)
{
    if (c->p >= c->end)
        return fail(c, "%s missing", what);
    const char *sp = memchr(c->p, ' ', (size_t)(c->end - c->p));
    const char *stop = sp ? sp : c->end;
    if (stop == c->p)
        return fail(c, "%s missing (two spaces, or a space at the start)", what);
    *tok = c->p;
    *n = (size_t)(stop - c->p);
    c->p = sp ? sp + 1 : c->end;
    if (sp && c->p == c->end)
        return fail(c, "a space at the end of the line");
    return true;
}

static bool at_end(struct cursor *c)
{
    return c->p >= c->end || fail(c, "unexpected text after the last field");
}

/* A name token: [A-Za-z0-9] and ._:()+,- , at most PROBE_TOKEN-1 bytes. */
static bool name(struct cursor *c, char *out, const char *what)
{
    const char *t;
    size_t n;
    if (!token(c, &t, &n, what))
        return false;
    if (n >= PROBE_TOKEN)
        return fail(c, "%s is longer than %d bytes", what, PROBE_TOKEN - 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)t[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || strchr("._:()+,-", ch);
        if (!ok || ch == 0)
            return fail(c, "%s has a byte outside [A-Za-z0-9._:()+,-] (0x%02x)", what, ch);
    }
    memcpy(out, t, n);
    out[n] = 0;
    return true;
}

static bool keyword(struct cursor *c, const char *want)
{
    const char *t;
    size_t n;
    if (!token(c, &t, &n, "the keyword"))
        return false;
    if (n != strlen(want) || memcmp(t, want, n) != 0)
        return fail(c, "expected '%s'", want);
    return true;
}

/* A decimal integer in [min, MAX_VALUE]: digits only, no leading zero. */
static bool integer(struct cursor *c, const char *t, size_t n, uint64_t min, uint64_t *out,
                    const char *what)
{
    if (n == 0)
        return fail(c, "%s is empty", what);
    if (n > 1 && t[0] == '0')
        return fail(c, "%s has a leading zero", what);
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (t[i] < '0' || t[i] > '9')
            return fail(c, "%s is not a whole number", what);
        v = v * 10 + (uint64_t)(t[i] - '0');
        if (v > MAX_VALUE)
            return fail(c, "%s is too large", what);
    }
    if (v < min)
        return fail(c, "%s is below %llu", what, (unsigned long long)min);
    *out = v;
    return true;
}

static bool int_token(struct cursor *c, uint64_t min, uint64_t *out, const char *what)
{
    const char *t;
    size_t n;
    return token(c, &t, &n, what) && integer(c, t, n, min, out, what);
}

/* A comma-separated list of integers >= 1, PROBE_MIN_SAMPLES to PROBE_MAX_SAMPLES. */
static bool samples(struct cursor *c, uint64_t *v, int *count, const char *what)
{
    const char *t;
    size_t n;
    if (!token(c, &t, &n, what))
        return false;
    int k = 0;
    const char *end = t + n;
    for (const char *p = t;;) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *stop = comma ? comma : end;
        if (k == PROBE_MAX_SAMPLES)
            return fail(c, "%s: more than %d samples", what, PROBE_MAX_SAMPLES);
        if (!integer(c, p, (size_t)(stop - p), 1, &v[k], what))
            return false;
        k++;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (k < PROBE_MIN_SAMPLES)
        return fail(c, "%s: %d samples, at least %d needed", what, k, PROBE_MIN_SAMPLES);
    *count = k;
    return true;
}

static bool duplicate(const struct probe_output *out, const char *api)
{
    for (int i = 0; i < out->nrows; i++)
        if (strcmp(out->rows[i].api, api) == 0)
            return true;
    return false;
}

static bool parse_row(struct cursor *c, enum probe_mode mode, struct probe_output *out)
{
    if (out->nrows == PROBE_MAX_ROWS)
        return fail(c, "more than %d rows", PROBE_MAX_ROWS);
    struct probe_row *r = &out->rows[out->nrows];
    memset(r, 0, sizeof *r);
    r->line = c->line;
    if (!name(c, r->api, "the API"))
        return false;
    if (duplicate(out, r->api))
        return fail(c, "API '%s' given twice", r->api);
    if (mode == PROBE_TIMED) {
        int nh = 0;
        if (!name(c, r->clock, "the clock") || !name(c, r->via, "the path") ||
            !name(c, r->harness, "the harness") ||
            !int_token(c, 1, &r->iterations, "the iteration count") ||
            !samples(c, r->timed_ns, &r->nsamples, "the timed samples") ||
            !samples(c, r->harness_ns, &nh, "the harness samples"))
            return false;
        if (nh != r->nsamples)
            return fail(c, "%d timed samples but %d harness samples", r->nsamples, nh);
    }
    if (!at_end(c))
        return false;
    out->nrows++;
    return true;
}

/* `ref API LABEL ITERATIONS R1,...,Rn`: the reference of the row just before (timed mode). */
static bool parse_ref(struct cursor *c, struct probe_output *out, int last_row_line)
{
    if (out->nrows == 0 || last_row_line != c->line - 1)
        return fail(c, "a 'ref' line that does not follow its row");
    struct probe_row *r = &out->rows[out->nrows - 1];
    char api[PROBE_TOKEN];
    int n = 0;
    if (!name(c, api, "the API"))
        return false;
    if (strcmp(api, r->api) != 0)
        return fail(c, "a 'ref' line for '%s' after the row of '%s'", api, r->api);
    if (!name(c, r->ref, "the reference") ||
        !int_token(c, 1, &r->ref_iterations, "the reference's iteration count") ||
        !samples(c, r->ref_ns, &n, "the reference samples") || !at_end(c))
        return false;
    if (n != r->nsamples)
        return fail(c, "%d timed samples but %d reference samples", r->nsamples, n);
    r->has_ref = true;
    return true;
}

bool probe_parse(const char *buf, size_t len, enum probe_mode mode, const char *runtime,
                 struct probe_output *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    struct cursor c = {buf, buf, 0, why, whylen};
    if (len == 0)
        return fail(&c, "no output");
    if (memchr(buf, 0, len)) {
        c.line = 1;
        for (const char *p = buf; p < (const char *)memchr(buf, 0, len); p++)
            c.line += *p == '\n';
        return fail(&c, "a NUL byte");
    }
    if (buf[len - 1] != '\n') {
        c.line = 1;
        for (size_t i = 0; i < len; i++)
            c.line += buf[i] == '\n';
        return fail(&c, "the output ends without a newline (cut short?)");
    }
    const char *end_of_all = buf + len;
    bool ended = false;
    int last_row_line = 0;
    for (const char *p = buf; p < end_of_all;) {
        const char *nl = memchr(p, '\n', (size_t)(end_of_all - p));
        c.line++;
        c.p = p;
        c.end = nl;
        p = nl + 1;
        if (nl - c.p > PROBE_MAX_LINE)
            return fail(&c, "longer than %d bytes", PROBE_MAX_LINE);
        if (memchr(c.p, '\r', (size_t)(nl - c.p)))
            return fail(&c, "a carriage return");
        if (ended)
            return fail(&c, "text after the 'end' line");
        if (c.line == 1) {
            uint64_t version;
            char rt[PROBE_TOKEN];
            if (!keyword(&c, "clockscope-probe"))
                return fail(&c, "not a clockscope probe's output (no 'clockscope-probe 1' header)");
            if (!int_token(&c, 1, &version, "the protocol version"))
                return false;
            if (version != 1)
                return fail(&c, "protocol version %llu, this clockscope reads 1",
                            (unsigned long long)version);
            if (!name(&c, rt, "the runtime") || !name(&c, out->version, "the version") ||
                !at_end(&c))
                return false;
            if (strcmp(rt, runtime) != 0)
                return fail(&c, "the probe says runtime '%s', expected '%s'", rt, runtime);
            snprintf(out->runtime, sizeof out->runtime, "%s", rt);
            continue;
        }
        const char *t;
        size_t n;
        if (!token(&c, &t, &n, "the keyword"))
            return false;
        const char *row_kw = mode == PROBE_TIMED ? "row" : "mark";
        if (n == strlen(row_kw) && memcmp(t, row_kw, n) == 0) {
            if (!parse_row(&c, mode, out))
                return false;
            last_row_line = c.line;
        } else if (mode == PROBE_TIMED && n == 3 && memcmp(t, "ref", 3) == 0) {
            if (!parse_ref(&c, out, last_row_line))
                return false;
        } else if (n == 3 && memcmp(t, "end", 3) == 0) {
            uint64_t rows;
            if (!int_token(&c, 0, &rows, "the row count") || !at_end(&c))
                return false;
            if (rows != (uint64_t)out->nrows)
                return fail(&c, "'end %llu' but %d rows", (unsigned long long)rows, out->nrows);
            ended = true;
        } else {
            return fail(&c, mode == PROBE_TIMED ? "expected 'row', 'ref' or 'end'"
                                                : "expected 'mark' or 'end'");
        }
    }
    if (!ended)
        return fail(&c, "no 'end' line (cut short?)");
    if (out->nrows == 0)
        return fail(&c, "no rows");
    return true;
}
