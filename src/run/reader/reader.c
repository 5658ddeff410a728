/* SPDX-License-Identifier: MIT */
/* The reader `clockscope run` injects into a static or Go program (docs/run.md): the code
 * the vDSO's clock entry points jump to.  Built freestanding and position-independent
 * (-ffreestanding -fPIC -nostdlib -fno-stack-protector, no jump tables, one .text), so
 * that its .text, copied to any address, runs as is: no relocations (the build and
 * tests/test_run_static.py check), no libc, no TLS, no global data outside .text.  Its data
 * is the page mapped right after its code (run/run_reader_abi.h).
 *
 * Every call either answers from fastclock's line (a served clock, a fresh line) or makes
 * the real syscall: slow, never wrong.  The original vDSO function is never called: a copy
 * of it elsewhere would read the kernel's vvar page at a wrong RIP-relative address.
 *
 * The served path on x86_64, against the kernel's own vDSO path for the TSC
 * (docs/benchmarks/run.md counts both: ~5 instructions more per clock_gettime(MONOTONIC),
 * from ~33 in the first version): a direct `jmp rel32` from the vDSO's entry point (run_vpatch.c maps this code
 * within reach; an absolute `movabs; jmp *%r11` where it could not), then fast_value()
 * below, which calls nothing and so saves one register, not six: the clock id (0 or 1: no
 * table, no chain of compares), serve_mask and count flag (one cache line), the line's
 * offset, its format and source (two loads), then fc_read.h's pass.  Its fences on x86_64,
 * each for a reason (the other arches' are argued in fc_read.h and their counter.h):
 *  - s1 is an acquire load (a plain load on x86_64: TSO never lets a later load pass it);
 *  - lfence before rdtsc (arch/x86_64/counter.h, the freestanding branch): rdtsc is not
 *    ordered with loads at all, and a counter read taken before the s1 load completed could
 *    predate the writer's t_a while the line it is applied to is the new one: a value below
 *    one a reader of the old line already returned.  The kernel uses rdtscp where the CPU
 *    has it; this code cannot ask CPUID (no data, no state) and the two cost the same here
 *    (docs/benchmarks/run.md);
 *  - no fence after rdtsc: a line load that executes before the counter read is checked by
 *    s2 like any other, and fc_read.h's argument allows a counter read that executes after
 *    the s2 load (within the out-of-order window, far below WRITER_WAIT_NS);
 *  - the acquire fence before s2 keeps the line loads before it: compiler-only on x86_64
 *    (loads are not reordered with older loads), a real fence on the other arches. */
#include "arch/reader_arch.h"
#include "fastclock/fc_read.h"
#include "run/run_reader_abi.h"
#include "run/run_timens.h"

#include <stdint.h>

/* The first bytes of .text: the code page's start, from which the data pages are found
 * (the build checks that this label lies at offset 0). */
__asm__(".text\n"
        "run_reader_code_start:\n");

/* A line being written is waited for, as libfastclock's readers wait (answering from the
 * kernel then could step back, fc_read.h), however long a busy machine keeps the writer off
 * its CPU; only a write that has not ended after this many seconds (the refresher killed
 * inside its write section) is given up on: header.writer_stuck, and the kernel answers. */
#define WRITER_STUCK_TICKS_NS_SHIFTED 4294967296000000000ull /* 1 s in ns << 32: / mult = ticks */

struct k_timespec { int64_t tv_sec, tv_nsec; };
struct k_timeval { int64_t tv_sec, tv_usec; };

#define NR_GETTIMEOFDAY READER_NR_GETTIMEOFDAY
#define NR_CLOCK_GETTIME READER_NR_CLOCK_GETTIME
#define raw_syscall2 reader_syscall2
#define code_start reader_code_start

static inline struct run_page_header *header(void)
{
    return (struct run_page_header *)(code_start() + RUN_HEADER_OFFSET);
}

static inline struct run_process_page *process(void)
{
    return (struct run_process_page *)(code_start() + RUN_PROCESS_OFFSET);
}

