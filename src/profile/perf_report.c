/* SPDX-License-Identifier: MIT */
/* `perf report --stdio` text -> tally (perf_text.h).
 *
 *   # Samples: 363K of event 'cpu-clock'
 *   # Children      Self  Command  Shared Object      Symbol        (header; Children optional)
 *       13.27%  python3  [vdso]             [.] __vdso_clock_gettime
 *       28.74%     3.96%  t   libc.so.6     [.] syscall          (Children, Self)
 *               |--8.95%--put_timespec64                         (-g tree: read past)
 * An entry's share is its own (Self): those add up to at most 100% of the samples; the
 * entries perf left out (below its percent limit) count as everything else. */
#include "profile/perf_text.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "12.34%" at *s: its value, *s advanced past it and the blanks after; false if none. */
static bool take_percent(const char **s, size_t *len, double *out)
{
    size_t i = 0;
    while (i < *len && (isdigit((unsigned char)(*s)[i]) || (*s)[i] == '.'))
        i++;
    if (i == 0 || i >= *len || (*s)[i] != '%' || i > 12)
        return false;
    char num[16];
    memcpy(num, *s, i);
    num[i] = 0;
    char *end;
    double v = strtod(num, &end);
    if (*end || !isfinite(v))
        return false;
    *out = v;
    *s += i + 1;
    *len -= i + 1;
    perf_trim(s, len);
    return true;
}

/* "363K" / "1M" / "581": perf's approximate sample count. */
static bool parse_count(const char *s, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < len && isdigit((unsigned char)s[i]); i++) {
        if (v > UINT64_MAX / 10 - 10)
            return false;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (i == 0)
        return false;
    uint64_t mult = 1;
    if (i < len && (s[i] == 'K' || s[i] == 'M' || s[i] == 'G')) {
        mult = s[i] == 'K' ? 1000 : s[i] == 'M' ? 1000000 : 1000000000;
        i++;
    }
    if (i != len || v > UINT64_MAX / mult)
        return false;
    *out = v * mult;
    return true;
}

/* "8.37% do_syscall_64;entry_SYSCALL_64_after_hwframe;syscall;main": a percentage, one
 * blank, then one chain without blanks (perf report -g folded). */
static bool is_folded(const char *s, size_t len)
{
    double v;
    if (!take_percent(&s, &len, &v) || !len)
        return false;
    for (size_t i = 0; i < len; i++)
        if (s[i] == ' ' || s[i] == '\t')
            return false;
    return true;
}

struct report_state {
    bool children;       /* the header names a Children column */
    bool samples_column; /* the header names a Samples column */
    bool seen_event;
    bool in_entries;     /* an entry was read: indented lines may be its tree */
    double self_sum;
    /* The last entry, attributed when the next begins: by its -g folded chains when it
     * has them (without Children columns), the rest of its share by its own symbol. */
    bool pending;
    struct attr_frame frame;
    double self, folded;
};

/* The last entry's share that its folded chains did not cover, by its own symbol. */
static void finish_entry(struct tally *t, struct report_state *st)
{
    /* Without chains the whole entry (0.00% entries too: the x86_64 vDSO line of the RISC-V
     * clock_gettime report). */
    if (st->pending && (st->folded == 0 || st->self - st->folded > 0.005))
        tally_entry(t, &st->frame, st->self - st->folded);
    st->pending = false;
}

/* A -g folded chain of the pending entry: "8.37% leaf;caller;...;main".  Frames are the
 * kernel's from a kernel leaf up to the frame where the kernel was entered. */
static void folded_chain(const char *s, size_t len, struct tally *t, struct report_state *st)
{
    double pct;
    if (!st->pending || t->children_columns || !take_percent(&s, &len, &pct) || pct <= 0 ||
        st->folded + pct > st->self + 0.02)
        return;
    struct attr_frame frames[TALLY_MAX_FRAMES];
    int n = 0;
    bool kernel = st->frame.kernel;
    size_t i = 0;
    while (i <= len && n < TALLY_MAX_FRAMES) {
        size_t b = i;
        while (i < len && s[i] != ';')
            i++;
        if (i > b) {
            frames[n] = (struct attr_frame){s + b, i - b, "", 0, kernel};
            if (kernel && attr_is_kernel_boundary(s + b, i - b))
                kernel = false;
            n++;
        }
        i++;
    }
    if (n == 0)
        return;
    tally_attribute(t, frames, n, pct);
    st->folded += pct;
    t->report_chains = true;
}

