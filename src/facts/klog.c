/* SPDX-License-Identifier: MIT */
#include "facts/klog.h"

#include <ctype.h>
#include <string.h>

void klog_iter_init(struct klog_iter *it, const char *buf, size_t len)
{
    it->buf = buf;
    it->len = buf ? len : 0;
    it->pos = 0;
    it->lineno = 0;
}

/* "  12.345678" -> 12.345678; false unless the whole of [s, end) is such a number. */
static bool parse_seconds_since_boot(const char *s, const char *end, double *out)
{
    while (s < end && *s == ' ')
        s++;
    double v = 0, scale = 0.1;
    bool digits = false, dot = false;
    for (; s < end; s++) {
        if (*s >= '0' && *s <= '9') {
            if (dot) {
                v += (*s - '0') * scale;
                scale /= 10;
            } else {
                v = v * 10 + (*s - '0');
                if (v > 1e11)
                    return false;
            }
            digits = true;
        } else if (*s == '.' && !dot) {
            dot = true;
        } else {
            return false;
        }
    }
    if (!digits)
        return false;
    *out = v;
    return true;
}

/* "[...] " at s: sets *ts when the bracket holds seconds since boot; returns what follows,
 * or NULL when s does not start with a short bracketed prefix. */
static const char *strip_bracket(const char *s, double *ts)
{
    if (*s != '[')
        return NULL;
    const char *close = memchr(s, ']', strnlen(s, 40));
    if (!close)
        return NULL;
    double v;
    if (parse_seconds_since_boot(s + 1, close, &v))
        *ts = v;
    s = close + 1;
    while (*s == ' ')
        s++;
    return s;
}

static bool all_digits(const char *s, const char *end)
{
    if (s == end)
        return false;
    for (; s < end; s++)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

/* "6,1234,12345678,-;" a /dev/kmsg record header at s: sets *ts from its microseconds and
 * returns what follows, or NULL when s has none. */
static const char *strip_kmsg_header(const char *s, double *ts)
{
    const char *semi = strchr(s, ';');
    if (!semi || semi - s >= 48)
        return NULL;
    const char *c1 = strchr(s, ',');
    const char *c2 = c1 ? strchr(c1 + 1, ',') : NULL;
    const char *c3 = c2 ? strchr(c2 + 1, ',') : NULL;
    if (!(c3 && c3 < semi && all_digits(s, c1) && all_digits(c1 + 1, c2) &&
          all_digits(c2 + 1, c3)))
        return NULL;
    double usec;
    if (parse_seconds_since_boot(c2 + 1, c3, &usec))
        *ts = usec / 1e6;
    return semi + 1;
}

/* "kern  :info  : " (dmesg -x) at s: a syslog facility and a level, each padded before ':'.
 * Returns what follows them, or s when they are not there. */
static const char *skip_facility_level(const char *s)
{
    static const char *const facilities[] = {"kern", "user", "mail", "daemon", "auth",
                                             "syslog", "lpr", "news", "uucp", "cron",
                                             "authpriv", "ftp", "local0", "local1", "local2",
                                             "local3", "local4", "local5", "local6", "local7"};
    static const char *const levels[] = {"emerg", "alert", "crit", "err", "warn",
                                         "notice", "info", "debug"};
    const char *p = s;
    for (int field = 0; field < 2; field++) {
        size_t w = strcspn(p, " :");
        const char *const *names = field ? levels : facilities;
        size_t count = field ? sizeof levels / sizeof levels[0]
                             : sizeof facilities / sizeof facilities[0];
        bool ok = false;
        for (size_t i = 0; i < count && !ok; i++)
            ok = strlen(names[i]) == w && strncmp(p, names[i], w) == 0;
        if (!ok)
            return s;
        p += w;
        while (*p == ' ')
            p++;
        if (*p != ':')
            return s;
        p++;
        while (*p == ' ')
            p++;
    }
    return p;
}

/* "... kernel: " from journalctl or syslog: the text before it is a date, a host and
 * perhaps a facility, none of which contains ": " or a bracket.  Returns what follows the
 * tag (and a "[...] " after it), or NULL when s has no such prefix. */
static const char *strip_kernel_tag(const char *s, double *ts)
{
    size_t scan = strnlen(s, 200);
    for (const char *k = s; (k = strstr(k, "kernel:")) != NULL && (size_t)(k - s) < scan; k++) {
        if (k != s && k[-1] != ' ')
            continue;
        bool prefix_like = true;
        for (const char *p = s; p < k; p++)
            if ((*p == ':' && p[1] == ' ') || *p == '[' || *p == ']')
                prefix_like = false;
        if (!prefix_like)
            return NULL;
        s = k + strlen("kernel:");
        while (*s == ' ')
            s++;
        const char *after = strip_bracket(s, ts);
        return after ? after : s;
    }
    return NULL;
}

const char *klog_strip_prefix(const char *line, double *ts)
{
    const char *s = line;
    *ts = -1;
    while (*s == ' ')
        s++;
    /* "<6>" syslog priority (dmesg -r). */
    if (*s == '<') {
        const char *gt = strchr(s, '>');
        if (gt && gt - s <= 4 && all_digits(s + 1, gt))
            s = gt + 1;
    }
    const char *after = strip_kmsg_header(s, ts);
    if (after)
        return after;
    s = skip_facility_level(s);
    after = strip_bracket(s, ts);
    if (after)
        return after;
    after = strip_kernel_tag(s, ts);
    if (after)
        return after;
    /* "2024-01-01T12:00:00,123456+00:00 " (dmesg --time-format iso). */
    if (isdigit((unsigned char)s[0]) && isdigit((unsigned char)s[3]) && s[4] == '-' &&
        s[7] == '-' && s[10] == 'T') {
        const char *sp = strchr(s, ' ');
        if (sp) {
            s = sp;
            while (*s == ' ')
                s++;
        }
    }
    return s;
}

bool klog_next(struct klog_iter *it, struct klog_line *out)
{
    while (it->pos < it->len) {
        const char *start = it->buf + it->pos;
        const char *nl = memchr(start, '\n', it->len - it->pos);
        size_t n = nl ? (size_t)(nl - start) : it->len - it->pos;
        it->pos += n + (nl ? 1 : 0);
        it->lineno++;
        size_t keep = n < KLOG_LINE_MAX - 1 ? n : KLOG_LINE_MAX - 1;
        size_t w = 0;
        for (size_t i = 0; i < keep; i++) {
            unsigned char c = (unsigned char)start[i];
            if (c == '\r' && i + 1 == n)
                break; /* CRLF */
            if (c == 0x1b && i + 1 < keep && start[i + 1] == '[') {
                /* an ANSI colour sequence (dmesg --color=always): ESC [ params letter */
                size_t j = i + 2;
                while (j < keep && ((start[j] >= '0' && start[j] <= '9') || start[j] == ';'))
                    j++;
                if (j < keep && ((start[j] >= 'A' && start[j] <= 'Z') || (start[j] >= 'a' && start[j] <= 'z'))) {
                    i = j;
                    continue;
                }
            }
            out->raw[w++] = c == '\t' ? ' ' : (c < 0x20 || c >= 0x7f) ? '?' : (char)c;
        }
        while (w > 0 && out->raw[w - 1] == ' ')
            w--;
        out->raw[w] = 0;
        if (w == 0)
            continue;
        out->lineno = it->lineno;
        out->msg = klog_strip_prefix(out->raw, &out->ts);
        return true;
    }
    return false;
}
