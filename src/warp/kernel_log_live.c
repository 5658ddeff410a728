/* SPDX-License-Identifier: MIT */
/* The kernel's TSC calibration claim from the live kernel log, read the one way clockscope
 * reads it (facts_read_kernel_log) and split into lines by the facts module's klog. */
#include "common/message.h"
#include "warp/kernel_log.h"

#include "facts/facts.h"
#include "facts/klog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* No journalctl: it may take a second, and warp's budget is the whole run's. */
#define JOURNAL_TIMEOUT_MS 0

bool kernel_log_tsc_claim(struct kernel_tsc_claim *claim)
{
    memset(claim, 0, sizeof *claim);
    size_t len;
    const char *source;
    char why[MSG_REASON];
    char *log = facts_read_kernel_log(JOURNAL_TIMEOUT_MS, &len, &source, why, sizeof why);
    if (!log)
        return false;
    struct klog_iter it;
    struct klog_line line;
    klog_iter_init(&it, log, len);
    while (klog_next(&it, &line)) {
        struct tsc_calibration cal;
        if (tsc_calibration_parse(line.msg, strlen(line.msg), &cal) &&
            (cal.refined || !claim->refined)) {
            claim->hz = cal.hz;
            claim->refined = cal.refined;
            claim->step_hz = cal.step_hz;
            snprintf(claim->line, sizeof claim->line, "%s", line.msg);
        }
    }
    free(log);
    return claim->hz != 0;
}