static bool header_line(const char *s, size_t len, int line, struct tally *t, struct report_state *st,
                        char *why, size_t whylen)
{
    s++, len--; /* the '#' */
    perf_trim(&s, &len);
    if (len > 9 && memcmp(s, "Samples: ", 9) == 0) {
        if (st->seen_event) {
            snprintf(why, whylen, "line %d: a second event's section: one event at a time "
                     "(perf report --stdio --event NAME)", line);
            return false;
        }
        st->seen_event = true;
        const char *n = s + 9;
        size_t k = 0;
        while (9 + k < len && n[k] != ' ')
            k++;
        uint64_t v;
        if (parse_count(n, k, &v))
            t->samples = v;
        const char *q = memchr(s, '\'', len);
        const char *q2 = q ? memchr(q + 1, '\'', len - (size_t)(q + 1 - s)) : NULL;
        if (q && q2)
            snprintf(t->event, sizeof t->event, "%.*s", (int)(q2 - q - 1), q + 1);
        return true;
    }
    /* The column header: "Overhead" or "Children      Self", maybe "Samples". */
    if ((len >= 8 && memcmp(s, "Children", 8) == 0) || (len >= 8 && memcmp(s, "Overhead", 8) == 0)) {
        st->children = memcmp(s, "Children", 8) == 0;
        for (size_t i = 0; i + 7 <= len; i++)
            if (memcmp(s + i, "Samples", 7) == 0 && (i == 0 || s[i - 1] == ' ') && (i + 7 == len || s[i + 7] == ' '))
                st->samples_column = true;
    }
    return true;
}

/* The symbol and object of an entry's columns (s, len: after the percentages).  The marker
 * "[.]" (user), "[k]" (kernel), "[g]", "[u]", "[H]": the symbol follows, the object is the
 * column before it. */
static struct attr_frame frame_from_columns(const char *s, size_t len)
{
    struct attr_frame f = {.sym = s, .sym_len = len, .dso = "", .dso_len = 0};
    const char *m = NULL;
    for (size_t i = 0; i + 3 <= len && !m; i++)
        if (s[i] == '[' && s[i + 2] == ']' && (i + 3 == len || s[i + 3] == ' ') &&
            (i == 0 || s[i - 1] == ' ') && strchr(".kguH", s[i + 1]) && s[i + 1])
            m = s + i;
    if (m) {
        f.sym = m + 3;
        f.sym_len = len - (size_t)(m + 3 - s);
        perf_trim(&f.sym, &f.sym_len);
        const char *end = m;
        while (end > s && end[-1] == ' ')
            end--;
        const char *b = end;
        while (b > s && b[-1] != ' ' && b[-1] != '\t')
            b--;
        f.dso = b;
        f.dso_len = (size_t)(end - b);
        f.kernel = m[1] == 'k' || m[1] == 'g' || attr_dso_is_kernel(f.dso, f.dso_len);
        return f;
    }
    /* No marker: columns apart by two or more blanks; the last is the symbol. */
    const char *last = NULL, *prev = NULL;
    for (size_t i = 0; i + 1 < len; i++)
        if (s[i] == ' ' && s[i + 1] == ' ') {
            size_t j = i;
            while (j < len && s[j] == ' ')
                j++;
            prev = last;
            last = s + j;
            i = j - 1;
        }
    if (last) {
        f.sym = last;
        f.sym_len = len - (size_t)(last - s);
        const char *b = prev ? prev : s;
        const char *e = last;
        while (e > b && e[-1] == ' ')
            e--;
        f.dso = b;
        f.dso_len = (size_t)(e - b);
        f.kernel = attr_dso_is_kernel(f.dso, f.dso_len);
    }
    return f;
}

