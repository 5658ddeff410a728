/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for CLOCKSCOPE_LADDER_FAULT's parser (ladder/fault.c): `make fuzz`,
 * then build/fuzz/fuzz_ladder_fault -max_total_time=60 CORPUS_DIR.  The input is not
 * NUL-terminated (the parser takes a length); an accepted value must hold only well-formed
 * faults, a rejected one must say why; the lookup must never read past a glob. */
#include "ladder/fault.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ladder_faults f;
    char err[200];
    err[0] = 0;
    if (!ladder_faults_parse((const char *)data, size, &f, err, sizeof err)) {
        if (!err[0])
            abort();
        return 0;
    }
    if (f.count < 0 || f.count > LADDER_FAULTS_MAX)
        abort();
    for (int i = 0; i < f.count; i++) {
        size_t n = strnlen(f.glob[i], LADDER_FAULT_GLOB_MAX);
        if (n == 0 || n == LADDER_FAULT_GLOB_MAX)
            abort();
        if (f.kind[i] != FAULT_HANG && f.kind[i] != FAULT_CRASH)
            abort();
    }
    (void)ladder_fault_for(&f, "pipe.threads.cross_cpu");
    return 0;
}
