/* SPDX-License-Identifier: MIT */
#include "run/run_mode.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static bool parse_clock(const char *s, size_t n, unsigned *mask, char *why, size_t whylen)
{
    if (n > 6 && strncasecmp(s, "clock_", 6) == 0)
        s += 6, n -= 6;
    static const struct {
        const char *name;
        int id;
        bool has_twin;
    } known[] = {
        {"realtime", CLOCK_REALTIME, true},   {"monotonic", CLOCK_MONOTONIC, true},
        {"boottime", CLOCK_BOOTTIME, false},  {"monotonic_raw", CLOCK_MONOTONIC_RAW, false},
        {"tai", CLOCK_TAI, false},            {"process_cputime_id", CLOCK_PROCESS_CPUTIME_ID, false},
        {"thread_cputime_id", CLOCK_THREAD_CPUTIME_ID, false},
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        if (strlen(known[i].name) != n || strncasecmp(s, known[i].name, n) != 0)
            continue;
        if (!known[i].has_twin) {
            snprintf(why, whylen, "clock '%.*s' has no _COARSE twin (coarse takes realtime, "
                     "monotonic)", (int)n, s);
            return false;
        }
        *mask |= 1u << known[i].id;
        return true;
    }
    snprintf(why, whylen, "unknown clock '%.*s' (coarse takes realtime, monotonic)",
             (int)(n > 40 ? 40 : n), s);
    return false;
}

const char *run_mode_name(enum run_mode_kind kind)
{
    switch (kind) {
    case RUN_MODE_AUTO:
        return "auto";
    case RUN_MODE_FAST:
        return "fast";
    case RUN_MODE_COARSE:
        return "coarse";
    case RUN_MODE_COUNT:
        return "count";
    }
    return "auto";
}

bool run_mode_vdso_servable(const struct run_mode *mode, bool detail, char *why, size_t whylen)
{
    if (mode->kind != RUN_MODE_COARSE)
        return true;
    snprintf(why, whylen, "--mode coarse is not offered through the vDSO%s",
             detail ? ": the reader cannot reach the kernel's coarse clock, and fastclock's "
                      "line without a counter read can be staler than it (docs/run.md); "
                      "--mode fast costs about the vDSO's own read" : "");
    return false;
}

bool run_parse_mode(const char *arg, struct run_mode *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    static const enum run_mode_kind plain[] = {RUN_MODE_AUTO, RUN_MODE_FAST, RUN_MODE_COUNT};
    for (size_t i = 0; i < 3; i++)
        if (strcmp(arg, run_mode_name(plain[i])) == 0) {
            out->kind = plain[i];
            return true;
        }
    if (strncmp(arg, "coarse", 6) != 0 || (arg[6] != 0 && arg[6] != '=')) {
        snprintf(why, whylen, "'%.40s' is not one of auto, fast, coarse[=CLOCKS], count", arg);
        return false;
    }
    out->kind = RUN_MODE_COARSE;
    if (arg[6] == 0) {
        out->coarse_mask = 1u << CLOCK_REALTIME | 1u << CLOCK_MONOTONIC;
        return true;
    }
    const char *p = arg + 7;
    if (*p == 0) {
        snprintf(why, whylen, "coarse= needs a list of clocks (realtime, monotonic)");
        return false;
    }
    for (;;) {
        size_t n = strcspn(p, ",");
        if (n == 0) {
            snprintf(why, whylen, "empty clock name in '%.40s'", arg);
            return false;
        }
        if (!parse_clock(p, n, &out->coarse_mask, why, whylen))
            return false;
        if (p[n] == 0)
            return true;
        p += n + 1;
    }
}
