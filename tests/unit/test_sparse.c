/* SPDX-License-Identifier: MIT */
/* bench --gap's schedule (measure/sparse.c): how many warm-up rounds a block gets.  A
 * method that keeps state between reads (libfastclock: its ticker parks after an idle
 * spell) warms up until it has settled when its block follows an idle spell, so that the
 * row measures reads a gap apart and not a program just back from idling. */
#include "check.h"
#include "measure/method.h"
#include "measure/sparse.h"

#include <stdint.h>

TEST(sparse_warmup_follows_a_stateful_method_after_idle)
{
    struct method stateless = {.id = "vdso.clock_gettime.monotonic"};
    struct method stateful = {.id = "fastclock.monotonic", .settle_idle_ns = 1000000000ull,
                              .settle_ns = 1500000000ull};
    const uint64_t ms = 1000000ull;
    /* A method without state: always the fixed warm-up, whatever the idle spell. */
    CHECK(sparse_warmup_rounds(&stateless, 150 * ms, 0) == SPARSE_WARMUP_ROUNDS);
    CHECK(sparse_warmup_rounds(&stateless, 150 * ms, 60000 * ms) == SPARSE_WARMUP_ROUNDS);
    CHECK(sparse_warmup_rounds(NULL, 150 * ms, 0) == SPARSE_WARMUP_ROUNDS); /* the bracket */
    /* Its first block of a gap (idle unknown), or after an idle spell of settle_idle_ns or
     * more: rounds spanning settle_ns, rounded up. */
    CHECK(sparse_warmup_rounds(&stateful, 150 * ms, 0) == 10);
    CHECK(sparse_warmup_rounds(&stateful, 150 * ms, 1000 * ms) == 10);
    CHECK(sparse_warmup_rounds(&stateful, 20 * ms, 12000 * ms) == 75);
    CHECK(sparse_warmup_rounds(&stateful, 1 * ms, 0) == 1500);
    CHECK(sparse_warmup_rounds(&stateful, 400 * ms, 5000 * ms) == 4);
    /* Never fewer than the fixed warm-up: a gap longer than settle_ns. */
    CHECK(sparse_warmup_rounds(&stateful, 1000 * ms, 0) == SPARSE_WARMUP_ROUNDS);
    CHECK(sparse_warmup_rounds(&stateful, 60000 * ms, 0) == SPARSE_WARMUP_ROUNDS);
    /* After a shorter spell its state has not changed: the fixed warm-up. */
    CHECK(sparse_warmup_rounds(&stateful, 150 * ms, 999 * ms) == SPARSE_WARMUP_ROUNDS);
    CHECK(sparse_warmup_rounds(&stateful, 1 * ms, 80 * ms) == SPARSE_WARMUP_ROUNDS);
    /* Huge settle times are capped, not wrapped. */
    struct method forever = {.settle_idle_ns = 1, .settle_ns = UINT64_MAX};
    CHECK(sparse_warmup_rounds(&forever, 1, 0) == UINT32_MAX);
    CHECK(sparse_warmup_rounds(&forever, 2, 0) == UINT32_MAX);
    CHECK(sparse_warmup_rounds(&forever, 3, 0) == UINT32_MAX);
}

/* The summary of a gap's raw ticks: the bracket's own reads (slot 0) as they are, each
 * method's net of the bracket's median, cold and hot apart, clamped at 0.  Fixed ticks at
 * 0.5 ns each: the figures are exact, whatever the machine. */
TEST(sparse_summary_subtracts_the_brackets_median_from_each_read)
{
    enum { READS = 5 };
    /* slot 0: the empty bracket; slot 1: a method costing 1 ns (2 ticks) more than it, a
     * read of 3 ticks below the bracket's median clamped at 0 */
    uint64_t cold[2 * READS] = {100, 104, 102, 200, 101, 105, 107, 106, 97, 300};
    uint64_t hot[2 * READS] = {40, 40, 41, 39, 90, 42, 42, 43, 37, 44};
    size_t kept[2] = {READS, READS};
    struct sparse_method method = {0};
    struct sparse_gap g = {.reads_wanted = READS, .kept = kept, .nmethods = 1,
                           .methods = &method, .raw_cold = cold, .raw_hot = hot};
    sparse_gap_summarize(&g, 0.5);
    CHECK(g.bracket_cold.n == READS && g.bracket_hot.n == READS);
    CHECK(g.bracket_cold.p50 == 51.0 && g.bracket_hot.p50 == 20.0); /* 102 and 40 ticks */
    CHECK(g.bracket_hot.min == 19.5 && g.bracket_hot.max == 45.0);
    CHECK(method.hot.n == READS && method.cold.n == READS);
    CHECK(method.hot.p50 == 1.0);  /* 42 ticks less 40 */
    CHECK(method.hot.min == 0.0);  /* 37 ticks: below the bracket's median, clamped */
    CHECK(method.hot.max == 2.0);  /* 44 */
    CHECK(method.cold.p50 == 2.0); /* 106 ticks less 102 */
    CHECK(method.cold.min == 0.0 && method.cold.max == 99.0);
}
