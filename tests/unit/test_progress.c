/* SPDX-License-Identifier: MIT */
/* The progress line (common/progress.c): durations as people say them, what a line says,
 * nothing at all when off. */
#include "check.h"
#include "common/progress.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds, as progress.c keeps its times. */
static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

TEST(progress_durations_read_as_people_say_them)
{
    char b[32];
    progress_format_duration(0.4, b, sizeof b);
    CHECK(strcmp(b, "0 s") == 0);
    progress_format_duration(12.4, b, sizeof b);
    CHECK(strcmp(b, "12 s") == 0);
    progress_format_duration(120, b, sizeof b);
    CHECK(strcmp(b, "2 min") == 0);
    progress_format_duration(250, b, sizeof b);
    CHECK(strcmp(b, "4 min 10 s") == 0);
    progress_format_duration(3900, b, sizeof b);
    CHECK(strcmp(b, "1 h 5 min") == 0);
    progress_format_duration(-3, b, sizeof b);
    CHECK(strcmp(b, "0 s") == 0);
}

TEST(progress_says_what_and_how_long_is_left_only_when_on)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct progress p;
    progress_init(&p, "bench", true);
    p.tty = false; /* a file: whole lines */
    p.f = f;
    static const char fmt[] = "gap %s";
    progress_say(&p, 0.25, 90, fmt, "150 ms");
    /* The last line's time is set just before each call, so that the throttle is judged on
     * that and not on how long the machine took since the first line (an emulator on a
     * loaded host can take a second): a line of the same phase within a second of the last
     * and less than a point further is not written ... */
    p.last = now_s();
    progress_say(&p, 0.255, 60, fmt, "throttled: the same phase within a second");
    fflush(f);
    CHECK(strcmp(buf, "clockscope bench: gap 150 ms (25%, about 1 min 30 s left)\n") == 0);
    /* ... one more than a second after it is written ... */
    p.last = now_s() - 1.5;
    progress_say(&p, 0.4, 30, fmt, "200 ms");
    fflush(f);
    CHECK(strcmp(buf, "clockscope bench: gap 150 ms (25%, about 1 min 30 s left)\n"
                      "clockscope bench: gap 200 ms (40%, about 30 s left)\n") == 0);
    /* ... and so is one a point further or more, however soon: a step that long (Python's
     * probe after C's) is news, not noise. */
    p.last = now_s();
    progress_say(&p, 0.42, 29, fmt, "250 ms");
    fflush(f);
    CHECK(strstr(buf, "clockscope bench: gap 250 ms (42%, about 29 s left)\n") != NULL);
    progress_say(&p, 0.5, -1, "estimated");  /* a new phase; left from the time so far */
    fflush(f);
    CHECK(strstr(buf, "clockscope bench: estimated (50%, about ") != NULL);
    fclose(f);
    free(buf);

    /* off: not a word */
    buf = NULL;
    f = open_memstream(&buf, &len);
    struct progress q;
    progress_init(&q, "warp", false);
    q.on = false;
    q.f = f;
    progress_say(&q, 0.5, 10, "nothing");
    progress_end(&q);
    fflush(f);
    CHECK(len == 0);
    fclose(f);
    free(buf);
}

TEST(progress_left_follows_the_work_not_the_steps)
{
    /* 2 s of an expected 20 s done in 4 s: the machine is twice as slow as planned, so the
     * expected 18 s left take 36 s */
    struct progress_work w = {.done_s = 2, .total_s = 20};
    CHECK(fabs(progress_left_s(4, &w) - 36) < 1e-9);
    CHECK(fabs(progress_left_s(1, &w) - 9) < 1e-9);      /* faster than planned */
    /* ... but of those 18 s, 10 s are waits (sleeps): they take 10 s however slow */
    w.waits_s = 10;
    CHECK(fabs(progress_left_s(4, &w) - (8 * 2 + 10)) < 1e-9);
    /* a wait done is not work: 2 s of work took 6 - 1 s, with a 1 s wait done */
    w.done_s = 3;
    w.waits_done_s = 1;
    CHECK(fabs(progress_left_s(6, &w) - (8 * 2.5 + 9)) < 1e-9);
    struct progress_work early = {.done_s = 0.1, .total_s = 20};
    CHECK(progress_left_s(3, &early) < 0);                 /* under 2% done: unknown */
    struct progress_work all = {.done_s = 20, .total_s = 20};
    CHECK(progress_left_s(3, &all) == 0);
    struct progress_work none = {.done_s = 1, .total_s = 0};
    CHECK(progress_left_s(3, &none) < 0);                  /* nothing planned */

    /* the line's percentage is the work: 3 s of 12 s is 25%, whatever the steps */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    struct progress p;
    progress_init(&p, "ladder", true);
    p.tty = false;
    p.f = f;
    p.t0 = now_s() - 6; /* 6 s for the first 3 s of work: 18 s left */
    struct progress_work quarter = {.done_s = 3, .total_s = 12};
    progress_say_work(&p, &quarter, "rung %s", "pipe.threads.same_cpu");
    fflush(f);
    CHECK(strcmp(buf, "clockscope ladder: rung pipe.threads.same_cpu (25%, about 18 s left)\n") == 0);
    fclose(f);
    free(buf);
}
