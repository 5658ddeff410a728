/* SPDX-License-Identifier: MIT */
/* Durations, rates and counts as a person reads them (units.h). */
#include "common/units.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

/* The magnitude of what was printed: the rounding decides the form, not the value. */
static double printed(const char *buf)
{
    return fabs(strtod(buf, NULL));
}

/* v with three significant digits ("4.56", "33.5", "245"); false when it rounds to 1000 or
 * more (the caller moves to the next unit).  A carry into the next decade drops a decimal:
 * 9.996 is "10.0", 99.96 is "100". */
static bool three_digits(double v, char *buf, size_t len)
{
    double a = fabs(v);
    int decimals = a < 10 ? 2 : a < 100 ? 1 : 0;
    snprintf(buf, len, "%.*f", decimals, v);
    while (decimals > 0 && printed(buf) >= (decimals == 2 ? 10 : 100))
        snprintf(buf, len, "%.*f", --decimals, v);
    return printed(buf) < 1000;
}

const char *units_format_ns(double ns, char *buf, size_t len)
{
    static const char *const unit[] = {"ns", "\xc2\xb5s", "ms", "s"};
    if (!isfinite(ns)) {
        snprintf(buf, len, "-");
        return buf;
    }
    double a = fabs(ns), scale = 1;
    size_t u = 0;
    while (u + 1 < sizeof unit / sizeof unit[0] && a >= scale * 1e3)
        scale *= 1e3, u++;
    char num[FORMAT_NS_MAX];
    for (;;) {
        bool fits;
        if (u == 0) {
            fits = three_digits(ns, num, sizeof num);
        } else {
            snprintf(num, sizeof num, "%.2f", ns / scale);
            fits = printed(num) < 1000;
        }
        if (fits || u + 1 == sizeof unit / sizeof unit[0])
            break;
        scale *= 1e3, u++;
    }
    snprintf(buf, len, "%s %s", num, unit[u]);
    return buf;
}

const char *units_format_ns_number(double ns, char *buf, size_t len)
{
    if (!isfinite(ns))
        snprintf(buf, len, "-");
    else
        three_digits(ns, buf, len);
    return buf;
}

/* v as three significant digits and an SI prefix ("" below 1000); whole below 1000 when
 * whole_below_1000 (a count). */
static const char *si(double v, bool whole_below_1000, char *num, size_t len)
{
    static const char *const prefix[] = {"", "k", "M", "G", "T", "P", "E"};
    const size_t n = sizeof prefix / sizeof prefix[0];
    size_t p = 0;
    while (p + 1 < n && fabs(v) >= 1e3)
        v /= 1e3, p++;
    for (;;) {
        bool fits;
        if (p == 0 && whole_below_1000) {
            snprintf(num, len, "%.0f", v);
            fits = printed(num) < 1000;
        } else {
            fits = three_digits(v, num, len);
        }
        if (fits || p + 1 == n)
            break;
        v /= 1e3, p++;
    }
    return prefix[p];
}

/* A rate ("45.1 M/s") or a count ("78.5 k", whole below 1000); "-" when not finite. */
static const char *si_text(double v, bool count, char *buf, size_t len)
{
    char num[FORMAT_NS_MAX];
    if (!isfinite(v)) {
        snprintf(buf, len, "-");
        return buf;
    }
    const char *p = si(v, count, num, sizeof num);
    if (count)
        snprintf(buf, len, *p ? "%s %s" : "%s%s", num, p);
    else
        snprintf(buf, len, "%s %s/s", num, p);
    return buf;
}

const char *units_format_rate(double per_second, char *buf, size_t len)
{
    return si_text(per_second, false, buf, len);
}

const char *units_format_count(double count, char *buf, size_t len)
{
    return si_text(count, true, buf, len);
}

int units_columns(int columns, const char *text)
{
    for (const unsigned char *s = (const unsigned char *)text; *s; s++)
        if ((*s & 0xc0) == 0x80) /* a UTF-8 continuation byte: no column of its own */
            columns++;
    return columns;
}

const char *units_plural(long long n, const char *noun, char *buf, size_t len)
{
    snprintf(buf, len, "%lld %s%s", n, noun, n == 1 ? "" : "s");
    return buf;
}
