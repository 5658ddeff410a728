/* SPDX-License-Identifier: MIT */
/* Line splitting shared by the perf text parsers (perf_text.h). */
#include "profile/perf_text.h"

#include <stdio.h>
#include <string.h>

#define PERF_LINE_MAX (64u << 10)

bool perf_next_line(const char *buf, size_t len, size_t *pos, struct perf_line *line)
{
    if (*pos >= len)
        return false;
    const char *start = buf + *pos;
    const char *nl = memchr(start, '\n', len - *pos);
    size_t n = nl ? (size_t)(nl - start) : len - *pos;
    *pos += n + (nl != NULL);
    if (n && start[n - 1] == '\r')
        n--;
    line->start = start;
    line->len = n;
    line->number++;
    return true;
}

bool perf_line_check(const struct perf_line *l, char *why, size_t whylen)
{
    if (l->len > PERF_LINE_MAX) {
        snprintf(why, whylen, "line %d: longer than %u bytes: not perf text", l->number, PERF_LINE_MAX);
        return false;
    }
    for (size_t i = 0; i < l->len; i++) {
        unsigned char c = (unsigned char)l->start[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            snprintf(why, whylen, "line %d: control byte 0x%02x at column %zu: not perf text",
                     l->number, c, i + 1);
            return false;
        }
    }
    return true;
}

void perf_trim(const char **s, size_t *len)
{
    while (*len && (**s == ' ' || **s == '\t')) {
        (*s)++;
        (*len)--;
    }
    while (*len && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
        (*len)--;
}

enum perf_text perf_next_text(const char *buf, size_t len, size_t *pos, struct perf_line *l,
                              const char **s, size_t *n, char *why, size_t whylen)
{
    if (!perf_next_line(buf, len, pos, l))
        return PERF_TEXT_END;
    if (!perf_line_check(l, why, whylen))
        return PERF_TEXT_BAD;
    *s = l->start;
    *n = l->len;
    perf_trim(s, n);
    return PERF_TEXT_LINE;
}
