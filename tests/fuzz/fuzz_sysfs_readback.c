/* SPDX-License-Identifier: MIT */
/* libFuzzer harness for vm --apply-fix's read-back decision: `make fuzz`, then
 * build/fuzz/fuzz_sysfs_readback -max_total_time=60 CORPUS_DIR.  The input is four strings
 * separated by NUL (path, written, read back, available list).  Whatever they hold: equal
 * values hold; pending only for the current_clocksource whose list has the word tsc-early. */
#include "vm/sysfs_readback.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 4);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    memset(buf + size, 0, 4);
    const char *s[4];
    size_t at = 0;
    for (int i = 0; i < 4; i++) {
        s[i] = buf + at;
        at += strlen(buf + at) + (at < size ? 1 : 0);
        if (at > size)
            at = size;
    }
    enum sysfs_readback rb = sysfs_readback(s[0], s[1], s[2], s[3], "tsc-early");
    if ((rb == SYSFS_READBACK_HOLDS) != (strcmp(s[1], s[2]) == 0))
        abort();
    if (rb == SYSFS_READBACK_PENDING) {
        if (strcmp(s[0], "/sys/devices/system/clocksource/clocksource0/current_clocksource") != 0 ||
            !strstr(s[3], "tsc-early"))
            abort();
    }
    free(buf);
    return 0;
}
