/* SPDX-License-Identifier: MIT */
/* clockscope runtimes' probe-output parser (runtimes/probe_parse.c): good output of both
 * modes, every malformed form named with its line, and in-process mutation (no crash, and
 * nothing accepted that breaks a promise of probe_parse.h). */
#include "check.h"

#include "runtimes/probe_parse.h"

#include <stdlib.h>

static struct probe_output out; /* large: off the stack */

static const char good[] =
    "clockscope-probe 1 python cpython-3.11.7\n"
    "row time.time realtime libc gc.isenabled() 1000 51000,52000,50000 20000,21000,20500\n"
    "row ctypes.clock_gettime monotonic ffi-libc ctypes.strnlen(p,0) 10 9000,9100,9050 "
    "8000,8100,8050\n"
    "end 2\n";

static bool parse(const char *s, enum probe_mode mode, char *why, size_t whylen)
{
    return probe_parse(s, strlen(s), mode, "python", &out, why, whylen);
}

TEST(probe_parse_reads_a_timed_run)
{
    char err[200] = "";
    CHECK(parse(good, PROBE_TIMED, err, sizeof err));
    CHECK(strcmp(out.runtime, "python") == 0 && strcmp(out.version, "cpython-3.11.7") == 0);
    CHECK(out.nrows == 2);
    const struct probe_row *r = &out.rows[0];
    CHECK(strcmp(r->api, "time.time") == 0 && strcmp(r->clock, "realtime") == 0);
    CHECK(strcmp(r->via, "libc") == 0 && strcmp(r->harness, "gc.isenabled()") == 0);
    CHECK(r->iterations == 1000 && r->nsamples == 3 && r->line == 2);
    CHECK(r->timed_ns[0] == 51000 && r->timed_ns[2] == 50000 && r->harness_ns[1] == 21000);
    CHECK(strcmp(out.rows[1].harness, "ctypes.strnlen(p,0)") == 0 && out.rows[1].line == 3);
}

TEST(probe_parse_reads_a_reference)
{
    char err[200] = "";
    CHECK(parse("clockscope-probe 1 python 3\n"
                "row time.time realtime libc pass 1000 51000,52000,50000 5000,5100,5050\n"
                "ref time.time abs(-1) 2000 25000,26000,40000\n"
                "row time.monotonic monotonic libc pass 1000 51000,52000,50000 5000,5100,5050\n"
                "end 2\n", PROBE_TIMED, err, sizeof err));
    CHECK(out.nrows == 2);
    const struct probe_row *r = &out.rows[0];
    CHECK(r->has_ref && strcmp(r->ref, "abs(-1)") == 0 && r->ref_iterations == 2000);
    CHECK(r->ref_ns[0] == 25000 && r->ref_ns[2] == 40000);
    CHECK(!out.rows[1].has_ref); /* optional: a row without one */
    /* not a count run's line */
    CHECK(!parse("clockscope-probe 1 python 3\nmark a\nref a abs(-1) 1 1,2,3\nend 1\n",
                 PROBE_COUNT, err, sizeof err));
    CHECK(strcmp(err, "line 3: expected 'mark' or 'end'") == 0);
}

TEST(probe_parse_reads_a_count_run)
{
    char err[200] = "";
    CHECK(parse("clockscope-probe 1 python 3\nmark time.time\nmark time.monotonic\nend 2\n",
                PROBE_COUNT, err, sizeof err));
    CHECK(out.nrows == 2 && out.rows[1].line == 3 && strcmp(out.rows[1].api, "time.monotonic") == 0);
    /* a timed row is not a count run's line, nor the reverse */
    CHECK(!parse(good, PROBE_COUNT, err, sizeof err));
    CHECK(strcmp(err, "line 2: expected 'mark' or 'end'") == 0);
}

