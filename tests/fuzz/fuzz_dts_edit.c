/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the lab's device-tree edit: `make fuzz`, then
 * build/fuzz/fuzz_dts_edit -max_total_time=60 CORPUS_DIR.  Whatever the text, an accepted
 * edit is the input with "\n\t\tPROPERTY;" inserted once, right after a '{'. */
#include "vm/dts_edit.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char ins[] = "\n\t\tfsl,erratum-a008585;";
    char *out, why[200];
    size_t n;
    if (!dts_add_property((const char *)data, size, "arm,armv8-timer", "fsl,erratum-a008585", &out,
                          &n, why, sizeof why))
        return 0;
    size_t k = strlen(ins);
    if (n != size + k || out[n] != '\0')
        abort();
    /* Some occurrence of the insertion, right after a '{', whose removal gives the input. */
    bool found = false;
    for (const char *q = out; !found && (q = memmem(q, n - (size_t)(q - out), ins, k)); q++) {
        size_t at = (size_t)(q - out);
        found = at > 0 && out[at - 1] == '{' && memcmp(out, data, at) == 0 &&
                memcmp(out + at + k, data + at, size - at) == 0;
    }
    if (!found)
        abort();
    free(out);
    return 0;
}
