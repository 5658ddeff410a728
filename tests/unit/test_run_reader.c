/* SPDX-License-Identifier: MIT */
/* The reader `clockscope run` injects (src/run/reader/reader.c), run here as the served
 * program runs it: its bytes copied into a fresh mapping laid out as run lays it out
 * (run/run_reader_abi.h: code, line page, header page), a line written by hand, and its
 * entry points called.  The line's slope 0 makes every served value exact (the anchor plus
 * the clock's offset), so the checks are equalities, not timings.  Also the jump run writes
 * over the vDSO's entry points (run/run_vpatch.h): the direct rel32 form and its fallback. */
#include "check.h"
#include "arch/counter.h"
#include "arch/inject.h"
#include "fastclock/fc_line.h"
#include "fastclock/fc_read.h"
#include "run/run_reader_abi.h"
#include "run/run_vpatch.h"
#include "run_reader_blob.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <time.h>

#if defined(__x86_64__)
/* Where the jump at `at` of length n lands (e9 rel32 or movabs+jmp *%r11), 0 if neither. */
static uint64_t jump_target(const uint8_t *j, size_t n, uint64_t at)
{
    if (n == 5 && j[0] == 0xe9) {
        int32_t d;
        memcpy(&d, j + 1, 4);
        return at + 5 + (uint64_t)(int64_t)d;
    }
    if (n == 13 && j[0] == 0x49 && j[1] == 0xbb && j[10] == 0x41 && j[11] == 0xff && j[12] == 0xe3) {
        uint64_t t;
        memcpy(&t, j + 2, 8);
        return t;
    }
    return 0;
}
#endif

TEST(run_jump_is_direct_within_2gib_and_absolute_beyond)
{
#if !defined(__x86_64__)
    /* No direct jump written here yet: always the arch's absolute one. */
    uint8_t j[64];
    const uint64_t at = 0x7f1234560af0ull;
    CHECK(arch_inject_near_jump(j, sizeof j, at, at + 0x1234) == 0);
    CHECK(run_vpatch_jump(j, sizeof j, at, at + 0x1234) == arch_inject_abs_jump(j, sizeof j, at, at + 0x1234));
    CHECK(run_vpatch_jump(j, sizeof j, at, at + 0x1234) > 0);
#else
    uint8_t j[32];
    const uint64_t at = 0x7f1234560af0ull;
    /* Near, both ways: 5 bytes, landing exactly on the target (the displacement counts from
     * the end of the instruction). */
    const uint64_t near[] = {at + 0x1234, at - 0x100000, at + 5, at, at + 5 + INT32_MAX,
                             at + 5 + (uint64_t)(int64_t)INT32_MIN};
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        size_t n = run_vpatch_jump(j, sizeof j, at, near[i]);
        CHECK(n == 5 && j[0] == 0xe9);
        CHECK(jump_target(j, n, at) == near[i]);
    }
    /* One byte beyond the reach either way, and far: the 13-byte absolute form. */
    const uint64_t far[] = {at + 5 + (uint64_t)INT32_MAX + 1, at + 5 + (uint64_t)(int64_t)INT32_MIN - 1,
                            0x1000, 0x7ffff0000000ull - 0x7f0000000000ull};
    for (size_t i = 0; i < sizeof far / sizeof far[0]; i++) {
        CHECK(arch_inject_near_jump(j, sizeof j, at, far[i]) == 0);
        size_t n = run_vpatch_jump(j, sizeof j, at, far[i]);
        CHECK(n == 13 && jump_target(j, n, at) == far[i]);
    }
    /* No room: no jump at all rather than a cut one. */
    CHECK(arch_inject_near_jump(j, 4, at, at + 16) == 0);
    /* The hint lies within the direct jump's reach of the vDSO. */
    uint64_t hint = run_vpatch_region_hint(at & ~0xfffull);
    CHECK(hint && run_vpatch_jump(j, sizeof j, at, hint + RUN_REGION_SIZE) == 5);
#endif
}

#ifndef RUN_READER_NO_ENTRY
#define RUN_READER_NO_ENTRY UINT64_MAX /* as run_vpatch.c: the arch's vDSO has no such entry */
#endif

#if RUN_READER_BLOB_AVAILABLE
struct reader {
    uint8_t *region;
    struct run_page_header *h;
    struct fc_line *l;
    long (*clock_gettime)(long, struct timespec *);
    long (*gettimeofday)(struct timeval *, void *);
    long (*time)(int64_t *);
};

