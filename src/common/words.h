/* SPDX-License-Identifier: MIT */
/* Whether a kernel list (available_clocksource, the command line, a compatible string)
 * holds a word, as a whole whitespace-separated word.  Header-only, so that libfastclock
 * includes it without linking anything. */
#ifndef CLOCKSCOPE_WORDS_H
#define CLOCKSCOPE_WORDS_H

#include <stdbool.h>
#include <string.h>

/* list may be NULL (nothing listed); an empty word is never listed. */
static inline bool words_has(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p;) {
        p += strspn(p, " \t\n\r");
        size_t len = strcspn(p, " \t\n\r");
        if (len == n && n > 0 && strncmp(p, word, n) == 0)
            return true;
        p += len;
    }
    return false;
}

#endif
