/* SPDX-License-Identifier: MIT */
/* The kernel log's clock events (facts/logscan.c): every generation's wording of each
 * message, look-alikes that change nothing, the last boot only, the first matching row
 * deciding, the TSC calibration claim, and the prefilter held to the matcher table. */
#include "check.h"
#include "facts/logscan.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

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

TEST(logscan_keeps_the_kernels_tsc_calibration_claim)
{
    const char *log = "[0.0] tsc: Detected 2445.000 MHz processor\n"
                      "[0.1] tsc: Detected 2400.000 MHz TSC\n"
                      "[2.0] tsc: Refined TSC clocksource calibration: 2445.406 MHz\n"
                      "[3.0] tsc: Detected 1.000 MHz processor\n";
    logscan_run(log, strlen(log), &scan);
    CHECK(scan.tsc_detected && scan.tsc_refined);
    CHECK(scan.tsc_claim.refined && scan.tsc_claim.hz == 2445406000u);
    const char *old = "Detected 2394.000 MHz processor.\nhpet: Detected 25 MHz timer\n";
    logscan_run(old, strlen(old), &scan);
    CHECK(scan.tsc_detected && !scan.tsc_refined && scan.tsc_claim.hz == 2394000000u);
    /* A malformed figure is not a calibration: no flag, no claim. */
    const char *bad = "tsc: Detected 2394.0000000 MHz processor\n"
                      "tsc: Refined TSC clocksource calibration: x MHz\n";
    logscan_run(bad, strlen(bad), &scan);
    CHECK(!scan.tsc_detected && !scan.tsc_refined && scan.tsc_claim.hz == 0);
}

/* The first matching row decides: a 2.6.x "checking TSC synchronization [...]: passed." is
 * benign and must not also become a warp (the warp row's anchor matches it too); the
 * paravirt line names the hypervisor and must not be read as a Hyper-V mention. */
TEST(logscan_first_matching_row_decides)
{
    const char *log = "checking TSC synchronization [CPU#0 -> CPU#1]: passed.\n"
                      "Booting paravirtualized kernel on KVM\n"
                      "Marking TSC unstable due to TSC halts in idle\n";
    logscan_run(log, strlen(log), &scan);
    CHECK(scan.benign.n == 1 && scan.warps.n == 0);
    CHECK(!strcmp(scan.virt, "KVM") && !scan.hyperv);
    CHECK(scan.tsc_unstable.n == 1 && scan.tsc_unstable.e[0].reason == TSC_R_OTHER &&
          !strcmp(scan.tsc_unstable.e[0].name, "TSC halts in idle"));
}

/* Calibration failures and benign look-alikes carry their kind, so the rules read the kind
 * and not the text again. */
TEST(logscan_classifies_calibration_and_benign_events)
{
    const char *log = "tsc: Fast TSC calibration failed\n"
                      "tsc: Unable to calibrate against PIT\n"
                      "tsc: HPET/PMTIMER calibration failed\n"
                      "[Firmware Bug]: TSC_DEADLINE disabled due to Errata\n"
                      "TSC ADJUST compensate: CPU1 observed 1 warp. Adjust: 1\n"
                      "clocksource: timekeeping watchdog on CPU3: hpet retried 2 times before success\n";
    logscan_run(log, strlen(log), &scan);
    CHECK(scan.calibration.n == 3);
    CHECK(scan.calibration.e[0].kind == EK_CALIBRATION_FIRST_TRY &&
          scan.calibration.e[1].kind == EK_CALIBRATION_FIRST_TRY &&
          scan.calibration.e[2].kind == EK_CALIBRATION_FATAL);
    CHECK(scan.benign.n == 3 && scan.benign.e[0].kind == EK_BENIGN_TSC_DEADLINE &&
          scan.benign.e[1].kind == EK_BENIGN_TSC_SYNC && scan.benign.e[2].kind == EK_BENIGN_WATCHDOG);
    const char *khz = "tsc: Marking TSC unstable due to could not calculate TSC khz\n";
    logscan_run(khz, strlen(khz), &scan);
    CHECK(scan.tsc_unstable.n == 1 && scan.calibration.n == 1 &&
          scan.calibration.e[0].kind == EK_CALIBRATION_FATAL);
}
