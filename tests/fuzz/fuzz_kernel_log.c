/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for the kernel-log TSC calibration parser (facts/tsc_calibration.c,
 * shared by the doctor and warp): `make fuzz`, then
 * build/fuzz/fuzz_kernel_log -max_total_time=60 CORPUS_DIR.  The input is one record,
 * not NUL-terminated: the parser must never read past `size`. */
#include "facts/tsc_calibration.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tsc_calibration cal = {0};
    if (tsc_calibration_parse((const char *)data, size, &cal)) {
        /* Accepted: a positive figure below 10^7 MHz, with a last digit it can state. */
        if (cal.hz == 0 || cal.hz >= 10000000ull * 1000000ull || cal.step_hz == 0)
            abort();
    }
    return 0;
}
