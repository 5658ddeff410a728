/* SPDX-License-Identifier: MIT */
/* The foreign-text parsers of facts/ and facts/logscan: every kernel-log prefix, CRLF,
 * garbage, truncation; cpuinfo of each architecture; command lines; versions.  Ends with
 * in-process mutation fuzzing (run under ASan/UBSan by the suite). */
#include "check.h"
#include "facts/logscan.h"
#include "facts/cpuinfo.h"
#include "facts/kernel_text.h"
#include "facts/klog.h"

#include <ctype.h>
#include <stdlib.h>
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

static struct logscan scan;

static void scan_text(const char *t) { logscan_run(t, strlen(t), &scan); }

/* The prefilter is a hand-kept list of words for speed: a row whose least line none of
 * them is in would never see a line.  Each least line, in the case the kernel prints it and
 * in upper case, must pass; a line of none of them must not. */
TEST(logscan_every_anchor_passes_the_prefilter)
{
    size_t n = 0;
    char a[256];
    for (; logscan_least_line(n, a, sizeof a); n++) {
        char upper[256];
        size_t k = 0;
        for (; a[k] && k + 1 < sizeof upper; k++)
            upper[k] = (char)toupper((unsigned char)a[k]);
        upper[k] = 0;
        if (!logscan_worth_scanning(a) || !logscan_worth_scanning(upper))
            fprintf(stderr, "  \"%s\" does not pass the prefilter\n", a);
        CHECK(logscan_worth_scanning(a) && logscan_worth_scanning(upper));
    }
    CHECK(n > 50); /* the table's rows and the words read outside it */
    CHECK(!logscan_worth_scanning("usb 1-1: new high-speed USB device number 2"));
}

TEST(logscan_reads_watchdog_demotion_with_its_watchdog)
{
    scan_text("[ 9.0] clocksource: Switched to clocksource tsc\n"
              "[8996.144253] clocksource: timekeeping watchdog on CPU2: Marking clocksource 'tsc' as unstable because the skew is too large:\n"
              "[8996.144260] clocksource:                       'acpi_pm' wd_now: f4b7d wd_last: 6c50c5 mask: ffffff\n"
              "[8996.144261] clocksource:                       'tsc' cs_now: 1ca324f62cac cs_last: 1ca0b7a50c00 mask: ffffffffffffffff\n"
              "[8996.144274] tsc: Marking TSC unstable due to clocksource watchdog\n"
              "[8996.146113] clocksource: Switched to clocksource acpi_pm\n");
    CHECK(scan.demotions.n == 1);
    CHECK(!strcmp(scan.demotions.e[0].name, "tsc"));
    CHECK(!strcmp(scan.demotions.e[0].watchdog, "acpi_pm"));
    CHECK(scan.demotions.e[0].cpu == 2 && scan.demotions.e[0].nlines == 3);
    CHECK(scan.demotions.e[0].ts > 8996.1 && scan.demotions.e[0].ts < 8996.2);
    CHECK(scan.tsc_unstable.n == 1 && scan.tsc_unstable.e[0].reason == TSC_R_WATCHDOG);
    CHECK(!strcmp(logscan_last_switch(&scan), "acpi_pm"));
}

TEST(logscan_reads_old_and_rhel_wordings)
{
    scan_text("Clocksource tsc unstable (delta = -8589937889 ns).  Enable clocksource failover by adding clocksource_failover kernel parameter.\n"
              "Marking TSC unstable due to TSCs unsynchronized\n"
              "Switching to clocksource hpet\n"
              "Time: acpi_pm clocksource has been installed.\n");
    CHECK(scan.demotions.n == 1 && scan.demotions.e[0].failover_disabled);
    CHECK(!strcmp(scan.demotions.e[0].name, "tsc"));
    CHECK(scan.tsc_unstable.n == 1 && scan.tsc_unstable.e[0].reason == TSC_R_SYNC);
    CHECK(scan.switches.n == 2 && !strcmp(logscan_last_switch(&scan), "acpi_pm"));
}

TEST(logscan_tells_benign_look_alikes)
{
    scan_text("clocksource: timekeeping watchdog on CPU3: wd-hpet-wd read-back delay of 246345ns, clock-skew test skipped!\n"
              "[Firmware Bug]: TSC_DEADLINE disabled due to Errata; please update microcode to version: 0x52 (or later)\n"
              "tsc: Marking TSC unstable due to running on Hyper-V\n"
              "tsc: Fast TSC calibration failed\n");
    CHECK(scan.demotions.n == 0);
    CHECK(scan.benign.n == 2);
    CHECK(scan.tsc_unstable.n == 1 && scan.tsc_unstable.e[0].reason == TSC_R_HYPERV);
    CHECK(scan.calibration.n == 1);
}

