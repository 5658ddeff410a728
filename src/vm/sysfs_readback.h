/* SPDX-License-Identifier: MIT */
/* What the read-back of a vm --apply-fix sysfs write means (pure; the guest's init polls
 * on it, tests/unit/test_vm_sysfs_readback.c checks it). */
#ifndef CLOCKSCOPE_VM_SYSFS_READBACK_H
#define CLOCKSCOPE_VM_SYSFS_READBACK_H

enum sysfs_readback {
    SYSFS_READBACK_HOLDS,   /* it reads back what was written */
    SYSFS_READBACK_REFUSED, /* the kernel took the write and keeps its own choice */
    SYSFS_READBACK_PENDING, /* not yet: the kernel may still register what was named */
};

/* path and wrote: the write; now: what path reads back (no newline); available: the
 * kernel's available_clocksource list (NULL when unread); provisional: the arch's
 * provisional clocksource (arch_fast_counter_provisional_clocksource(): "tsc-early" on
 * x86), NULL where there is none. */
enum sysfs_readback sysfs_readback(const char *path, const char *wrote, const char *now,
                                   const char *available, const char *provisional);

#endif