static const struct {
    const char *text, *err;
} bad[] = {
    {"", "line 0: no output"},
    {"hello\n", "line 1: not a clockscope probe's output (no 'clockscope-probe 1' header)"},
    {"clockscope-probe 2 python 3\nend 0\n", "line 1: protocol version 2, this clockscope reads 1"},
    {"clockscope-probe 1 go 1.2\nend 0\n", "line 1: the probe says runtime 'go', expected 'python'"},
    {"clockscope-probe 1 python\n", "line 1: the version missing"},
    {"clockscope-probe 1 python 3 extra\n", "line 1: unexpected text after the last field"},
    {"clockscope-probe 1 python 3\n", "line 1: no 'end' line (cut short?)"},
    {"clockscope-probe 1 python 3\nend 0\n", "line 2: no rows"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\n", "line 2: no 'end' line (cut short?)"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nend 2\n", "line 3: 'end 2' but 1 rows"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nend 1\nend 1\n",
     "line 4: text after the 'end' line"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nend 1", "line 3: the output ends "
                                                                   "without a newline (cut short?)"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3,4\nend 1\n",
     "line 2: 3 timed samples but 4 harness samples"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3,4 1,2,3\nend 1\n",
     "line 2: 4 timed samples but 3 harness samples"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2 1,2\nend 1\n",
     "line 2: the timed samples: 2 samples, at least 3 needed"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,,3 1,2,3\nend 1\n",
     "line 2: the timed samples is empty"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,0 1,2,3\nend 1\n",
     "line 2: the timed samples is below 1"},
    {"clockscope-probe 1 python 3\nrow a b c d 01 1,2,3 1,2,3\nend 1\n",
     "line 2: the iteration count has a leading zero"},
    {"clockscope-probe 1 python 3\nrow a b c d -1 1,2,3 1,2,3\nend 1\n",
     "line 2: the iteration count is not a whole number"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,99999999999999999999 1,2,3\nend 1\n",
     "line 2: the timed samples is too large"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1.5,2,3 1,2,3\nend 1\n",
     "line 2: the timed samples is not a whole number"},
    {"clockscope-probe 1 python 3\nrow a  b c d 1 1,2,3 1,2,3\nend 1\n",
     "line 2: the clock missing (two spaces, or a space at the start)"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3 \nend 1\n",
     "line 2: a space at the end of the line"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\r\nend 1\n", "line 2: a carriage return"},
    {"clockscope-probe 1 python 3\nrow a;rm b c d 1 1,2,3 1,2,3\nend 1\n",
     "line 2: the API has a byte outside [A-Za-z0-9._:()+,-] (0x3b)"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nrow a b c d 1 1,2,3 1,2,3\nend 2\n",
     "line 3: API 'a' given twice"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3 9\nend 1\n",
     "line 2: unexpected text after the last field"},
    {"clockscope-probe 1 python 3\nrow a b c d\nend 1\n", "line 2: the iteration count missing"},
    {"clockscope-probe 1 python 3\nRow a b c d 1 1,2,3 1,2,3\nend 1\n",
     "line 2: expected 'row', 'ref' or 'end'"},
    /* the reference: right after its row, the same API, as many samples */
    {"clockscope-probe 1 python 3\nref a abs(-1) 1 1,2,3\nend 0\n",
     "line 2: a 'ref' line that does not follow its row"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nrow e b c d 1 1,2,3 1,2,3\n"
     "ref a abs(-1) 1 1,2,3\nend 2\n", "line 4: a 'ref' line for 'a' after the row of 'e'"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nref a abs(-1) 1 1,2,3\n"
     "ref a abs(-1) 1 1,2,3\nend 1\n", "line 4: a 'ref' line that does not follow its row"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3,4 1,2,3,4\nref a abs(-1) 1 1,2,3\nend 1\n",
     "line 3: 4 timed samples but 3 reference samples"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nref a abs(-1) 0 1,2,3\nend 1\n",
     "line 3: the reference's iteration count is below 1"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nref a abs(-1) 1 1,2,0\nend 1\n",
     "line 3: the reference samples is below 1"},
    {"clockscope-probe 1 python 3\nrow a b c d 1 1,2,3 1,2,3\nref a abs(-1) 1 1,2,3 4\nend 1\n",
     "line 3: unexpected text after the last field"},
    {"Traceback (most recent call last):\n",
     "line 1: not a clockscope probe's output (no 'clockscope-probe 1' header)"},
};

TEST(probe_parse_names_each_malformed_form)
{
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char err[200] = "";
        if (parse(bad[i].text, PROBE_TIMED, err, sizeof err) || strcmp(err, bad[i].err) != 0) {
            fprintf(stderr, "  case %zu: got '%s', want '%s'\n", i, err, bad[i].err);
            CHECK(false);
        }
    }
}

