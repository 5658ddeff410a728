/* SPDX-License-Identifier: MIT */
/* vm --apply-fix's read-back of a clocksource switch: holds, refused, or pending while the
 * kernel's provisional TSC is still listed (its refined TSC may register later). */
#include "check.h"
#include "vm/sysfs_readback.h"

#define CS "/sys/devices/system/clocksource/clocksource0/current_clocksource"
#define EARLY "tsc-early" /* x86's provisional clocksource */

TEST(sysfs_readback_holds_when_it_reads_back)
{
    CHECK(sysfs_readback(CS, "tsc", "tsc", "tsc hpet acpi_pm", EARLY) == SYSFS_READBACK_HOLDS);
    CHECK(sysfs_readback(CS, "tsc", "tsc", "tsc-early tsc hpet", EARLY) == SYSFS_READBACK_HOLDS);
    CHECK(sysfs_readback("/sys/x/y", "1", "1", NULL, EARLY) == SYSFS_READBACK_HOLDS);
}

TEST(sysfs_readback_pending_while_the_provisional_tsc_is_listed)
{
    CHECK(sysfs_readback(CS, "tsc", "tsc-early", "tsc-early hpet acpi_pm", EARLY) ==
          SYSFS_READBACK_PENDING);
    CHECK(sysfs_readback(CS, "tsc", "hpet", "hpet acpi_pm tsc-early\n", EARLY) == SYSFS_READBACK_PENDING);
    CHECK(sysfs_readback(CS, "no_such_clock", "hpet", "hpet tsc-early", EARLY) == SYSFS_READBACK_PENDING);
}

TEST(sysfs_readback_never_pending_where_the_arch_has_no_provisional_clocksource)
{
    CHECK(sysfs_readback(CS, "tsc", "hpet", "hpet tsc-early", NULL) == SYSFS_READBACK_REFUSED);
    CHECK(sysfs_readback(CS, "arch_sys_counter", "x", "x", NULL) == SYSFS_READBACK_REFUSED);
}

TEST(sysfs_readback_refused_once_settled_or_elsewhere)
{
    /* the refined TSC registered (or its calibration failed): the list is final */
    CHECK(sysfs_readback(CS, "no_such_clock", "tsc", "tsc hpet acpi_pm", EARLY) == SYSFS_READBACK_REFUSED);
    CHECK(sysfs_readback(CS, "tsc", "hpet", "hpet acpi_pm", EARLY) == SYSFS_READBACK_REFUSED);
    CHECK(sysfs_readback(CS, "tsc", "hpet", "", EARLY) == SYSFS_READBACK_REFUSED);
    CHECK(sysfs_readback(CS, "tsc", "hpet", NULL, EARLY) == SYSFS_READBACK_REFUSED);
    /* a word that only contains the provisional name is not it */
    CHECK(sysfs_readback(CS, "tsc", "hpet", "hpet xtsc-early tsc-earlyx", EARLY) == SYSFS_READBACK_REFUSED);
    /* only a clocksource switch waits */
    CHECK(sysfs_readback("/sys/kernel/x", "1", "0", "tsc-early", EARLY) == SYSFS_READBACK_REFUSED);
    CHECK(sysfs_readback("/sys/x/not_current_clocksource", "tsc", "hpet", "tsc-early", EARLY) ==
          SYSFS_READBACK_REFUSED);
}