#define LINE_AT 128u /* not 0: the reader must follow header.line_offset */

/* The reader's region as run maps it, with a live line: value anchor_ns (slope 0) for a year
 * of counter ticks past now, REALTIME = MONOTONIC + real, BOOTTIME = + boot. */
static bool reader_map(struct reader *r, uint64_t anchor_ns, int64_t real, int64_t boot)
{
    r->region = mmap(NULL, RUN_REGION_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r->region == MAP_FAILED)
        return false;
    memcpy(r->region, run_reader_blob, sizeof run_reader_blob);
    if (mprotect(r->region, RUN_READER_CODE_SIZE, PROT_READ | PROT_EXEC) != 0)
        return false;
    r->h = (struct run_page_header *)(r->region + RUN_HEADER_OFFSET);
    r->l = (struct fc_line *)(r->region + RUN_LINE_PAGE_OFFSET + LINE_AT);
    r->h->magic = RUN_PAGE_MAGIC, r->h->version = RUN_PAGE_VERSION;
    r->h->line_offset = LINE_AT;
    r->h->serve_mask = (1u << CLOCK_REALTIME) | (1u << CLOCK_MONOTONIC) | (1u << CLOCK_BOOTTIME);
    struct fc_line *l = r->l;
    l->magic = FC_LINE_MAGIC;
    l->version = FC_LINE_VERSION;
    l->shift = FC_LINE_SHIFT;
    l->anchor_ticks = arch_counter_raw();
    l->anchor_ns = anchor_ns;
    l->mult = 0;
    l->refresh_ticks = 1ull << 40;
    l->limit_ticks = 1ull << 40;
    l->floor_ns = anchor_ns;
    l->real_offset = real;
    l->boot_offset = boot;
    l->source = FC_SOURCE_COUNTER;
    l->seq = FC_SEQ_STEP;
    r->clock_gettime = (long (*)(long, struct timespec *))(void *)(r->region + RUN_READER_CLOCK_GETTIME_OFFSET);
    r->gettimeofday = (long (*)(struct timeval *, void *))(void *)(r->region + RUN_READER_GETTIMEOFDAY_OFFSET);
    /* aarch64 and riscv64 have no time entry (libc's time() is a coarse clock_gettime). */
    uint64_t time_at = RUN_READER_TIME_OFFSET;
    r->time = time_at == RUN_READER_NO_ENTRY ? NULL
                                             : (long (*)(int64_t *))(void *)(r->region + time_at);
    return true;
}

static uint64_t ts_ns(const struct timespec *ts)
{
    return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

static uint64_t kernel_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ts_ns(&ts);
}
#endif

TEST(run_reader_fast_path_answers_each_entry_point_from_the_line)
{
#if !RUN_READER_BLOB_AVAILABLE
    SKIP("this build has no injectable reader");
#else
    struct reader r;
    const uint64_t anchor = 123456789012345678ull; /* 123456789 s + 12345678 ns */
    CHECK(reader_map(&r, anchor, 1000000000000000000ll, 7000000001ll));
    struct timespec ts = {0, 0};
    CHECK(r.clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts.tv_sec == 123456789 && ts.tv_nsec == 12345678);
    CHECK(r.clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts_ns(&ts) == anchor + 1000000000000000000ull);
    CHECK(r.clock_gettime(CLOCK_BOOTTIME, &ts) == 0 && ts_ns(&ts) == anchor + 7000000001ull); /* slow path */
    struct timeval tv = {0, 0};
    CHECK(r.gettimeofday(&tv, NULL) == 0 && tv.tv_sec == 1000000000 + 123456789 && tv.tv_usec == 12345);
    int64_t t = 0;
    CHECK(!r.time || (r.time(&t) == 1000000000 + 123456789 && t == 1000000000 + 123456789));
    CHECK(!r.time || r.time(NULL) == 1000000000 + 123456789);
    /* The coarse twins, as their fine clocks (slow path). */
    CHECK(r.clock_gettime(CLOCK_MONOTONIC_COARSE, &ts) == 0 && ts_ns(&ts) == anchor);
    CHECK(r.clock_gettime(CLOCK_REALTIME_COARSE, &ts) == 0 && ts_ns(&ts) == anchor + 1000000000000000000ull);
    CHECK(r.h->kernel_calls == 0);
    /* Not served: the kernel answers, counted.  Another clock; REALTIME with its bit cleared
     * (after a step); count mode; a line off the counter; a line being replaced by another
     * format; a line past its limit. */
    CHECK(r.clock_gettime(CLOCK_MONOTONIC_RAW, &ts) == 0 && r.h->kernel_calls == 1);
    r.h->serve_mask &= ~(1u << CLOCK_REALTIME);
    CHECK(r.clock_gettime(CLOCK_REALTIME, &ts) == 0 && ts_ns(&ts) != anchor + 1000000000000000000ull);
    CHECK(r.gettimeofday(&tv, NULL) == 0 && tv.tv_sec != 1000000000 + 123456789);
    CHECK(r.clock_gettime(CLOCK_REALTIME_COARSE, &ts) == 0 && ts_ns(&ts) != anchor + 1000000000000000000ull);
    CHECK(r.h->kernel_calls == 4);
    r.h->kernel_calls = 3;
    CHECK(r.clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts_ns(&ts) == anchor);
    r.h->flags = RUN_FLAG_COUNT;
    CHECK(r.clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts_ns(&ts) != anchor);
    CHECK(r.h->kernel_calls == 4 && r.h->calls[CLOCK_MONOTONIC] == 1);
    r.h->flags = 0;
    r.l->source = FC_SOURCE_KERNEL;
    CHECK(r.clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts_ns(&ts) != anchor && r.h->kernel_calls == 5);
    r.l->source = FC_SOURCE_COUNTER;
    r.l->version = FC_LINE_VERSION + 1;
    CHECK(r.clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts_ns(&ts) != anchor && r.h->kernel_calls == 6);
    r.l->version = FC_LINE_VERSION;
    r.h->line_offset = LINE_AT + 8; /* misaligned: no line */
    CHECK(r.clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts_ns(&ts) != anchor && r.h->kernel_calls == 7);
    r.h->line_offset = LINE_AT;
    CHECK(r.clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts_ns(&ts) == anchor && r.h->kernel_calls == 7);
    munmap(r.region, RUN_REGION_SIZE);
#endif
}

