/* SPDX-License-Identifier: MIT */
/* `perf script` text -> tally (perf_text.h).
 *
 *   comm  pid [cpu] time: period event:                 a sample header (non-indented)
 *   \t ffffffff81439d8c __x64_sys_clock_gettime+0x6c ([kernel.kallsyms])
 *   \t           cf439 clock_gettime@@GLIBC_2.17+0x19 (/usr/lib/x86_64-linux-gnu/libc.so.6)
 *   \t        35ea699e [unknown] ([unknown])              its call chain, leaf first
 *   (blank line)
 * Without call chains the leaf frame follows the event on the header line itself. */
#include "profile/perf_text.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

struct token {
    const char *s;
    size_t len;
};

static int tokenize(const char *s, size_t len, struct token *tok, int max)
{
    int n = 0;
    size_t i = 0;
    while (i < len && n < max) {
        while (i < len && (s[i] == ' ' || s[i] == '\t'))
            i++;
        if (i == len)
            break;
        size_t b = i;
        while (i < len && s[i] != ' ' && s[i] != '\t')
            i++;
        tok[n++] = (struct token){s + b, i - b};
    }
    return n;
}

static bool all_digits(const char *s, size_t len)
{
    if (!len)
        return false;
    for (size_t i = 0; i < len; i++)
        if (!isdigit((unsigned char)s[i]))
            return false;
    return true;
}

/* "12799.896332:" */
static bool is_time_token(const struct token *t)
{
    if (t->len < 3 || t->s[t->len - 1] != ':')
        return false;
    const char *dot = memchr(t->s, '.', t->len - 1);
    return dot && all_digits(t->s, (size_t)(dot - t->s)) &&
           all_digits(dot + 1, (size_t)(t->s + t->len - 1 - dot - 1));
}

/* One frame: "ADDRESS [SYMBOL[+0xOFF]] [(OBJECT)]", already trimmed. */
static bool parse_frame(const char *s, size_t len, int line, struct attr_frame *f, char *why,
                        size_t whylen)
{
    size_t a = 0;
    while (a < len && s[a] != ' ' && s[a] != '\t')
        a++;
    const char *addr = s;
    size_t alen = a;
    if (alen > 2 && addr[0] == '0' && (addr[1] == 'x' || addr[1] == 'X')) {
        addr += 2;
        alen -= 2;
    }
    bool hex = alen > 0 && alen <= 16;
    for (size_t i = 0; hex && i < alen; i++)
        hex = isxdigit((unsigned char)addr[i]) != 0;
    if (!hex) {
        snprintf(why, whylen, "line %d: a call-chain frame must start with a hexadecimal address, "
                 "not '%.*s'", line, (int)(a > 40 ? 40 : a), s);
        return false;
    }
    const char *rest = s + a;
    size_t rlen = len - a;
    perf_trim(&rest, &rlen);
    *f = (struct attr_frame){.sym = rest, .sym_len = rlen, .dso = "", .dso_len = 0};
    if (rlen && rest[rlen - 1] == ')') {
        /* The object is the last parenthesised group; a symbol may hold parentheses too
         * (C++ signatures), an object "(deleted)". */
        int depth = 0;
        size_t open = rlen;
        for (size_t i = rlen; i-- > 0;) {
            if (rest[i] == ')')
                depth++;
            else if (rest[i] == '(' && --depth == 0) {
                open = i;
                break;
            }
        }
        if (open == rlen) {
            snprintf(why, whylen, "line %d: unbalanced parentheses around the frame's object", line);
            return false;
        }
        if (open == 0 || rest[open - 1] == ' ' || rest[open - 1] == '\t') {
            f->dso = rest + open + 1;
            f->dso_len = rlen - open - 2;
            f->sym_len = open;
            perf_trim(&f->sym, &f->sym_len);
        }
    }
    /* Kernel addresses are in the top half on every supported arch. */
    f->kernel = attr_dso_is_kernel(f->dso, f->dso_len) ||
                (alen == 16 && strchr("89abcdefABCDEF", addr[0]) != NULL);
    return true;
}

struct sample {
    bool open;
    int nframes;
    struct attr_frame frames[TALLY_MAX_FRAMES];
};