static inline void add(uint64_t *counter)
{
    __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* The kernel's answer, counted.  Out of line: the served path saves no register for it. */
static __attribute__((noinline)) long kernel(struct run_page_header *h, long nr, long a, long b)
{
    add(&h->kernel_calls);
    return raw_syscall2(nr, a, b);
}

/* At the line page's start: no offset to load or check on the fast path (a page without
 * a line, as in count mode, holds zeros: no magic, so the kernel answers). */
static inline const struct fc_line *line(struct run_page_header *h)
{
    (void)h;
    return (const struct fc_line *)(code_start() + RUN_LINE_PAGE_OFFSET);
}

/* ---- the process's time namespace (its first read) ---- */

#define AT_FDCWD_ (-100)
#define O_RDONLY_CLOEXEC_ 02000000 /* O_RDONLY | O_CLOEXEC, the same on the three arches */

/* The inode of a /proc/self/ns link's namespace; 0 when it cannot be known.  st_ino is the
 * second 64-bit word of struct stat on the three arches (x86_64's and asm-generic's). */
static __attribute__((noinline)) uint64_t ns_inode(struct run_page_header *h, const char *path)
{
    uint64_t st[24]; /* struct stat: 144 bytes on x86_64, 128 in asm-generic */
    add(&h->kernel_calls);
    if (reader_syscall4(READER_NR_NEWFSTATAT, AT_FDCWD_, (long)path, (long)st, 0) != 0)
        return 0;
    return st[1];
}

/* This process's namespace offsets (/proc/self/timens_offsets: those of the namespace its
 * children get, which is its own once ns_inode(time) == ns_inode(time_for_children)). */
static __attribute__((noinline)) int own_offsets(struct run_page_header *h, const char *path,
                                                 int64_t *mono, int64_t *boot)
{
    char buf[256];
    add(&h->kernel_calls), add(&h->kernel_calls), add(&h->kernel_calls);
    long fd = reader_syscall4(READER_NR_OPENAT, AT_FDCWD_, (long)path, O_RDONLY_CLOEXEC_, 0);
    if (fd < 0)
        return 0;
    long n = reader_syscall4(READER_NR_READ, fd, (long)buf, sizeof buf, 0);
    reader_syscall4(READER_NR_CLOSE, fd, 0, 0, 0);
    /* Both lines in one read (the kernel's seq_file gives them at once), or nothing. */
    return n > 0 && n < (long)sizeof buf && run_timens_parse(buf, n, mono, boot);
}

/* The process page's state, learnt at the first read in this process: a forked child
 * finds the page zeroed (MADV_WIPEONFORK), so its first read asks which namespace it is in
 * before any value is served.  A few syscalls, once per process; the answer is the same
 * whichever thread or handler asks, so racing askers write the same values. */
static __attribute__((noinline)) uint32_t learn_process(struct run_page_header *h,
                                                        struct run_process_page *p)
{
    uint32_t state = RUN_PROCESS_KERNEL;
    int64_t mono = 0, boot = 0;
    uint32_t timens = __atomic_load_n(&h->timens, __ATOMIC_RELAXED);
    if (timens == RUN_TIMENS_NONE) {
        state = RUN_PROCESS_KNOWN; /* no namespaces: the refresher's clocks are everyone's */
    } else if (timens == RUN_TIMENS_KNOWN) {
        uint64_t mine = ns_inode(h, h->ns_path);
        if (mine && mine == __atomic_load_n(&h->timens_inode, __ATOMIC_RELAXED)) {
            state = RUN_PROCESS_KNOWN;
        } else if (mine && mine == ns_inode(h, h->children_path) &&
                   own_offsets(h, h->offsets_path, &mono, &boot)) {
            mono -= (int64_t)__atomic_load_n(&h->timens_monotonic_ns, __ATOMIC_RELAXED);
            boot -= (int64_t)__atomic_load_n(&h->timens_boottime_ns, __ATOMIC_RELAXED);
            state = RUN_PROCESS_KNOWN;
        }
    }
    __atomic_store_n(&p->monotonic_delta_ns, mono, __ATOMIC_RELAXED);
    __atomic_store_n(&p->boottime_delta_ns, boot, __ATOMIC_RELAXED);
    __atomic_store_n(&p->state, state, __ATOMIC_RELEASE);
    if (state == RUN_PROCESS_KNOWN)
        __atomic_store_n(&p->fast_word, (uint64_t)mono ^ RUN_PROCESS_KEY, __ATOMIC_RELAXED);
    return state;
}

/* The process's state, learnt if it is not yet. */
static inline uint32_t process_state(struct run_page_header *h, struct run_process_page *p)
{
    uint32_t st = __atomic_load_n(&p->state, __ATOMIC_ACQUIRE);
    return st != RUN_PROCESS_UNKNOWN ? st : learn_process(h, p);
}

/* What a served clock (FC_CLOCK_*) of this process is above the refresher's. */
static inline int64_t delta_of(const struct run_process_page *p, int which)
{
    return which == FC_CLOCK_MONOTONIC ? __atomic_load_n(&p->monotonic_delta_ns, __ATOMIC_RELAXED)
         : which == FC_CLOCK_BOOTTIME ? __atomic_load_n(&p->boottime_delta_ns, __ATOMIC_RELAXED)
         : 0;
}

/* The value of a served clock (which: FC_CLOCK_*, id its clock id) in ns, in the
 * refresher's namespace (delta: this process's clock above it), after a first pass did not
 * give one; false when the kernel must answer (no usable line).  fc_read.h's protocol, as
 * libfastclock's readers.  Out of line: the common case never comes here. */
static __attribute__((noinline)) int line_value_slow(struct run_page_header *h, int which, long id,
                                                     int64_t delta, uint64_t *out)
{
    const struct fc_line *l = line(h);
    for (uint64_t wait_start = 0, wait_ticks = 0;;) {
        uint64_t s1 = 0;
        enum fc_read_status r = fc_line_read(l, which, out, &s1);
        if (r == FC_READ_VALUE)
            return 1;
        if (r == FC_READ_KERNEL)
            return 0;
        if (r == FC_READ_BUSY && (s1 & FC_SEQ_WRITING)) {
            if (__atomic_load_n(&h->writer_stuck, __ATOMIC_RELAXED))
                return 0;
            uint64_t now = arch_counter_raw();
            if (!wait_start) {
                uint64_t m = __atomic_load_n(&l->mult, __ATOMIC_RELAXED);
                wait_start = now;
                wait_ticks = WRITER_STUCK_TICKS_NS_SHIFTED / (m ? m : 1);
            } else if (now - wait_start > wait_ticks) {
                __atomic_store_n(&h->writer_stuck, 1, __ATOMIC_RELAXED);
                add(&h->stuck_marks);
                return 0;
            }
            reader_spin_pause();
            continue;
        }
        /* Stale or past the limit: the kernel's value, never below the line's floor. */
        struct k_timespec ts;
        if (kernel(h, NR_CLOCK_GETTIME, id, (long)&ts) != 0)
            return 0;
        uint64_t k = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec - (uint64_t)delta;
        if (fc_line_stale_value(l, which, s1, k, out))
            return 1;
    }
}

/* The common case inline (one pass on a live line), the rest out of line. */
/* The value in this process's namespace. */
static inline __attribute__((always_inline)) int line_value(struct run_page_header *h, int which,
                                                            long id, int64_t delta, uint64_t *out)
{
    const struct fc_line *l = line(h);
    uint64_t s1;
    if (!__builtin_expect(fc_line_read(l, which, out, &s1) == FC_READ_VALUE, 1) &&
        !line_value_slow(h, which, id, delta, out))
        return 0;
    *out += (uint64_t)delta;
    return 1;
}

#define CLOCK_ID_REALTIME_COARSE 5
#define CLOCK_ID_MONOTONIC_COARSE 6

/* The clock id a coarse one is answered as: CLOCK_MONOTONIC_COARSE as CLOCK_MONOTONIC,
 * CLOCK_REALTIME_COARSE as CLOCK_REALTIME (others: itself).  Patched, the vDSO no longer
 * answers the coarse clocks (its entry point jumps here), and a syscall per call would make
 * a program that reads them for their speed ~10x slower than unserved.  The fine value
 * serves them: never staler than the kernel's coarse value (which is the fine clock at the
 * last tick, so at or below any fine value read after it), never below a value the coarse
 * id gave before (the line's values only increase, and a stale line's answer is the fine
 * kernel clock held at the line's floor, as for the fine id), and served exactly when the
 * fine id is (the refresher's serve_mask: a REALTIME step sends REALTIME_COARSE to the
 * kernel too).  Finer than a tick is allowed: POSIX bounds a clock's resolution, not how
 * much finer its values may be.  Out of the fast path: a coarse read costs the slow path's
 * ~115 instructions (no syscall), every fine read nothing more. */
static inline long fine_id(long clk)
{
    return clk == CLOCK_ID_MONOTONIC_COARSE ? 1 : clk == CLOCK_ID_REALTIME_COARSE ? 0 : clk;
}

/* FC_CLOCK_* of a served (fine) clock id, or -1.  MONOTONIC first: the clock every runtime
 * reads most (Go's nanotime, every timeout).  In a process whose namespace offsets cannot
 * be known only REALTIME, which no namespace changes. */
static inline int served(struct run_page_header *h, long clk)
{
    uint32_t mask = __atomic_load_n(&h->serve_mask, __ATOMIC_RELAXED);
    if ((unsigned long)clk >= 32 || !((mask >> clk) & 1))
        return -1;
    if (clk != 0 && process_state(h, process()) != RUN_PROCESS_KNOWN)
        return -1;
    return clk == 1 ? FC_CLOCK_MONOTONIC : clk == 0 ? FC_CLOCK_REALTIME
         : clk == 7 ? FC_CLOCK_BOOTTIME : -1;
}

/* Count mode: count, then the kernel.  Out of line. */
static __attribute__((noinline)) long counted(struct run_page_header *h, unsigned slot, long nr,
                                              long a, long b)
{
    add(&h->calls[slot]);
    return kernel(h, nr, a, b);
}

/* The fast path of every entry point: CLOCK_MONOTONIC (clk 1) or CLOCK_REALTIME (clk 0),
 * served, not in count mode, one pass on a live line.  It calls nothing, so the entry points
 * that inline it save no callee-saved register but what register pressure needs (one, rbx,
 * with GCC 12; the first version of this reader pushed and popped six on every call, and
 * adjusted the stack, because its entry points called their slow path).  Anything else
 * (another clock, count mode, no line, a line being written, stale or past its limit)
 * returns 0 and the entry point tail-calls its slow path, which decides everything again
 * from the start.  The read itself is fc_read.h's, unchanged. */
static inline __attribute__((always_inline)) int fast_value(long clk, uint64_t *out)
{
    struct run_page_header *h = header();
    const struct run_process_page *p = process();
    uint32_t mask = __atomic_load_n(&h->serve_mask, __ATOMIC_RELAXED);
    uint32_t flags = __atomic_load_n(&h->flags, __ATOMIC_RELAXED);
    /* The process's namespace known (its first read learns it, on the slow path), and its
     * MONOTONIC delta, in one word. */
    uint64_t word = __atomic_load_n(&p->fast_word, __ATOMIC_RELAXED);
    /* clk 0 or 1, its bit in the mask, not counting (one cache line), the word set. */
    if (__builtin_expect((unsigned long)clk > 1 || !((mask >> clk) & 1) ||
                         (flags & RUN_FLAG_COUNT) || !word, 0))
        return 0;
    const struct fc_line *l = line(h);
    struct fc_line_sample s;
    /* FC_CLOCK_MONOTONIC is 0, FC_CLOCK_REALTIME 1: clk 1 and 0.  One pass: a line that
     * changed under it is read again by the slow path. */
    if (__builtin_expect(fc_line_read_once(l, (int)(clk ^ 1), &s) != FC_READ_VALUE, 0))
        return 0;
    /* MONOTONIC (clk 1) in this process's namespace; REALTIME (0) is everyone's. */
    int64_t delta = (int64_t)(word ^ RUN_PROCESS_KEY) & -(int64_t)clk;
    *out = s.v + (uint64_t)s.offset + (uint64_t)delta;
    return 1;
}

static __attribute__((noinline)) long clock_gettime_slow(long clk, struct k_timespec *ts)
{
    struct run_page_header *h = header();
    if (__builtin_expect(__atomic_load_n(&h->flags, __ATOMIC_RELAXED) & RUN_FLAG_COUNT, 0))
        return counted(h, (unsigned long)clk < RUN_COUNT_CLOCKS ? (unsigned)clk : RUN_COUNT_OTHER_CLOCK,
                       NR_CLOCK_GETTIME, clk, (long)ts);
    process_state(h, process()); /* learnt here too: the fast path waits for it */
    long fine = fine_id(clk);
    int which = served(h, fine);
    uint64_t v;
    /* No usable line: a coarse id whose fine twin is served gets the fine kernel clock,
     * not its own, which lies up to a tick below a fine value served a moment before. */
    if (which < 0 || !line_value(h, which, fine, delta_of(process(), which), &v))
        return kernel(h, NR_CLOCK_GETTIME, which < 0 ? clk : fine, (long)ts);
    ts->tv_sec = (int64_t)(v / 1000000000ull);
    ts->tv_nsec = (int64_t)(v % 1000000000ull);
    return 0;
}

long run_reader_clock_gettime(long clk, struct k_timespec *ts)
{
    uint64_t v;
    if (__builtin_expect(!fast_value(clk, &v), 0))
        return clock_gettime_slow(clk, ts); /* a tail call: no frame here */
    ts->tv_sec = (int64_t)(v / 1000000000ull);
    ts->tv_nsec = (int64_t)(v % 1000000000ull);
    return 0;
}

static __attribute__((noinline)) long gettimeofday_slow(struct k_timeval *tv, void *tz)
{
    struct run_page_header *h = header();
    if (__builtin_expect(__atomic_load_n(&h->flags, __ATOMIC_RELAXED) & RUN_FLAG_COUNT, 0))
        return counted(h, RUN_COUNT_GETTIMEOFDAY, NR_GETTIMEOFDAY, (long)tv, (long)tz);
    uint64_t v;
    /* A timezone, or no timeval: the kernel, as the vDSO's own fallback does. */
    process_state(h, process()); /* learnt here too: the fast path waits for it */
    if (tz || !tv || served(h, 0) < 0 || !line_value(h, FC_CLOCK_REALTIME, 0, 0, &v))
        return kernel(h, NR_GETTIMEOFDAY, (long)tv, (long)tz);
    tv->tv_sec = (int64_t)(v / 1000000000ull);
    tv->tv_usec = (int64_t)(v % 1000000000ull / 1000u);
    return 0;
}

long run_reader_gettimeofday(struct k_timeval *tv, void *tz)
{
    uint64_t v;
    if (__builtin_expect(tz || !tv || !fast_value(0, &v), 0))
        return gettimeofday_slow(tv, tz);
    tv->tv_sec = (int64_t)(v / 1000000000ull);
    tv->tv_usec = (int64_t)(v % 1000000000ull / 1000u);
    return 0;
}

#ifdef READER_NR_TIME /* only where the vDSO has a time entry (x86_64) */
#define NR_TIME READER_NR_TIME
static __attribute__((noinline)) long time_slow(int64_t *t)
{
    struct run_page_header *h = header();
    if (__builtin_expect(__atomic_load_n(&h->flags, __ATOMIC_RELAXED) & RUN_FLAG_COUNT, 0))
        return counted(h, RUN_COUNT_TIME, NR_TIME, (long)t, 0);
    uint64_t v;
    process_state(h, process());
    if (served(h, 0) < 0 || !line_value(h, FC_CLOCK_REALTIME, 0, 0, &v))
        return kernel(h, NR_TIME, (long)t, 0);
    int64_t s = (int64_t)(v / 1000000000ull);
    if (t)
        *t = s;
    return (long)s;
}

long run_reader_time(int64_t *t)
{
    uint64_t v;
    if (__builtin_expect(!fast_value(0, &v), 0))
        return time_slow(t);
    int64_t s = (int64_t)(v / 1000000000ull);
    if (t)
        *t = s;
    return (long)s;
}
#endif
