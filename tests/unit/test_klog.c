/* SPDX-License-Identifier: MIT */
/* The kernel log's lines (facts/klog.c): every prefix a log line may carry (printk times,
 * syslog priorities, journal and dmesg forms), messages that merely contain "kernel", CRLF,
 * garbage and lines longer than the buffer. */
#include "check.h"
#include "facts/klog.h"

#include <stdio.h>
#include <string.h>

static const char *strip(const char *line, double *ts)
{
    static char buf[KLOG_LINE_MAX];
    snprintf(buf, sizeof buf, "%s", line);
    return klog_strip_prefix(buf, ts);
}

TEST(klog_strips_every_prefix)
{
    static const struct { const char *line; double ts; } cases[] = {
        {"[   12.345678] tsc: Refined TSC", 12.345678},
        {"<6>[    0.500000] tsc: Refined TSC", 0.5},
        {"6,1234,12345678,-;tsc: Refined TSC", 12.345678},
        {"kern  :info  : [    1.000000] tsc: Refined TSC", 1.0},
        {"kernel: tsc: Refined TSC", -1},
        {"Jan 12 03:04:05 myhost kernel: tsc: Refined TSC", -1},
        {"Jan 12 03:04:05 myhost kernel: [  7.25] tsc: Refined TSC", 7.25},
        {"2024-01-12T03:04:05.123456+01:00 myhost kernel: tsc: Refined TSC", -1},
        {"Jan 12 03:04:05 myhost kern.info kernel: [335323.734091] tsc: Refined TSC", 335323.734091},
        {"[Fri Jan 12 03:04:05 2024] tsc: Refined TSC", -1},
        {"2024-01-12T03:04:05,123456+00:00 tsc: Refined TSC", -1},
        {"tsc: Refined TSC", -1},
        {"   tsc: Refined TSC", -1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        double ts;
        const char *m = strip(cases[i].line, &ts);
        if (strcmp(m, "tsc: Refined TSC") != 0)
            fprintf(stderr, "  case %zu: got '%s'\n", i, m);
        CHECK(strcmp(m, "tsc: Refined TSC") == 0);
        CHECK(ts > cases[i].ts - 1e-6 && ts < cases[i].ts + 1e-6);
    }
}

TEST(klog_keeps_messages_that_merely_contain_kernel)
{
    double ts;
    CHECK(!strcmp(strip("Freeing unused kernel image (initmem) memory: 2048K", &ts),
                  "Freeing unused kernel image (initmem) memory: 2048K"));
    CHECK(!strcmp(strip("[    0.1] Kernel command line: ro quiet", &ts), "Kernel command line: ro quiet"));
    /* "kernel:" after a ": " is inside the message, not a prefix. */
    CHECK(!strcmp(strip("foo: bar kernel: x", &ts), "foo: bar kernel: x"));
}

TEST(klog_lines_handle_crlf_garbage_and_long_lines)
{
    char buf[4096];
    size_t n = 0;
    n += (size_t)sprintf(buf + n, "[ 1.0] first\r\n\r\n");
    buf[n++] = '\x01';
    buf[n++] = (char)0xff;
    buf[n++] = 0;
    n += (size_t)sprintf(buf + n, "x\n");
    memset(buf + n, 'a', 1500);
    n += 1500;
    struct klog_iter it;
    struct klog_line l;
    klog_iter_init(&it, buf, n);
    CHECK(klog_next(&it, &l) && !strcmp(l.msg, "first") && l.lineno == 1);
    CHECK(klog_next(&it, &l) && !strcmp(l.raw, "???x") && l.lineno == 3);
    CHECK(klog_next(&it, &l) && strlen(l.raw) == KLOG_LINE_MAX - 1);
    CHECK(!klog_next(&it, &l));
    klog_iter_init(&it, NULL, 10);
    CHECK(!klog_next(&it, &l));
}
