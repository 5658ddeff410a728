/* SPDX-License-Identifier: MIT */
/* counter.*: the raw hardware counter under each ordering the arch offers. */
#include "measure/method.h"

#include "arch/arch.h"

static void counter_batch(uint64_t n, const void *ctx)
{
    ((const struct counter_method *)ctx)->batch(n);
}

static uint64_t counter_read(const void *ctx)
{
    return ((const struct counter_method *)ctx)->read();
}

void methods_add_counter(struct method_list *list)
{
    const struct counter_method *counters;
    size_t n = arch_counters(&counters);
    for (size_t i = 0; i < n; i++) {
        struct method *m = method_add(list, "counter", counters[i].name, NULL);
        if (!m)
            return;
        m->description = counters[i].description;
        m->batch = counter_batch;
        m->read = counter_read;
        m->unit = UNIT_TICKS;
        m->ordered = counters[i].ordered;
        m->ctx = &counters[i];
        char why[METHOD_WHY_MAX];
        if (!counters[i].permitted(why, sizeof why))
            method_unavailable(m, "%s", why);
    }
}
