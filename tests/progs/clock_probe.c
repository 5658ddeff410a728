/* SPDX-License-Identifier: MIT */
/* The C program of the side-by-side comparison in the x86_64-hpet guest
 * (tests/progs/serve_compare.c): built twice, with `gcc -static` (glibc) and `musl-gcc
 * -static` (musl), so it uses nothing but <time.h>, <sys/time.h> and the raw syscall.
 * Its output follows the Go probe's protocol (runtimes/probes/probe.go), so the same parser
 * and the same syscall count (seccomp user notification, attributed to output lines) apply:
 *   clock_probe count CALLS          "mark API" lines, each followed by CALLS calls
 *   clock_probe time SAMPLES CALLS   "row API ... N t1,t2,.. h1,h2,.." (ns per N calls and
 *                                    per N calls of an empty function; timed with the raw
 *                                    CLOCK_MONOTONIC syscall, which nothing serves)
 *   clock_probe pairs N              each libc clock call between two raw syscalls of the
 *                                    same clock, N rounds: "ok pairs N bad 0" or FAIL lines
 *   clock_probe step STEPS SECS      prints "ready", then reads CLOCK_REALTIME in triplets
 *                                    (raw, libc, raw) until STEPS steps of the clock (made
 *                                    by someone else) have been seen and 300 ms more, or
 *                                    SECS have passed.  Per step: its size, the reads after
 *                                    it, those outside their triplet that gave the old time
 *                                    (before the step reached the reader) and for how long,
 *                                    and those that gave anything else (a defect)
 * CLOCKSCOPE_PROBE_SETTLE_MS=N sleeps N ms first, and CLOCKSCOPE_PROBE_COUNT_FD=N (count
 * mode) installs the counting filter on the program itself and sends its listener over the
 * Unix socket N, as the Go probe does (runtimes/probes/probe.go says why).  musl-gcc has no
 * kernel headers: the few BPF and seccomp definitions are written out below.
 * Exit 0 unless something could not run; the caller judges the lines. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static int64_t ns(const struct timespec *ts) { return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec; }

/* The kernel's own read: the syscall, which neither the vDSO nor a patch of it touches. */
static int64_t raw(clockid_t id)
{
    struct timespec ts;
    syscall(SYS_clock_gettime, id, &ts);
    return ns(&ts);
}

static int64_t libc(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return ns(&ts);
}

/* The counting filter of `runtimes` (src/runtimes/syscall_count.c): the time syscalls answer
 * SECCOMP_RET_USER_NOTIF.  <linux/filter.h> and <linux/seccomp.h>, as far as used here. */
struct bpf_insn {
    uint16_t code;
    uint8_t jt, jf;
    uint32_t k;
};
struct bpf_prog {
    unsigned short len;
    struct bpf_insn *insns;
};
#define BPF_LD_W_ABS 0x20
#define BPF_JEQ_K 0x15
#define BPF_RET_K 0x06
#define RET_ALLOW 0x7fff0000u
#define RET_USER_NOTIF 0x7fc00000u
#define AUDIT_X86_64 0xc000003eu

static int count_me(int sock)
{
#ifdef __x86_64__
    static const uint32_t nrs[] = {SYS_clock_gettime, SYS_gettimeofday, SYS_time};
    enum { K = sizeof nrs / sizeof nrs[0] };
    struct bpf_insn f[4 + K + 2] = {{BPF_LD_W_ABS, 0, 0, 4}, {BPF_JEQ_K, 1, 0, AUDIT_X86_64},
                                    {BPF_RET_K, 0, 0, RET_ALLOW}, {BPF_LD_W_ABS, 0, 0, 0}};
    int n = 4;
    for (int i = 0; i < K; i++)
        f[n++] = (struct bpf_insn){BPF_JEQ_K, (uint8_t)(K - i), 0, nrs[i]};
    f[n++] = (struct bpf_insn){BPF_RET_K, 0, 0, RET_ALLOW};
    f[n++] = (struct bpf_insn){BPF_RET_K, 0, 0, RET_USER_NOTIF};
    struct bpf_prog prog = {(unsigned short)n, f};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -1;
    /* SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER */
    int l = (int)syscall(SYS_seccomp, 1, 8, &prog);
    if (l < 0)
        return -1;
    char cbuf[CMSG_SPACE(sizeof(int))], one = 1;
    memset(cbuf, 0, sizeof cbuf);
    struct iovec iov = {&one, 1};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf, .msg_controllen = sizeof cbuf};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &l, sizeof l);
    int r = sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
    close(l);
    close(sock);
    return r;
