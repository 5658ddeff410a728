/* The kernel's own TSC calibration, from its log: "tsc: Refined TSC clocksource
 * calibration: 2445.406 MHz" (after comparing with another clocksource) or "tsc: Detected
 * 2445.406 MHz processor" (at boot).  Only x86 kernels print these; elsewhere none is found. */
#ifndef CLOCKSCOPE_KERNEL_LOG_H
#define CLOCKSCOPE_KERNEL_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct kernel_tsc_claim {
    uint64_t hz;        /* 0 when none found */
    bool refined;       /* from the refined calibration (better than "Detected") */
    uint64_t step_hz;   /* the figure's last printed digit (1 kHz for "2445.406 MHz") */
    char line[160];     /* the message it came from */
};

/* Parses one log message (buffer + length, need not be NUL-terminated; a /dev/kmsg record
 * "prio,seq,usec,flags;message" is accepted too).  On a TSC calibration line fills *hz and
 * *refined and returns true; anything else, however malformed, returns false. */
bool kernel_log_tsc_line(const char *msg, size_t len, uint64_t *hz, bool *refined);
/* The value of the last digit of a line kernel_log_tsc_line() accepted, in Hz. */
uint64_t kernel_log_tsc_step_hz(const char *msg, size_t len);

/* Scans the live kernel log (facts_read_kernel_log: /dev/kmsg, syslog(2) or journalctl);
 * a refined calibration wins over "Detected".  Returns false (claim->hz == 0) when the log
 * is unreadable or says nothing.  (kernel_log_live.c; the parser above is kernel_log.c.) */
bool kernel_log_tsc_claim(struct kernel_tsc_claim *claim);

#endif
