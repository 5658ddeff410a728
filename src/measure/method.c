/* SPDX-License-Identifier: MIT */
#include "measure/method.h"

#include "measure/clocks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct method *method_add(struct method_list *list, const char *path, const char *api,
                          const char *clock)
{
    if (list->count >= METHODS_MAX)
        return NULL;
    struct method *m = &list->m[list->count++];
    memset(m, 0, sizeof *m);
    m->path = path;
    m->api = api;
    m->clock = clock;
    m->available = true;
    m->unit = UNIT_NONE;
    if (clock)
        snprintf(m->id, sizeof m->id, "%s.%s.%s", path, api, clock);
    else
        snprintf(m->id, sizeof m->id, "%s.%s", path, api);
    return m;
}

struct method *method_add_spec(struct method_list *list, const char *path,
                               const struct method_spec *spec)
{
    struct method *m = method_add(list, path, spec->api, spec->clock);
    if (m) {
        m->clock_id = spec->clock_id;
        m->description = spec->description;
        m->batch = spec->batch;
        m->read = spec->read;
        m->unit = spec->unit;
    }
    return m;
}

void method_unavailable(struct method *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why, sizeof m->why, fmt, ap);
    va_end(ap);
    m->available = false;
}

void methods_add_per_clock(struct method_list *list, const char *path, const char *api,
                           const char *description, method_batch_fn batch, method_read_fn read,
                           const char *path_unavailable)
{
    const struct clock_info *clocks;
    size_t n = clocks_all(&clocks);
    for (size_t i = 0; i < n; i++) {
        struct method *m = method_add(list, path, api, clocks[i].name);
        if (!m)
            return;
        m->clock_id = clocks[i].id;
        m->description = description;
        m->batch = batch;
        m->read = read;
        m->unit = UNIT_NS;
        m->ctx = &clocks[i];
        if (path_unavailable)
            method_unavailable(m, "%s", path_unavailable);
        else if (!clock_supported(clocks[i].id))
            method_unavailable(m, "the kernel does not support %s", clocks[i].macro);
    }
}

void methods_collect(struct method_list *list)
{
    list->count = 0;
    methods_add_ref(list);
    methods_add_libc(list);
    methods_add_vdso(list);
    methods_add_syscall(list);
    methods_add_counter(list);
    methods_add_fastclock(list);
}

const struct method *methods_find(const struct method_list *list, const char *id)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->m[i].id, id) == 0)
            return &list->m[i];
    return NULL;
}

const char *method_unit_name(enum method_unit u)
{
    switch (u) {
    case UNIT_NS: return "ns";
    case UNIT_TICKS: return "ticks";
    case UNIT_SECONDS: return "s";
    default: return NULL;
    }
}
