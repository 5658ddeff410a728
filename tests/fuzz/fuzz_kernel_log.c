/* libFuzzer harness for the kernel-log TSC line parser (warp): `make fuzz`, then
 * build/fuzz/fuzz_kernel_log -max_total_time=60 CORPUS_DIR.  The input is one record,
 * not NUL-terminated: the parser must never read past `size`. */
#include "warp/kernel_log.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t hz = 0;
    bool refined = false;
    if (kernel_log_tsc_line((const char *)data, size, &hz, &refined)) {
        /* Accepted: a positive figure below 10^7 MHz, with a last digit it can state. */
        if (hz == 0 || hz >= 10000000ull * 1000000ull)
            abort();
        if (kernel_log_tsc_step_hz((const char *)data, size) == 0)
            abort();
    }
    return 0;
}
