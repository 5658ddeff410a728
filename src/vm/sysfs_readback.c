/* SPDX-License-Identifier: MIT */
#include "vm/sysfs_readback.h"

#include "common/clocksource_sysfs.h"
#include "common/words.h"

#include <string.h>

enum sysfs_readback sysfs_readback(const char *path, const char *wrote, const char *now,
                                   const char *available, const char *provisional)
{
    if (strcmp(now, wrote) == 0)
        return SYSFS_READBACK_HOLDS;
    /* A clocksource name the kernel does not have is kept as an override, and the kernel
     * switches to it when a clocksource of that name registers (clocksource_select() runs
     * at every registration).  While the provisional clocksource is listed, the set is
     * still changing (x86 replaces tsc-early with tsc once its refined calibration
     * succeeds, a second or more into boot and later under TCG on a busy host, or drops
     * it), so a switch written before then is not refused yet. */
    if (provisional && strcmp(path, CLOCKSOURCE_SYSFS_DIR "/" CLOCKSOURCE_CURRENT) == 0 &&
        words_has(available, provisional))
        return SYSFS_READBACK_PENDING;
    return SYSFS_READBACK_REFUSED;
}