#else
    (void)sock;
    return -1;
#endif
}

static volatile int64_t sink;

static __attribute__((noinline, noipa)) int64_t empty(void) { return 1; }

static void loop_monotonic(long n)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += libc(CLOCK_MONOTONIC);
    sink += s;
}

static void loop_realtime(long n)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += libc(CLOCK_REALTIME);
    sink += s;
}

static void loop_gettimeofday(long n)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++) {
        struct timeval tv;
        gettimeofday(&tv, NULL);
        s += tv.tv_usec;
    }
    sink += s;
}

static void harness(long n)
{
    int64_t s = 0;
    for (long i = 0; i < n; i++)
        s += empty();
    sink += s;
}

static const struct {
    const char *name, *clock;
    void (*loop)(long);
} apis[] = {
    {"clock_gettime(CLOCK_MONOTONIC)", "monotonic", loop_monotonic},
    {"clock_gettime(CLOCK_REALTIME)", "realtime", loop_realtime},
    {"gettimeofday", "realtime", loop_gettimeofday},
};
#define NAPIS (sizeof apis / sizeof apis[0])

static int64_t timed(void (*f)(long), long n)
{
    int64_t t0 = raw(CLOCK_MONOTONIC);
    f(n);
    return raw(CLOCK_MONOTONIC) - t0;
}

static void print_list(const int64_t *v, int k)
{
    for (int i = 0; i < k; i++)
        printf("%s%lld", i ? "," : "", (long long)v[i]);
}

static int cmd_time(int samples, long calls)
{
    printf("clockscope-probe 1 c static\n");
    for (size_t a = 0; a < NAPIS; a++) {
        int64_t ts[64], hs[64];
        timed(apis[a].loop, calls); /* warm: the first calls map pages, fill caches */
        for (int i = 0; i < samples; i++) { /* interleaved: a slow spell hits both alike */
            ts[i] = timed(apis[a].loop, calls);
            hs[i] = timed(harness, calls);
        }
        printf("row %s %s direct empty() %ld ", apis[a].name, apis[a].clock, calls);
        print_list(ts, samples);
        putchar(' ');
        print_list(hs, samples);
        putchar('\n');
        fflush(stdout);
    }
    printf("end %zu\n", NAPIS);
    return 0;
}

static int cmd_count(long calls)
{
    const char *fd = getenv("CLOCKSCOPE_PROBE_COUNT_FD");
    if (fd && count_me(atoi(fd)) != 0) {
        perror("clock_probe: cannot count");
        return 1;
    }
    printf("clockscope-probe 1 c static\n");
    for (size_t a = 0; a < NAPIS; a++) {
        printf("mark %s\n", apis[a].name);
        fflush(stdout); /* the mark is out before the calls: the counter attributes by it */
        apis[a].loop(calls);
    }
    printf("end %zu\n", NAPIS);
    return 0;
}

static int cmd_pairs(long n)
{
    static const clockid_t ids[] = {CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME};
    long bad = 0;
    for (long i = 0; i < n; i++) {
        for (size_t c = 0; c < sizeof ids / sizeof ids[0]; c++) {
            int64_t a = raw(ids[c]), v = libc(ids[c]), b = raw(ids[c]);
            if ((v < a || v > b) && bad++ < 5)
                printf("FAIL pair clock %d: %lld not in [%lld, %lld]\n", (int)ids[c],
                       (long long)v, (long long)a, (long long)b);
        }
        struct timeval tv;
        int64_t a = raw(CLOCK_REALTIME) / 1000;
        gettimeofday(&tv, NULL);
        int64_t b = raw(CLOCK_REALTIME) / 1000, v = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
        if ((v < a || v > b) && bad++ < 5)
            printf("FAIL gettimeofday %lld not in [%lld, %lld]\n", (long long)v, (long long)a,
                   (long long)b);
    }
    printf("%s pairs %ld bad %ld\n", bad ? "FAIL" : "ok", n, bad);
    return 0;
}

