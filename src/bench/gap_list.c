/* SPDX-License-Identifier: MIT */
#include "bench/gap_list.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    uint64_t ns;
} units[] = {{"ns", 1}, {"us", 1000}, {"ms", 1000000}, {"s", 1000000000}};

/* One DURATION in s[0..len) (no ':' in it).  On false fills err. */
static bool parse_duration(const char *s, size_t len, uint64_t *out, char *why, size_t whylen)
{
    if (len == 1 && s[0] == '0') {
        *out = 0;
        return true;
    }
    size_t i = 0;
    uint64_t whole = 0;
    size_t whole_digits = 0;
    /* Saturates just past the limit, so that a long string of digits cannot overflow. */
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, whole_digits++)
        whole = whole > GAP_MAX_NS ? whole : whole * 10 + (uint64_t)(s[i] - '0');
    if (whole_digits == 0) {
        snprintf(why, whylen, "'%.*s' does not start with a number", (int)len, s);
        return false;
    }
    /* Fraction digits, kept as a numerator over 10^frac_digits (at most 9 digits). */
    uint64_t frac = 0, frac_den = 1;
    if (i < len && s[i] == '.') {
        i++;
        size_t start = i;
        for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
            if (i - start >= 9) {
                snprintf(why, whylen, "'%.*s' has more than 9 decimals", (int)len, s);
                return false;
            }
            frac = frac * 10 + (uint64_t)(s[i] - '0');
            frac_den *= 10;
        }
        if (i == start) {
            snprintf(why, whylen, "'%.*s' has no digits after the decimal point", (int)len, s);
            return false;
        }
    }
    const char *unit = s + i;
    size_t unit_len = len - i;
    if (unit_len == 0) {
        snprintf(why, whylen, "'%.*s' needs a unit: ns, us, ms or s (only 0 may go without)",
                 (int)len, s);
        return false;
    }
    for (size_t u = 0; u < sizeof units / sizeof units[0]; u++) {
        if (strlen(units[u].name) != unit_len || memcmp(unit, units[u].name, unit_len) != 0)
            continue;
        uint64_t scale = units[u].ns;
        if (whole > GAP_MAX_NS / scale) {
            snprintf(why, whylen, "'%.*s' is longer than the maximum gap of %llu s", (int)len,
                     s, (unsigned long long)(GAP_MAX_NS / 1000000000ull));
            return false;
        }
        /* frac < frac_den <= 10^9 and scale <= 10^9: the product fits in 64 bits. */
        if (frac * scale % frac_den != 0) {
            snprintf(why, whylen, "'%.*s' is not a whole number of nanoseconds", (int)len, s);
            return false;
        }
        uint64_t ns = whole * scale + frac * scale / frac_den;
        if (ns > GAP_MAX_NS) {
            snprintf(why, whylen, "'%.*s' is longer than the maximum gap of %llu s", (int)len,
                     s, (unsigned long long)(GAP_MAX_NS / 1000000000ull));
            return false;
        }
        *out = ns;
        return true;
    }
    snprintf(why, whylen, "'%.*s': unknown unit '%.*s' (ns, us, ms or s)", (int)len, s,
             (int)unit_len, unit);
    return false;
}

static bool parse_reads(const char *s, size_t len, uint32_t *out, char *why, size_t whylen)
{
    uint64_t v = 0;
    size_t i = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++) {
        v = v * 10 + (uint64_t)(s[i] - '0');
        if (v > GAP_READS_MAX)
            break;
    }
    if (len == 0 || i < len || v < 1 || v > GAP_READS_MAX) {
        snprintf(why, whylen, "read count '%.*s' is not a number from 1 to %u", (int)len, s,
                 GAP_READS_MAX);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

/* One item DURATION[:READS] in s[0..len). */
static bool parse_item(const char *s, size_t len, struct gap_item *out, char *why, size_t whylen)
{
    if (len == 0) {
        snprintf(why, whylen, "empty item in the list");
        return false;
    }
    const char *colon = memchr(s, ':', len);
    size_t dur_len = colon ? (size_t)(colon - s) : len;
    if (!parse_duration(s, dur_len, &out->gap_ns, why, whylen))
        return false;
    out->reads = 0;
    if (!colon)
        return true;
    if (out->gap_ns == 0) {
        snprintf(why, whylen, "gap 0 is the hot loop: it takes no read count ('%.*s')", (int)len, s);
        return false;
    }
    return parse_reads(colon + 1, len - dur_len - 1, &out->reads, why, whylen);
}

bool gap_list_parse(const char *s, size_t len, struct gap_list *out, char *why, size_t whylen)
{
    out->count = 0;
    if (len == 0) {
        snprintf(why, whylen, "expected a list of gaps such as 0,1ms,20ms, got an empty string");
        return false;
    }
    size_t pos = 0;
    for (;;) {
        const char *comma = memchr(s + pos, ',', len - pos);
        size_t item_len = comma ? (size_t)(comma - (s + pos)) : len - pos;
        if (out->count == GAP_LIST_MAX) {
            snprintf(why, whylen, "more than %d gaps", GAP_LIST_MAX);
            return false;
        }
        struct gap_item it;
        if (!parse_item(s + pos, item_len, &it, why, whylen))
            return false;
        for (int k = 0; k < out->count; k++)
            if (out->item[k].gap_ns == it.gap_ns) {
                char g[32];
                gap_format(it.gap_ns, g, sizeof g);
                snprintf(why, whylen, "gap %s given twice", g);
                return false;
            }
        out->item[out->count++] = it;
        if (!comma)
            return true;
        pos += item_len + 1;
    }
}

uint32_t gap_default_reads(uint64_t gap_ns)
{
    if (gap_ns == 0)
        return 0;
    uint64_t fit = 10000000000ull / gap_ns;
    return fit > 200 ? 200 : fit < 10 ? 10 : (uint32_t)fit;
}

void gap_format(uint64_t gap_ns, char *buf, size_t len)
{
    if (gap_ns == 0)
        snprintf(buf, len, "0");
    else if (gap_ns % 1000000000ull == 0)
        snprintf(buf, len, "%llu s", (unsigned long long)(gap_ns / 1000000000ull));
    else if (gap_ns >= 1000000000ull)
        snprintf(buf, len, "%g s", (double)gap_ns / 1e9);
    else if (gap_ns >= 1000000)
        snprintf(buf, len, "%g ms", (double)gap_ns / 1e6);
    else if (gap_ns >= 1000)
        snprintf(buf, len, "%g \xc2\xb5s", (double)gap_ns / 1e3);
    else
        snprintf(buf, len, "%llu ns", (unsigned long long)gap_ns);
}
