/* SPDX-License-Identifier: MIT */
/* The kernel's own TSC calibration, from the live kernel log: the line parser is
 * facts/tsc_calibration (shared with the doctor's log scanner); this is warp's question of
 * the live machine.  Only x86 kernels print these lines; elsewhere none is found. */
#ifndef CLOCKSCOPE_KERNEL_LOG_H
#define CLOCKSCOPE_KERNEL_LOG_H

#include "facts/tsc_calibration.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kernel_tsc_claim {
    uint64_t hz;        /* 0 when none found */
    bool refined;       /* from the refined calibration (better than "Detected") */
    uint64_t step_hz;   /* the figure's last printed digit (1 kHz for "2445.406 MHz") */
    char line[160];     /* the message it came from */
};

/* Scans the live kernel log (facts_read_kernel_log: /dev/kmsg or syslog(2)); a refined
 * calibration wins over "Detected", a later line over an earlier one of the same kind.
 * Returns false (claim->hz == 0) when the log is unreadable or says nothing. */
bool kernel_log_tsc_claim(struct kernel_tsc_claim *claim);

#endif
