/* SPDX-License-Identifier: MIT */
/* Console frames (clockscope vm): round trips of every payload length, and corruption of
 * every byte of a frame detected, never decoded into other output (in-process mutation
 * fuzzing; the suite also runs this under ASan). */
#include "check.h"
#include "vm/frame.h"

#include <stdlib.h>
#include <string.h>

TEST(frame_round_trip_every_length)
{
    unsigned char data[FRAME_MAX_PAYLOAD];
    srand(1);
    for (size_t len = 0; len <= FRAME_MAX_PAYLOAD; len++) {
        for (size_t i = 0; i < len; i++)
            data[i] = (unsigned char)rand();
        char line[FRAME_MAX_LINE];
        size_t n = frame_encode('o', len * 7, data, len, line);
        CHECK(n <= FRAME_MAX_LINE && line[n - 1] == '\n');
        static struct frame f;
        CHECK(frame_decode(line, n, &f) == 1);
        CHECK(f.kind == 'o' && f.seq == len * 7 && f.len == len);
        CHECK(memcmp(f.data, data, len) == 0);
    }
}

TEST(frame_after_kernel_text_and_with_carriage_return)
{
    char line[FRAME_MAX_LINE + 64] = "[    1.234] some kernel message";
    size_t pre = strlen(line);
    size_t n = frame_encode('x', 3, "0", 1, line + pre);
    line[pre + n - 1] = '\r';
    line[pre + n] = '\n';
    static struct frame f;
    CHECK(frame_decode(line, pre + n + 1, &f) == 1);
    CHECK(f.kind == 'x' && f.seq == 3 && strcmp((char *)f.data, "0") == 0);
    CHECK(frame_decode("[ 2.0] no frame here\n", 21, &f) == 0);
}

TEST(frame_corruption_is_detected)
{
    const char *text = "clocksource hpet: 1234 ns per call\n";
    char line[FRAME_MAX_LINE];
    size_t n = frame_encode('e', 42, text, strlen(text), line);
    size_t tag = strlen(FRAME_TAG);
    static struct frame f;
    for (size_t i = tag; i < n - 1; i++) {
        for (int delta = 1; delta < 256; delta += 37) {
            char bad[FRAME_MAX_LINE];
            memcpy(bad, line, n);
            bad[i] = (char)(bad[i] + delta);
            int d = frame_decode(bad, n, &f);
            /* Only the sequence number may change and still decode: the console loop
             * then sees a gap.  Anything else must be rejected. */
            if (d == 1)
                CHECK(f.seq != 42 && f.kind == 'e' && f.len == strlen(text) &&
                      memcmp(f.data, text, f.len) == 0);
        }
    }
    for (size_t cut = 0; cut < n - 1; cut++)
        CHECK(frame_decode(line, cut, &f) <= 0);
}

TEST(frame_random_lines_never_overrun)
{
    srand(9);
    char line[FRAME_MAX_LINE * 2];
    static struct frame f;
    for (int round = 0; round < 20000; round++) {
        size_t n = (size_t)rand() % sizeof line;
        size_t keep = strlen(FRAME_TAG);
        memcpy(line, FRAME_TAG, keep);
        for (size_t i = keep; i < n; i++)
            line[i] = "0123456789abcdef =+/AZaz-oexms\r"[rand() % 31];
        int d = frame_decode(line, n < keep ? keep : n, &f);
        CHECK(d >= -1 && d <= 1);
        if (d == 1)
            CHECK(f.len <= FRAME_MAX_PAYLOAD);
    }
}
