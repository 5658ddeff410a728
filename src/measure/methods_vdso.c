/* SPDX-License-Identifier: MIT */
/* vdso.*: the vDSO's own entry points, called directly, found by parsing its ELF symbol
 * table.  A gap between libc.X and vdso.X is libc's wrapper; a vdso.X as slow as
 * syscall.X means the vDSO itself fell back to the kernel. */
#include "measure/batch.h"
#include "common/clock_ns.h"
#include "measure/clocks.h"
#include "measure/method.h"
#include "vdso/vdso.h"
#include "vdso/vdso_names.h"

#include "arch/arch.h"

#include <stdio.h>

CALL_BATCH(clock_gettime_batch, clockid_t id = ((const struct clock_info *)ctx)->id;
           vdso_clock_gettime_fn fn = vdso_live()->clock_gettime; struct timespec ts,
           fn(id, &ts))
CALL_BATCH(gettimeofday_batch, vdso_gettimeofday_fn fn = vdso_live()->gettimeofday;
           struct timeval tv, fn(&tv, NULL))
CALL_BATCH(time_batch, vdso_time_fn fn = vdso_live()->time, KEEP(fn(NULL)))
CALL_BATCH(clock_getres_batch, vdso_clock_getres_fn fn = vdso_live()->clock_getres;
           struct timespec ts, fn(CLOCK_MONOTONIC, &ts))
CALL_BATCH(getcpu_batch, vdso_getcpu_fn fn = vdso_live()->getcpu; unsigned cpu,
           fn(&cpu, NULL, NULL))

static uint64_t clock_gettime_read(const void *ctx)
{
    struct timespec ts;
    vdso_live()->clock_gettime(((const struct clock_info *)ctx)->id, &ts);
    return clock_ns_of(&ts);
}

static uint64_t gettimeofday_read(const void *ctx)
{
    (void)ctx;
    struct timeval tv;
    vdso_live()->gettimeofday(&tv, NULL);
    return clock_ns_of_timeval(&tv);
}

static uint64_t time_read(const void *ctx)
{
    (void)ctx;
    return (uint64_t)vdso_live()->time(NULL);
}

/* Why a vDSO entry point cannot be called here, or NULL when it can. */
static const char *symbol_missing(const void *fn, const char *symbol)
{
    static char why[METHOD_WHY_MAX];
    const struct vdso_live *v = vdso_live();
    if (!v->present || !v->parsed)
        return v->why;
    if (!symbol)
        return "this arch's vDSO has no such entry";
    if (!fn) {
        snprintf(why, sizeof why, "the vDSO does not export %s@%s", symbol,
                 vdso_names_self()->version);
        return why;
    }
    return NULL;
}

/* Marks m unavailable when there is no vDSO or it lacks the symbol. */
static void need_symbol(struct method *m, const void *fn, const char *symbol)
{
    const char *why = symbol_missing(fn, symbol);
    if (why)
        method_unavailable(m, "%s", why);
}

void methods_add_vdso(struct method_list *list)
{
    const struct vdso_live *v = vdso_live();
    const struct vdso_symbol_names *names = vdso_names_self();
    methods_add_per_clock(list, "vdso", "clock_gettime", names->clock_gettime,
                          clock_gettime_batch, clock_gettime_read,
                          symbol_missing((const void *)v->clock_gettime, names->clock_gettime));
    /* Each method's description is its vDSO symbol, which it needs. */
    const struct {
        struct method_spec spec;
        const void *fn;
    } single[] = {
        {{"gettimeofday", NULL, 0, names->gettimeofday, gettimeofday_batch, gettimeofday_read,
          UNIT_NS}, (const void *)v->gettimeofday},
        {{"time", NULL, 0, names->time, time_batch, time_read, UNIT_SECONDS},
         (const void *)v->time},
        {{"clock_getres", "monotonic", CLOCK_MONOTONIC, names->clock_getres, clock_getres_batch,
          NULL, UNIT_NONE}, (const void *)v->clock_getres},
        {{"getcpu", NULL, 0, names->getcpu, getcpu_batch, NULL, UNIT_NONE},
         (const void *)v->getcpu},
    };
    for (size_t i = 0; i < sizeof single / sizeof single[0]; i++) {
        struct method *m = method_add_spec(list, "vdso", &single[i].spec);
        if (m)
            need_symbol(m, single[i].fn, single[i].spec.description);
    }
}
