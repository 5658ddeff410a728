/* SPDX-License-Identifier: MIT */
/* What one `clockscope warp` run selected, measured and concluded: shared by the command
 * (warp_cmd.c), the policy (warp_policy.c) and the reports (warp_report.c). */
#ifndef CLOCKSCOPE_WARP_RUN_H
#define CLOCKSCOPE_WARP_RUN_H

#include "common/cpuset.h"
#include "common/message.h"
#include "facts/sysinfo.h"
#include "measure/method.h"
#include "warp/kernel_log.h"
#include "warp/warp_analysis.h"
#include "warp/warp_collect.h"
#include "warp/warp_rate.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_PATTERNS 32

struct warp_options {
    double seconds;
    bool json;
    bool progress;        /* --progress: say it on stderr even when it is not a terminal */
    bool quiet;           /* never say progress (metrics runs warp inside itself) */
    const char *cpus_arg; /* --cpus as given; cpus is what it names */
    struct cpu_list cpus;
    const char *patterns[MAX_PATTERNS];
    int npatterns;
};

struct rate_entry {
    const struct method *m;
    struct bracket start, end;
    bool have_start, have_end;
    struct counter_rate rate;
    bool rate_ok;
};

struct method_result {
    const struct method *m;
    bool ran, cross_ok;
    char error[MSG_LINE];
    struct warp_collected c;
    struct warp_summary s;
    struct resolution res;
    double getres_ns;        /* NaN when not a clock_* method */
    double ns_per_unit;      /* NaN when unknown (a counter whose rate failed) */
};

struct warp_run {
    struct warp_options *o;
    struct sysinfo si;
    struct method_result *results;
    size_t nresults;
    struct rate_entry *rates;
    size_t nrates;
    uint64_t stated_hz;
    char stated_source[120];
    struct kernel_tsc_claim kernel;
    struct clock_drift drift;
    double elapsed_s;
    int judged_backward, failures;
};

/* Policy (warp_policy.c): which methods a run takes, and which must never go backwards. */
bool warp_selected(const struct warp_options *o, const struct method *m);
bool warp_per_thread_clock(const struct method *m);
bool warp_is_cputime(const struct method *m);
bool warp_must_be_monotonic(const struct method *m, bool realtime_stepped);

/* ns per unit of the method's values (1 for ns; from the measured rate for ticks; NaN
 * when unknown). */
double warp_ns_per_unit(const struct warp_run *r, const struct method *m);

/* The run itself (warp_cmd.c): r->o, r->results and r->rates (ml->count entries each) set
 * by the caller; also called by `clockscope metrics` for its short warp. */
void warp_run_all(struct warp_run *r, struct method_list *ml);

/* Reports (warp_report.c). */
void warp_print_text(const struct warp_run *r, const struct method_list *ml);
void warp_print_json(const struct warp_run *r, const struct method_list *ml);

#endif
