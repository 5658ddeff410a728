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
#include "run/run_page.h"
#include "run/run_reader_abi.h"
#include "run/run_timens.h"
#include "run/run_vpatch.h"
#include "run_reader_blob.h"

#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

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

#define LINE_AT 0u /* the line page's start (run/run_reader_abi.h) */

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
    r.l->magic = 0; /* a page without a line (count mode's: zeros) */
    CHECK(r.clock_gettime(CLOCK_MONOTONIC, &ts) == 0 && ts_ns(&ts) != anchor && r.h->kernel_calls == 7);
    r.l->magic = FC_LINE_MAGIC;
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

TEST(run_timens_parse_reads_the_kernels_text_and_refuses_the_rest)
{
    int64_t m = 1, b = 1;
    /* The kernel's "%-10s %10lld %9ld" lines; a negative offset as a timespec. */
    const char *k = "monotonic      86400         0\nboottime      172800         5\n";
    CHECK(run_timens_parse(k, (long)strlen(k), &m, &b) && m == 86400000000000ll && b == 172800000000005ll);
    const char *neg = "monotonic         -1 800000000\nboottime          -4         0\n";
    CHECK(run_timens_parse(neg, (long)strlen(neg), &m, &b) && m == -200000000ll && b == -4000000000ll);
    const char *ids = "7 3 0\n1 2 0\n"; /* clock ids, either order */
    CHECK(run_timens_parse(ids, (long)strlen(ids), &m, &b) && m == 2000000000ll && b == 3000000000ll);
    /* Refused whole, the outputs untouched. */
    const char *bad[] = {"", "monotonic 1 0\n", "monotonic 1 0\nmonotonic 1 0\n",
                         "monotonic 1 1000000000\nboottime 1 0\n", "monotonic 1 0 x\nboottime 1 0\n",
                         "monotonix 1 0\nboottime 1 0\n", "monotonic 1 0\nboottime 1 0",
                         "monotonic 1 -5\nboottime 1 0\n", "monotonic 99999999999 0\nboottime 1 0\n",
                         "monotonic 1 0\nboottime 1 0\nrealtime 1 0\n", "2 1 0\n7 1 0\n",
                         "monotonic1 0\nboottime 1 0\n", "monotonic - 0\nboottime 1 0\n"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = b = 42;
        CHECK(!run_timens_parse(bad[i], (long)strlen(bad[i]), &m, &b) && m == 42 && b == 42);
    }
    CHECK(!run_timens_parse(k, -1, &m, &b) && !run_timens_parse(k, 0, &m, &b));
    /* Mutated: never a read outside the text; what is accepted has both clocks in range. */
    uint64_t x = 12345;
    for (int i = 0; i < 20000; i++) {
        char buf[128];
        snprintf(buf, sizeof buf, "%s", i % 2 ? k : neg);
        for (int j = 0; j < 1 + i % 4; j++)
            check_mutate(buf, sizeof buf, "monotcbi 0123456789-\n\t7", &x);
        size_t n = strlen(buf);
        char *exact = malloc(n ? n : 1); /* no terminator: ASan sees any read past it */
        memcpy(exact, buf, n);
        if (run_timens_parse(exact, (long)n, &m, &b))
            CHECK(m >= -RUN_TIMENS_MAX_S * 1000000000ll - 1 && b >= -RUN_TIMENS_MAX_S * 1000000000ll - 1);
        free(exact);
    }
}

#if RUN_READER_BLOB_AVAILABLE
static bool write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    bool ok = f && fputs(text, f) >= 0;
    return f && fclose(f) == 0 && ok;
}

static uint64_t reader_ns(struct reader *r, clockid_t id)
{
    struct timespec ts = {0, 0};
    return r->clock_gettime(id, &ts) == 0 ? ts_ns(&ts) : 0;
}
#endif

