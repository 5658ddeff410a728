/* SPDX-License-Identifier: MIT */
/* collect's JSON check (src/collect/json_check.c): what RFC 8259 accepts and rejects, the
 * schema it extracts, and an in-process mutation fuzz (no crash; a verdict every time). */
#include "check.h"
#include "collect/json_check.h"

#include <stdlib.h>

static bool ok(const char *text)
{
    char schema[64], why[200];
    return json_check(text, strlen(text), schema, sizeof schema, why, sizeof why);
}

TEST(json_check_accepts_valid_documents)
{
    CHECK(ok("{}"));
    CHECK(ok("  [ ]\n"));
    CHECK(ok("0"));
    CHECK(ok("-0.5e+10"));
    CHECK(ok("\"a\\u00e9\\n\\\"\""));
    CHECK(ok("{\"a\": [true, false, null, 1, -2.25, \"x\"], \"b\": {\"c\": {}}}"));
    CHECK(ok("\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\""));       /* é € 😀 as UTF-8 */
}

TEST(json_check_rejects_what_is_not_json)
{
    static const char *const bad[] = {
        "", "   ", "{", "}", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{a:1}", "01", "1.", ".5",
        "-", "1e", "+1", "NaN", "Infinity", "tru", "nul", "'x'", "\"abc", "\"a\\x\"",
        "\"\\u12G4\"", "\"tab\there\"", "{} {}", "[1] x", "\"\xff\"", "\"\xc0\xaf\"",
        "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "[\"a\"", "{\"a\":}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (ok(bad[i])) {
            fprintf(stderr, "  accepted: '%s'\n", bad[i]);
            CHECK(!"a bad document was accepted");
        }
    }
    /* an embedded NUL is a control character inside a string */
    char why[200];
    CHECK(!json_check("\"a\0b\"", 5, NULL, 0, why, sizeof why));
    CHECK(strstr(why, "control character") != NULL);
}

TEST(json_check_names_the_offset_and_depth)
{
    char why[200];
    CHECK(!json_check("{\"a\": x}", 8, NULL, 0, why, sizeof why));
    CHECK(strstr(why, "at byte 6") != NULL);
    char deep[200] = "";
    for (int i = 0; i < JSON_CHECK_MAX_DEPTH; i++)
        strcat(deep, "[");
    for (int i = 0; i < JSON_CHECK_MAX_DEPTH; i++)
        strcat(deep, "]");
    CHECK(json_check(deep, strlen(deep), NULL, 0, why, sizeof why));
    char deeper[200];
    snprintf(deeper, sizeof deeper, "[%s]", deep);
    CHECK(!json_check(deeper, strlen(deeper), NULL, 0, why, sizeof why));
    CHECK(strstr(why, "deeply") != NULL);
}

TEST(json_check_extracts_the_top_level_schema)
{
    char schema[64], why[200];
    const char *doc = "{\"x\": {\"schema\": \"inner\"}, \"schema\": \"clockscope.bench/1\"}";
    CHECK(json_check(doc, strlen(doc), schema, sizeof schema, why, sizeof why));
    CHECK(strcmp(schema, "clockscope.bench/1") == 0);
    doc = "{\"x\": {\"schema\": \"inner\"}}";
    CHECK(json_check(doc, strlen(doc), schema, sizeof schema, why, sizeof why));
    CHECK(schema[0] == '\0');                 /* only the top level counts */
    doc = "{\"schema\": 1}";
    CHECK(json_check(doc, strlen(doc), schema, sizeof schema, why, sizeof why));
    CHECK(schema[0] == '\0');                 /* not a string */
    doc = "{\"schema\": \"clockscope.x/1\", ";
    CHECK(!json_check(doc, strlen(doc), schema, sizeof schema, why, sizeof why));
    CHECK(schema[0] == '\0');                 /* nothing from a rejected document */
}

TEST(json_check_mutation_fuzz)
{
    const char *seed = "{\"schema\": \"clockscope.bench/1\", \"results\": [{\"id\": \"a.b\", "
                       "\"ns_per_call\": {\"median\": 33.5, \"p10\": -1e-3}, \"ok\": true, "
                       "\"why\": null, \"s\": \"\\u00e9\\\\\"}]}";
    uint64_t x = 7;
    int accepted = 0, rejected = 0;
    for (int i = 0; i < 20000; i++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", seed);
        for (int k = 0; k < 1 + i % 4; k++)
            check_mutate(buf, sizeof buf, "{}[]\":,.-+eE0189tfnu\\ \t\x01\xc3\xa9", &x);
        char schema[64], why[200];
        size_t n = strlen(buf);
        char *exact = malloc(n ? n : 1);      /* exact size: ASan sees an over-read */
        memcpy(exact, buf, n);
        why[0] = '\0';
        bool good = json_check(exact, n, schema, sizeof schema, why, sizeof why);
        free(exact);
        if (good) {
            accepted++;
            CHECK(strlen(schema) < sizeof schema);
        } else {
            rejected++;
            CHECK(strncmp(why, "not JSON: ", 10) == 0 || strncmp(why, "no output", 9) == 0);
        }
    }
    CHECK(accepted > 100 && rejected > 1000);
}
