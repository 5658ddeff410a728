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
    CHECK(run_parse_mode("auto", &m, err, sizeof err) && strcmp(m.name, "auto") == 0);
    CHECK(run_parse_mode("fast", &m, err, sizeof err) && strcmp(m.name, "fast") == 0);
    CHECK(run_parse_mode("count", &m, err, sizeof err) && strcmp(m.name, "count") == 0);
    CHECK(run_parse_mode("coarse", &m, err, sizeof err) && strcmp(m.name, "coarse") == 0);
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
            CHECK(strcmp(m.name, "auto") == 0 || strcmp(m.name, "fast") == 0 ||
                  strcmp(m.name, "count") == 0 || (strcmp(m.name, "coarse") == 0 && m.coarse_mask));
        else
            CHECK(err[0]);
    }
}
