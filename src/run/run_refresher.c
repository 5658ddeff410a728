/* SPDX-License-Identifier: MIT */
/* The refresher (run/run_refresher.h).  It lives outside the served program: nothing of
 * it is a thread the program could see, block or fork. */
#include "run/run_refresher.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

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
        char what[64];
        if (i < RUN_COUNT_CLOCKS)
            snprintf(what, sizeof what, "clock_gettime(%s)", clock_name(i));
        else
            snprintf(what, sizeof what, "%s", i == RUN_COUNT_GETTIMEOFDAY ? "gettimeofday()"
                                              : i == RUN_COUNT_TIME ? "time()"
                                                                    : "clock_gettime(other clocks)");
        fprintf(f, "  %12llu  %12.0f  %s\n", (unsigned long long)n, secs > 0 ? (double)n / secs : 0,
                what);
    }
    if (f != stderr)
        fclose(f);
    else
        fflush(f);
}

void run_refresher_loop(const struct run_refresher *r)
{
    double start = now_s();
    for (;;) {
        struct pollfd p = {.fd = r->lifeline, .events = POLLIN};
        int n = poll(&p, 1, 1000);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            break;
        if (n > 0) {
            char buf[64];
            ssize_t got = read(r->lifeline, buf, sizeof buf);
            if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
                break; /* every served process has ended */
        }
    }
    if (r->count)
        print_table(r, now_s() - start);
}
