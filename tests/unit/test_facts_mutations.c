/* SPDX-License-Identifier: MIT */
/* The foreign-text parsers of facts/ under in-process mutation fuzzing (run under
 * ASan/UBSan by the suite): kernel-log lines and their events, cpuinfo, command lines,
 * versions.  Each parser's own cases are in its own file (test_klog.c, test_logscan.c,
 * test_cpuinfo.c, test_kernel_text.c). */
#include "check.h"
#include "facts/cpuinfo.h"
#include "facts/kernel_text.h"
#include "facts/klog.h"
#include "facts/logscan.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static struct logscan scan;

static const char *const seeds[] = {
    "[ 8996.144253] clocksource: timekeeping watchdog on CPU2: Marking clocksource 'tsc' as unstable because the skew is too large:\n"
    "[ 8996.144260] clocksource:                       'acpi_pm' wd_now: f4b7d wd_last: 6c50c5 mask: ffffff\n"
    "Jan 12 03:04:05 h kern.info kernel: [1.0] tsc: Marking TSC unstable due to clocksource watchdog\n",
    "6,1,2,-;Clocksource tsc unstable (delta = -1 ns)\n<6>[1.0] Time: hpet clocksource has been installed.\n"
    "kern  :info  : [1.0] arch_timer: Enabling global workaround for Allwinner erratum UNKNOWN1\r\n",
    "processor\t: 0\nflags\t\t: tsc constant_tsc\nisa\t: rv64imafdc\nFeatures\t: fp asimd\n",
    "BOOT_IMAGE=/a clocksource=\"hpet tsc=reliable notsc vdso=0\nLinux version 5.10.0 (x)\n",
};

TEST(parsers_survive_mutations)
{
    unsigned seed = 4242;
    char buf[2048];
    int known_versions = 0, found_clocksource = 0;
    for (int round = 0; round < 30000; round++) {
        const char *s = seeds[round % (sizeof seeds / sizeof seeds[0])];
        size_t n = strlen(s);
        memcpy(buf, s, n);
        int edits = 1 + (int)(rand_r(&seed) % 12);
        for (int e = 0; e < edits; e++) {
            size_t at = n ? rand_r(&seed) % n : 0;
            switch (rand_r(&seed) % 5) {
            case 0:
                buf[at] = (char)rand_r(&seed);
                break;
            case 4: /* the matchers are case-insensitive: flip case */
                buf[at] = (char)(islower((unsigned char)buf[at]) ? toupper((unsigned char)buf[at])
                                                                  : tolower((unsigned char)buf[at]));
                break;
            case 1:
                buf[at] = "\n\r '[]:;,<>0.\"="[rand_r(&seed) % 16];
                break;
            case 2:
                n = at; /* truncate */
                break;
            default:
                if (n + 8 < sizeof buf) { /* duplicate a chunk */
                    size_t len = 1 + rand_r(&seed) % 8;
                    if (at + len > n)
                        len = n - at;
                    memmove(buf + at + len, buf + at, n - at);
                    n += len;
                }
            }
        }
        /* Exact-size heap copy without a terminator: overreads show under ASan. */
        char *exact = malloc(n ? n : 1);
        memcpy(exact, buf, n);
        logscan_run(exact, n, &scan);
        static struct cpuinfo c;
        cpuinfo_parse(exact, n, &c);
        cpuinfo_has_flag(&c, "tsc");
        free(exact);
        char *z = malloc(n + 1);
        memcpy(z, buf, n);
        z[n] = 0;
        char v[64], m[16];
        struct kernel_version k;
        if (cmdline_param(z, "clocksource", v, sizeof v)) {
            CHECK(memchr(v, 0, sizeof v)); /* terminated inside its buffer */
            found_clocksource++;
        }
        if (cmdline_param(z, "notsc", v, sizeof v))
            CHECK(memchr(v, 0, sizeof v));
        kernel_version_parse(z, &k);
        CHECK(memchr(k.release, 0, sizeof k.release));
        if (k.known) {
            CHECK(k.major >= 0 && k.minor >= 0 && k.patch >= 0);
            known_versions++;
        }
        machine_name_parse(z, m, sizeof m);
        CHECK(memchr(m, 0, sizeof m));
        double ts;
        char line[KLOG_LINE_MAX];
        snprintf(line, sizeof line, "%s", z);
        const char *msg = klog_strip_prefix(line, &ts);
        CHECK(msg >= line && msg <= line + strlen(line));
        free(z);
    }
    /* Beyond not crashing (ASan): the parsers still find what survives the edits.  A
     * quarter of the rounds start from the seed holding both a version and a clocksource=,
     * and most edits leave them readable; a parser that stopped parsing finds none. */
    CHECK(known_versions > 1000 && found_clocksource > 1000);
}
