/* SPDX-License-Identifier: MIT */
/* Folding the ladder's text to 100 columns (text_fit.h). */
#include "ladder/text_fit.h"

#include <stdbool.h>
#include <string.h>

int text_fit_width(const char *s, size_t n)
{
    int w = 0;
    for (size_t i = 0; i < n && s[i]; i++)
        w += ((unsigned char)s[i] & 0xC0) != 0x80;
    return w;
}

/* Whether the word at w (up to a space or the end) is a unit that stays with the number
 * before it: "26.3 ns", "4 k/s", "12 %". */
static bool is_unit(const char *w)
{
    static const char *const units[] = {"ns", "µs", "ms", "s", "k/s", "M/s", "G/s", "/s", "k",
                                        "M", "G"};
    size_t n = strcspn(w, " \n");
    while (n > 0 && strchr(",.;:)", w[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i]) == n && strncmp(w, units[i], n) == 0)
            return true;
    return false;
}

/* Where the line [s, s+n) may be broken: the last space at or before `columns` columns
 * that does not separate a number from its unit; 0 when none. */
static size_t break_at(const char *s, size_t n, int columns, size_t indent)
{
    size_t best = 0;
    for (size_t i = indent + 1; i < n; i++) {
        if (s[i] != ' ')
            continue;
        if (text_fit_width(s, i) > columns)
            break;
        bool number_before = s[i - 1] >= '0' && s[i - 1] <= '9';
        if (!(number_before && is_unit(s + i + 1)) && s[i - 1] != ' ')
            best = i;
    }
    return best;
}

static void fit_line(FILE *out, const char *s, size_t n, int columns)
{
    while (n > 0 && s[n - 1] == ' ')
        n--;
    size_t indent = strspn(s, " ");
    if (indent > n)
        indent = n;
    size_t cont = indent + 2;
    bool first = true;
    while (text_fit_width(s, n) + (first ? 0 : (int)cont) > columns) {
        int room = columns - (first ? 0 : (int)cont);
        size_t b = break_at(s, n, room, first ? indent : 0);
        if (b == 0)
            break;
        fprintf(out, "%*s%.*s\n", first ? 0 : (int)cont, "", (int)b, s);
        s += b + 1;
        n -= b + 1;
        first = false;
    }
    fprintf(out, "%*s%.*s\n", first ? 0 : (int)cont, "", (int)n, s);
}

void text_fit(FILE *out, const char *text, int columns)
{
    while (*text) {
        size_t n = strcspn(text, "\n");
        fit_line(out, text, n, columns);
        text += n;
        if (*text == '\n')
            text++;
    }
}

void text_fit_id(const char *id, int columns, char *buf, size_t len)
{
    size_t n = strlen(id);
    if ((int)n <= columns || columns < 3) {
        snprintf(buf, len, "%s", id);
        return;
    }
    size_t keep = (size_t)columns - 1;  /* "…" is one column */
    size_t head = (keep + 1) / 2, tail = keep - head;
    snprintf(buf, len, "%.*s…%s", (int)head, id, id + n - tail);
}