TEST(run_reader_holds_realtime_within_the_hysteresis_of_a_stale_floor)
{
#if !RUN_READER_BLOB_AVAILABLE
    SKIP("this build has no injectable reader");
#else
    /* A stale line: the reader asks the kernel and holds a REALTIME value less than
     * FC_REALTIME_HYSTERESIS_NS (2 us) below the line's floor at the floor, and lets one
     * further below through (CLOCK_REALTIME may step back).  The floor is put 1.9 us and
     * 50 us above the kernel's REALTIME of just before: the first can never come back below
     * it (held, or the kernel already past it); the second comes back below it whenever the
     * call ended within 48 us (the kernel then still 2 us or more below the floor; a round
     * the machine delayed longer proves nothing and is not judged).  A hysteresis of 200 ns
     * or of 100 us fails one of the two in the first rounds. */
    struct reader r;
    int64_t real = (int64_t)(kernel_ns(CLOCK_REALTIME) - kernel_ns(CLOCK_MONOTONIC));
    CHECK(reader_map(&r, 0, real, 0));
    int held = 0, through = 0, rounds = 0;
    /* 100 rounds of each kind judged (up to 5000 rounds: a busy machine delays some). */
    for (int i = 0; i < 5000 && (through < 100 || i < 200); i++, rounds++) {
        uint64_t mono = kernel_ns(CLOCK_MONOTONIC), before = kernel_ns(CLOCK_REALTIME);
        real = (int64_t)(before - mono);
        uint64_t delta = i % 2 ? 50000 : 1900;
        r.l->real_offset = real;
        r.l->floor_ns = mono + delta;
        r.l->seq = FC_SEQ_STEP * (uint64_t)(i + 2) | FC_SEQ_STALE;
        struct timespec ts;
        uint64_t floor = mono + delta + (uint64_t)real;
        CHECK(r.clock_gettime(CLOCK_REALTIME, &ts) == 0);
        uint64_t after = kernel_ns(CLOCK_REALTIME);
        if (delta == 1900) {
            CHECK(ts_ns(&ts) >= floor);
            held += ts_ns(&ts) == floor;
        } else if (after - before < delta - 2000) {
            CHECK(ts_ns(&ts) < floor && ts_ns(&ts) <= after);
            through++;
        }
    }
    CHECK(r.h->kernel_calls == (uint64_t)rounds);
    CHECK(through > 0);
    printf("  held at the floor %d of %d, below a far floor %d judged of %d\n", held,
           (rounds + 1) / 2, through, rounds / 2);
    munmap(r.region, RUN_REGION_SIZE);
#endif
}
