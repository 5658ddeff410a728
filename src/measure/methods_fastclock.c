/* SPDX-License-Identifier: MIT */
/* fastclock.*: libfastclock's calls (src/fastclock), linked into the binary. */
#include "measure/batch.h"
#include "measure/method.h"

#include "fastclock/fastclock.h"

#include <stdio.h>

CALL_BATCH(monotonic_batch, , uint64_t v = fastclock_monotonic_ns(); KEEP(v))
CALL_BATCH(realtime_batch, , uint64_t v = fastclock_realtime_ns(); KEEP(v))
CALL_BATCH(ticks_batch, , uint64_t v = fastclock_ticks(); KEEP(v))
CALL_BATCH(recent_call_batch, , uint64_t v = fastclock_recent_ns(); KEEP(v))
CALL_BATCH(recent_batch, , uint64_t v = fastclock_recent_ns_inline(); KEEP(v))

static uint64_t monotonic_read(const void *ctx) { (void)ctx; return fastclock_monotonic_ns(); }
static uint64_t realtime_read(const void *ctx) { (void)ctx; return fastclock_realtime_ns(); }
static uint64_t ticks_read(const void *ctx) { (void)ctx; return fastclock_ticks(); }
static uint64_t recent_call_read(const void *ctx) { (void)ctx; return fastclock_recent_ns(); }
static uint64_t recent_read(const void *ctx) { (void)ctx; return fastclock_recent_ns_inline(); }

static const struct {
    const char *api;
    const char *description;
    method_batch_fn batch;
    method_read_fn read;
    enum method_unit unit;
    bool ordered;
} fastclock_methods[] = {
    {"monotonic", "fastclock_monotonic_ns(): ordered counter read, CLOCK_MONOTONIC domain",
     monotonic_batch, monotonic_read, UNIT_NS, true},
    {"realtime", "fastclock_realtime_ns(): monotonic plus the CLOCK_REALTIME offset",
     realtime_batch, realtime_read, UNIT_NS, true},
    {"ticks", "fastclock_ticks(): the bare unordered counter (ns if the counter is unsafe)",
     ticks_batch, ticks_read, UNIT_TICKS, false},
    {"recent", "fastclock_recent_ns_inline(): the last value any call produced (one load)",
     recent_batch, recent_read, UNIT_NS, false},
    {"recent_call", "fastclock_recent_ns(): the same through a function call",
     recent_call_batch, recent_call_read, UNIT_NS, false},
};

/* Through the public API (fastclock_info), like any user of the library. */
static bool counter_in_use(void)
{
    struct fastclock_info info;
    fastclock_info(&info);
    return info.source == FASTCLOCK_SOURCE_COUNTER;
}

void methods_add_fastclock(struct method_list *list)
{
    for (size_t i = 0; i < sizeof fastclock_methods / sizeof fastclock_methods[0]; i++) {
        struct method *m = method_add(list, "fastclock", fastclock_methods[i].api, NULL);
        if (!m)
            return;
        m->description = fastclock_methods[i].description;
        m->batch = fastclock_methods[i].batch;
        m->read = fastclock_methods[i].read;
        m->unit = fastclock_methods[i].unit;
        /* Ticks are counter ticks only while fastclock uses the counter; otherwise they
         * are CLOCK_MONOTONIC ns (asking initialises fastclock: ~0.2 ms, once). */
        if (m->unit == UNIT_TICKS && !counter_in_use())
            m->unit = UNIT_NS;
        m->ordered = fastclock_methods[i].ordered;
        /* Its ticker parks after FASTCLOCK_TICKER_IDLE_NS without reads (half of it, to be
         * sure); parked, it sees reads within one poll, and the line is fresh again (the
         * reads meanwhile are the kernel clock's). */
        m->settle_idle_ns = FASTCLOCK_TICKER_IDLE_NS / 2;
        m->settle_ns = FASTCLOCK_TICKER_PARKED_POLL_NS * 3 / 2;
    }
}

bool methods_fastclock_source(char *counter, size_t clen, char *why, size_t whylen)
{
    struct fastclock_info info;
    fastclock_info(&info);
    snprintf(counter, clen, "%s", info.counter);
    snprintf(why, whylen, "%s", info.why);
    return info.source == FASTCLOCK_SOURCE_COUNTER;
}
