/* SPDX-License-Identifier: MIT */
/* Where the kernel shows its clocksources (kernel/time/clocksource.c's sysfs device),
 * spelled once: the facts layout, the header, the doctor's fixes and libfastclock's check
 * all use these.  Header-only, so that libfastclock includes it without linking anything. */
#ifndef CLOCKSCOPE_CLOCKSOURCE_SYSFS_H
#define CLOCKSCOPE_CLOCKSOURCE_SYSFS_H

/* Relative to a root ("/" live, or a facts root). */
#define CLOCKSOURCE_SYSFS_REL "sys/devices/system/clocksource/clocksource0"
#define CLOCKSOURCE_SYSFS_DIR "/" CLOCKSOURCE_SYSFS_REL
#define CLOCKSOURCE_CURRENT "current_clocksource"
#define CLOCKSOURCE_AVAILABLE "available_clocksource"

#endif
