/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for bench's --gap LIST parser: `make fuzz`, then
 * build/fuzz/fuzz_gap_list -max_total_time=60 CORPUS_DIR.  The input is not
 * NUL-terminated (the parser takes a length); an accepted list must keep every promise of
 * bench/gap_list.h, a rejected one must say why. */
#include "bench/gap_list.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct gap_list g;
    char err[200];
    err[0] = 0;
    if (!gap_list_parse((const char *)data, size, &g, err, sizeof err)) {
        if (!err[0])
            abort();
        return 0;
    }
    if (g.count < 1 || g.count > GAP_LIST_MAX)
        abort();
    for (int i = 0; i < g.count; i++) {
        if (g.item[i].gap_ns > GAP_MAX_NS || g.item[i].reads > GAP_READS_MAX)
            abort();
        if (g.item[i].gap_ns == 0 && g.item[i].reads)
            abort();
        for (int k = 0; k < i; k++)
            if (g.item[k].gap_ns == g.item[i].gap_ns)
                abort();
    }
    return 0;
}
