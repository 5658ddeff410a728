/* SPDX-License-Identifier: MIT */
/* Word-wrapping for every command's prose (text_wrap.h): words, number-unit pairs and
 * commands as unbreakable pieces laid out under a label with a hanging indent. */
#include "common/text_wrap.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* The line being laid out: kept until it ends, so that a label left alone on its line
 * loses its trailing space. */
struct layout {
    FILE *out;
    char line[1024];
    size_t len;
    int col, hang, width;
    bool words;     /* a word after the label or the hanging indent */
    bool started;   /* the line holds a label or a word: it is printed when it ends */
};

/* Terminal columns of n bytes of UTF-8: every byte but a continuation byte. */
int text_columns(const char *s, size_t n)
{
    int c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

static void put(struct layout *l, const char *s, size_t n)
{
    if (l->len + n > sizeof l->line) {  /* a longer line goes out as it is */
        fwrite(l->line, 1, l->len, l->out);
        l->len = 0;
        if (n > sizeof l->line) {
            fwrite(s, 1, n, l->out);
            l->col += text_columns(s, n);
            return;
        }
    }
    memcpy(l->line + l->len, s, n);
    l->len += n;
    l->col += text_columns(s, n);
}

static void end_line(struct layout *l)
{
    while (l->len > 0 && l->line[l->len - 1] == ' ')
        l->len--;
    if (l->started) {
        fwrite(l->line, 1, l->len, l->out);
        fputc('\n', l->out);
    }
    l->len = 0;
    l->col = 0;
    l->words = l->started = false;
    for (int i = 0; i < l->hang; i++)
        put(l, " ", 1);
}

/* One unbreakable piece of prose, gap spaces after the word before it when it fits on this
 * line, else at the start of the next. */
static void place(struct layout *l, const char *s, size_t n, int gap)
{
    int w = text_columns(s, n);
    if (l->words && l->col + gap + w > l->width)
        end_line(l);
    for (int i = 0; l->words && i < gap; i++)
        put(l, " ", 1);
    put(l, s, n);
    l->words = l->started = true;
}

/* A command on a line of its own, as it is. */
static void place_command(struct layout *l, const char *s, size_t n)
{
    end_line(l);
    fprintf(l->out, "%*s%.*s\n", TEXT_COMMAND_INDENT, "", (int)n, s);
}

/* "26.3", "(1-10", "~0.5": a figure, with what may open it. */
static bool is_number(const char *w, size_t n)
{
    size_t i = 0, digits = 0;
    while (i < n && strchr("([~<>+-", w[i]))
        i++;
    for (; i < n; i++) {
        if (isdigit((unsigned char)w[i]))
            digits++;
        else if (!strchr(".,-", w[i]))
            return false;
    }
    return digits > 0;
}

/* "ns", "µs", "M/s", "%)," ...: a unit, with what may close it. */
static bool is_unit(const char *w, size_t n)
{
    static const char *const units[] = {
        "ns", "\xc2\xb5s", "us", "ms", "s", "min", "h", "days", "%", "x", "/s", "k/s", "M/s",
        "G/s", "k", "M", "G", "B", "KiB", "MiB", "GiB", "kB", "MB", "GB", "Hz", "kHz", "MHz",
        "GHz", "ns/call", "cycles", "ticks",
    };
    while (n > 0 && strchr(")],.;:", w[n - 1]))
        n--;
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i]) == n && !memcmp(units[i], w, n))
            return true;
    return false;
}

/* The next word of text from *p (spaces skipped); its length, 0 at the end. */
static size_t next_word(const char **p)
{
    *p += strspn(*p, " ");
    return strcspn(*p, " ");
}

