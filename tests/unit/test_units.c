/* SPDX-License-Identifier: MIT */
/* One duration formatter (src/common/units.c), the same as the report's fmt_ns, and JSON
 * that carries its µ as a character, not as two Latin-1 escapes. */
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
        {NAN, "-"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char buf[FORMAT_NS_MAX];
        format_ns(rows[i].ns, buf, sizeof buf);
        CHECK(!strcmp(buf, rows[i].text));
    }
    CHECK(!strcmp(NS_TEXT(3721), "3.72 \xc2\xb5s"));
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
