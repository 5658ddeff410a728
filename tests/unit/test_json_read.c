/* SPDX-License-Identifier: MIT */
/* The JSON reader (src/common/json_read.c): what RFC 8259 accepts and rejects, the schema
 * json_check extracts, the tree json_tree_parse builds from the same parser, and an
 * in-process mutation fuzz (no crash; a verdict every time; the two uses agree). */
#include "check.h"
#include "common/json_read.h"

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
    for (int i = 0; i < JSON_READ_MAX_DEPTH; i++)
        strcat(deep, "[");
    for (int i = 0; i < JSON_READ_MAX_DEPTH; i++)
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
        char why_tree[200];
        struct json_node *tree = json_tree_parse(exact, n, why_tree, sizeof why_tree);
        CHECK(!tree == !good);
        if (!good)
            CHECK(strcmp(why, why_tree) == 0);
        json_tree_free(tree);
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

TEST(json_tree_unescapes_strings_and_reads_numbers)
{
    const char *doc = "{\"k\\u00e9y\": [\"a\\\"b\\\\c\\/\\b\\f\\n\\r\\t\", \"\\ud83d\\ude00\", "
                      "\"\\ud800x\", -1.5e3, 0, true, false, null, {}, []]}";
    char why[200] = "";
    struct json_node *t = json_tree_parse(doc, strlen(doc), why, sizeof why);
    CHECK(t != NULL);
    if (!t)
        return;
    const struct json_node *a = json_get(t, "k\xc3\xa9y");
    CHECK(json_len(a) == 10);
    CHECK(strcmp(json_str(json_at(a, 0)), "a\"b\\c/\b\f\n\r\t") == 0);
    CHECK(strcmp(json_str(json_at(a, 1)), "\xf0\x9f\x98\x80") == 0); /* a surrogate pair joined */
    CHECK(strcmp(json_str(json_at(a, 2)), "\xed\xa0\x80x") == 0);     /* a lone one as it is */
    CHECK(json_num(json_at(a, 3), 0) == -1500.0);
    CHECK(json_num(json_at(a, 4), 7) == 0.0);
    CHECK(json_at(a, 5)->type == JSON_BOOL && json_at(a, 5)->boolean);
    CHECK(json_at(a, 6)->type == JSON_BOOL && !json_at(a, 6)->boolean);
    CHECK(json_at(a, 7)->type == JSON_NULL);
    CHECK(json_at(a, 8)->type == JSON_OBJECT && !json_at(a, 8)->child);
    CHECK(json_at(a, 9)->type == JSON_ARRAY && json_len(json_at(a, 9)) == 0);
    CHECK(json_at(a, 10) == NULL && json_get(a, "x") == NULL && json_str(json_at(a, 3)) == NULL);
    json_tree_free(t);
}

TEST(json_tree_refuses_as_json_check_does_and_frees_what_it_built)
{
    /* Each fails after nodes were built: ASan's leak check sees any not freed. */
    const char *bad[] = {"{\"a\": [1, 2, {\"b\": \"c\"}], \"d\": x}", "[1, [2, [3]]] 4",
                         "{\"a\": \"b\"", "[\"\\u12\"]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char why[200] = "", why_check[200] = "";
        CHECK(json_tree_parse(bad[i], strlen(bad[i]), why, sizeof why) == NULL);
        CHECK(!json_check(bad[i], strlen(bad[i]), NULL, 0, why_check, sizeof why_check));
        CHECK(strcmp(why, why_check) == 0);
        CHECK(strncmp(why, "not JSON: ", 10) == 0);
    }
    /* A long number (more digits than the parser's small buffer). */
    char num[200];
    memset(num, '1', sizeof num - 1);
    num[sizeof num - 1] = 0;
    char why[200];
    struct json_node *t = json_tree_parse(num, strlen(num), why, sizeof why);
    CHECK(t && t->type == JSON_NUMBER && t->number > 1e198);
    json_tree_free(t);
}
