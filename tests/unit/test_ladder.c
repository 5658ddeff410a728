/* SPDX-License-Identifier: MIT */
/* The ladder's pure parts: CLOCKSCOPE_LADDER_FAULT's parser and lookup (ladder/fault.c,
 * with in-process mutation), the sweep's client counts and reduction (ladder/sweep_math.c),
 * the rung table's ids (ladder/rungs.c), the cache-line mechanism between two threads, and
 * round trips timed one by one (ladder/each_round_trip.c). */
#include "check.h"
#include "common/clock_ns.h"
#include "ladder/each_round_trip.h"
#include "ladder/fault.h"
#include "ladder/mechanism.h"
#include "ladder/rungs.h"
#include "ladder/sweep.h"
#include "common/text_wrap.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static bool parse(const char *s, struct ladder_faults *f, char *why, size_t whylen)
{
    return ladder_faults_parse(s, strlen(s), f, why, whylen);
}

TEST(ladder_faults_parse_and_match)
{
    struct ladder_faults f;
    char err[200];
    CHECK(parse("hang:futex.*,crash:pipe.threads.same_cpu", &f, err, sizeof err));
    CHECK(f.count == 2);
    CHECK(ladder_fault_for(&f, "futex.threads.cross_cpu") == FAULT_HANG);
    CHECK(ladder_fault_for(&f, "pipe.threads.same_cpu") == FAULT_CRASH);
    CHECK(ladder_fault_for(&f, "pipe.threads.cross_cpu") == FAULT_NONE);
    CHECK(ladder_fault_for(&f, "futex") == FAULT_NONE);
    CHECK(parse("", &f, err, sizeof err) && f.count == 0);
    CHECK(ladder_fault_for(&f, "anything") == FAULT_NONE);
    /* the first match wins */
    CHECK(parse("crash:a*,hang:ab", &f, err, sizeof err));
    CHECK(ladder_fault_for(&f, "ab") == FAULT_CRASH);
}

TEST(ladder_faults_reject_malformed)
{
    struct ladder_faults f;
    char err[200];
    const char *bad[] = {"hang", "hang:", "crash:", "stall:x", "hang:a,", ",hang:a", "hang:a,,hang:b",
                         "HANG:a", " hang:a", "hang:a,crash"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        CHECK(!parse(bad[i], &f, err, sizeof err));
        CHECK(err[0] != '\0');
    }
    char longglob[200] = "hang:";
    memset(longglob + 5, 'x', 100);
    longglob[105] = '\0';
    CHECK(!parse(longglob, &f, err, sizeof err));
    CHECK(!parse("hang:1,hang:2,hang:3,hang:4,hang:5,hang:6,hang:7,hang:8,hang:9", &f, err,
                 sizeof err));
    CHECK(strstr(err, "more than 8") != NULL);
    /* an embedded NUL inside the given length is refused, not truncated */
    CHECK(!ladder_faults_parse("hang:a\0b", 8, &f, err, sizeof err));
}

/* In-process mutation: random bytes never crash the parser, and whatever it accepts has
 * only well-formed entries. */
TEST(ladder_faults_mutation)
{
    const char seed[] = "hang:futex.*,crash:pipe.threads.same_cpu,hang:sweep.poll.4";
    char buf[sizeof seed + 8];
    unsigned state = 12345;
    for (int round = 0; round < 20000; round++) {
        size_t n = sizeof seed - 1;
        memcpy(buf, seed, n);
        for (int k = 0; k < 3; k++) {
            state = state * 1103515245u + 12345u;
            buf[(state >> 8) % n] = (char)(state >> 16);
        }
        state = state * 1103515245u + 12345u;
        n = (state >> 8) % (n + 1);
        struct ladder_faults f;
        char err[200];
        if (ladder_faults_parse(buf, n, &f, err, sizeof err)) {
            CHECK(f.count >= 0 && f.count <= LADDER_FAULTS_MAX);
            for (int i = 0; i < f.count; i++) {
                CHECK(f.kind[i] == FAULT_HANG || f.kind[i] == FAULT_CRASH);
                CHECK(strlen(f.glob[i]) > 0 && strlen(f.glob[i]) < LADDER_FAULT_GLOB_MAX);
            }
        }
    }
}

