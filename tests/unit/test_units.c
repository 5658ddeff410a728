/* SPDX-License-Identifier: MIT */
/* One formatter for durations, rates and counts (src/common/units.c), the same as the
 * report's units.py, and JSON that carries its µ as a character, not as two Latin-1 escapes. */
#include "check.h"
#include "common/json.h"
#include "common/units.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(durations_print_in_one_unit_scheme)
{
    static const struct {
        double ns;
        const char *text;
    } rows[] = {
        {4.561, "4.56 ns"},   {33.54, "33.5 ns"},         {245.4, "245 ns"},
        {999.4, "999 ns"},    {1000, "1.00 \xc2\xb5s"},   {12706.2, "12.71 \xc2\xb5s"},
        {1.2e6, "1.20 ms"},   {2.5e9, "2.50 s"},          {-15.25, "-15.2 ns"},
        {NAN, "-"},           {INFINITY, "-"},            {-INFINITY, "-"},
        {0, "0.00 ns"},       {9.996, "10.0 ns"},         {99.96, "100 ns"},
        {999.5, "1.00 \xc2\xb5s"}, {999.49, "999 ns"},     {999994, "999.99 \xc2\xb5s"},
        {999995.1, "1.00 ms"}, {1e6, "1.00 ms"},          {999996000, "1.00 s"},
        {1e9, "1.00 s"},      {3.6e12, "3600.00 s"},      {-2500, "-2.50 \xc2\xb5s"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char buf[FORMAT_NS_MAX];
        units_format_ns(rows[i].ns, buf, sizeof buf);
        CHECK(!strcmp(buf, rows[i].text));
    }
    CHECK(!strcmp(NS_TEXT(3721), "3.72 \xc2\xb5s"));
}

/* A table's ns column: the same digits as the summary line's duration, without the unit. */
TEST(a_tables_ns_number_has_the_durations_digits)
{
    static const struct {
        double ns;
        const char *text;
    } rows[] = {
        {4.4, "4.40"}, {33.54, "33.5"}, {245.4, "245"}, {9.996, "10.0"}, {12706.2, "12706"},
        {NAN, "-"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char buf[FORMAT_NS_MAX];
        CHECK(!strcmp(units_format_ns_number(rows[i].ns, buf, sizeof buf), rows[i].text));
        if (rows[i].ns < 1000 && isfinite(rows[i].ns)) {
            char with_unit[FORMAT_NS_MAX + 8];
            snprintf(with_unit, sizeof with_unit, "%s ns", buf);
            CHECK(!strcmp(NS_TEXT(rows[i].ns), with_unit));
        }
    }
}

TEST(rates_print_three_digits_and_an_si_prefix)
{
    static const struct {
        double r;
        const char *text;
    } rows[] = {
        {45.1e6, "45.1 M/s"}, {45.149e6, "45.1 M/s"}, {950, "950 /s"},   {12.5, "12.5 /s"},
        {999.5, "1.00 k/s"},  {1000, "1.00 k/s"},     {1e6, "1.00 M/s"}, {999.6e3, "1.00 M/s"},
        {2.05e9, "2.05 G/s"}, {681.7e6, "682 M/s"},   {0, "0.00 /s"},    {-3.2e3, "-3.20 k/s"},
        {NAN, "-"},           {INFINITY, "-"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK(!strcmp(RATE_TEXT(rows[i].r), rows[i].text));
}

TEST(counts_are_whole_below_1000_then_three_digits)
{
    static const struct {
        double n;
        const char *text;
    } rows[] = {
        {0, "0"},          {7, "7"},           {999, "999"},      {999.5, "1.00 k"},
        {1000, "1.00 k"},  {78483, "78.5 k"},  {211000, "211 k"}, {999999, "1.00 M"},
        {1e7, "10.0 M"},   {-1500, "-1.50 k"}, {NAN, "-"},        {18446744073709551615.0, "18.4 E"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        CHECK(!strcmp(COUNT_TEXT(rows[i].n), rows[i].text));
}

TEST(a_cell_is_padded_by_columns_and_plurals_agree)
{
    CHECK(units_columns(10, "1.00 ms") == 10);
    CHECK(units_columns(10, "1.00 \xc2\xb5s") == 11);
    char buf[32];
    CHECK(!strcmp(units_plural(1, "client", buf, sizeof buf), "1 client"));
    CHECK(!strcmp(units_plural(0, "client", buf, sizeof buf), "0 clients"));
    CHECK(!strcmp(units_plural(2, "client", buf, sizeof buf), "2 clients"));
}

TEST(json_writes_utf8_as_characters_and_escapes_invalid_bytes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct json j;
    json_init(&j, f, 0);
    json_begin_array(&j);
    json_string(&j, "12.71 \xc2\xb5s");            /* U+00B5 */
    json_string(&j, "\xe2\x89\xa4 \xf0\x9f\x95\x92"); /* U+2264, U+1F552 (a surrogate pair) */
    json_string(&j, "\xc0\xaf\xed\xa0\x80\xb5\xc2");  /* overlong, a surrogate, stray bytes */
    json_end_array(&j);
    fclose(f);
    CHECK(!strcmp(buf, "[\"12.71 \\u00b5s\",\"\\u2264 \\ud83d\\udd52\","
                       "\"\\u00c0\\u00af\\u00ed\\u00a0\\u0080\\u00b5\\u00c2\"]"));
    free(buf);
}
