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