TEST(ladder_sweep_client_counts)
{
    int c[SWEEP_MAX_ROWS];
    int n = sweep_client_counts(1, false, c, SWEEP_MAX_ROWS);
    int want1[] = {1, 2, 4, 8, 16, 32};
    CHECK(n == 6 && memcmp(c, want1, sizeof want1) == 0);
    n = sweep_client_counts(7, false, c, SWEEP_MAX_ROWS);
    int want7[] = {1, 2, 4, 7, 8, 16, 32};
    CHECK(n == 7 && memcmp(c, want7, sizeof want7) == 0);
    n = sweep_client_counts(8, false, c, SWEEP_MAX_ROWS);
    CHECK(n == 6 && c[3] == 8);
    n = sweep_client_counts(40, false, c, SWEEP_MAX_ROWS);
    CHECK(c[n - 1] == 40 && c[n - 2] == 32);
    n = sweep_client_counts(500, false, c, SWEEP_MAX_ROWS);
    CHECK(c[n - 1] == SWEEP_MAX_CLIENTS); /* never more clients than the runner holds */
    n = sweep_client_counts(7, true, c, SWEEP_MAX_ROWS);
    CHECK(n == 2 && c[0] == 1 && c[1] == 4);
    n = sweep_client_counts(7, false, c, 3);
    CHECK(n == 3); /* never past max */
    for (int i = 1; i < 7; i++) {
        n = sweep_client_counts(i * 5, false, c, SWEEP_MAX_ROWS);
        for (int k = 1; k < n; k++)
            CHECK(c[k] > c[k - 1]); /* ascending, no repeats */
    }
}

TEST(ladder_sweep_reduction)
{
    CHECK(fabs(sweep_reduction(1000, 140) - 0.86) < 1e-12);
    CHECK(fabs(sweep_reduction(100, 49) - 0.51) < 1e-12);
    CHECK(sweep_reduction(100, 200) < 0); /* polling slower: a negative reduction, said */
    CHECK(isnan(sweep_reduction(0, 1)));
    CHECK(isnan(sweep_reduction(1, 0)));
    CHECK(isnan(sweep_reduction(NAN, 1)));
    CHECK(isnan(sweep_reduction(INFINITY, 1)));
}

TEST(ladder_rung_ids)
{
    struct rung_def d[RUNGS_MAX];
    size_t n = rungs_build(d, RUNGS_MAX);
    CHECK(n == 5 + 6 * 2 * 2);
    bool seen_pipe = false, seen_spin = false, seen_futex = false;
    for (size_t i = 0; i < n; i++) {
        for (size_t k = 0; k < i; k++)
            CHECK(strcmp(d[i].id, d[k].id) != 0);
        seen_pipe |= strcmp(d[i].id, "pipe.threads.cross_cpu") == 0 && d[i].mech == MECH_PIPE &&
                     d[i].partner == PARTNER_THREAD && d[i].placement == PLACE_CROSS_CPU;
        seen_futex |= strcmp(d[i].id, "futex.processes.same_cpu") == 0 &&
                      d[i].partner == PARTNER_PROCESS && d[i].placement == PLACE_SAME_CPU;
        seen_spin |= strcmp(d[i].id, "spin.threads.cross_cpu") == 0 && d[i].mech == MECH_SPIN;
        /* a call is a call, the rest round trips: each kind with its own JSON key */
        CHECK(d[i].kind == (d[i].family == FAMILY_CALL ? KIND_CALL : KIND_ROUND_TRIP));
    }
    CHECK(seen_pipe && seen_futex && seen_spin);
    CHECK(d[0].family == FAMILY_CALL && strcmp(ladder_kind_name(d[0].kind), "call") == 0);
    CHECK(strcmp(ladder_kind_name(KIND_ONE_WAY), "one_way") == 0);
    CHECK(strcmp(ladder_kind_name(KIND_ROUND_TRIP), "round_trip") == 0);
    CHECK(strcmp(ladder_cost_key(KIND_CALL), "ns_per_call") == 0);
    CHECK(strcmp(ladder_cost_key(KIND_ROUND_TRIP), "ns_per_round_trip") == 0);
    CHECK(strcmp(ladder_cost_key(KIND_ONE_WAY), "ns_one_way") == 0);
    /* a short table is never overrun */
    CHECK(rungs_build(d, 3) == 3);
}

static void *serve(void *arg)
{
    mech_serve(arg);
}

/* Each mechanism completes round trips between two threads, in order.  In a child
 * process: side B serves forever (a spinner cannot be cancelled), and ends with it. */
