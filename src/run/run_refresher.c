/* SPDX-License-Identifier: MIT */
/* The refresher (run/run_refresher.h).  It lives outside the served program: nothing of
 * it is a thread the program could see, block or fork. */
#include "run/run_refresher.h"
#include "common/environment.h"
#include "common/clock_ns.h"
#include "common/message.h"
#include "common/units.h"

#include "fastclock/fastclock.h"
#include "fastclock/fc_host.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/timerfd.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *clock_name(unsigned id)
{
    static const char *const names[RUN_COUNT_CLOCKS] = {
        "CLOCK_REALTIME", "CLOCK_MONOTONIC", "CLOCK_PROCESS_CPUTIME_ID", "CLOCK_THREAD_CPUTIME_ID",
        "CLOCK_MONOTONIC_RAW", "CLOCK_REALTIME_COARSE", "CLOCK_MONOTONIC_COARSE",
        "CLOCK_BOOTTIME", "CLOCK_REALTIME_ALARM", "CLOCK_BOOTTIME_ALARM", "clock 10",
        "CLOCK_TAI", "clock 12", "clock 13", "clock 14", "clock 15"};
    return names[id];
}

static void print_table(const struct run_refresher *r, double secs)
{
    FILE *f = stderr;
    if (r->output) {
        int fd = open(r->output, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0644);
        f = fd >= 0 ? fdopen(fd, "a") : NULL;
        if (!f) {
            fprintf(stderr, "clockscope run: cannot write the count table to %s: %s\n",
                    r->output, strerror(errno));
            return;
        }
    }
    fprintf(f, "clockscope run --mode count: pid %d (%s, patched vDSO), %.3f s\n", (int)r->pid,
            r->path, secs);
    fprintf(f, "  %12s  %12s  %s\n", "calls", "calls/s", "call");
    for (unsigned i = 0; i < RUN_COUNT_SLOTS; i++) {
        uint64_t n = __atomic_load_n(&r->page->calls[i], __ATOMIC_RELAXED);
        if (!n)
            continue;
        char what[MSG_WORD];
        if (i < RUN_COUNT_CLOCKS)
            snprintf(what, sizeof what, "clock_gettime(%s)", clock_name(i));
        else
            snprintf(what, sizeof what, "%s", i == RUN_COUNT_GETTIMEOFDAY ? "gettimeofday()"
                                              : i == RUN_COUNT_TIME ? "time()"
                                                                    : "clock_gettime(other clocks)");
        fprintf(f, "  %12llu  %12s  %s\n", (unsigned long long)n,
                RATE_TEXT(secs > 0 ? (double)n / secs : 0), what);
    }
    if (f != stderr)
        fclose(f);
    else
        fflush(f);
}

#define SERVED_CLOCKS ((1u << CLOCK_MONOTONIC) | (1u << CLOCK_REALTIME) | (1u << CLOCK_BOOTTIME))
/* fastclock's explicit ticker (never parks) refreshes a line from half its period on; a
 * line's period starts at 2 ms and doubles per refresh up to 100 ms (fc_writer.h), and
 * serves 2 ms past it.  So the ticker looks every 1 ms for the first second (lines of 2, 4,
 * 8 ms ...), then every 10 ms (lines of 100 ms): a line the program reads is never stale
 * for want of a look. */
#define TICKER_START_PERIOD_NS 1000000ull
#define TICKER_PERIOD_NS 10000000ull
#define TICKER_START_SECONDS 1.0
#define LIVE_WAIT_MS 100 /* at most this long for the line to go live before the program starts */

static char start_said[MSG_LINE];

const char *run_refresher_start_said(void)
{
    return start_said;
}

