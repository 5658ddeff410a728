/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the /proc/self/timens_offsets parser that run and its injected
 * reader share (src/run/run_timens.h): `make fuzz`, then
 * build/fuzz/fuzz_timens_offsets -max_total_time=60 CORPUS_DIR.  The input is taken as is,
 * with no terminator (the parser takes a length: ASan sees a read past it).  A refusal leaves
 * the outputs alone; an accepted text is two lines, one per clock, that print back to the
 * values parsed. */
#include "run/run_timens.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 4096)
        return 0;
    int64_t mono = 0x5a5a, boot = 0x5a5a;
    if (!run_timens_parse((const char *)data, (long)size, &mono, &boot)) {
        if (mono != 0x5a5a || boot != 0x5a5a)
            abort();
        return 0;
    }
    int lines = 0;
    for (size_t i = 0; i < size; i++)
        lines += data[i] == '\n';
    if (lines != 2 || data[size - 1] != '\n')
        abort();
    /* Each value is seconds * 1e9 + ns with ns in 0..999999999: reprinted and parsed again,
     * the same. */
    char text[128];
    int64_t m2, b2;
    int n = snprintf(text, sizeof text, "monotonic %lld %lld\nboottime %lld %lld\n",
                     (long long)(mono >= 0 ? mono / 1000000000 : -((-mono + 999999999) / 1000000000)),
                     (long long)(((mono % 1000000000) + 1000000000) % 1000000000),
                     (long long)(boot >= 0 ? boot / 1000000000 : -((-boot + 999999999) / 1000000000)),
                     (long long)(((boot % 1000000000) + 1000000000) % 1000000000));
    if (!run_timens_parse(text, n, &m2, &b2) || m2 != mono || b2 != boot)
        abort();
    return 0;
}
