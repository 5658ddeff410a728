/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for clockscope profile's perf text parsers: `make fuzz`, then
 * build/fuzz/fuzz_perf_text -max_total_time=60 CORPUS_DIR.  The first byte picks the
 * parser (0 mod 3: perf script, 1: perf report, 2: run --mode count's table), the rest is
 * the text, not NUL-terminated.
 * A rejected text must name the line (or say there was nothing); an accepted one must give
 * shares that are percentages adding up to 100. */
#include "profile/count_table.h"
#include "profile/perf_text.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static struct tally t;
    if (size == 0)
        return 0;
    const char *text = (const char *)data + 1;
    char err[300];
    err[0] = 0;
    if (data[0] % 3 == 2) {
        static struct count_table ct;
        if (!count_table_parse(text, size - 1, &ct, err, sizeof err)) {
            if (strncmp(err, "line ", 5) != 0 && strncmp(err, "no ", 3) != 0)
                abort();
        } else if (ct.nprocs < 1 || ct.nprocs > COUNT_MAX_PROCS)
            abort();
        return 0;
    }
    bool script = data[0] % 3 == 0;
    bool ok = script ? perf_script_parse(text, size - 1, &t, err, sizeof err)
                     : perf_report_parse(text, size - 1, &t, err, sizeof err);
    if (!ok) {
        if (strncmp(err, "line ", 5) != 0 && strncmp(err, "no ", 3) != 0)
            abort();
        return 0;
    }
    double sum = 0;
    for (int c = 0; c < CAT_COUNT; c++) {
        double p = tally_percent(&t, c);
        if (!(p >= 0 && p <= 100.0001))
            abort();
        sum += p;
    }
    if (fabs(sum - 100.0) > 0.6 || t.nsymbols > TALLY_NAMES || t.ncall_sites > TALLY_NAMES ||
        t.nclocksources > TALLY_CLOCKSOURCES)
        abort();
    tally_sort(&t);
    return 0;
}
