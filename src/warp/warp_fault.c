/* SPDX-License-Identifier: MIT */
/* Fault injection for `clockscope warp` (warp_fault.h, docs/warp.md "Fault injection").
 *
 * Each method is wrapped: its read goes to fault_read with a context holding the real
 * read.  stall and jump are monotonic functions of the true value (clamp, add a step past
 * a threshold), so they can never create a backward step of their own, whatever the
 * threads' interleaving: only behind and back do, and only where the spec says. */
#include "warp/warp_fault.h"

#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fault_ctx {
    struct warp_fault f;
    size_t index;               /* in contexts[] */
    method_read_fn read;
    const void *ctx;
    atomic_uint_fast64_t first; /* the method's first read (+1; 0: none yet) */
};

static struct fault_ctx contexts[METHODS_MAX];
/* back counts each method's reads per thread: every EVERY-th read of one thread, exactly. */
static _Thread_local uint64_t reads_on_this_thread[METHODS_MAX];

/* The true value of the first read of this method, latched once for every thread. */
static uint64_t first_read(struct fault_ctx *fc, uint64_t v)
{
    uint_fast64_t expected = 0;
    if (atomic_compare_exchange_strong(&fc->first, &expected, (uint_fast64_t)v + 1))
        return v;
    return (uint64_t)expected - 1;
}

static uint64_t fault_read(const void *ctx)
{
    struct fault_ctx *fc = (struct fault_ctx *)ctx;
    uint64_t v = fc->read(fc->ctx);
    switch (fc->f.kind) {
    case WARP_FAULT_BEHIND:
        return sched_getcpu() == fc->f.cpu ? v - fc->f.amount : v;
    case WARP_FAULT_BACK:
        return ++reads_on_this_thread[fc->index] % fc->f.every == 0 ? v - fc->f.amount : v;
    case WARP_FAULT_STALL: {
        uint64_t stop = first_read(fc, v) + fc->f.after;
        return v < stop ? v : stop;
    }
    case WARP_FAULT_JUMP:
        return v >= first_read(fc, v) + fc->f.after ? v + fc->f.amount : v;
    case WARP_FAULT_NONE:
        break;
    }
    return v;
}

/* A whole unsigned number in 1..max, the full field. */
static bool parse_u64(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v < 1 || v > max)
        return false;
    *out = v;
    return true;
}

bool warp_fault_parse(const char *spec, struct warp_fault *f, char *why, size_t whylen)
{
    memset(f, 0, sizeof *f);
    char buf[128];
    if (strlen(spec) >= sizeof buf) {
        snprintf(why, whylen, "too long");
        return false;
    }
    snprintf(buf, sizeof buf, "%s", spec);
    char *fields[4] = {0};
    int n = 0;
    for (char *p = buf, *save = NULL; n < 4 && (p = strtok_r(p, ":", &save)); p = NULL)
        fields[n++] = p;
    const uint64_t big = UINT64_C(1) << 62;
    uint64_t cpu = 0;
    bool ok = false;
    if (n == 3 && strcmp(fields[0], "behind") == 0) {
        f->kind = WARP_FAULT_BEHIND;
        ok = (strcmp(fields[1], "0") == 0 || parse_u64(fields[1], 1 << 20, &cpu)) &&
             parse_u64(fields[2], big, &f->amount);
        f->cpu = (int)cpu;
    } else if (n == 3 && strcmp(fields[0], "back") == 0) {
        f->kind = WARP_FAULT_BACK;
        ok = parse_u64(fields[1], big, &f->amount) && parse_u64(fields[2], big, &f->every);
    } else if (n == 2 && strcmp(fields[0], "stall") == 0) {
        f->kind = WARP_FAULT_STALL;
        ok = parse_u64(fields[1], big, &f->after);
    } else if (n == 3 && strcmp(fields[0], "jump") == 0) {
        f->kind = WARP_FAULT_JUMP;
        ok = parse_u64(fields[1], big, &f->amount) && parse_u64(fields[2], big, &f->after);
    }
    if (!ok) {
        snprintf(why, whylen, "'%s' is not behind:CPU:N, back:N:EVERY, stall:AFTER or "
                 "jump:N:AFTER (whole numbers, N, EVERY and AFTER at least 1)", spec);
        f->kind = WARP_FAULT_NONE;
    }
    return ok;
}

void warp_fault_apply(const struct warp_fault *f, struct method_list *ml)
{
    for (size_t i = 0; i < ml->count && i < METHODS_MAX; i++) {
        struct method *m = &ml->m[i];
        if (!m->read)
            continue;
        struct fault_ctx *fc = &contexts[i];
        fc->f = *f;
        fc->index = i;
        fc->read = m->read;
        fc->ctx = m->ctx;
        atomic_store(&fc->first, 0);
        m->read = fault_read;
        m->ctx = fc;
    }
}