TEST(run_reader_learns_its_time_namespace_at_its_first_read)
{
#if !RUN_READER_BLOB_AVAILABLE
    SKIP("this build has no injectable reader");
#else
    /* The namespaces stand in as files: the refresher's "ns/time" link is the file ref (its
     * inode), its offsets 2 s and 3 s; a served process's are other files, read through the
     * header's paths.  Every served value is exact (slope 0), so a delta wrong by 1 ns
     * fails.  Then a forked child: the kernel zeroes its process page (MADV_WIPEONFORK),
     * and it learns its own namespace again at its first read. */
    char dir[] = "/tmp/clockscope-timens-XXXXXX";
    CHECK(mkdtemp(dir));
    char ref[64], mine[64], ref_off[64], my_off[64], bad_off[64];
    snprintf(ref, sizeof ref, "%s/ref", dir);
    snprintf(mine, sizeof mine, "%s/mine", dir);
    snprintf(ref_off, sizeof ref_off, "%s/ref_offsets", dir);
    snprintf(my_off, sizeof my_off, "%s/my_offsets", dir);
    snprintf(bad_off, sizeof bad_off, "%s/bad_offsets", dir);
    CHECK(write_file(ref, "") && write_file(mine, ""));
    CHECK(write_file(ref_off, "monotonic          2         0\nboottime           3         0\n"));
    CHECK(write_file(my_off, "monotonic          5         0\nboottime           6 999999999\n"));
    CHECK(write_file(bad_off, "monotonic          5         0\n"));
    struct reader r;
    const uint64_t anchor = 500000000000ull;
    const int64_t real = 1000000000000000000ll, boot = 7000000001ll;
    CHECK(reader_map(&r, anchor, real, boot));
    struct run_process_page *p = (struct run_process_page *)(r.region + RUN_PROCESS_OFFSET);
    CHECK(madvise(p, RUN_PAGE_SIZE, MADV_WIPEONFORK) == 0);
    run_page_timens(r.h, ref, ref, ref_off);
    struct stat st;
    CHECK(stat(ref, &st) == 0);
    CHECK(r.h->timens == RUN_TIMENS_KNOWN && r.h->timens_inode == (uint64_t)st.st_ino);
    CHECK(r.h->timens_monotonic_ns == 2000000000ll && r.h->timens_boottime_ns == 3000000000ll);

    /* The refresher's own namespace: no delta, one stat. */
    CHECK(reader_ns(&r, CLOCK_MONOTONIC) == anchor && p->state == RUN_PROCESS_KNOWN);
    CHECK(r.h->kernel_calls == 1 && p->monotonic_delta_ns == 0 && p->boottime_delta_ns == 0);

    /* Another namespace, its own for its children too: MONOTONIC 3 s and BOOTTIME
     * 3.999999999 s above the refresher's, on every entry point; REALTIME as it was. */
    snprintf(r.h->ns_path, sizeof r.h->ns_path, "%s", mine);
    snprintf(r.h->children_path, sizeof r.h->children_path, "%s", mine);
    snprintf(r.h->offsets_path, sizeof r.h->offsets_path, "%s", my_off);
    p->state = RUN_PROCESS_UNKNOWN, p->fast_word = 0;
    CHECK(reader_ns(&r, CLOCK_REALTIME) == anchor + (uint64_t)real); /* learns first */
    CHECK(p->state == RUN_PROCESS_KNOWN && r.h->kernel_calls == 1 + 5);
    CHECK(reader_ns(&r, CLOCK_MONOTONIC) == anchor + 3000000000ull);
    CHECK(reader_ns(&r, CLOCK_MONOTONIC_COARSE) == anchor + 3000000000ull);
    CHECK(reader_ns(&r, CLOCK_BOOTTIME) == anchor + (uint64_t)boot + 3999999999ull);
    struct timeval tv;
    CHECK(r.gettimeofday(&tv, NULL) == 0 && (uint64_t)tv.tv_sec == (anchor + (uint64_t)real) / 1000000000ull);
    CHECK(r.h->kernel_calls == 6);

    /* A stale line: the kernel's value, taken in this process's namespace, is held at the
     * line's floor in the refresher's, and comes back in this one's. */
    r.l->seq = FC_SEQ_STEP * 2 | FC_SEQ_STALE;
    r.l->floor_ns = 0;
    uint64_t before = kernel_ns(CLOCK_MONOTONIC), v = reader_ns(&r, CLOCK_MONOTONIC),
             after = kernel_ns(CLOCK_MONOTONIC);
    CHECK(v >= before && v <= after); /* the kernel's own: the floor lies far below */
    /* A floor 0.1 s above the kernel's clock as the refresher's namespace has it (3 s
     * below this one's): held there, 0.1 s above the kernel here.  (Past FC_CLOCK_JUMP_NS
     * a floor would be one from before a jump, and the kernel's value would win.) */
    r.l->floor_ns = after - 3000000000ull + 100000000ull;
    CHECK(reader_ns(&r, CLOCK_MONOTONIC) == after + 100000000ull);
    r.l->floor_ns = anchor;
    r.l->seq = FC_SEQ_STEP * 3;

    /* A forked child learns again: here from other offsets (as a child in a new namespace
     * would find); the parent's page is untouched. */
    snprintf(r.h->offsets_path, sizeof r.h->offsets_path, "%s", ref_off);
    pid_t pid = fork();
    if (pid == 0) {
        /* 2: the page was not wiped (qemu-user takes MADV_WIPEONFORK and does nothing). */
        if (p->state != RUN_PROCESS_UNKNOWN || p->fast_word)
            _exit(2);
        bool ok = reader_ns(&r, CLOCK_MONOTONIC) == anchor && p->state == RUN_PROCESS_KNOWN &&
                  p->monotonic_delta_ns == 0;
        _exit(ok ? 0 : 1);
    }
    int ws;
    CHECK(pid > 0 && waitpid(pid, &ws, 0) == pid && WIFEXITED(ws));
    if (WEXITSTATUS(ws) == 2 && test_emulated())
        printf("  the emulator does not wipe a MADV_WIPEONFORK page: the forked child not judged\n");
    else
        CHECK(WEXITSTATUS(ws) == 0);
    CHECK(p->state == RUN_PROCESS_KNOWN && p->monotonic_delta_ns == 3000000000ll);
    snprintf(r.h->offsets_path, sizeof r.h->offsets_path, "%s", my_off);

    /* Offsets that cannot be known: a process that unshared again (its children's namespace
     * is not its own), an unreadable offsets file, a refresher whose namespace is unknown.
     * MONOTONIC, its coarse twin and BOOTTIME then come from the kernel; REALTIME is served. */
    for (int c = 0; c < 3; c++) {
        p->state = RUN_PROCESS_UNKNOWN, p->fast_word = 0;
        snprintf(r.h->children_path, sizeof r.h->children_path, "%s", c == 0 ? ref : mine);
        snprintf(r.h->offsets_path, sizeof r.h->offsets_path, "%s", c == 1 ? bad_off : my_off);
        r.h->timens = c == 2 ? RUN_TIMENS_UNKNOWN : RUN_TIMENS_KNOWN;
        uint64_t calls = r.h->kernel_calls;
        CHECK(reader_ns(&r, CLOCK_REALTIME) == anchor + (uint64_t)real);
        CHECK(p->state == RUN_PROCESS_KERNEL);
        before = kernel_ns(CLOCK_MONOTONIC);
        v = reader_ns(&r, CLOCK_MONOTONIC);
        CHECK(v >= before && v <= kernel_ns(CLOCK_MONOTONIC));
        before = kernel_ns(CLOCK_BOOTTIME);
        v = reader_ns(&r, CLOCK_BOOTTIME);
        CHECK(v >= before && v <= kernel_ns(CLOCK_BOOTTIME));
        CHECK(reader_ns(&r, CLOCK_MONOTONIC_COARSE) != anchor + 3000000000ull);
        CHECK(r.h->kernel_calls == calls + (c == 0 ? 2 : c == 1 ? 5 : 0) + 3);
    }
    /* No namespaces at all: every process has the refresher's clocks, no syscall asked. */
    p->state = RUN_PROCESS_UNKNOWN, p->fast_word = 0;
    r.h->timens = RUN_TIMENS_NONE;
    uint64_t calls = r.h->kernel_calls;
    CHECK(reader_ns(&r, CLOCK_MONOTONIC) == anchor && r.h->kernel_calls == calls);
    munmap(r.region, RUN_REGION_SIZE);
    unlink(ref), unlink(mine), unlink(ref_off), unlink(my_off), unlink(bad_off), rmdir(dir);
#endif
}
