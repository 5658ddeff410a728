/* SPDX-License-Identifier: MIT */
#include "vm/sysfs_readback.h"

#include <stdbool.h>
#include <string.h>

/* The clocksource the x86 kernel registers early in boot from a quick TSC calibration, and
 * replaces once its refined calibration (delayed work, a second or more after boot: later
 * under TCG on a busy host) registers "tsc", or fails and unregisters it.  While it is
 * listed the kernel's set of clocksources is still changing. */
#define PROVISIONAL_CLOCKSOURCE "tsc-early"

static bool lists_word(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; p && *p;) {
        p += strspn(p, " \t\n");
        size_t len = strcspn(p, " \t\n");
        if (len == n && strncmp(p, word, n) == 0)
            return true;
        p += len;
    }
    return false;
}

enum sysfs_readback sysfs_readback(const char *path, const char *wrote, const char *now,
                                   const char *available)
{
    if (strcmp(now, wrote) == 0)
        return SYSFS_READBACK_HOLDS;
    /* A clocksource name the kernel does not have is kept as an override, and the kernel
     * switches to it when a clocksource of that name registers (clocksource_select() runs
     * at every registration).  So a switch written before the refined TSC exists is not
     * refused yet: it holds, or not, once the provisional clocksource has left the list. */
    const char *leaf = strrchr(path, '/');
    bool clocksource = leaf && strcmp(leaf, "/current_clocksource") == 0;
    if (clocksource && lists_word(available, PROVISIONAL_CLOCKSOURCE))
        return SYSFS_READBACK_PENDING;
    return SYSFS_READBACK_REFUSED;
}
