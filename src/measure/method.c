#include "measure/method.h"

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

void method_unavailable(struct method *m, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m->why, sizeof m->why, fmt, ap);
    va_end(ap);
    m->available = false;
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
