/* SPDX-License-Identifier: MIT */
/* vm --apply-fix's pieces that need no guest: the changed kernel command line, and reading
 * the doctor's JSON as a tree (src/vm/apply_fix.c, src/vm/json_tree.c). */
#include "check.h"
#include "vm/apply_fix.h"
#include "vm/fix_figures.h"
#include "common/json_read.h"

TEST(apply_fix_cmdline_removes_and_adds_whole_words)
{
    char out[256];
    const char *rm[] = {"clocksource=hpet"}, *add[] = {"clocksource=tsc", "tsc=reliable"};
    CHECK(apply_fix_cmdline("quiet clocksource=hpet clocksource=hpet2 x=1", rm, 1, add, 2, out,
                            sizeof out));
    CHECK(strcmp(out, "quiet clocksource=hpet2 x=1 clocksource=tsc tsc=reliable") == 0);
    /* A word already there is added once, at the end. */
    CHECK(apply_fix_cmdline("tsc=reliable a", NULL, 0, add + 1, 1, out, sizeof out));
    CHECK(strcmp(out, "a tsc=reliable") == 0);
    CHECK(apply_fix_cmdline(NULL, rm, 1, NULL, 0, out, sizeof out) && out[0] == 0);
    CHECK(apply_fix_cmdline("tsc=unstable", (const char *[]){"tsc=unstable"}, 1, NULL, 0, out,
                            sizeof out) && out[0] == 0);
    CHECK(!apply_fix_cmdline("aaaa", NULL, 0, add, 2, out, 8)); /* never cut short */
}

TEST(json_tree_reads_the_doctors_shapes)
{
    const char *text = "{\"schema\": \"clockscope.doctor/1\", \"verdict\": \"slow\", \"proof\": "
                       "{\"timings\": [{\"id\": \"a\", \"ns_per_call\": 1.5}, {\"id\": "
                       "\"libc\\u00e9\", \"ns_per_call\": -2e3}]}, \"actions\": [{\"kind\": "
                       "\"cmdline\", \"add\": [\"x\\\"y\"], \"reboot\": true, \"n\": null}]}";
    char why[200];
    struct json_node *root = json_tree_parse(text, strlen(text), why, sizeof why);
    CHECK(root != NULL);
    CHECK(strcmp(json_str(json_get(root, "verdict")), "slow") == 0);
    const struct json_node *t = json_get(json_get(root, "proof"), "timings");
    CHECK(json_len(t) == 2 && json_num(json_get(json_at(t, 0), "ns_per_call"), 0) == 1.5);
    CHECK(strcmp(json_str(json_get(json_at(t, 1), "id")), "libc\xc3\xa9") == 0);
    CHECK(json_num(json_get(json_at(t, 1), "ns_per_call"), 0) == -2000);
    const struct json_node *a = json_at(json_get(root, "actions"), 0);
    CHECK(strcmp(json_str(json_at(json_get(a, "add"), 0)), "x\"y") == 0);
    CHECK(json_get(a, "reboot")->boolean && json_get(a, "n")->type == JSON_NULL);
    /* Missing steps give NULL, never a crash. */
    CHECK(!json_get(json_get(root, "nope"), "x") && !json_at(NULL, 3) && json_len(root) == 0);
    CHECK(json_num(json_get(root, "verdict"), 7) == 7 && !json_str(json_get(root, "proof")));
    json_tree_free(root);
    CHECK(!json_tree_parse("{\"a\": }", 7, why, sizeof why) && why[0]);
    CHECK(!json_tree_parse("", 0, why, sizeof why));
}

/* The doctor's libc clock_gettime cost: the median of doctor/2's cost object, or doctor/1's
 * number. */
TEST(fix_figures_read_both_doctor_schemas)
{
    static const char *const docs[] = {
        "{\"schema\": \"clockscope.doctor/2\", \"verdict\": \"ok\", \"proof\": {\"timings\": "
        "[{\"id\": \"libc.clock_gettime.monotonic\", \"ns_per_call\": {\"median\": 21.5, "
        "\"p10\": 20, \"p90\": 23, \"p99\": null, \"min\": 19, \"max\": 30, \"mean\": 22}}]}}",
        "{\"schema\": \"clockscope.doctor/1\", \"verdict\": \"ok\", \"proof\": {\"timings\": "
        "[{\"id\": \"libc.clock_gettime.monotonic\", \"ns_per_call\": 21.5}]}}",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        struct json_node *root;
        struct fix_figures f;
        CHECK(fix_figures_read(docs[i], strlen(docs[i]), &root, &f));
        CHECK(f.have && f.ns_per_call == 21.5 && strcmp(f.verdict, "ok") == 0);
        json_tree_free(root);
    }
    /* no timing: not measured */
    const char *none = "{\"schema\": \"clockscope.doctor/2\", \"verdict\": \"ok\"}";
    struct json_node *root;
    struct fix_figures f;
    CHECK(fix_figures_read(none, strlen(none), &root, &f) && f.ns_per_call < 0);
    json_tree_free(root);
}

/* A run action's missing "after" says what the command did: a command `run` could not
 * find, not a static program "which run cannot serve" (run serves static programs). */
TEST(apply_fix_run_after_why_says_what_the_command_did)
{
    char why[240];
    apply_fix_run_after_why(127, "doctor", why, sizeof why);
    CHECK(strstr(why, "found no command `doctor`") && strstr(why, "--add") && !strstr(why, "static"));
    apply_fix_run_after_why(126, "/x/prog", why, sizeof why);
    CHECK(strstr(why, "could not execute `/x/prog`") && strstr(why, "126"));
    apply_fix_run_after_why(0, "clockloop", why, sizeof why);
    CHECK(strstr(why, "changes only the program it wraps") && strstr(why, "`clockloop`, exit 0"));
}
