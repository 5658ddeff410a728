/* SPDX-License-Identifier: MIT */
/* Argument parsing, CPU lists, statistics, the JSON writer and subprocess output tails. */
#include "check.h"
#include "common/cli.h"
#include "common/cpuset.h"
#include "common/json_cost.h"
#include "common/stats.h"
#include "common/subprocess.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

TEST(parse_u64_accepts_range_and_rejects_garbage)
{
    char err[128];
    uint64_t v;
    CHECK(parse_u64("5", 1, 10, &v, err, sizeof err) && v == 5);
    CHECK(!parse_u64("0", 1, 10, &v, err, sizeof err));
    CHECK(!parse_u64("11", 1, 10, &v, err, sizeof err));
    CHECK(!parse_u64("", 1, 10, &v, err, sizeof err));
    CHECK(!parse_u64("-1", 0, 10, &v, err, sizeof err));
    CHECK(!parse_u64("3x", 0, 10, &v, err, sizeof err));
    CHECK(!parse_u64(" 3", 0, 10, &v, err, sizeof err));
    CHECK(!parse_u64("99999999999999999999999", 0, UINT64_MAX, &v, err, sizeof err));
    CHECK(strstr(err, "too large"));
}

TEST(parse_seconds_checks_form_and_range)
{
    char err[128];
    double v;
    CHECK(parse_seconds("0.5", 0.1, 10, &v, err, sizeof err) && v == 0.5);
    CHECK(!parse_seconds("nan", 0.1, 10, &v, err, sizeof err));
    CHECK(!parse_seconds("1e3", 0.1, 10000, &v, err, sizeof err));
    CHECK(!parse_seconds("0", 0.1, 10, &v, err, sizeof err));
    CHECK(!parse_seconds("1.2.3", 0.1, 10, &v, err, sizeof err));
}

TEST(cpu_list_parses_ranges_and_rejects_unknown_cpus)
{
    struct cpu_list allowed = {.count = 4, .cpu = {0, 1, 2, 3}}, out;
    char err[160];
    CHECK(cpuset_parse_list("0,2-3", &allowed, &out, err, sizeof err));
    CHECK(out.count == 3 && out.cpu[0] == 0 && out.cpu[1] == 2 && out.cpu[2] == 3);
    CHECK(cpuset_parse_list("1,1", &allowed, &out, err, sizeof err) && out.count == 1);
    CHECK(!cpuset_parse_list("3-1", &allowed, &out, err, sizeof err));
    CHECK(!cpuset_parse_list("0,", &allowed, &out, err, sizeof err));
    CHECK(!cpuset_parse_list("a", &allowed, &out, err, sizeof err));
    CHECK(!cpuset_parse_list("", &allowed, &out, err, sizeof err));
    CHECK(!cpuset_parse_list("-", &allowed, &out, err, sizeof err));
    CHECK(!cpuset_parse_list("99999", &allowed, &out, err, sizeof err));
    CHECK(strstr(err, "does not exist"));
}

TEST(summary_quantiles)
{
    double v[] = {5, 1, 4, 2, 3};
    struct summary s;
    stats_summarize(v, 5, &s);
    CHECK(s.min == 1 && s.max == 5 && s.median == 3 && s.mean == 3);
    CHECK(fabs(s.p10 - 1.4) < 1e-9 && fabs(s.p90 - 4.6) < 1e-9);
    CHECK(fabs(s.spread - (4.6 - 1.4) / 3) < 1e-9);
    stats_summarize(v, 0, &s);
    CHECK(isnan(s.median));
}

/* A compact JSON document written to *buf, its top object begun. */
static FILE *json_to_memory(struct json *j, char **buf, size_t *len)
{
    *buf = NULL;
    FILE *f = open_memstream(buf, len);
    json_init(j, f, 0);
    json_begin_object(j);
    return f;
}

TEST(json_escapes_and_nests)
{
    char *buf;
    size_t len;
    struct json j;
    FILE *f = json_to_memory(&j, &buf, &len);
    json_kv_string(&j, "s", "a\"b\\c\n\x01\xff");
    json_key(&j, "a");
    json_begin_array(&j);
    json_int(&j, -1);
    json_double(&j, NAN);
    json_string(&j, NULL);
    json_end_array(&j);
    json_key(&j, "e");
    json_begin_object(&j);
    json_end_object(&j);
    json_end_object(&j);
    fclose(f);
    CHECK(strcmp(buf, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\\u00ff\",\"a\":[-1,null,null],\"e\":{}}") == 0);
    free(buf);
}

/* One shape for every cost: the seven fields always there (null when not known), the
 * samples ascending and thinned to JSON_COST_SAMPLES, the ends kept. */
TEST(json_cost_writes_every_field_and_thins_the_samples)
{
    char *buf;
    size_t len;
    struct json j;
    FILE *f = json_to_memory(&j, &buf, &len);
    json_cost_median(&j, "a", 2.5);
    struct summary s;
    double v[] = {3, 1, 2};
    double keep[] = {3, 1, 2};
    stats_summarize(v, 3, &s);
    json_cost(&j, "b", &s, keep, 3);
    json_end_object(&j);
    fclose(f);
    CHECK(strcmp(buf, "{\"a\":{\"median\":2.5,\"p10\":null,\"p90\":null,\"p99\":null,"
                      "\"min\":null,\"max\":null,\"mean\":null},\"b\":{\"median\":2,"
                      "\"p10\":1.2,\"p90\":2.8,\"p99\":2.98,\"min\":1,\"max\":3,\"mean\":2,"
                      "\"samples\":[1,2,3]}}") == 0);
    free(buf);
    /* more samples than a document carries: JSON_COST_SAMPLES of them, first and last kept */
    enum { N = 1000 };
    static double many[N];
    for (int i = 0; i < N; i++)
        many[i] = N - i;
    f = json_to_memory(&j, &buf, &len);
    json_cost(&j, "c", &s, many, N);
    json_end_object(&j);
    fclose(f);
    size_t commas = 0;
    const char *at = strstr(buf, "\"samples\":[");
    CHECK(at && strncmp(at, "\"samples\":[1,", 12) == 0 && strstr(buf, ",1000]}"));
    for (const char *c = at; c && *c; c++)
        commas += *c == ',';
    CHECK(commas == JSON_COST_SAMPLES - 1);
    free(buf);
}

/* The console tail kept for clockscope vm's error reports. */
TEST(text_tail_keeps_the_last_bytes)
{
    char buf[8] = "";
    subprocess_tail_append(buf, sizeof buf, "abc", 3);
    CHECK(strcmp(buf, "abc") == 0);
    subprocess_tail_append(buf, sizeof buf, "defgh", 5);
    CHECK(strcmp(buf, "bcdefgh") == 0);
    subprocess_tail_append(buf, sizeof buf, "0123456789", 10);
    CHECK(strcmp(buf, "3456789") == 0);
    subprocess_tail_append(buf, sizeof buf, "", 0);
    CHECK(strcmp(buf, "3456789") == 0);
    subprocess_tail_append(buf, sizeof buf, "x", 1);
    CHECK(strcmp(buf, "456789x") == 0);
}