TEST(logscan_reads_warp_calibration_and_readback_demotion)
{
    scan_text("TSC synchronization [CPU#0 -> CPU#1]:\n"
              "Measured 381381672 cycles TSC warp between CPUs, turning off TSC clock.\n"
              "tsc: Marking TSC unstable due to check_tsc_sync_source failed\n"
              "tsc: HPET/PMTIMER calibration failed\n"
              "clocksource: timekeeping watchdog on CPU1: wd-hpet-wd excessive read-back delay of 1000ns vs. limit of 125ns, wd-wd read-back delay only 50ns, attempt 3, marking tsc unstable\n");
    CHECK(scan.warps.n == 1 && scan.warps.e[0].nlines == 2);
    CHECK(scan.tsc_unstable.n == 1 && scan.tsc_unstable.e[0].reason == TSC_R_SYNC);
    CHECK(scan.calibration.n == 1);
    CHECK(scan.demotions.n == 1 && !strcmp(scan.demotions.e[0].name, "tsc"));
}

TEST(logscan_reads_arm_errata_and_keeps_compat_only_apart)
{
    scan_text("arch_timer: Enabling global workaround for Freescale erratum a005858\n"
              "arch_timer: Enabling local workaround for ARM erratum 1418040\n"
              "CPU features: detected: ARM erratum 1418040\n"
              "arch_timer: CPU0: Trapping CNTVCT access\n");
    CHECK(scan.arm_errata.n == 2);
    CHECK(scan.arm_compat.n == 2);
    scan_text("arch_timer: cp15 timer(s) running at 25.00MHz (virt).\n"
              "clocksource: arch_sys_counter: mask: 0xffffffffffffff max_cycles: 0x5c40939b5\n");
    CHECK(scan.arm_errata.n == 0 && scan.arch_timer && scan.registered.n == 1);
    CHECK(!strcmp(scan.registered.e[0].name, "arch_sys_counter"));
}

TEST(logscan_keeps_only_the_last_boot)
{
    scan_text("[ 0.0] Linux version 5.4.0\n"
              "[ 100.0] clocksource: Switched to clocksource hpet\n"
              "[ 0.0] Linux version 6.8.0 (builder@host)\n"
              "[ 0.1] Kernel command line: ro clocksource=tsc\n"
              "[ 1.0] clocksource: Switched to clocksource tsc\n");
    CHECK(scan.boots == 2 && scan.switches.n == 1);
    CHECK(!strcmp(logscan_last_switch(&scan), "tsc"));
    CHECK(!strcmp(scan.cmdline, "ro clocksource=tsc"));
    CHECK(strstr(scan.version, "6.8.0"));
}

TEST(cpuinfo_parses_each_architecture)
{
    static struct cpuinfo c;
    const char *x86 = "processor\t: 0\nvendor_id\t: AuthenticAMD\nmodel name\t: AMD EPYC 7B13\n"
                      "flags\t\t: fpu tsc constant_tsc nonstop_tsc hypervisor\r\nprocessor\t: 1\n";
    cpuinfo_parse(x86, strlen(x86), &c);
    CHECK(c.parsed && c.processors == 2 && !strcmp(c.family, "x86"));
    CHECK(cpuinfo_has_flag(&c, "tsc") && cpuinfo_has_flag(&c, "nonstop_tsc") &&
          cpuinfo_has_flag(&c, "hypervisor") && !cpuinfo_has_flag(&c, "tsc_reliable") &&
          !cpuinfo_has_flag(&c, "constant"));
    CHECK(!strcmp(c.model, "AMD EPYC 7B13"));
    const char *arm = "processor\t: 0\nBogoMIPS\t: 48.00\nFeatures\t: fp asimd evtstrm cpuid\n"
                      "CPU implementer\t: 0x41\nCPU part\t: 0xd0c\n";
    cpuinfo_parse(arm, strlen(arm), &c);
    CHECK(!strcmp(c.family, "arm") && cpuinfo_has_flag(&c, "asimd") && !strcmp(c.model, "0xd0c"));
    const char *rv = "processor\t: 0\nhart\t\t: 0\nisa\t\t: rv64imafdc_zicntr_zicsr\nmmu\t\t: sv39\n"
                     "uarch\t\t: sifive,u74-mc\n";
    cpuinfo_parse(rv, strlen(rv), &c);
    CHECK(!strcmp(c.family, "riscv") && strstr(c.flags, "zicntr") && !strcmp(c.hardware, "sifive,u74-mc"));
    cpuinfo_parse("no colon here\n\x01\x02", 15, &c);
    CHECK(!c.parsed);
    cpuinfo_parse(NULL, 0, &c);
    CHECK(!c.parsed);
}