/* A plain word wider than a line, cut into pieces that each fill one. */
static void place_cut(struct layout *l, const char *s, size_t n, int gap)
{
    while (text_columns(s, n) > l->width - l->hang) {
        if (l->words || l->col >= l->width)
            end_line(l);
        size_t k = 0;
        for (int c = 0; k < n; k++) {
            bool starts = ((unsigned char)s[k] & 0xC0) != 0x80;
            if (starts && c == l->width - l->col)
                break;
            c += starts;
        }
        put(l, s, k);
        l->words = l->started = true;
        s += k;
        n -= k;
    }
    if (n)
        place(l, s, n, gap);
}

void text_wrap(FILE *out, const char *label, const char *text, int indent, int hang, int width,
               enum text_wrap_flags flags)
{
    struct layout l = {.out = out, .hang = hang, .width = width, .started = true};
    for (int i = 0; i < indent; i++)
        put(&l, " ", 1);
    put(&l, label, strlen(label));
    const char *p = text;
    for (const char *before = p;; before = p) {
        size_t n = next_word(&p);
        if (!n)
            break;
        int gap = flags == TEXT_PLAIN && p > before ? (int)(p - before) : 1;
        const char *close = *p == '`' && flags != TEXT_PLAIN ? strchr(p + 1, '`') : NULL;
        if (close && flags == TEXT_COMMAND_LINES) {
            place_command(&l, p + 1, (size_t)(close - p - 1));
            p = close + 1;
            continue;
        }
        if (close) /* the span and what sticks to its closing quote */
            n = (size_t)(close + 1 - p) + strcspn(close + 1, " ");
        const char *q = p + n;
        size_t un = next_word(&q);
        if (!close && un && is_number(p, n) && is_unit(q, un))
            n = (size_t)(q + un - p);   /* "26.3 ns": one piece, its one space kept */
        if (flags == TEXT_PLAIN)
            place_cut(&l, p, n, gap);
        else
            place(&l, p, n, 1);
        p += n;
    }
    end_line(&l);
}

void text_fold(FILE *out, const char *text, int width)
{
    while (*text) {
        size_t n = strcspn(text, "\n");
        size_t end = n;
        while (end > 0 && text[end - 1] == ' ')
            end--;
        char *line = text_columns(text, end) > width ? strndup(text, end) : NULL;
        if (line) {
            int indent = (int)strspn(line, " ");
            text_wrap(out, "", line + indent, indent, indent + 2, width, TEXT_INLINE_COMMANDS);
            free(line);
        } else {
            fprintf(out, "%.*s\n", (int)end, text);
        }
        text += n;
        if (*text == '\n')
            text++;
    }
}

const char *text_middle_cut(const char *s, int columns, char *buf, size_t len)
{
    size_t n = strlen(s);
    if (text_columns(s, n) <= columns || columns < 3) {
        snprintf(buf, len, "%s", s);
        return buf;
    }
    size_t keep = (size_t)columns - 1; /* "…" is one column; ids are ASCII */
    size_t head = (keep + 1) / 2, tail = keep - head;
    snprintf(buf, len, "%.*s…%s", (int)head, s, s + n - tail);
    return buf;
}

static bool abbreviation(const char *text, const char *dot)
{
    static const char *const abbreviations[] = {"e.g", "i.e", "cf", "vs", "approx"};
    for (size_t i = 0; i < sizeof abbreviations / sizeof abbreviations[0]; i++) {
        size_t n = strlen(abbreviations[i]);
        if ((size_t)(dot - text) >= n && !strncmp(dot - n, abbreviations[i], n) &&
            ((size_t)(dot - text) == n || !isalnum((unsigned char)dot[-(long)n - 1])))
            return true;
    }
    return false;
}

size_t text_first_sentence(const char *text)
{
    for (const char *dot = strstr(text, ". "); dot; dot = strstr(dot + 1, ". ")) {
        const char *next = dot + strspn(dot + 1, " ") + 1;
        if (!islower((unsigned char)*next) && !abbreviation(text, dot))
            return (size_t)(dot + 1 - text);
    }
    return strlen(text);
}
