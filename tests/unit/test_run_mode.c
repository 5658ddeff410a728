/* SPDX-License-Identifier: MIT */
/* `clockscope run --mode` parsing, with malformed and mutated inputs. */
#include "check.h"
#include "run/run_mode.h"

#include <string.h>
#include <stdint.h>
#include <time.h>

TEST(run_mode_accepts_the_modes)
{
    struct run_mode m;
    char err[160];
    CHECK(run_parse_mode("auto", &m, err, sizeof err) && m.kind == RUN_MODE_AUTO);
    CHECK(run_parse_mode("fast", &m, err, sizeof err) && m.kind == RUN_MODE_FAST);
    CHECK(run_parse_mode("count", &m, err, sizeof err) && m.kind == RUN_MODE_COUNT);
    CHECK(run_parse_mode("coarse", &m, err, sizeof err) && m.kind == RUN_MODE_COARSE);
    CHECK(m.coarse_mask == (1u << CLOCK_REALTIME | 1u << CLOCK_MONOTONIC));
    CHECK(run_parse_mode("coarse=monotonic", &m, err, sizeof err));
    CHECK(m.coarse_mask == 1u << CLOCK_MONOTONIC);
    CHECK(run_parse_mode("coarse=CLOCK_REALTIME,Monotonic", &m, err, sizeof err));
    CHECK(m.coarse_mask == (1u << CLOCK_REALTIME | 1u << CLOCK_MONOTONIC));
}

TEST(run_mode_rejects_malformed_input)
{
    struct run_mode m;
    char err[160];
    static const char *bad[] = {"", "Auto", "fastest", "coarse=", "coarse=,", "coarse=realtime,",
                                "coarse=,monotonic", "coarse=boottime", "coarse=tai",
                                "coarse=nosuch", "coarsex", "coarse:realtime", "count ",
                                "coarse=realtime,,monotonic", "coarse=clock_", "coarse=CLOCK_"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = 0;
        CHECK(!run_parse_mode(bad[i], &m, err, sizeof err));
        CHECK(err[0]);
    }
    CHECK(!run_parse_mode("coarse=boottime", &m, err, sizeof err) && strstr(err, "no _COARSE twin"));
    CHECK(!run_parse_mode("coarse=bogus", &m, err, sizeof err) && strstr(err, "unknown clock"));
}

/* In-process mutation fuzzing (run under ASan in the SAN build): random edits of valid
 * inputs must parse or fail cleanly, and a success must name a known mode. */
TEST(run_mode_survives_mutations)
{
    static const char *seeds[] = {"coarse=realtime,monotonic", "auto", "coarse=CLOCK_MONOTONIC"};
    static const char alphabet[] = "acemnorstuilCLOK_=,\xff\x01 ";
    uint64_t x = 12345;
    for (int i = 0; i < 20000; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "%s", seeds[i % 3]);
        int edits = 1 + i % 4;
        for (int e = 0; e < edits; e++)
            check_mutate(buf, sizeof buf, alphabet, &x);
        struct run_mode m;
        char err[160];
        if (run_parse_mode(buf, &m, err, sizeof err))
            CHECK(m.kind == RUN_MODE_AUTO || m.kind == RUN_MODE_FAST ||
                  m.kind == RUN_MODE_COUNT || (m.kind == RUN_MODE_COARSE && m.coarse_mask));
        else
            CHECK(err[0]);
    }
}

/* A patched vDSO serves every mode but coarse; the refusal's short and long wordings. */
TEST(run_mode_vdso_refuses_only_coarse)
{
    struct run_mode m;
    char err[160], why[400] = "";
    static const char *served[] = {"auto", "fast", "count"};
    for (size_t i = 0; i < 3; i++) {
        CHECK(run_parse_mode(served[i], &m, err, sizeof err));
        CHECK(run_mode_vdso_servable(&m, true, why, sizeof why) && !why[0]);
    }
    CHECK(run_parse_mode("coarse=realtime", &m, err, sizeof err));
    CHECK(!run_mode_vdso_servable(&m, false, why, sizeof why));
    CHECK(strcmp(why, "--mode coarse is not offered through the vDSO") == 0);
    CHECK(!run_mode_vdso_servable(&m, true, why, sizeof why));
    CHECK(strcmp(why, "--mode coarse is not offered through the vDSO: the reader cannot reach "
                      "the kernel's coarse clock, and fastclock's line without a counter read "
                      "can be staler than it (docs/run.md); --mode fast costs about the vDSO's "
                      "own read") == 0);
}