TEST(ladder_mechanisms_round_trip)
{
    for (int m = 0; m < MECH_COUNT; m++) {
        pid_t pid = fork();
        CHECK(pid >= 0);
        if (pid == 0) {
            /* A mechanism that deadlocks fails the test instead of hanging it: 20 s, 120 s
             * emulated.  Only a hang should reach it: a spinner whose partner shares its CPU
             * waits for it to be scheduled, which makes 1000 round trips take a fraction of
             * a second natively and many seconds under an emulator on a loaded host. */
            alarm(test_emulated() ? 120 : 20);
            struct channel *ch = aligned_alloc(LADDER_LINE, sizeof *ch);
            memset(ch, 0, sizeof *ch);
            char why[200];
            pthread_t t;
            if (!mech_open(ch, (enum mech)m, why, sizeof why) ||
                pthread_create(&t, NULL, serve, ch) != 0)
                _exit(2);
            for (int i = 0; i < 1000; i++)
                mech_round_trip(ch);
            bool ok = ch->seq == 1000;
            if (m == MECH_CACHELINE)
                ok &= atomic_load(&ch->bounce.value) == 2000;
            if (m == MECH_SPIN || m == MECH_SPIN_FUTEX || m == MECH_FUTEX)
                ok &= atomic_load(&ch->pong.value) == 1000 && atomic_load(&ch->ping.value) == 1000;
            _exit(ok ? 0 : 1);
        }
        int status;
        CHECK(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
}

TEST(ladder_text_folds_to_the_columns_keeping_numbers_with_units)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    /* 27 columns: folded at a space, never between 27.22 and ms (which would fit 26);
     * continuation indented two more; trailing spaces dropped */
    text_fold(f, "  the spinner waits (27.22 ms measured): a timeslice   \nshort\n", 27);
    fclose(f);
    CHECK(strcmp(buf, "  the spinner waits (27.22\n"
                      "    ms measured): a timeslice\n"
                      "short\n") != 0);
    CHECK(strcmp(buf, "  the spinner waits\n"
                      "    (27.22 ms measured): a\n"
                      "    timeslice\n"
                      "short\n") == 0);
    free(buf);
    char id[64];
    text_middle_cut("syscall.clock_gettime.process_cputime_id", 20, id, sizeof id);
    CHECK(strcmp(id, "syscall.cl…putime_id") == 0);
    CHECK(text_columns(id, strlen(id)) == 20);
    text_middle_cut("ref.empty_call", 20, id, sizeof id);
    CHECK(strcmp(id, "ref.empty_call") == 0);
}

/* A fake round trip: every 4th call busy-waits SLOW_NS, the others return at once. */
#define SLOW_NS 200000.0
static void fake_round_trip(void *ctx)
{
    unsigned *calls = ctx;
    if ((*calls)++ % 4 == 3) {
        uint64_t until = clock_ns_read(CLOCK_MONOTONIC_RAW) + (uint64_t)SLOW_NS;
        while (clock_ns_read(CLOCK_MONOTONIC_RAW) < until)
            ;
    }
}

TEST(ladder_each_round_trip_is_timed_alone)
{
    struct each_config c;
    each_config_init(&c, true);
    c.warmup_ns = 0; /* every call is then a timed one */
    c.count = 400;
    c.budget_ns = 1e9;
    unsigned calls = 0;
    static struct measurement m;
    CHECK(each_round_trip_time(fake_round_trip, &calls, &c, &m));
    CHECK(m.samples == 400 && m.nkept == 400 && m.calls_per_sample == 1);
    CHECK(calls == m.samples); /* one round trip per sample, none untimed */
    /* a quarter are slow: a single round trip's p90 is one of them (waits are at least
     * SLOW_NS, whatever the load), the median a fast one; a mean over a batch of round
     * trips would put its p90 far below SLOW_NS */
    CHECK(m.ns_per_call.p90 >= 0.9 * SLOW_NS);
    CHECK(m.ns_per_call.median < SLOW_NS / 2);
    CHECK(m.loop_ns_per_call > 0 && m.loop_ns_per_call < 10000); /* the timer's own cost */
    /* the budget ends the timing once min_count are timed */
    each_config_init(&c, true);
    c.warmup_ns = 0;
    c.budget_ns = 10e6;
    calls = 0;
    CHECK(each_round_trip_time(fake_round_trip, &calls, &c, &m));
    CHECK(m.samples >= (size_t)c.min_count && m.samples < (size_t)c.count);
}
