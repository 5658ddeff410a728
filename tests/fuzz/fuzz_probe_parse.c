/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for clockscope runtimes' probe-output parser: `make fuzz`, then
 * build/fuzz/fuzz_probe_parse -max_total_time=60 CORPUS_DIR.  The first byte picks the
 * mode; the rest is the output (not NUL-terminated: the parser takes a length).  An
 * accepted output must keep every promise of runtimes/probe_parse.h, a rejected one must
 * say where. */
#include "runtimes/probe_parse.h"

#include <stdlib.h>
#include <string.h>

static struct probe_output out;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    enum probe_mode mode = data[0] & 1 ? PROBE_COUNT : PROBE_TIMED;
    char err[200];
    err[0] = 0;
    if (!probe_parse((const char *)data + 1, size - 1, mode, "python", &out, err, sizeof err)) {
        if (strncmp(err, "line ", 5) != 0)
            abort();
        return 0;
    }
    if (out.nrows < 1 || out.nrows > PROBE_MAX_ROWS || strcmp(out.runtime, "python") != 0)
        abort();
    for (int i = 0; i < out.nrows; i++) {
        const struct probe_row *r = &out.rows[i];
        if (!r->api[0] || memchr(r->api, ' ', strlen(r->api)))
            abort();
        if (mode == PROBE_TIMED) {
            if (r->iterations < 1 || r->nsamples < PROBE_MIN_SAMPLES || r->nsamples > PROBE_MAX_SAMPLES)
                abort();
            for (int k = 0; k < r->nsamples; k++)
                if (r->timed_ns[k] < 1 || r->harness_ns[k] < 1)
                    abort();
        }
        for (int k = 0; k < i; k++)
            if (strcmp(out.rows[k].api, r->api) == 0)
                abort();
    }
    return 0;
}