bool run_refresher_move(int to, struct run_page_header *page, bool line, char *why, size_t whylen)
{
    uintptr_t pg = fc_host_line_page();
    if (ftruncate(to, RUN_MEMFD_SIZE) != 0) {
        snprintf(why, whylen, "cannot size its memfd: %s", strerror(errno));
        return false;
    }
    /* The hot page's writers are libfastclock's writer, held off here, and its readers, of
     * which this process has none (it reads no clock through libfastclock); the header's
     * are this thread and the served processes, none served yet.  So nothing is written
     * between the copy and the new mapping. */
    fc_host_hold_writer();
    bool ok = pwrite(to, page, RUN_PAGE_SIZE, RUN_PAGE_SIZE) == (ssize_t)RUN_PAGE_SIZE &&
              (!line || (pg && pwrite(to, (const void *)pg, RUN_PAGE_SIZE, 0) == (ssize_t)RUN_PAGE_SIZE));
    if (!ok)
        snprintf(why, whylen, "cannot fill its memfd: %s", errno ? strerror(errno) : "short write");
    /* MAP_FIXED over the same addresses: the old memfd's pages go, the values stay. */
    if (ok && line && mmap((void *)pg, RUN_PAGE_SIZE, PROT_READ | PROT_WRITE,
                           MAP_SHARED | MAP_FIXED, to, 0) != (void *)pg) {
        snprintf(why, whylen, "cannot map its memfd: %s", strerror(errno));
        ok = false;
    }
    if (ok && mmap(page, RUN_PAGE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, to,
                   RUN_PAGE_SIZE) != (void *)page) {
        snprintf(why, whylen, "cannot map its memfd: %s", strerror(errno));
        ok = false;
    }
    fc_host_release_writer();
    return ok;
}

bool run_refresher_prepare(int memfd, struct run_page_header *page, const struct run_mode *mode,
                           char *why, size_t whylen)
{
    long pagesz = sysconf(_SC_PAGESIZE);
    uintptr_t pg = fc_host_line_page();
    if (pagesz != (long)RUN_PAGE_SIZE || pagesz != FC_HOST_PAGE_SIZE || !pg) {
        snprintf(why, whylen, "fastclock's line is not alone on a %u-byte page here", RUN_PAGE_SIZE);
        return false;
    }
    /* Before libfastclock has started (no thread, no line yet): the hot page's initial
     * contents (the line's constant words) copied. */
    if (pwrite(memfd, (const void *)pg, (size_t)pagesz, 0) != pagesz ||
        mmap((void *)pg, (size_t)pagesz, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, memfd, 0) !=
            (void *)pg) {
        snprintf(why, whylen, "cannot share fastclock's line: %s", strerror(errno));
        return false;
    }
    struct fastclock_info info;
    fastclock_info(&info);
    if (info.source != FASTCLOCK_SOURCE_COUNTER) {
        snprintf(why, whylen, "no safe counter (%s): the vDSO reads the same kernel clock; "
                 "nothing to serve", info.why);
        return false;
    }
    if (mode->kind == RUN_MODE_AUTO) {
        const char *hook = getenv(ENV_RUN_SLOW);
        uint64_t libc_t = 0, sys_t = 0, libc_r = 0, sys_r = 0;
        bool slow = hook && *hook ? *hook == '1'
                  : fc_host_kernel_path_slow(clock_gettime, CLOCK_MONOTONIC, &libc_t, &sys_t) ||
                    fc_host_kernel_path_slow(clock_gettime, CLOCK_REALTIME, &libc_r, &sys_r);
        if (!slow) {
            snprintf(why, whylen, "--mode auto: the vDSO does not enter the kernel here (a "
                     "monotonic read costs %llu counter ticks, a syscall %llu): nothing to "
                     "gain (--mode fast serves anyway)",
                     (unsigned long long)libc_t, (unsigned long long)sys_t);
            return false;
        }
    }
    int e = fastclock_ticker_start(TICKER_START_PERIOD_NS);
    if (e) {
        snprintf(why, whylen, "cannot start fastclock's ticker: %s", strerror(e));
        return false;
    }
    /* The line goes live once libfastclock's cross-CPU check has passed (a thread of its
     * own): wait for it a little, so that the program's first reads find it (until then
     * they are syscalls: correct, slow; hundreds of them on a 2-CPU machine).  Waiting for
     * the source alone would return at once: it says "counter" from initialisation on. */
    double wait_from = clock_ns_monotonic_s();
    for (int i = 0; i < LIVE_WAIT_MS && fc_host_line_pending(); i++)
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    double waited_ms = (clock_ns_monotonic_s() - wait_from) * 1e3;
    if (fc_host_line_live())
        snprintf(start_said, sizeof start_said, "its line live after %.1f ms", waited_ms);
    else
        snprintf(start_said, sizeof start_said,
                 "its line not live after %.1f ms (the first reads go to the kernel)", waited_ms);
    __atomic_store_n(&page->serve_mask, SERVED_CLOCKS, __ATOMIC_RELEASE);
    return true;
}