/* A step is seen in the kernel's reads: REALTIME - MONOTONIC moving by more than STEP_NS
 * (a second; the driver steps by much more). */
#define STEP_NS 1000000000LL
#define AFTER_LAST_NS 300000000LL /* reads go on this long after the last step */

static void step_line(int k, int64_t size, long reads, long old, long other, int64_t old_for)
{
    printf("step %d size_ns %lld reads %ld old_time %ld other %ld old_for_ns %lld\n", k,
           (long long)size, reads, old, other, (long long)old_for);
}

static int cmd_step(int want, double secs)
{
    int64_t end = raw(CLOCK_MONOTONIC) + (int64_t)(secs * 1e9), last_step_mono = 0;
    int64_t off = raw(CLOCK_REALTIME) - raw(CLOCK_MONOTONIC); /* REALTIME - MONOTONIC */
    int steps = 0;
    long reads = 0, old = 0, other = 0;
    int64_t size = 0, old_off = 0, old_for = 0, step_at = 0;
    printf("ready\n");
    fflush(stdout);
    for (;;) {
        int64_t m0 = raw(CLOCK_MONOTONIC), a = raw(CLOCK_REALTIME), v = libc(CLOCK_REALTIME),
                b = raw(CLOCK_REALTIME), m1 = raw(CLOCK_MONOTONIC);
        if (m1 > end || (steps == want && m1 - last_step_mono > AFTER_LAST_NS))
            break;
        /* REALTIME - MONOTONIC before and after the triplet: equal within the triplet's
         * length unless the clock was stepped. */
        int64_t o0 = a - m0, o1 = b - m1;
        if (llabs(o1 - o0) > STEP_NS || llabs(o0 - off) > STEP_NS) {
            /* a step, inside this triplet or since the last one (which proves nothing) */
            if (steps)
                step_line(steps, size, reads, old, other, old_for);
            steps++;
            size = o1 - off;
            old_off = off;
            off = o1;
            step_at = b;
            last_step_mono = m1;
            reads = old = other = 0;
            old_for = 0;
            continue;
        }
        off = o1;
        reads++;
        if (v >= a && v <= b)
            continue;
        /* Outside its triplet: the time as it was before the step (the step has not reached
         * the reader yet: within a millisecond of the old offset), or anything else: a
         * defect. */
        int64_t as_old = v - old_off;
        if (steps && as_old >= m0 - 1000000 && as_old <= m1 + 1000000) {
            old++;
            old_for = b - step_at;
        } else if (other++ < 5) {
            printf("FAIL realtime %lld not in [%lld, %lld]\n", (long long)v, (long long)a,
                   (long long)b);
        }
    }
    if (steps)
        step_line(steps, size, reads, old, other, old_for);
    printf("%s steps %d of %d\n", steps == want ? "end" : "FAIL", steps, want);
    return 0;
}

int main(int argc, char **argv)
{
    const char *settle = getenv("CLOCKSCOPE_PROBE_SETTLE_MS");
    long ms = settle ? atol(settle) : 0;
    if (ms > 0)
        nanosleep(&(struct timespec){ms / 1000, ms % 1000 * 1000000}, NULL);
    if (argc == 3 && strcmp(argv[1], "count") == 0 && atol(argv[2]) > 0)
        return cmd_count(atol(argv[2]));
    if (argc == 4 && strcmp(argv[1], "time") == 0 && atoi(argv[2]) > 0 && atoi(argv[2]) <= 64 &&
        atol(argv[3]) > 0)
        return cmd_time(atoi(argv[2]), atol(argv[3]));
    if (argc == 3 && strcmp(argv[1], "pairs") == 0 && atol(argv[2]) > 0)
        return cmd_pairs(atol(argv[2]));
    if (argc == 4 && strcmp(argv[1], "step") == 0 && atoi(argv[2]) > 0 && atof(argv[3]) > 0)
        return cmd_step(atoi(argv[2]), atof(argv[3]));
    fprintf(stderr, "usage: clock_probe count CALLS | time SAMPLES CALLS | pairs N | step STEPS SECS\n");
    return 2;
}
