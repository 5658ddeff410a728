/* The kernel's TSC calibration claim from the live kernel log, read the one way clockscope
 * reads it (facts_read_kernel_log) and split into lines by the facts module's klog. */
#include "warp/kernel_log.h"

#include "facts/facts.h"
#include "facts/klog.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Warp asks early and must not wait long for a journal. */
/* No journalctl: it may take a second, and warp's budget is the whole run's. */
#define JOURNAL_TIMEOUT_MS 0

bool kernel_log_tsc_claim(struct kernel_tsc_claim *claim)
{
    memset(claim, 0, sizeof *claim);
    size_t len;
    const char *source;
    char why[640];
    char *log = facts_read_kernel_log(JOURNAL_TIMEOUT_MS, &len, &source, why, sizeof why);
    if (!log)
        return false;
    struct klog_iter it;
    struct klog_line line;
    klog_iter_init(&it, log, len);
    while (klog_next(&it, &line)) {
        size_t n = strlen(line.msg);
        uint64_t hz;
        bool refined;
        if (kernel_log_tsc_line(line.msg, n, &hz, &refined) && (refined || !claim->refined)) {
            claim->hz = hz;
            claim->refined = refined;
            claim->step_hz = kernel_log_tsc_step_hz(line.msg, n);
            snprintf(claim->line, sizeof claim->line, "%s", line.msg);
        }
    }
    free(log);
    return claim->hz != 0;
}
