/* SPDX-License-Identifier: MIT */
/* Which methods `clockscope warp` takes by default, and which must never go backwards
 * (docs/warp.md, "Default methods" and "Exit status"). */
#include "warp/warp_run.h"

#include "common/cli.h"
#include "measure/clocks.h"

#include <math.h>
#include <string.h>
#include <time.h>

/* A method warp can test: it yields a timestamp in ns or ticks. */
static bool has_timestamp(const struct method *m)
{
    return m->read && (m->unit == UNIT_NS || m->unit == UNIT_TICKS);
}

bool warp_is_cputime(const struct method *m)
{
    const struct clock_info *ci = m->clock ? clock_by_id(m->clock_id) : NULL;
    return ci && ci->cputime;
}

static bool is_realtime_based(const struct method *m)
{
    if (!m->clock)
        return strcmp(m->api, "gettimeofday") == 0;
    return m->clock_id == CLOCK_REALTIME || m->clock_id == CLOCK_REALTIME_COARSE ||
           strcmp(m->clock, "tai") == 0;
}

bool warp_selected(const struct warp_options *o, const struct method *m)
{
    if (!has_timestamp(m))
        return false;
    if (o->npatterns)
        return cli_matches_any(o->patterns, o->npatterns, m->id);
    /* The default keeps within a 5 s budget: the vDSO and syscall paths read the same
     * clocksource as libc's, so one clock of each is enough to see their path. */
    if (strcmp(m->path, "vdso") == 0 || strcmp(m->path, "syscall") == 0)
        return m->clock && m->clock_id == CLOCK_MONOTONIC && strcmp(m->api, "clock_gettime") == 0;
    if (strcmp(m->path, "libc") == 0)
        return !warp_is_cputime(m);
    return true; /* counter.*, and any provider added later (fastclock) */
}

/* A per-thread clock has no common timeline across threads: nothing to compare. */
bool warp_per_thread_clock(const struct method *m)
{
    return m->clock && m->clock_id == CLOCK_THREAD_CPUTIME_ID;
}

/* Unordered counter reads may legitimately run ahead of the sequence load (docs/warp.md):
 * their warps are shown, not judged.  CPU-time clocks sum per-thread runtimes updated lazily, so reads on two
 * CPUs need not be ordered either. */
bool warp_must_be_monotonic(const struct method *m, bool realtime_stepped)
{
    if (m->unit == UNIT_TICKS)
        return m->ordered;
    if (warp_is_cputime(m))
        return false;
    return !(realtime_stepped && is_realtime_based(m));
}

double warp_ns_per_unit(const struct warp_run *r, const struct method *m)
{
    if (m->unit == UNIT_NS)
        return 1;
    for (size_t i = 0; i < r->nrates; i++)
        if (r->rates[i].m == m && r->rates[i].rate_ok)
            return 1e9 / r->rates[i].rate.hz;
    return NAN;
}
