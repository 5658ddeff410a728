/* SPDX-License-Identifier: MIT */
/* bench --gap LIST parsing (bench/gap_list.c): accepted forms, exact values, malformed
 * input, and in-process mutation (no crash, no out-of-range value ever accepted). */
#include "check.h"
#include "bench/gap_list.h"

#include <string.h>

static bool parse(const char *s, struct gap_list *g, char *why, size_t whylen)
{
    return gap_list_parse(s, strlen(s), g, why, whylen);
}

TEST(gap_list_parses_units_and_read_counts)
{
    struct gap_list g;
    char err[200];
    CHECK(parse("0,1ms,20ms,150ms,1s:30", &g, err, sizeof err));
    CHECK(g.count == 5);
    CHECK(g.item[0].gap_ns == 0 && g.item[0].reads == 0);
    CHECK(g.item[1].gap_ns == 1000000 && g.item[1].reads == 0);
    CHECK(g.item[2].gap_ns == 20000000);
    CHECK(g.item[3].gap_ns == 150000000);
    CHECK(g.item[4].gap_ns == 1000000000 && g.item[4].reads == 30);
    CHECK(parse("1ns,250us,1.5ms,0.25s,60s:1,7us:100000", &g, err, sizeof err));
    CHECK(g.count == 6);
    CHECK(g.item[0].gap_ns == 1 && g.item[1].gap_ns == 250000);
    CHECK(g.item[2].gap_ns == 1500000 && g.item[3].gap_ns == 250000000);
    CHECK(g.item[4].gap_ns == GAP_MAX_NS && g.item[4].reads == 1);
    CHECK(g.item[5].reads == GAP_READS_MAX);
    CHECK(parse("0.000000001s", &g, err, sizeof err) && g.item[0].gap_ns == 1);
    CHECK(parse("0", &g, err, sizeof err) && g.count == 1 && g.item[0].gap_ns == 0);
}

TEST(gap_list_rejects_malformed_input)
{
    struct gap_list g;
    char err[200];
    static const struct {
        const char *in, *needle;
    } bad[] = {
        {"", "empty string"},          {"1", "needs a unit"},
        {"10", "needs a unit"},        {"1m", "unknown unit"},
        {"1MS", "unknown unit"},       {"1 ms", "unknown unit"},
        {" 1ms", "start with a number"}, {"ms", "start with a number"},
        {"-1ms", "start with a number"}, {"+1ms", "start with a number"},
        {"1.ms", "no digits after"},    {".5ms", "start with a number"},
        {"1.5ns", "whole number"},      {"0.0000000001s", "more than 9 decimals"},
        {"61s", "longer than"},         {"60.000000001s", "longer than"},
        {"99999999999999999999999s", "longer than"}, {"1ms,1ms", "given twice"},
        {"1000us,1ms", "given twice"},  {"0,0", "given twice"},
        {"1ms,", "empty item"},         {",1ms", "empty item"},
        {"1ms,,2ms", "empty item"},     {"0:5", "hot loop"},
        {"1ms:", "read count"},         {"1ms:0", "read count"},
        {"1ms:100001", "read count"},   {"1ms:-1", "read count"},
        {"1ms:1x", "read count"},       {"1ms:1:2", "read count"},
        {"1ms:99999999999999999999", "read count"}, {"1s;2s", "unknown unit"},
        {"1,2,3", "needs a unit"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        bool ok = parse(bad[i].in, &g, err, sizeof err);
        if (ok || !strstr(err, bad[i].needle))
            fprintf(stderr, "  input '%s': ok=%d err='%s'\n", bad[i].in, ok, err);
        CHECK(!ok);
        CHECK(strstr(err, bad[i].needle));
    }
    /* More than GAP_LIST_MAX items. */
    char many[400] = "";
    for (int i = 1; i <= GAP_LIST_MAX + 1; i++)
        snprintf(many + strlen(many), sizeof many - strlen(many), "%s%dms", i > 1 ? "," : "", i);
    CHECK(!parse(many, &g, err, sizeof err) && strstr(err, "more than"));
}

TEST(gap_list_respects_the_length_not_the_terminator)
{
    struct gap_list g;
    char err[200];
    CHECK(gap_list_parse("1ms,20ms", 3, &g, err, sizeof err) && g.count == 1 &&
          g.item[0].gap_ns == 1000000);
    CHECK(!gap_list_parse("1ms,20ms", 4, &g, err, sizeof err)); /* "1ms," */
}

TEST(gap_list_default_reads_and_format)
{
    CHECK(gap_default_reads(1000000) == 200);
    CHECK(gap_default_reads(150000000) == 66);
    CHECK(gap_default_reads(1000000000) == 10);
    CHECK(gap_default_reads(GAP_MAX_NS) == 10);
    char b[32];
    gap_format(1000000, b, sizeof b);
    CHECK(strcmp(b, "1 ms") == 0);
    gap_format(1500000, b, sizeof b);
    CHECK(strcmp(b, "1.5 ms") == 0);
    gap_format(2000000000, b, sizeof b);
    CHECK(strcmp(b, "2 s") == 0);
    gap_format(250000, b, sizeof b);
    CHECK(strcmp(b, "250 \xc2\xb5s") == 0);
}

TEST(gap_list_survives_mutation)
{
    static const char *seeds[] = {"0,1ms,20ms,150ms,1s:30", "1.5ms:200,60s:1", "250us,7ns"};
    uint64_t x = 18;
    for (int round = 0; round < 20000; round++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", seeds[round % 3]);
        for (int k = 0; k <= round % 5; k++)
            check_mutate(buf, sizeof buf, "0123456789.,:nusm s-x", &x);
        struct gap_list g;
        char err[200] = "";
        if (!parse(buf, &g, err, sizeof err)) {
            CHECK(err[0]);
            continue;
        }
        CHECK(g.count >= 1 && g.count <= GAP_LIST_MAX);
        for (int i = 0; i < g.count; i++) {
            CHECK(g.item[i].gap_ns <= GAP_MAX_NS);
            CHECK(g.item[i].reads <= GAP_READS_MAX);
            CHECK(g.item[i].gap_ns || !g.item[i].reads);
            for (int k = 0; k < i; k++)
                CHECK(g.item[k].gap_ns != g.item[i].gap_ns);
        }
    }
}
