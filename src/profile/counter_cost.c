/* SPDX-License-Identifier: MIT */
/* The counter-read cost for profile's notes (counter_cost.h): bench's own counter methods
 * (measure/methods_counter.c) through its engine, so the figure is the one `clockscope
 * bench --only 'counter.*'` prints. */
#include "profile/counter_cost.h"

#include "common/cpuset.h"
#include "measure/engine.h"
#include "measure/method.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>

bool profile_counter_cost(char *id, size_t idlen, double *ns)
{
    static struct method_list list; /* large: not on the stack */
    static struct measurement r;
    list.count = 0;
    methods_add_counter(&list);
    struct measure_config cfg;
    measure_config_quick(&cfg);
    /* The engine wants the thread pinned; the affinity is given back afterwards. */
    cpu_set_t saved;
    int cpu = sched_getcpu();
    if (cpu < 0 || sched_getaffinity(0, sizeof saved, &saved) != 0 || !cpuset_pin(cpu))
        return false;
    double best = INFINITY;
    for (size_t i = 0; i < list.count; i++) {
        const struct method *m = &list.m[i];
        if (!m->available || !measure_method(m, &cfg, &cpu, 1, &r) || !r.ok)
            continue;
        if (r.ns_per_call.median < best) {
            best = r.ns_per_call.median;
            snprintf(id, idlen, "%s", m->id);
        }
    }
    sched_setaffinity(0, sizeof saved, &saved);
    if (!isfinite(best))
        return false;
    *ns = best;
    return true;
}
