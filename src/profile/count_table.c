/* SPDX-License-Identifier: MIT */
/* Count tables (count_table.h), as shim_count.c writes them:
 *
 *   clockscope run --mode count: pid 12923 (/tmp/pf/timeshare), 0.307 s
 *            calls       calls/s  call
 *          1843200     6.01 M/s  clock_gettime(CLOCK_MONOTONIC)
 *            calls       calls/s  calling function (module)
 *          1843200     6.01 M/s  timeshare+0x122d (no symbol)
 *
 * The calling-function rows are read past: profile's call sites come from the samples. */
#include "profile/count_table.h"

#include "profile/perf_text.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HEADER "clockscope run --mode count: pid "

enum section { NONE, CALLS, CALLERS };

/* A rate as units_format_rate writes it: "6.01 M/s", "950 /s" (at most 3 digits and a dot,
 * a space, an SI prefix or none, "/s"); advances *i past it. */
static bool parse_rate(const char *s, size_t len, size_t *i, double *per_sec)
{
    static const char prefixes[] = "kMGTPE";
    char num[8];
    size_t b = *i, n = 0;
    while (*i < len && (isdigit((unsigned char)s[*i]) || s[*i] == '.') && n < sizeof num - 1)
        num[n++] = s[(*i)++];
    num[n] = 0;
    char *end;
    double v = strtod(num, &end);
    if (*i == b || *end || *i == len || s[(*i)++] != ' ')
        return false;
    const char *p = *i < len && s[*i] ? strchr(prefixes, s[*i]) : NULL;
    if (p) {
        (*i)++;
        v *= pow(1e3, (double)(p - prefixes + 1));
    }
    if (len - *i < 2 || memcmp(s + *i, "/s", 2) != 0)
        return false;
    *i += 2;
    *per_sec = v;
    return *i == len || s[*i] == ' ';
}

/* "N RATE text": a whole number, a rate, then the text. */
static bool parse_row(const char *s, size_t len, uint64_t *calls, double *per_sec,
                      const char **text, size_t *tlen)
{
    size_t i = 0;
    while (i < len && s[i] == ' ')
        i++;
    size_t b = i;
    uint64_t v = 0;
    while (i < len && isdigit((unsigned char)s[i])) {
        if (v > UINT64_MAX / 10 - 10)
            return false;
        v = v * 10 + (uint64_t)(s[i++] - '0');
    }
    if (i == b || i == len || s[i] != ' ')
        return false;
    while (i < len && s[i] == ' ')
        i++;
    if (!parse_rate(s, len, &i, per_sec))
        return false;
    while (i < len && s[i] == ' ')
        i++;
    if (i == len)
        return false;
    *calls = v;
    *text = s + i;
    *tlen = len - i;
    return true;
}

/* "pid 12923 (/tmp/pf/timeshare), 0.307 s" after the fixed prefix. */
static bool parse_header(const char *s, size_t len, struct count_proc *p)
{
    char line[512];
    if (len >= sizeof line)
        return false;
    memcpy(line, s, len);
    line[len] = 0;
    char *open = strchr(line, '('), *close = strrchr(line, ')');
    if (!open || !close || close < open)
        return false;
    char *end;
    long pid = strtol(line, &end, 10);
    if (end == line || *end != ' ' || end + 1 != open || pid <= 0 || pid > 1 << 30)
        return false;
    double secs = strtod(close + 1 + (close[1] == ',' ? 1 : 0), &end);
    if (close[1] != ',' || end == close + 2 || strcmp(end, " s") != 0 || !(secs >= 0))
        return false;
    p->pid = (int)pid;
    snprintf(p->program, sizeof p->program, "%.*s", (int)(close - open - 1), open + 1);
    p->seconds = secs;
    return true;
}

bool count_table_parse(const char *buf, size_t len, struct count_table *t, char *why, size_t whylen)
{
    memset(t, 0, sizeof *t);
    struct perf_line l = {0};
    size_t pos = 0;
    enum section sec = NONE;
    struct count_proc *cur = NULL, spare;
    const char *s;
    size_t n;
    enum perf_text got;
    while ((got = perf_next_text(buf, len, &pos, &l, &s, &n, why, whylen)) == PERF_TEXT_LINE) {
        if (n == 0)
            continue;
        size_t hl = strlen(HEADER);
        if (n > hl && memcmp(s, HEADER, hl) == 0) {
            cur = t->nprocs < COUNT_MAX_PROCS ? &t->procs[t->nprocs++] : &spare;
            if (cur == &spare)
                t->dropped++;
            memset(cur, 0, sizeof *cur);
            if (!parse_header(s + hl, n - hl, cur)) {
                snprintf(why, whylen, "line %d: a count table header without 'pid N (PROGRAM), "
                         "S s'", l.number);
                return false;
            }
            sec = NONE;
            continue;
        }
        if (n > 13 && memcmp(s, "calls", 5) == 0) {
            const char *rest = s + 5;
            size_t rn = n - 5;
            perf_trim(&rest, &rn);
            if (rn >= 7 && memcmp(rest, "calls/s", 7) == 0) {
                rest += 7, rn -= 7;
                perf_trim(&rest, &rn);
                if (!cur) {
                    snprintf(why, whylen, "line %d: a count table section before its header", l.number);
                    return false;
                }
                if (rn == 4 && memcmp(rest, "call", 4) == 0) {
                    sec = CALLS;
                    continue;
                }
                if (rn >= 16 && memcmp(rest, "calling function", 16) == 0) {
                    sec = CALLERS;
                    continue;
                }
            }
        }
        uint64_t calls;
        double per_sec;
        const char *text;
        size_t tlen;
        if (sec == NONE || !parse_row(s, n, &calls, &per_sec, &text, &tlen)) {
            snprintf(why, whylen, "line %d: not a line of a `clockscope run --mode count` table: "
                     "'%.*s'", l.number, (int)(n > 60 ? 60 : n), s);
            return false;
        }
        if (sec == CALLS && cur->ncalls < COUNT_MAX_CALLS) {
            struct count_call *c = &cur->calls[cur->ncalls++];
            snprintf(c->call, sizeof c->call, "%.*s", (int)tlen, text);
            c->calls = calls;
            c->calls_per_sec = per_sec;
        }
    }
    if (got == PERF_TEXT_BAD)
        return false;
    if (t->nprocs == 0) {
        snprintf(why, whylen, "no count table in %d lines", l.number);
        return false;
    }
    return true;
}
