/* SPDX-License-Identifier: MIT */
/* Kernel log lines, whatever tool wrote them.  A line may carry any of these prefixes (or
 * none), which are stripped so that rules see the kernel's own message:
 *   "[   12.345678] "                      dmesg (timestamp: seconds since boot)
 *   "<6>[   12.345678] "                   dmesg -r
 *   "6,1234,12345678,-;"                   /dev/kmsg records
 *   "kern  :info  : [   12.345678] "       dmesg -x
 *   "kernel: "                             journal excerpts
 *   "Mon DD HH:MM:SS host kernel: "        journalctl / syslog
 *   "... host kernel: [   12.345678] "     syslog with the kernel's own timestamp
 *   "[Mon Jan  1 12:00:00 2024] "          dmesg -T (no seconds-since-boot then)
 *   "2024-01-01T12:00:00,123456+00:00 "   dmesg --time-format iso
 * Lines end in LF or CRLF; control bytes and non-ASCII bytes become '?', so that binary
 * garbage can neither break a string nor reach the JSON output. */
#ifndef CLOCKSCOPE_KLOG_H
#define CLOCKSCOPE_KLOG_H

#include <stdbool.h>
#include <stddef.h>

#define KLOG_LINE_MAX 512

struct klog_line {
    char raw[KLOG_LINE_MAX];   /* the whole line, sanitized and cut at KLOG_LINE_MAX - 1 */
    const char *msg;           /* points into raw: the message without its prefixes */
    double ts;                 /* seconds since boot, or -1 when the line has none */
    size_t lineno;             /* 1-based */
};

struct klog_iter {
    const char *buf;
    size_t len;
    size_t pos;
    size_t lineno;
};

void klog_iter_init(struct klog_iter *it, const char *buf, size_t len);
/* Next non-empty line; false at the end. */
bool klog_next(struct klog_iter *it, struct klog_line *out);
/* Strips the prefixes of a sanitized line; returns the message and sets *ts. */
const char *klog_strip_prefix(const char *line, double *ts);

#endif