static void flush(struct tally *t, struct sample *s)
{
    if (s->open)
        tally_chain(t, s->frames, s->nframes, 1.0);
    s->open = false;
    s->nframes = 0;
}

static void note_event(struct tally *t, const struct token *ev)
{
    char name[sizeof t->event];
    size_t n = ev->len - 1 < sizeof name - 1 ? ev->len - 1 : sizeof name - 1;
    memcpy(name, ev->s, n);
    name[n] = 0;
    if (!t->event[0])
        memcpy(t->event, name, sizeof name);
    else if (strcmp(t->event, name) != 0)
        snprintf(t->event, sizeof t->event, "mixed");
}

/* A sample header; false with err when it is not one.  *skip: a PERF_RECORD_* side-band
 * line (perf script --show-*-events), not a sample. */
static bool parse_header(const char *s, size_t len, int line, struct tally *t, struct sample *smp,
                         bool *skip, char *why, size_t whylen)
{
    struct token tok[64];
    int n = tokenize(s, len, tok, 64);
    int at = -1;
    for (int i = 0; i < n && at < 0; i++)
        if (is_time_token(&tok[i]))
            at = i + 1;
    *skip = false;
    if (at >= 0 && at < n && tok[at].len > 12 && memcmp(tok[at].s, "PERF_RECORD_", 12) == 0) {
        *skip = true;
        return true;
    }
    int ev = -1;
    if (at >= 0) {
        if (at < n && all_digits(tok[at].s, tok[at].len))
            at++; /* the period */
        if (at < n && tok[at].len > 1 && tok[at].s[tok[at].len - 1] == ':')
            ev = at;
    } else {
        for (int i = 1; i < n && ev < 0; i++)
            if (tok[i].len > 1 && tok[i].s[tok[i].len - 1] == ':' &&
                !all_digits(tok[i].s, tok[i].len - 1))
                ev = i;
    }
    if (ev < 0) {
        snprintf(why, whylen, "line %d: neither a sample header ('COMM PID TIME: EVENT:') nor an "
                 "indented call-chain frame: '%.*s'", line, (int)(len > 60 ? 60 : len), s);
        return false;
    }
    note_event(t, &tok[ev]);
    smp->open = true;
    smp->nframes = 0;
    /* Without call chains the sample's own frame follows the event. */
    const char *rest = tok[ev].s + tok[ev].len;
    size_t rlen = len - (size_t)(rest - s);
    perf_trim(&rest, &rlen);
    if (rlen) {
        if (!parse_frame(rest, rlen, line, &smp->frames[0], why, whylen))
            return false;
        smp->nframes = 1;
    }
    return true;
}

bool perf_script_parse(const char *buf, size_t len, struct tally *t, char *why, size_t whylen)
{
    struct sample smp = {0};
    tally_init(t);
    struct perf_line l = {0};
    size_t pos = 0;
    const char *s;
    size_t n;
    enum perf_text got;
    while ((got = perf_next_text(buf, len, &pos, &l, &s, &n, why, whylen)) == PERF_TEXT_LINE) {
        if (n == 0) {
            flush(t, &smp);
            continue;
        }
        if (s[0] == '#' && !smp.open)
            continue;
        if (l.start[0] == ' ' || l.start[0] == '\t') {
            if (!smp.open) {
                snprintf(why, whylen, "line %d: a call-chain frame before any sample header",
                         l.number);
                return false;
            }
            struct attr_frame f;
            if (!parse_frame(s, n, l.number, &f, why, whylen))
                return false;
            if (smp.nframes < TALLY_MAX_FRAMES)
                smp.frames[smp.nframes++] = f;
            continue;
        }
        flush(t, &smp);
        bool skip;
        if (!parse_header(s, n, l.number, t, &smp, &skip, why, whylen))
            return false;
    }
    if (got == PERF_TEXT_BAD)
        return false;
    flush(t, &smp);
    if (t->samples == 0) {
        snprintf(why, whylen, "no samples in %d lines: not `perf script` output", l.number);
        return false;
    }
    if (!t->event[0])
        snprintf(t->event, sizeof t->event, "unknown");
    return true;
}