/* A timerfd that reports any step of CLOCK_REALTIME (TFD_TIMER_CANCEL_ON_SET: a read fails
 * with ECANCELED), armed far in the future so that it never expires. */
static int step_watch(void)
{
    int fd = timerfd_create(CLOCK_REALTIME, TFD_NONBLOCK | TFD_CLOEXEC);
    struct itimerspec far = {.it_value = {.tv_sec = (time_t)1 << 40}};
    if (fd >= 0 && timerfd_settime(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, &far, NULL) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static uint64_t refreshes(void)
{
    struct fastclock_info info;
    fastclock_info(&info);
    return info.refreshes;
}

void run_refresher_loop(const struct run_refresher *r)
{
    double start = clock_ns_monotonic_s();
    bool serving = __atomic_load_n(&r->page->serve_mask, __ATOMIC_RELAXED) != 0;
    int steps = serving ? step_watch() : -1;
    uint64_t held_until = 0; /* REALTIME held back until refresh number > this */
    bool holding = false, started = !serving;
    for (;;) {
        if (!started && clock_ns_monotonic_s() - start >= TICKER_START_SECONDS) {
            fastclock_ticker_start(TICKER_PERIOD_NS);
            started = true;
        }
        struct pollfd p[2] = {{.fd = r->lifeline, .events = POLLIN}, {.fd = steps, .events = POLLIN}};
        /* 100 ms: also how soon a stuck-writer mark (a reader that waited 1 s for a write
         * while this process was kept off the CPU) is cleared. */
        int n = poll(p, steps >= 0 ? 2 : 1, holding ? 5 : 100);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (p[0].revents) {
            char buf[64];
            ssize_t got = read(r->lifeline, buf, sizeof buf);
            if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
                break; /* every served process has ended */
        }
        if (steps >= 0 && p[1].revents) {
            uint64_t x;
            if (read(steps, &x, sizeof x) < 0 && errno == ECANCELED) {
                /* CLOCK_REALTIME was stepped: the line's offset is the old one until the
                 * next refresh; meanwhile REALTIME is answered by the kernel. */
                __atomic_and_fetch(&r->page->serve_mask, ~(1u << CLOCK_REALTIME), __ATOMIC_SEQ_CST);
                held_until = refreshes() + 1;
                holding = true;
            }
            close(steps);
            steps = step_watch();
        }
        if (__atomic_load_n(&r->page->flags, __ATOMIC_RELAXED) & RUN_FLAG_UNDONE)
            break; /* run --undo put the vDSO back */
        /* A reader gave up on a write of the line; this process is alive, so its writer is
         * too: the reads may wait for it again. */
        if (__atomic_load_n(&r->page->writer_stuck, __ATOMIC_RELAXED))
            __atomic_store_n(&r->page->writer_stuck, 0, __ATOMIC_RELAXED);
        if (holding && refreshes() > held_until) {
            __atomic_or_fetch(&r->page->serve_mask, 1u << CLOCK_REALTIME, __ATOMIC_SEQ_CST);
            holding = false;
        }
    }
    if (r->count)
        print_table(r, clock_ns_monotonic_s() - start);
    if (r->verbose) {
        char line[300] = "";
        if (serving) {
            struct fastclock_info info;
            fastclock_info(&info);
            snprintf(line, sizeof line, "; fastclock's line: %s (%s), %llu refreshes, writer "
                     "marked stuck %llu times",
                     info.source == FASTCLOCK_SOURCE_COUNTER ? "on the counter" : "on the kernel clock",
                     info.why, (unsigned long long)info.refreshes,
                     (unsigned long long)__atomic_load_n(&r->page->stuck_marks, __ATOMIC_RELAXED));
        }
        fprintf(stderr, "clockscope run: pid %d (%s) ended: its patched vDSO made %llu syscalls%s\n",
                (int)r->pid, r->path,
                (unsigned long long)__atomic_load_n(&r->page->kernel_calls, __ATOMIC_RELAXED), line);
        fflush(stderr);
    }
}