static bool entry_line(const char *s, size_t len, int line, struct tally *t, struct report_state *st,
                       char *why, size_t whylen)
{
    const char *line_start = s;
    size_t line_len = len;
    double first, self;
    if (!take_percent(&s, &len, &first))
        return false; /* not an entry */
    self = first;
    double second;
    bool two = take_percent(&s, &len, &second);
    if (two) {
        self = second;
        t->children_columns = true;
    } else if (st->children) {
        snprintf(why, whylen, "line %d: the header names Children and Self columns but this entry "
                 "has one percentage", line);
        return false;
    }
    /* -g folded: "7.57% a;b;c" is a chain of the entry before. */
    if (!two && len && !memchr(s, ' ', len) && memchr(s, ';', len)) {
        folded_chain(line_start, line_len, t, st);
        return true;
    }
    if (first > 100.0 || self > 100.0 || self > first + 0.005) {
        snprintf(why, whylen, "line %d: a percentage out of range (%.2f%%, %.2f%%)", line, first, self);
        return false;
    }
    if (st->samples_column) {
        size_t k = 0;
        while (k < len && isdigit((unsigned char)s[k]))
            k++;
        if (k == 0 || (k < len && s[k] != ' ' && s[k] != '\t')) {
            snprintf(why, whylen, "line %d: the header names a Samples column but the entry has "
                     "no count", line);
            return false;
        }
        s += k, len -= k;
        perf_trim(&s, &len);
    }
    if (!len) {
        snprintf(why, whylen, "line %d: an entry with a percentage but no symbol", line);
        return false;
    }
    struct attr_frame f = frame_from_columns(s, len);
    if (!f.sym_len) {
        snprintf(why, whylen, "line %d: an entry with a marker but no symbol", line);
        return false;
    }
    finish_entry(t, st);
    st->pending = true;
    st->frame = f;
    st->self = self;
    st->folded = 0;
    t->from_report = true;
    st->self_sum += self;
    if (st->self_sum > 100.5) {
        snprintf(why, whylen, "line %d: the entries' own percentages add up to %.2f%%, more than "
                 "100%%", line, st->self_sum);
        return false;
    }
    st->in_entries = true;
    return true;
}

bool perf_report_parse(const char *buf, size_t len, struct tally *t, char *why, size_t whylen)
{
    tally_init(t);
    t->from_report = true;
    struct report_state st = {0};
    struct perf_line l = {0};
    size_t pos = 0;
    int entries = 0;
    const char *s;
    size_t n;
    enum perf_text got;
    while ((got = perf_next_text(buf, len, &pos, &l, &s, &n, why, whylen)) == PERF_TEXT_LINE) {
        if (n == 0)
            continue;
        if (s[0] == '#') {
            if (!header_line(s, n, l.number, t, &st, why, whylen))
                return false;
            continue;
        }
        bool indented = l.start[0] == ' ' || l.start[0] == '\t';
        if (indented && isdigit((unsigned char)s[0])) {
            why[0] = 0;
            if (entry_line(s, n, l.number, t, &st, why, whylen)) {
                entries++;
                continue;
            }
            if (why[0])
                return false;
        }
        if (indented && st.in_entries)
            continue; /* a -g call-graph line */
        if (st.in_entries && is_folded(s, n)) {
            folded_chain(s, n, t, &st); /* -g folded: "8.37% leaf;caller;..." at column 0 */
            continue;
        }
        snprintf(why, whylen, "line %d: not a perf report line (an indented 'NN.NN%%  ...  "
                 "[.] symbol' entry, a '#' header, or a call-graph line after an entry): "
                 "'%.*s'", l.number, (int)(n > 60 ? 60 : n), s);
        return false;
    }
    if (got == PERF_TEXT_BAD)
        return false;
    if (entries == 0) {
        snprintf(why, whylen, "no entries in %d lines: not `perf report --stdio` output", l.number);
        return false;
    }
    finish_entry(t, &st);
    /* Shares are of all samples: the time categories as listed, the rest is "other". */
    double time_sum = 0;
    for (int c = 0; c < PROFILE_TIME_CATEGORIES; c++)
        time_sum += t->weight[c];
    t->total = 100.0;
    t->weight[CAT_OTHER] = time_sum < 100.0 ? 100.0 - time_sum : 0.0;
    if (!t->event[0])
        snprintf(t->event, sizeof t->event, "unknown");
    return true;
}