TEST(cmdline_param_last_wins_quotes_and_bare_flags)
{
    char v[64];
    const char *cl = "BOOT_IMAGE=/vmlinuz ro clocksource=hpet quiet notsc tsc=reliable "
                     "clocksource=tsc dyndbg=\"file a.c +p\" nohpetx";
    CHECK(cmdline_param(cl, "clocksource", v, sizeof v) && !strcmp(v, "tsc"));
    CHECK(cmdline_param(cl, "notsc", v, sizeof v) && !strcmp(v, ""));
    CHECK(cmdline_param(cl, "tsc", v, sizeof v) && !strcmp(v, "reliable"));
    CHECK(cmdline_param(cl, "dyndbg", v, sizeof v) && !strcmp(v, "file a.c +p"));
    CHECK(!cmdline_param(cl, "nohpet", v, sizeof v));
    CHECK(!cmdline_param("", "tsc", v, sizeof v));
}

TEST(kernel_versions_and_machine_names)
{
    struct kernel_version k;
    kernel_version_parse("Linux version 5.10.0-18-amd64 (debian-kernel@lists.debian.org) #1 SMP", &k);
    CHECK(k.known && k.major == 5 && k.minor == 10 && !strcmp(k.release, "5.10.0-18-amd64"));
    kernel_version_parse("Linux myhost 4.4.0-1128-aws #142-Ubuntu SMP x86_64 GNU/Linux", &k);
    CHECK(k.known && k.major == 4 && k.minor == 4);
    kernel_version_parse("6.1.47-current-sunxi64", &k);
    CHECK(k.known && kernel_version_cmp(&k, 5, 8) > 0 && kernel_version_cmp(&k, 6, 2) < 0);
    CHECK(k.patch == 47);
    kernel_version_parse("Linux version 5.0.21-generic (x)", &k); /* minor 0 is a version */
    CHECK(k.known && k.major == 5 && k.minor == 0 && k.patch == 21);
    kernel_version_parse("5.10_3-custom", &k); /* a patch level follows a dot only */
    CHECK(k.known && k.minor == 10 && k.patch == 0);
    char longrel[300] = "Linux version 6.8.0-";
    memset(longrel + strlen(longrel), 'x', 200);
    kernel_version_parse(longrel, &k); /* cut to the field, terminated */
    CHECK(k.known && strlen(k.release) == sizeof k.release - 1 && !strncmp(k.release, "6.8.0-x", 7));
    kernel_version_parse("Linux version", &k);
    CHECK(!k.known);
    kernel_version_parse("x86_64", &k);
    CHECK(!k.known);
    char m[16];
    machine_name_parse("x86_64\n", m, sizeof m);
    CHECK(!strcmp(m, "x86_64") && !strcmp(machine_family(m), "x86"));
    machine_name_parse("Linux pine64 6.1.47 #1 SMP PREEMPT aarch64 GNU/Linux", m, sizeof m);
    CHECK(!strcmp(machine_family(m), "arm64"));
    machine_name_parse("armv7l", m, sizeof m);
    CHECK(!strcmp(machine_family(m), "arm32"));
    machine_name_parse("Linux qemu 2.6.32 #1 SMP i686 i686 i386 GNU/Linux", m, sizeof m);
    CHECK(!strcmp(machine_family(m), "x86"));
    machine_name_parse("Linux visionfive 6.6.20 #1 SMP riscv64 GNU/Linux", m, sizeof m);
    CHECK(!strcmp(m, "riscv64") && !strcmp(machine_family(m), "riscv"));
    machine_name_parse("garbage", m, sizeof m);
    CHECK(m[0] == 0 && !strcmp(machine_family(m), ""));
}

/* Mutation fuzzing: seeds of every format, bytes flipped, inserted, cut; the parsers must
 * neither crash nor read out of bounds (ASan) whatever they get. */
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
