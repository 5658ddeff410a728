/* SPDX-License-Identifier: MIT */
/* The freestanding reader (tests/progs/fc_line_reader.c, compiled -ffreestanding) read
 * against libfastclock's own line, linked statically beside libfastclock.a: each of its
 * values must lie between libfastclock's reads before and after it (same line, same
 * segment: one copy of the math), and a line of another format must be refused.  Prints
 * "reads N values V outside O refused R" (tests/test_fastclock.py). */
#include "fastclock/fastclock.h"
#include "fastclock/fc_read.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

extern struct fc_line fc_line; /* libfastclock's (hidden: reachable in a static link only) */
uint64_t fc_line_reader_read(const struct fc_line *l, int which, int *status);

static uint64_t fastclock_of(int which)
{
    return which == FC_CLOCK_REALTIME   ? fastclock_realtime_ns()
         : which == FC_CLOCK_BOOTTIME ? fastclock_boottime_ns() : fastclock_monotonic_ns();
}

int main(void)
{
    struct fastclock_info info;
    for (int i = 0; i < 500; i++) { /* until the first line is live (at most 5 s) */
        fastclock_info(&info);
        if (info.source != FASTCLOCK_SOURCE_COUNTER || info.refreshes > 0)
            break;
        struct timespec nap = {0, 10000000};
        nanosleep(&nap, NULL);
    }
    long reads = 0, values = 0, outside = 0;
    for (int i = 0; i < 300000; i++) {
        int which = i % 3, status;
        uint64_t a = fastclock_of(which);
        uint64_t v = fc_line_reader_read(&fc_line, which, &status);
        uint64_t b = fastclock_of(which);
        reads++;
        if (status != FC_READ_VALUE)
            continue;
        values++;
        /* REALTIME may differ by the writer's hysteresis when the kernel answered a or b. */
        if (v < a || v > b)
            outside++;
    }
    /* Another format: a copy of the line with the next version is refused. */
    static struct fc_line copy;
    memcpy(&copy, &fc_line, sizeof copy);
    __atomic_store_n(&copy.version, FC_LINE_VERSION + 1, __ATOMIC_RELAXED);
    int status;
    fc_line_reader_read(&copy, FC_CLOCK_MONOTONIC, &status);
    int refused = status == FC_READ_KERNEL;
    __atomic_store_n(&copy.version, FC_LINE_VERSION, __ATOMIC_RELAXED);
    __atomic_store_n(&copy.magic, 0, __ATOMIC_RELAXED);
    fc_line_reader_read(&copy, FC_CLOCK_MONOTONIC, &status);
    refused += status == FC_READ_KERNEL;
    printf("source %d reads %ld values %ld outside %ld refused %d\n", (int)info.source, reads,
           values, outside, refused);
    return 0;
}