TEST(probe_parse_refuses_nul_and_overlong_input)
{
    char err[200] = "";
    static const char nul[] = "clockscope-probe 1 python 3\nrow a\0 b\nend 1\n";
    CHECK(!probe_parse(nul, sizeof nul - 1, PROBE_TIMED, "python", &out, err, sizeof err));
    CHECK(strcmp(err, "line 2: a NUL byte") == 0);
    /* a token one byte too long, and a line over the limit */
    char big[PROBE_MAX_LINE + 200];
    snprintf(big, sizeof big, "clockscope-probe 1 python %0*d\nend 0\n", PROBE_TOKEN, 7);
    CHECK(!parse(big, PROBE_TIMED, err, sizeof err));
    CHECK(strcmp(err, "line 1: the version is longer than 63 bytes") == 0);
    int n = snprintf(big, sizeof big, "clockscope-probe 1 python 3\nrow ");
    memset(big + n, 'a', PROBE_MAX_LINE);
    snprintf(big + n + PROBE_MAX_LINE, sizeof big - (size_t)n - PROBE_MAX_LINE, "\nend 1\n");
    CHECK(!parse(big, PROBE_TIMED, err, sizeof err));
    CHECK(strcmp(err, "line 2: longer than 16384 bytes") == 0);
    /* more rows or samples than the limits */
    char many[8192];
    n = snprintf(many, sizeof many, "clockscope-probe 1 python 3\n");
    for (int i = 0; i <= PROBE_MAX_ROWS; i++)
        n += snprintf(many + n, sizeof many - (size_t)n, "row a%d b c d 1 1,2,3 1,2,3\n", i);
    snprintf(many + n, sizeof many - (size_t)n, "end %d\n", PROBE_MAX_ROWS + 1);
    CHECK(!parse(many, PROBE_TIMED, err, sizeof err));
    CHECK(strcmp(err, "line 34: more than 32 rows") == 0);
    n = snprintf(many, sizeof many, "clockscope-probe 1 python 3\nrow a b c d 1 ");
    for (int i = 0; i <= PROBE_MAX_SAMPLES; i++)
        n += snprintf(many + n, sizeof many - (size_t)n, "%s5", i ? "," : "");
    snprintf(many + n, sizeof many - (size_t)n, " 1,2,3\nend 1\n");
    CHECK(!parse(many, PROBE_TIMED, err, sizeof err));
    CHECK(strcmp(err, "line 2: the timed samples: more than 200 samples") == 0);
}

TEST(probe_parse_survives_mutation)
{
    uint64_t x = 14;
    for (int round = 0; round < 20000; round++) {
        char buf[512];
        snprintf(buf, sizeof buf, "%s", good);
        for (int k = 0; k <= round % 6; k++)
            check_mutate(buf, sizeof buf, "0123456789 ,\nrowendmark()-.x\r", &x);
        char err[200] = "";
        enum probe_mode mode = round % 2 ? PROBE_TIMED : PROBE_COUNT;
        if (!parse(buf, mode, err, sizeof err)) {
            CHECK(strncmp(err, "line ", 5) == 0);
            continue;
        }
        CHECK(out.nrows >= 1 && out.nrows <= PROBE_MAX_ROWS);
        for (int i = 0; i < out.nrows; i++) {
            const struct probe_row *r = &out.rows[i];
            CHECK(r->api[0] && strlen(r->api) < PROBE_TOKEN);
            if (mode == PROBE_TIMED) {
                CHECK(r->iterations >= 1);
                CHECK(r->nsamples >= PROBE_MIN_SAMPLES && r->nsamples <= PROBE_MAX_SAMPLES);
                for (int k = 0; k < r->nsamples; k++)
                    CHECK(r->timed_ns[k] >= 1 && r->harness_ns[k] >= 1);
            }
            for (int k = 0; k < i; k++)
                CHECK(strcmp(out.rows[k].api, r->api) != 0);
        }
    }
}
