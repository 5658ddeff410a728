/* SPDX-License-Identifier: MIT */
/* The calibration-line parser: no I/O, so the fuzz harness links this file alone. */
#include "facts/tsc_calibration.h"

#include <string.h>
#include <strings.h>

/* "<digits>[.<up to 6 digits>] MHz" at p (within end) -> Hz, and the last digit's value. */
static bool parse_mhz(const char *p, const char *end, uint64_t *hz, uint64_t *step)
{
    uint64_t whole = 0, frac = 0, scale = 1000000;
    int digits = 0;
    while (p < end && *p >= '0' && *p <= '9') {
        if (++digits > 7) /* more than 9,999,999 MHz: not a clock */
            return false;
        whole = whole * 10 + (uint64_t)(*p++ - '0');
    }
    if (!digits)
        return false;
    if (p < end && *p == '.') {
        p++;
        int fd = 0;
        while (p < end && *p >= '0' && *p <= '9') {
            if (++fd > 6)
                return false;
            scale /= 10;
            frac += (uint64_t)(*p++ - '0') * scale;
        }
        if (!fd)
            return false;
    }
    if (end - p < 4 || strncasecmp(p, " MHz", 4) != 0)
        return false;
    *hz = whole * 1000000 + frac;
    *step = scale;
    return *hz > 0;
}

/* Case-insensitive search for needle in [hay, hay + len); NULL when absent. */
static const char *find_nocase(const char *hay, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    for (size_t i = 0; i + n <= len; i++)
        if (strncasecmp(hay + i, needle, n) == 0)
            return hay + i;
    return NULL;
}

/* The line's forms, most trusted first: where the figure starts after the keyword, and
 * what must follow " MHz" for the prefix-less 2.6.x form (which "Detected" alone is too
 * common a word to identify). */
static const struct {
    const char *keyword;
    bool refined;
    const char *suffix; /* required right after " MHz", or NULL */
} forms[] = {
    {"Refined TSC clocksource calibration: ", true, NULL},
    {"tsc: Detected ", false, NULL},
    {"Detected ", false, " processor"},
};

bool tsc_calibration_parse(const char *msg, size_t len, struct tsc_calibration *out)
{
    if (!msg)
        return false;
    const char *end = msg + len;
    for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
        const char *p = find_nocase(msg, len, forms[i].keyword);
        if (!p)
            continue;
        uint64_t hz, step;
        const char *fig = p + strlen(forms[i].keyword);
        if (!parse_mhz(fig, end, &hz, &step))
            return false;
        if (forms[i].suffix) {
            const char *mhz = find_nocase(fig, (size_t)(end - fig), " MHz");
            size_t sl = strlen(forms[i].suffix);
            if (!mhz || (size_t)(end - (mhz + 4)) < sl || strncasecmp(mhz + 4, forms[i].suffix, sl) != 0)
                return false;
        }
        out->hz = hz;
        out->refined = forms[i].refined;
        out->step_hz = step;
        return true;
    }
    return false;
}
