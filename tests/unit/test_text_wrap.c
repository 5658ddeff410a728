/* SPDX-License-Identifier: MIT */
/* The one prose wrapper (src/common/text_wrap.c): lines within the width, a number kept with
 * its unit, a command never broken and on a line of its own, and a first sentence that does
 * not end at "e.g.". */
#include "check.h"
#include "common/text_wrap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What text_wrap prints, in a buffer the caller frees. */
static char *wrapped(const char *label, const char *text, int indent, int hang, int width,
                     enum text_wrap_flags flags)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    text_wrap(f, label, text, indent, hang, width, flags);
    fclose(f);
    return buf;
}

/* Every line within width columns (UTF-8 characters one each) and no trailing space, but
 * for lines that start with the command indent when commands is true. */
static bool lines_fit(const char *s, int width, bool commands)
{
    for (const char *p = s; *p;) {
        size_t n = strcspn(p, "\n");
        int cols = 0;
        for (size_t i = 0; i < n; i++)
            cols += ((unsigned char)p[i] & 0xC0) != 0x80;
        bool command = commands && n > 4 && !strncmp(p, "    ", 4) && p[4] != ' ';
        if ((cols > width && !command) || (n && p[n - 1] == ' '))
            return false;
        p += n + (p[n] == '\n');
    }
    return true;
}

TEST(text_wrap_keeps_lines_within_the_width_with_a_hanging_indent)
{
    char *s = wrapped("why: ", "one two three four five six seven eight nine ten", 2, 6, 24,
                      TEXT_INLINE_COMMANDS);
    CHECK(s && !strcmp(s, "  why: one two three\n      four five six\n"
                          "      seven eight nine\n      ten\n"));
    CHECK(s && lines_fit(s, 24, false));
    free(s);
}

TEST(text_wrap_never_parts_a_number_from_its_unit)
{
    /* at every width the pair lands on one line, whichever line that is */
    for (int width = 12; width < 40; width++) {
        char *s = wrapped("", "it took 26.3 ns per call and 1.20 \xc2\xb5s, 45.1 M/s (12 %)",
                          0, 2, width, TEXT_INLINE_COMMANDS);
        CHECK(s && strstr(s, "26.3 ns") && strstr(s, "1.20 \xc2\xb5s,") && strstr(s, "45.1 M/s")
              && strstr(s, "(12 %)"));
        CHECK(s && lines_fit(s, width, false));
        free(s);
    }
}

TEST(text_wrap_puts_a_command_on_a_line_of_its_own_whole)
{
    const char *cmd = "echo tsc | sudo tee /sys/devices/system/clocksource/clocksource0/"
                      "current_clocksource";
    char text[256];
    snprintf(text, sizeof text, "now, until reboot: `%s` (risk: low when it is listed)", cmd);
    char *s = wrapped("fix: ", text, 2, 6, 40, TEXT_COMMAND_LINES);
    char line[256];
    snprintf(line, sizeof line, "\n    %s\n", cmd);
    CHECK(s && strstr(s, line));                   /* whole, indented 4, no backquotes */
    CHECK(s && !strncmp(s, "  fix: now, until reboot:\n", 26)); /* no trailing space */
    CHECK(s && strstr(s, "\n      (risk: low when it is listed)\n"));
    CHECK(s && lines_fit(s, 40, true) && !strchr(s, '`'));
    free(s);
    /* inline, the same span is one word kept with its backquotes */
    s = wrapped("fix: ", text, 2, 6, 40, TEXT_INLINE_COMMANDS);
    snprintf(line, sizeof line, "`%s`", cmd);
    CHECK(s && strstr(s, line));
    free(s);
}

TEST(text_wrap_plain_cuts_a_word_wider_than_a_line_and_keeps_backquotes)
{
    char *s = wrapped("", "a `b c` 0123456789012345678901234567890123456789", 2, 4, 20,
                      TEXT_PLAIN);
    CHECK(s && lines_fit(s, 20, false) && strstr(s, "`b c`"));
    free(s);
    s = wrapped("", "[    0.000000] line 0", 0, 2, 40, TEXT_PLAIN); /* a value's spaces kept */
    CHECK(s && !strcmp(s, "[    0.000000] line 0\n"));
    free(s);
}

TEST(text_first_sentence_does_not_end_at_an_abbreviation)
{
    const char *t = "An old kernel may not know it (e.g. Ubuntu 14.04's kernel), i.e. Linux 3.13. "
                    "Then more.";
    size_t n = text_first_sentence(t);
    CHECK(n == strlen("An old kernel may not know it (e.g. Ubuntu 14.04's kernel), i.e. Linux 3.13."));
    CHECK(text_first_sentence("One. Two.") == 4);
    CHECK(text_first_sentence("No stop here") == strlen("No stop here"));
    CHECK(text_first_sentence("Version 5.6 is old. next is lower case. End") ==
          strlen("Version 5.6 is old. next is lower case."));
}
