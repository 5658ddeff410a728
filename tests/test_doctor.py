# SPDX-License-Identifier: MIT
"""clockscope doctor and clockscope facts.

- every case of the shared corpus (../shared/corpus/cases beside the clone) gets a verdict
  its oracle accepts;
- one generated facts root per rule and per kernel-message variant, with the verdict and
  the findings it must (and must not) produce;
- malformed roots: missing, a file, directories/FIFOs where files belong, binary garbage,
  huge logs: a clear answer and no crash, also under ASan/UBSan;
- live: the proof (seccomp syscall count with its control), JSON shape, facts --save and
  doctor --root on what it saved; the cross builds under qemu-user degrade with a note."""
import json
import os
import random
import time

import pytest

from conftest import REQUIRE_ALL, ROOT, run

CORPUS = ROOT.parent / "shared" / "corpus" / "cases"
CS = "sys/devices/system/clocksource/clocksource0/"
EXIT = {"ok": 0, "slow": 3, "broken": 4, "unknown": 5}


def make_root(base, files):
    base.mkdir(parents=True, exist_ok=True)
    for rel, content in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            p.write_bytes(content)
        else:
            p.write_text(content)
    return base


def doctor_json(binary, root, timeout=60):
    proc = run([binary, "doctor", "--root", root, "--json"], timeout=timeout)
    assert proc.returncode in EXIT.values(), proc.stderr
    doc = json.loads(proc.stdout)
    assert proc.returncode == EXIT[doc["verdict"]]
    return doc


def finding_ids(doc):
    return {f["id"] for f in doc["findings"]}


# ---- fixes as data (docs/json.md "actions"): the schema vm --apply-fix consumes ----------

ACTION_FIELDS = {"sysfs": {"path", "value", "reboot"}, "cmdline": {"add", "remove", "reboot"},
                 "run": {"argv"}, "code": {"text"}, "firmware": {"text"}}
RUN_MODES = {"coarse", "fast", "auto", "count"}


def validate_action(a, top):
    """One action against the schema; top: an entry of the document's merged list."""
    assert a["kind"] in ACTION_FIELDS, a
    assert set(a) == {"kind", "risk"} | ACTION_FIELDS[a["kind"]] | ({"finding"} if top else set()), a
    assert isinstance(a["risk"], str) and a["risk"].strip(), a
    if a["kind"] == "sysfs":
        assert a["path"].startswith("/sys/") and a["reboot"] is False, a
        assert a["value"] and not any(c.isspace() for c in a["value"]), a
    elif a["kind"] == "cmdline":
        assert a["reboot"] is True and (a["add"] or a["remove"]), a
        for w in a["add"] + a["remove"]:
            assert isinstance(w, str) and w and not any(c.isspace() for c in w), a
    elif a["kind"] == "run":
        argv = a["argv"]
        assert argv[:3] == ["clockscope", "run", "--mode"] and argv[3] in RUN_MODES and argv[4:] == ["--"], a
    else:
        assert isinstance(a["text"], str) and a["text"].strip(), a


def payload(a):
    return json.dumps({k: v for k, v in a.items() if k not in ("finding", "risk")}, sort_keys=True)


def check_actions(doc):
    """Every finding that has a fix carries at least one valid action; the document's
    merged list holds each finding's actions once, each naming a finding that offers it;
    a clocksource switch through sysfs targets one in available_clocksource."""
    by_id = {}
    for f in doc["findings"]:
        assert isinstance(f["actions"], list), f["id"]
        for a in f["actions"]:
            validate_action(a, top=False)
            by_id.setdefault(f["id"], set()).add(payload(a))
        if f["fix"]:
            assert f["actions"], (f["id"], f["fix"])
    merged = doc["actions"]
    for a in merged:
        validate_action(a, top=True)
        assert payload(a) in by_id.get(a["finding"], set()), a
    assert len({payload(a) for a in merged}) == len(merged), "an action twice"
    assert {p for ps in by_id.values() for p in ps} == {payload(a) for a in merged}
    kinds = [a["kind"] for a in merged]
    assert kinds == sorted(kinds, key=list(ACTION_FIELDS).index), kinds
    available = (doc["facts"]["available_clocksource"] or "").split()
    for a in merged:
        if a["kind"] == "sysfs" and a["path"].endswith("/current_clocksource"):
            assert a["value"] in available, (a, available)


# ---- the shared corpus ------------------------------------------------------------------

def corpus_cases():
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if (p / "expected.json").is_file())


@pytest.mark.parametrize("case", corpus_cases(), ids=lambda p: p.name)
def test_corpus_case_gets_an_accepted_verdict(clockscope, case):
    accept = json.loads((case / "expected.json").read_text())["accept"]
    doc = doctor_json(clockscope, case)
    assert doc["verdict"] in accept, (doc["verdict"], doc["summary"])
    for f in doc["findings"]:
        assert f["id"] and f["severity"] in ("info", "notice", "warning", "critical")
        assert isinstance(f["evidence"], list) and isinstance(f["fix"], list)
    if doc["verdict"] == "slow":
        assert any(f["severity"] == "warning" and f["fix"] for f in doc["findings"])
    check_actions(doc)


def require_corpus():
    """CI has shared/ beside the clone: there a missing corpus fails (its cases would
    vanish from the parametrized tests without a word).  Locally it may be absent: skip."""
    if not CORPUS.is_dir():
        msg = f"no corpus at {CORPUS}"
        if REQUIRE_ALL:
            pytest.fail(msg + " (CLOCKSCOPE_REQUIRE_ALL=1: CI must have it)")
        pytest.skip(msg)


def test_corpus_is_present_here():
    require_corpus()
    assert len(corpus_cases()) >= 12


# ---- one facts root per rule and message variant ----------------------------------------

WD_MODERN = (
    "clocksource: timekeeping watchdog on CPU{cpu}: Marking clocksource 'tsc' as unstable because the skew is too large:\n"
    "clocksource:                       '{wd}' wd_nsec: 503 wd_now: 5ca548fd wd_last: 5932c25f mask: ffffffff\n"
    "clocksource:                       'tsc' cs_nsec: 491 cs_now: bb8a0f7168a0d4 cs_last: bb8a0f234df0c3 mask: ffffffffffffffff\n"
    "tsc: Marking TSC unstable due to clocksource watchdog\n"
    "TSC found unstable after boot, most likely due to broken BIOS. Use 'tsc=unstable'.\n"
)


def _color(ts, line):
    if line.startswith("clocksource: "):
        return f"\x1b[32m[{ts:12.6f}] \x1b[0m\x1b[33mclocksource: \x1b[0m{line.removeprefix('clocksource: ')}"
    return f"\x1b[32m[{ts:12.6f}] \x1b[0m{line}"


# style -> how one message looks with that prefix: (line number, timestamp, message) -> line
PREFIX_STYLES = {
    "dmesg": lambda i, ts, line: f"[{ts:12.6f}] {line}",
    "journal": lambda i, ts, line: f"Mar 03 10:11:12 web-7 kernel: {line}",
    "syslog": lambda i, ts, line: f"Mar  3 10:11:12 web-7 kern.warning kernel: [{ts:12.6f}] {line}",
    "kmsg": lambda i, ts, line: f"4,{i},{int(ts * 1e6)},-;{line}",
    "raw": lambda i, ts, line: f"<4>[{ts:12.6f}] {line}",
    "dmesg-x": lambda i, ts, line: f"kern  :warn  : [{ts:12.6f}] {line}",
    "iso": lambda i, ts, line: f"2024-03-03T10:11:12,{i:06d}+00:00 {line}",
    "color": lambda i, ts, line: _color(ts, line),
    "crlf": lambda i, ts, line: f"[{ts:12.6f}] {line}\r",
}


def prefixed(text, style):
    """Rewrites one message per line into a kernel-log prefix style."""
    fmt = PREFIX_STYLES.get(style, lambda i, ts, line: line)
    return "\n".join(fmt(i, 100.0 + i * 0.001, line) for i, line in enumerate(text.splitlines())) + "\n"


STYLES = ["dmesg", "journal", "syslog", "kmsg", "raw", "dmesg-x", "iso", "crlf", "color", "none"]

# A cloud VM's command line: longer than a kernel log line holds (642 characters).
LONG_CMDLINE = ("BOOT_IMAGE=/boot/vmlinuz-6.8.0-1017-aws root=PARTUUID=0d2a6b5e-01 ro console=tty1 "
                "console=ttyS0 nvme_core.io_timeout=4294967295 panic=-1 " +
                " ".join(f"systemd.setenv=CLOUD_INIT_PARAM_{i:02d}=value-{i:04d}" for i in range(11)))
assert len(LONG_CMDLINE) > 540

# (name, files, accepted verdicts, finding ids required, finding ids forbidden)
RULE_CASES = [
    # --- the current clocksource
    ("x86-tsc", {CS + "current_clocksource": "tsc\n", "uname": "x86_64"}, ["ok"], {"clocksource-vdso"}, set()),
    ("x86-tsc-early-current", {CS + "current_clocksource": "tsc-early\n", "uname": "x86_64"}, ["ok"], set(), set()),
    ("x86-hpet-new-kernel", {CS + "current_clocksource": "hpet", "proc/version": "Linux version 6.8.0-45-generic (x)"},
     ["slow"], {"clocksource-no-vdso"}, set()),
    ("x86-hpet-old-kernel-vclock", {CS + "current_clocksource": "hpet", "proc/version": "Linux version 4.15.0-20-generic (x)",
                                    "uname": "x86_64"}, ["slow"], {"clocksource-device-read"}, set()),
    ("x86-acpi_pm", {CS + "current_clocksource": "acpi_pm", CS + "available_clocksource": "tsc hpet acpi_pm"},
     ["slow"], {"clocksource-no-vdso"}, set()),
    ("x86-jiffies", {CS + "current_clocksource": "refined-jiffies", "uname": "x86_64"}, ["slow"], set(), set()),
    ("x86-hyperv-msr", {CS + "current_clocksource": "hyperv_clocksource_msr", "uname": "x86_64"}, ["slow"], set(), set()),
    ("x86-hyperv-tsc-page", {CS + "current_clocksource": "hyperv_clocksource_tsc_page", "uname": "x86_64", "virt": "microsoft"},
     ["ok"], set(), set()),
    ("x86-hyperv-tsc-page-old-kernel", {CS + "current_clocksource": "hyperv_clocksource_tsc_page", "uname": "x86_64",
                                        "proc/version": "Linux version 4.4.0-21-generic"}, ["slow"], set(), set()),
    ("x86-kvm-clock", {CS + "current_clocksource": "kvm-clock", "virt": "kvm"}, ["unknown", "ok"], {"clocksource-pvclock"}, set()),
    ("x86-kvm-clock-no-stable-bit", {CS + "current_clocksource": "kvm-clock", "clockscope/cpu": "arch=x86_64\nhypervisor_vendor=KVMKVMKVM\nkvm_clock_stable_bit=0\n"},
     ["slow"], {"clocksource-no-vdso"}, set()),
    ("x86-kvm-clock-stable-bit-offered", {CS + "current_clocksource": "kvm-clock", "clockscope/cpu": "arch=x86_64\nkvm_clock_stable_bit=1\n"},
     ["unknown", "ok"], {"clocksource-pvclock"}, set()),
    ("x86-kvm-clock-old-kernel", {CS + "current_clocksource": "kvm-clock", "proc/version": "Linux version 3.2.0-4-amd64"},
     ["slow"], set(), set()),
    ("x86-kvm-clock-no-vsyscall", {CS + "current_clocksource": "kvm-clock", "proc/cmdline": "ro no-kvmclock-vsyscall"},
     ["slow"], {"cmdline-no-kvmclock-vsyscall"}, set()),
    ("x86-xen-unknown-kernel", {CS + "current_clocksource": "xen", "virt": "xen"}, ["unknown", "slow"], {"clocksource-pvclock"}, set()),
    ("x86-xen-old-kernel", {CS + "current_clocksource": "xen", "uname": "Linux ip-10-0-0-1 4.4.0-1128-aws #142 SMP x86_64 GNU/Linux"},
     ["slow"], set(), set()),
    ("x86-xen-no-time-page", {CS + "current_clocksource": "xen", "proc/version": "Linux version 5.10.0",
                              "dmesg": "[    0.1] xen: vcpu_time_info placement not supported\n"}, ["slow"], set(), set()),
    ("x86-xen-tsc-available", {CS + "current_clocksource": "xen", CS + "available_clocksource": "xen tsc hpet acpi_pm"},
     ["unknown", "slow"], {"clocksource-pvclock"}, {"clocksource-vdso-conditional"}),
    ("i686-tsc-old-kernel", {CS + "current_clocksource": "tsc", "uname": "i686", "proc/version": "Linux version 3.10.0"},
     ["slow"], set(), set()),
    ("x86-unknown-name", {CS + "current_clocksource": "wibble", "uname": "x86_64"}, ["unknown"], {"clocksource-unknown-name"}, set()),
    # --- inference when the clocksource is not given
    ("x86-bare-metal-nothing-else", {"uname": "x86_64", "virt": "none"}, ["ok"], set(), set()),
    # A guest's facts that say nothing of the clock decide nothing (exit 5); any clock fact
    # lets the platform's usual clock stand as an inferred verdict.
    ("x86-vm-nothing-else", {"uname": "x86_64", "virt": "kvm"}, ["unknown"], {"platform-default-hint"}, set()),
    ("x86-vm-available-clocksources", {"uname": "x86_64", "virt": "kvm", CS + "available_clocksource": "kvm-clock tsc acpi_pm"},
     ["ok"], set(), {"platform-default-hint"}),
    ("x86-vm-log-names-the-tsc", {"uname": "x86_64", "virt": "microsoft", "dmesg": "[    0.000000] tsc: Detected 2394.454 MHz processor\n"},
     ["ok"], set(), {"platform-default-hint"}),
    ("nothing-at-all", {}, ["unknown"], {"clocksource-unknown"}, set()),
    ("x86-cpuinfo-says-bare-metal", {"proc/cpuinfo": "processor\t: 0\nflags\t\t: fpu tsc constant_tsc nonstop_tsc\n"},
     ["ok"], {"cpu-tsc-flags"}, set()),
    ("x86-tsc-missing-bare-metal", {CS + "available_clocksource": "hpet acpi_pm", "uname": "x86_64", "virt": "none"},
     ["slow"], {"tsc-not-registered"}, set()),
    ("x86-tsc-missing-kvm-clock", {CS + "current_clocksource": "kvm-clock", CS + "available_clocksource": "kvm-clock acpi_pm"},
     ["unknown", "ok"], {"tsc-not-registered"}, set()),
    # --- TSC demotions and their look-alikes
    ("x86-watchdog-hpet-then-switch", {"dmesg": prefixed(WD_MODERN.format(cpu=5, wd="hpet") + "clocksource: Switched to clocksource hpet\n", "dmesg")},
     ["slow"], {"tsc-demoted-by-watchdog"}, set()),
    ("x86-watchdog-acpi_pm-vm", {"virt": "kvm", "dmesg": prefixed(WD_MODERN.format(cpu=0, wd="acpi_pm") + "clocksource: Switched to clocksource acpi_pm\n", "syslog")},
     ["slow"], {"tsc-demoted-by-watchdog"}, set()),
    ("x86-watchdog-no-switch-bare-metal", {"virt": "none", "dmesg": prefixed(WD_MODERN.format(cpu=1, wd="hpet"), "journal")},
     ["slow"], {"tsc-demoted-by-watchdog"}, set()),
    ("x86-switched-to-tsc-then-demoted-log-cut", {"virt": "none", "dmesg": prefixed(
        "clocksource: Switched to clocksource tsc\n" + WD_MODERN.format(cpu=4, wd="hpet"), "dmesg")},
     ["slow"], {"tsc-demoted-by-watchdog"}, {"clocksource-vdso"}),
    ("x86-watchdog-tsc-early-at-boot", {"virt": "none", "dmesg": prefixed(
        "clocksource: timekeeping watchdog on CPU0: Marking clocksource 'tsc-early' as unstable because the skew is too large:\n"
        "clocksource:                       'hpet' wd_now: 1 wd_last: 2 mask: ffffffff\n"
        "clocksource:                       'tsc-early' cs_now: 3 cs_last: 4 mask: ffffffffffffffff\n"
        "tsc: Marking TSC unstable due to clocksource watchdog\n"
        "clocksource: Switched to clocksource hpet\n", "dmesg")}, ["slow"], {"tsc-demoted-by-watchdog"}, set()),
    ("x86-watchdog-old-wording", {"dmesg": prefixed("Clocksource tsc unstable (delta = -8589937889 ns)\nSwitching to clocksource hpet\n", "dmesg")},
     ["slow"], {"tsc-demoted-by-watchdog"}, set()),
    ("x86-watchdog-4x-wording", {"dmesg": prefixed(
        "clocksource: timekeeping watchdog: Marking clocksource 'tsc' as unstable because the skew is too large:\n"
        "clocksource:                       'hpet' wd_now: 1 wd_last: 2 mask: ffffffff\n"
        "clocksource:                       'tsc' cs_now: 3 cs_last: 4 mask: ffffffffffffffff\n"
        "clocksource: Switched to clocksource hpet\n", "kmsg")}, ["slow"], {"tsc-demoted-by-watchdog"}, set()),
    ("x86-watchdog-readback-delay", {"virt": "none", "dmesg": prefixed(
        "clocksource: timekeeping watchdog on CPU1: wd-hpet-wd excessive read-back delay of 1000ns vs. limit of 125ns, "
        "wd-wd read-back delay only 50ns, attempt 3, marking tsc unstable\n"
        "clocksource: Switched to clocksource hpet\n", "dmesg")}, ["slow"], {"tsc-demoted-by-watchdog"}, set()),
    ("x86-rhel6-no-failover-tsc-kept", {CS + "current_clocksource": "tsc", "dmesg": prefixed(
        "Clocksource tsc unstable (delta = -8589937889 ns).  Enable clocksource failover by adding clocksource_failover kernel parameter.\n", "none")},
     ["ok"], {"clocksource-demotion-not-blamed"}, {"tsc-demoted-by-watchdog"}),
    ("x86-rhel6-unsynchronized", {"virt": "none", "dmesg": prefixed("Marking TSC unstable due to TSCs unsynchronized\n", "none")},
     ["slow"], {"tsc-unsynchronized"}, set()),
    ("x86-tsc-unstable-cpufreq", {"virt": "none", "dmesg": prefixed("Marking TSC unstable due to cpufreq changes\nSwitching to clocksource acpi_pm\n", "dmesg")},
     ["slow"], {"tsc-marked-unstable"}, set()),
    ("x86-tsc-unstable-idle", {"virt": "none", "dmesg": prefixed("tsc: Marking TSC unstable due to TSC halts in idle states deeper than C2\n", "dmesg")},
     ["slow"], {"tsc-marked-unstable"}, set()),
    ("x86-demotion-while-kvm-clock-current", {"virt": "kvm", "dmesg": prefixed(
        "clocksource: Switched to clocksource kvm-clock\n" + WD_MODERN.format(cpu=3, wd="kvm-clock"), "dmesg")},
     ["unknown", "ok"], {"clocksource-demotion-not-blamed"}, {"tsc-demoted-by-watchdog"}),
    ("x86-demotion-while-hyperv-page-current", {CS + "current_clocksource": "hyperv_clocksource_tsc_page", "dmesg": prefixed(
        "clocksource: Switched to clocksource hyperv_clocksource_tsc_page\n" + WD_MODERN.format(cpu=3, wd="hyperv_clocksource_tsc_page"), "dmesg")},
     ["ok"], {"clocksource-demotion-not-blamed"}, {"tsc-demoted-by-watchdog"}),
    ("x86-hyperv-benign-unstable", {"uname": "x86_64", "dmesg": prefixed(
        "Hyper-V: privilege flags low 0x2e7f, high 0x3880b0\n"
        "tsc: Marking TSC unstable due to running on Hyper-V\n"
        "clocksource: Switched to clocksource hyperv_clocksource_tsc_page\n", "dmesg")},
     ["ok"], {"hyperv-tsc-unstable-benign"}, {"tsc-marked-unstable", "tsc-demoted-by-watchdog"}),
    ("x86-skew-test-skipped", {CS + "current_clocksource": "tsc", "dmesg": prefixed(
        "clocksource: timekeeping watchdog on CPU3: wd-hpet-wd read-back delay of 246345ns, clock-skew test skipped!\n"
        "clocksource: timekeeping watchdog on CPU3: hpet retried 2 times before success\n", "journal")},
     ["ok"], {"watchdog-skip-benign"}, {"tsc-demoted-by-watchdog"}),
    ("x86-skew-test-skipped-no-cs", {"virt": "none", "dmesg": prefixed(
        "clocksource: timekeeping watchdog on CPU3: wd-hpet-wd read-back delay of 246345ns, clock-skew test skipped!\n", "dmesg")},
     ["ok"], {"watchdog-skip-benign"}, {"tsc-demoted-by-watchdog"}),
    ("x86-tsc-deadline-erratum", {"virt": "none", "dmesg": prefixed(
        "[Firmware Bug]: TSC_DEADLINE disabled due to Errata; please update microcode to version: 0x52 (or later)\n", "dmesg")},
     ["ok"], {"tsc-deadline-erratum-benign"}, set()),
    ("x86-later-switch-to-tsc", {"virt": "none", "dmesg": prefixed(
        "clocksource: Switched to clocksource hpet\n"
        "tsc: Marking TSC unstable due to cpufreq changes\n"
        "tsc: Refined TSC clocksource calibration: 2712.000 MHz\n"
        "clocksource: Switched to clocksource tsc\n", "dmesg")}, ["ok"], set(), {"tsc-marked-unstable"}),
    ("x86-earlier-boot-was-bad", {"dmesg": prefixed(
        "Linux version 5.4.0 (a)\n" + WD_MODERN.format(cpu=1, wd="hpet") + "clocksource: Switched to clocksource hpet\n"
        "Linux version 5.4.0 (a)\nclocksource: Switched to clocksource tsc\n", "syslog")},
     ["ok"], set(), {"tsc-demoted-by-watchdog"}),
    ("x86-2.6-wording-due-to-colon", {"virt": "none", "dmesg": prefixed(
        "checking TSC synchronization [CPU#0 -> CPU#1]: passed.\n"
        "Marking TSC unstable due to: TSC appears to be running slowly.\n"
        "Time: acpi_pm clocksource has been installed.\n", "none")}, ["slow"], {"tsc-marked-unstable"}, {"tsc-warp-at-boot"}),
    ("x86-2.6-sync-passed-only", {"virt": "none", "dmesg": prefixed(
        "checking TSC synchronization [CPU#0 -> CPU#1]: passed.\nTime: tsc clocksource has been installed.\n", "none")},
     ["ok"], set(), {"tsc-warp-at-boot"}),
    # --- boot-time sync and calibration
    ("x86-warp", {"virt": "none", "dmesg": prefixed(
        "TSC synchronization [CPU#0 -> CPU#3]:\nMeasured 12345 cycles TSC warp between CPUs, turning off TSC clock.\n"
        "tsc: Marking TSC unstable due to check_tsc_sync_source failed\n", "iso")}, ["slow"], {"tsc-warp-at-boot"}, set()),
    ("x86-calibration-failed", {"dmesg": prefixed(
        "tsc: Fast TSC calibration failed\ntsc: Unable to calibrate against PIT\ntsc: HPET/PMTIMER calibration failed\n"
        "tsc: Marking TSC unstable due to could not calculate TSC khz\n", "dmesg-x")},
     ["slow"], {"tsc-calibration-failed"}, set()),
    ("x86-pit-calibration-failed-hpet-reference-ok", {"dmesg": prefixed(
        "Kernel command line: console=ttyS0\ntsc: Unable to calibrate against PIT\ntsc: using HPET reference calibration\n"
        "tsc: Detected 1992.889 MHz processor\nclocksource: Switched to clocksource tsc-early\n"
        "tsc: Refined TSC clocksource calibration: 1996.250 MHz\nclocksource: Switched to clocksource tsc\n", "dmesg")},
     ["ok"], {"tsc-fast-calibration-failed-benign"}, {"tsc-calibration-failed"}),
    ("x86-fast-calibration-failed-only", {CS + "current_clocksource": "tsc", "dmesg": prefixed("tsc: Fast TSC calibration failed\n", "dmesg")},
     ["ok"], {"tsc-fast-calibration-failed-benign"}, {"tsc-calibration-failed"}),
    # --- the command line
    ("cmdline-clocksource-hpet", {"proc/cmdline": "BOOT_IMAGE=/vmlinuz ro clocksource=hpet quiet", "uname": "x86_64"},
     ["slow"], {"cmdline-clocksource"}, set()),
    ("cmdline-clock-pmtmr-legacy", {"proc/cmdline": "ro clock=pmtmr", "uname": "x86_64"}, ["slow"], {"cmdline-clocksource"}, set()),
    ("cmdline-clocksource-acpi_pm-current", {"proc/cmdline": "ro clocksource=acpi_pm", CS + "current_clocksource": "acpi_pm"},
     ["slow"], {"cmdline-clocksource", "clocksource-no-vdso"}, set()),
    ("cmdline-tsc-unstable", {"proc/cmdline": "ro tsc=unstable", "uname": "x86_64", "virt": "none"},
     ["slow"], {"cmdline-tsc-unstable"}, set()),
    ("cmdline-notsc", {"proc/cmdline": "ro notsc", "uname": "x86_64", "virt": "none"}, ["slow"], {"cmdline-notsc"}, set()),
    ("cmdline-tsc-reliable", {"proc/cmdline": "ro tsc=reliable", CS + "current_clocksource": "tsc"},
     ["ok"], {"cmdline-tsc-reliable"}, set()),
    ("cmdline-vdso-0", {"proc/cmdline": "ro vdso=0", CS + "current_clocksource": "tsc"}, ["slow"], {"cmdline-vdso-off"}, set()),
    ("cmdline-nohpet", {"proc/cmdline": "ro nohpet", CS + "current_clocksource": "tsc"}, ["ok"], {"cmdline-nohpet"}, set()),
    ("cmdline-tsc-nowatchdog", {"proc/cmdline": "ro tsc=nowatchdog", CS + "current_clocksource": "tsc"},
     ["ok"], {"cmdline-tsc-nowatchdog"}, set()),
    ("cmdline-no-kvmclock", {"proc/cmdline": "ro no-kvmclock", CS + "current_clocksource": "tsc", "virt": "kvm"},
     ["ok"], {"cmdline-no-kvmclock"}, set()),
    # the log's copy cut by a line limit (clockscope's 511 characters less the prefix, here
    # 475 of 520 on a cloud VM; or the kernel's or a tool's) is the same command line
    ("cmdline-log-copy-cut-by-the-reader", {"proc/cmdline": LONG_CMDLINE + "\n", CS + "current_clocksource": "tsc",
                                            "dmesg": prefixed("Kernel command line: " + LONG_CMDLINE + "\n", "dmesg")},
     ["ok"], set(), {"cmdline-differs"}),
    ("cmdline-log-copy-cut-by-the-writer", {"proc/cmdline": LONG_CMDLINE + "\n", CS + "current_clocksource": "tsc",
                                            "dmesg": prefixed("Kernel command line: " + LONG_CMDLINE[:430] + "\n", "dmesg")},
     ["ok"], set(), {"cmdline-differs"}),
    ("cmdline-short-log-copy-is-a-difference", {"proc/cmdline": "BOOT_IMAGE=/vmlinuz ro quiet added.later=1\n",
                                                CS + "current_clocksource": "tsc",
                                                "dmesg": prefixed("Kernel command line: BOOT_IMAGE=/vmlinuz ro quiet\n", "dmesg")},
     ["ok"], {"cmdline-differs"}, set()),
    ("cmdline-differs-from-the-log", {"proc/cmdline": "BOOT_IMAGE=/vmlinuz-6.8 ro quiet", CS + "current_clocksource": "tsc",
                                      "dmesg": prefixed("Kernel command line: BOOT_IMAGE=/vmlinuz-6.1 ro\n", "dmesg")},
     ["ok"], {"cmdline-differs"}, set()),
    ("cmdline-in-log-only", {"uname": "x86_64", "dmesg": prefixed("Kernel command line: BOOT_IMAGE=/x ro clocksource=acpi_pm\n", "dmesg")},
     ["slow"], {"cmdline-clocksource"}, set()),
    ("cmdline-override-refused", {CS + "current_clocksource": "tsc", "proc/cmdline": "clocksource=jiffies",
                                  "dmesg": prefixed("clocksource: Override clocksource jiffies is not HRT compatible - cannot switch while in HRT/NOHZ mode\n", "dmesg")},
     ["ok"], {"clocksource-override-refused"}, set()),
    # --- arm
    ("arm64-arch-counter", {CS + "current_clocksource": "arch_sys_counter", "uname": "aarch64"}, ["ok"], set(), set()),
    ("arm64-freescale", {"uname": "aarch64", "dmesg": prefixed(
        "arch_timer: Enabling global workaround for Freescale erratum a005858\n"
        "arch_timer: cp15 timer(s) running at 25.00MHz (phys).\nclocksource: Switched to clocksource arch_sys_counter\n", "dmesg")},
     ["slow"], {"arm-timer-erratum-traps-counter"}, set()),
    ("arm64-hisilicon", {"uname": "aarch64", CS + "current_clocksource": "arch_sys_counter", "dmesg": prefixed(
        "arch_timer: Enabling global workaround for HiSilicon erratum 161010101\n", "journal")},
     ["slow"], {"arm-timer-erratum-traps-counter"}, set()),
    ("arm64-cortex-a73-858921", {"uname": "aarch64", "dmesg": prefixed(
        "CPU features: detected: ARM erratum 858921\narch_timer: Enabling local workaround for ARM erratum 858921\n"
        "arch_timer: CPU4: Trapping CNTVCT access\nclocksource: Switched to clocksource arch_sys_counter\n", "dmesg")},
     ["slow"], {"arm-timer-erratum-traps-counter"}, set()),
    ("arm64-trapping-only", {CS + "current_clocksource": "arch_sys_counter", "dmesg": prefixed("arch_timer: CPU0: Trapping CNTVCT access\n", "kmsg")},
     ["slow"], {"arm-timer-erratum-traps-counter"}, set()),
    ("arm64-1418040-compat-only", {"uname": "aarch64", CS + "current_clocksource": "arch_sys_counter", "dmesg": prefixed(
        "CPU features: detected: ARM erratum 1418040\narch_timer: Enabling local workaround for ARM erratum 1418040\n", "dmesg")},
     ["ok"], {"arm-erratum-compat-vdso-only"}, {"arm-timer-erratum-traps-counter"}),
    ("arm64-healthy-log", {"uname": "aarch64", "dmesg": prefixed(
        "arch_timer: cp15 timer(s) running at 24.00MHz (virt).\nclocksource: Switched to clocksource arch_sys_counter\n", "dmesg")},
     ["ok"], set(), set()),
    ("arm64-nothing-else", {"uname": "aarch64"}, ["unknown"], set(), set()),
    ("arm64-board-nothing-else", {"uname": "aarch64", "virt": "none"}, ["unknown"], set(), set()),
    ("arm64-cloud-guest-nothing-else", {"uname": "aarch64", "virt": "kvm"}, ["unknown"], {"platform-default-hint"}, set()),
    ("arm64-cloud-guest-log-names-the-timer", {"uname": "aarch64", "virt": "kvm",
     "dmesg": "[    0.000000] arch_timer: cp15 timer(s) running at 25.00MHz (virt).\n"}, ["ok"], set(), {"platform-default-hint"}),
    ("arm64-other-clocksource", {"uname": "aarch64", CS + "current_clocksource": "hyperv_clocksource_tsc_page"}, ["slow"], set(), set()),
    ("arm32-board-timer", {"uname": "armv7l", CS + "current_clocksource": "mxc_timer1"}, ["slow"], set(), set()),
    ("arm32-bcm2835-timer", {"uname": "armv6l", CS + "current_clocksource": "timer"}, ["slow"], set(), set()),
    ("arm32-arch-counter-new", {"uname": "armv7l", CS + "current_clocksource": "arch_sys_counter", "proc/version": "Linux version 5.10.110"},
     ["ok"], set(), set()),
    ("arm32-arch-counter-old", {"uname": "armv7l", CS + "current_clocksource": "arch_sys_counter", "proc/version": "Linux version 3.18.0"},
     ["slow"], set(), set()),
    ("arm32-arch-counter-kernel-unknown", {"uname": "armv7l", CS + "current_clocksource": "arch_sys_counter"}, ["unknown"], {"clocksource-vdso-conditional"}, {"clocksource-pvclock"}),
    # --- riscv
    ("riscv-new-kernel", {"uname": "riscv64", CS + "current_clocksource": "riscv_clocksource", "proc/version": "Linux version 6.6.0"},
     ["unknown"], {"clocksource-counter-may-trap"}, set()),
    ("riscv-old-kernel", {"uname": "riscv64", CS + "current_clocksource": "riscv_clocksource", "proc/version": "Linux version 5.4.0"},
     ["slow"], set(), set()),
    ("riscv-old-kernel-no-cs", {"uname": "riscv64", "proc/version": "Linux version 5.4.0"}, ["slow"], set(), set()),
    ("riscv-nothing-else", {"uname": "riscv64"}, ["unknown"], set(), set()),
    # --- other layouts
    ("var-log-kern-log-two-boots", {"var/log/kern.log": prefixed(
        "Linux version 5.15.0-91-generic (buildd@lcy02) #101-Ubuntu SMP\n" + WD_MODERN.format(cpu=2, wd="hpet") +
        "clocksource: Switched to clocksource hpet\nLinux version 5.15.0-91-generic (buildd@lcy02) #101-Ubuntu SMP\n"
        "clocksource: Switched to clocksource tsc\n", "syslog")}, ["ok"], set(), {"tsc-demoted-by-watchdog"}),
    ("sosreport-layout", {"sos_commands/kernel/dmesg": prefixed(WD_MODERN.format(cpu=2, wd="hpet") + "clocksource: Switched to clocksource hpet\n", "dmesg"),
                          "sos_commands/kernel/uname_-a": "Linux db1 3.10.0-1160.el7.x86_64 #1 SMP x86_64 x86_64 x86_64 GNU/Linux\n"},
     ["slow"], {"tsc-demoted-by-watchdog"}, set()),
]


@pytest.mark.parametrize("case", RULE_CASES, ids=[c[0] for c in RULE_CASES])
def test_rule_case(clockscope, tmp_path, case):
    name, files, accept, must, must_not = case
    doc = doctor_json(clockscope, make_root(tmp_path / name, files))
    ids = finding_ids(doc)
    assert doc["verdict"] in accept, (doc["verdict"], doc["summary"], sorted(ids))
    assert must <= ids, (must - ids, sorted(ids))
    assert not (must_not & ids), must_not & ids
    assert doc["fast_path"] in (True, False, None)
    if doc["verdict"] == "ok":
        assert doc["fast_path"] is True
    assert doc["proof"] is None  # --root never measures
    check_actions(doc)


# ---- fixes as data: which action comes first, and when none is safe ----------------------

HPET_ASKED = {CS + "current_clocksource": "hpet\n", CS + "available_clocksource": "tsc hpet acpi_pm\n",
              "proc/cmdline": "BOOT_IMAGE=/vmlinuz ro clocksource=hpet\n", "uname": "x86_64",
              "proc/version": "Linux version 6.8.0-45-generic (x)\n"}
INVARIANT_CPU = "processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu tsc constant_tsc nonstop_tsc rdtscp\n"


def test_a_safe_clocksource_switch_is_the_first_action_and_the_text_says_it(clockscope, tmp_path):
    root = make_root(tmp_path / "r", HPET_ASKED)
    doc = doctor_json(clockscope, root)
    first = doc["actions"][0]
    assert first == {"kind": "sysfs", "finding": "clocksource-no-vdso", "risk": first["risk"],
                     "path": "/sys/devices/system/clocksource/clocksource0/current_clocksource",
                     "value": "tsc", "reboot": False}
    boot = next(a for a in doc["actions"] if a["kind"] == "cmdline")
    assert boot["add"] == ["clocksource=tsc"] and boot["remove"] == ["clocksource=hpet"]
    text = " ".join(run([clockscope, "doctor", "--root", root]).stdout.split())
    assert "to fix now: echo tsc | sudo tee /sys/devices/system/clocksource/clocksource0/current_clocksource" in text


def test_no_sysfs_switch_to_a_tsc_the_kernel_marked_unstable(clockscope, tmp_path):
    files = dict(HPET_ASKED, dmesg=prefixed(WD_MODERN.format(cpu=1, wd="hpet") + "clocksource: Switched to clocksource hpet\n", "dmesg"))
    files["proc/cmdline"] = "BOOT_IMAGE=/vmlinuz ro\n"
    doc = doctor_json(clockscope, make_root(tmp_path / "r", files))
    assert not [a for a in doc["actions"] if a["kind"] == "sysfs"], doc["actions"]
    assert not [a for a in doc["actions"] if a["kind"] == "cmdline" and "clocksource=tsc" in a["add"]]
    cs = next(f for f in doc["findings"] if f["id"] == "clocksource-no-vdso")
    assert any(x.startswith("not now: switching to tsc is refused") for x in cs["fix"]), cs["fix"]
    # the remedy that applies instead: tsc=reliable with its risk, then the application side
    reliable = next(a for a in doc["actions"] if a["kind"] == "cmdline")
    assert reliable["add"] == ["tsc=reliable"] and "backwards" in reliable["risk"]
    assert any(a["kind"] == "run" and a["argv"][3] == "coarse" for a in doc["actions"])


def test_run_fast_is_offered_only_where_a_safe_counter_exists(clockscope, tmp_path):
    doc = doctor_json(clockscope, make_root(tmp_path / "inv", dict(HPET_ASKED, **{"proc/cpuinfo": INVARIANT_CPU})))
    modes = [a["argv"][3] for a in doc["actions"] if a["kind"] == "run"]
    assert modes == ["fast", "coarse"], modes
    doc = doctor_json(clockscope, make_root(tmp_path / "plain", HPET_ASKED))  # CPU flags not known
    assert [a["argv"][3] for a in doc["actions"] if a["kind"] == "run"] == ["coarse"]


@pytest.mark.parametrize("root", ["lab:riscv-sifive-u74", "corpus:arm64-pine64-a64-allwinner-unknown1-trap-cntvct"])
def test_no_kernel_fix_cases_recommend_the_application_side(clockscope, root):
    """A riscv core without a time CSR, an arm64 timer erratum: nothing to switch, nothing on
    the command line; `run --mode coarse` and a code change first, the hardware last."""
    where, name = root.split(":")
    if where == "corpus":
        require_corpus()
    path = ROOT / "tests" / "data" / "roots" / name / "root" if where == "lab" else CORPUS / name
    doc = doctor_json(clockscope, path)
    kinds = [a["kind"] for a in doc["actions"]]
    assert kinds[:2] == ["run", "code"] and "sysfs" not in kinds and "cmdline" not in kinds, kinds
    assert doc["actions"][0]["argv"] == ["clockscope", "run", "--mode", "coarse", "--"]
    assert "fastclock_recent_ns()" in doc["actions"][1]["text"]
    assert kinds[-1] == "firmware"
    text = " ".join(run([clockscope, "doctor", "--root", path]).stdout.split())
    assert "to fix for one program: clockscope run --mode coarse -- PROGRAM" in text


# ---- a counter that traps: one coherent answer --------------------------------------------

@pytest.mark.parametrize("name", ["riscv-sifive-u74", "riscv-sifive-u54-no-clocksource"])
def test_a_trapping_time_csr_is_slow_without_calling_the_path_fast(clockscope, name):
    """SLOW, and the vDSO line says in one line that the vDSO makes no syscall but its
    counter read traps; never "fast path ...: yes" under a SLOW headline."""
    root = ROOT / "tests" / "data" / "roots" / name / "root"
    out = run([clockscope, "doctor", "--root", root]).stdout
    text = " ".join(out.split())
    assert text.startswith("clockscope doctor: SLOW")
    assert "vDSO path: no syscall, but its counter read (rdtime) traps to firmware (not timed here" in text
    assert "fast path for clock_gettime" not in text
    doc = doctor_json(clockscope, root)
    assert doc["verdict"] == "slow" and doc["fast_path"] is True  # the JSON keeps both facts


# ---- the rule table: every finding id declared, documented, and given by a fixture ---------

DOCTOR_SRC = ROOT / "src" / "doctor"
# Findings only a live run gives (the proof, user-mode emulation): their fixtures are the
# unit tests of tests/unit/test_doctor_verdicts.c, which feed diagnose() a proof.
LIVE_ONLY_IDS = {"emulated-foreign-kernel", "proof-no-syscalls", "proof-syscalls",
                 "proof-not-counted", "no-vdso", "counter-read-traps"}


def declared_ids(binary):
    proc = run([binary, "doctor", "--list-findings"])
    assert proc.returncode == 0, proc.stderr
    rows = [line.split() for line in proc.stdout.splitlines()]
    assert rows and all(len(r) == 2 for r in rows), proc.stdout
    return {r[0] for r in rows}


def ids_in_sources():
    """The finding ids written in the rules' sources: finding_add's literal, the ternaries
    in it, and the clocksource rule's class table."""
    import re
    found = set()
    for path in DOCTOR_SRC.glob("*.c"):
        text = path.read_text()
        for call in re.findall(r'finding_add\(d,\s*([^,]+(?:\?[^:]+:[^,]+)?),', text):
            found |= set(re.findall(r'"([a-z0-9]+(?:-[a-z0-9]+)+)"', call))
        found |= set(re.findall(r'\{"([a-z0-9]+(?:-[a-z0-9]+)+)", SEV_', text))
    return found


def test_every_finding_id_in_the_sources_is_in_the_rule_table(clockscope):
    in_sources = ids_in_sources()
    assert len(in_sources) >= 40, sorted(in_sources)
    assert in_sources <= declared_ids(clockscope), in_sources - declared_ids(clockscope)


def test_every_finding_id_is_documented(clockscope):
    doc = (ROOT / "docs" / "doctor.md").read_text()
    undocumented = {i for i in declared_ids(clockscope) if f"`{i}`" not in doc}
    assert not undocumented, sorted(undocumented)


def test_every_finding_given_is_declared_and_every_declared_one_has_a_fixture(clockscope, tmp_path):
    """All offline fixtures at once (the rule cases, tests/data/roots, the corpus) through
    `doctor --roots`: each finding they give is in the table, and each finding in the table
    that a facts root can give is given by one of them."""
    every = tmp_path / "every"
    for name, files, *_ in RULE_CASES:
        if files:       # an empty root is an error line under --roots (it holds no facts)
            make_root(every / name, files)
    lab = ROOT / "tests" / "data" / "roots"
    for case in lab.iterdir():
        if (case / "root").is_dir():
            (every / ("lab-" + case.name)).symlink_to(case / "root")
    for case in corpus_cases():
        (every / ("corpus-" + case.name)).symlink_to(case)
    proc = run([clockscope, "doctor", "--roots", every, "--json"], timeout=600)
    docs = [json.loads(line) for line in proc.stdout.splitlines()]
    given = {f["id"] for d in docs if "findings" in d for f in d["findings"]}
    assert sum("findings" in d for d in docs) == len(list(every.iterdir())), proc.stderr
    declared = declared_ids(clockscope)
    assert given <= declared, given - declared
    assert declared - LIVE_ONLY_IDS <= given, sorted(declared - LIVE_ONLY_IDS - given)


@pytest.mark.parametrize("style", STYLES)
def test_every_log_prefix_style_gives_the_same_answer(clockscope, tmp_path, style):
    log = prefixed(WD_MODERN.format(cpu=5, wd="hpet") + "clocksource: Switched to clocksource hpet\n", style)
    doc = doctor_json(clockscope, make_root(tmp_path / style, {"dmesg": log}))
    assert doc["verdict"] == "slow" and doc["facts"]["clocksource"] == "hpet"
    demoted = [f for f in doc["findings"] if f["id"] == "tsc-demoted-by-watchdog"]
    assert demoted and "'hpet'" in demoted[0]["title"]
    assert any("Marking clocksource 'tsc'" in e for e in demoted[0]["evidence"])


def test_watchdog_finding_says_when_and_which_cpu(clockscope, tmp_path):
    log = "".join(f"[{335323.73 + i / 1000:12.6f}] {l}\n"
                  for i, l in enumerate((WD_MODERN.format(cpu=5, wd="hpet") + "clocksource: Switched to clocksource hpet").splitlines()))
    doc = doctor_json(clockscope, make_root(tmp_path / "r", {"dmesg": log, "virt": "kvm"}))
    f = next(f for f in doc["findings"] if f["id"] == "tsc-demoted-by-watchdog")
    assert "(3.9 days) after boot" in f["title"] and "('hpet')" in f["title"]
    assert any("CPU 5" in e for e in f["evidence"])
    assert "emulated timer" in f["meaning"]
    assert any("tsc=reliable" in x and "risk" in x for x in f["fix"])


# ---- malformed roots --------------------------------------------------------------------

def test_root_that_does_not_exist_or_is_a_file(clockscope, tmp_path):
    proc = run([clockscope, "doctor", "--root", tmp_path / "nope"])
    assert proc.returncode == 2 and "No such file" in proc.stderr
    (tmp_path / "file").write_text("x")
    proc = run([clockscope, "doctor", "--root", tmp_path / "file"])
    assert proc.returncode == 2 and "not a directory" in proc.stderr
    proc = run([clockscope, "doctor", "--root"])
    assert proc.returncode == 2
    proc = run([clockscope, "doctor", "--bogus"])
    assert proc.returncode == 2 and "--bogus" in proc.stderr


def malformed_roots(tmp_path):
    roots = {}
    r = make_root(tmp_path / "dirs-where-files-belong", {"uname/x": "x86_64", "virt/y": "none"})
    (r / CS / "current_clocksource").mkdir(parents=True)
    (r / "dmesg").mkdir()
    roots["dirs"] = r
    r = make_root(tmp_path / "fifo", {"uname": "x86_64"})
    os.mkfifo(r / "dmesg")
    (r / CS).mkdir(parents=True)
    os.mkfifo(r / CS / "current_clocksource")
    roots["fifo"] = r
    rng = random.Random(7)
    roots["garbage"] = make_root(tmp_path / "garbage", {
        "dmesg": bytes(rng.randrange(256) for _ in range(300000)),
        "proc/cpuinfo": bytes(rng.randrange(256) for _ in range(5000)),
        "proc/cmdline": b"\x00\xff clocksource=\x01\x02 tsc=",
        "proc/version": b"Linux version \xff\xfe.\x00",
        CS + "current_clocksource": b"\xff\xfe\n",
        "uname": b"\x00\x00\x00",
    })
    roots["empty-files"] = make_root(tmp_path / "empty", {
        "dmesg": "", "uname": "", "virt": "", CS + "current_clocksource": "", "proc/cpuinfo": ""})
    r = make_root(tmp_path / "loop", {})
    os.symlink("dmesg", r / "dmesg")
    roots["symlink-loop"] = r
    return roots


def test_malformed_roots_give_a_clear_answer(clockscope, tmp_path):
    for name, root in malformed_roots(tmp_path).items():
        started = time.monotonic()
        doc = doctor_json(clockscope, root, timeout=30)
        assert time.monotonic() - started < 25, name  # a FIFO must never be waited on
        assert doc["verdict"] in EXIT, name
        if name in ("dirs", "fifo"):
            files = doc["facts"]["files"]
            assert files["dmesg"].startswith("unreadable"), files
            assert files[CS + "current_clocksource"].startswith("unreadable"), files
            assert doc["facts"]["clocksource"] is None
        if name == "garbage":
            assert doc["verdict"] == "unknown"


def test_huge_log_is_capped_and_says_so(clockscope, tmp_path):
    """20 MiB of noise with the demotion at the very end: the tail is kept."""
    root = tmp_path / "huge"
    root.mkdir()
    with open(root / "dmesg", "w") as f:
        line = "[    1.000000] random: crng init done, nothing to see here at all\n"
        f.write(line * (20 * 1024 * 1024 // len(line)))
        f.write(prefixed(WD_MODERN.format(cpu=1, wd="hpet") + "clocksource: Switched to clocksource hpet\n", "dmesg"))
    doc = doctor_json(clockscope, root)
    assert doc["verdict"] == "slow"
    assert doc["facts"]["kernel_log"]["truncated"] is True
    assert any("first and last" in n for n in doc["notes"])


def test_malformed_roots_under_sanitizers(san_build, tmp_path):
    require_corpus()
    binary = san_build / "clockscope"
    roots = malformed_roots(tmp_path)
    roots.update({c.name: c for c in corpus_cases()})
    for name, root in roots.items():
        proc = run([binary, "doctor", "--root", root, "--json"], timeout=120)
        assert proc.returncode in EXIT.values(), (name, proc.stderr[-2000:])
        assert "ERROR: AddressSanitizer" not in proc.stderr and "runtime error" not in proc.stderr, name
        json.loads(proc.stdout)


# ---- live --------------------------------------------------------------------------------

def test_live_doctor_proves_the_path(clockscope):
    proc = run([clockscope, "doctor", "--json"], timeout=60)
    doc = json.loads(proc.stdout)
    assert proc.returncode == EXIT[doc["verdict"]], proc.stderr
    proof = doc["proof"]
    assert proof is not None and doc["facts"]["origin"] == "live"
    count = proof["syscall_count"]
    if count["counted"]:
        # The control loop of raw syscalls must be seen in full, or nothing is trusted.
        assert count["syscalls"]["control_raw_syscall"] == count["calls"] == 1000
        # ... and so must the library's own fallback syscalls (CPU-time clocks never use the vDSO).
        assert count["syscalls"]["control_cputime_clock"] == 1000
        mono = count["syscalls"]["clock_gettime_monotonic"]
        assert doc["fast_path"] is (mono == 0)
        assert doc["decided_by"] == "proof"
        if doc["verdict"] == "ok":
            assert mono == 0 and count["syscalls"]["clock_gettime_realtime"] == 0
        if mono == count["calls"]:
            assert doc["verdict"] == "slow"
    else:
        assert count["why_not"]
    timed = {t["id"]: t for t in proof["timings"]}
    assert "libc.clock_gettime.monotonic" in timed and "syscall.clock_gettime.monotonic" in timed
    cost = timed["libc.clock_gettime.monotonic"]["ns_per_call"]
    assert cost["min"] <= cost["p10"] <= cost["median"] <= cost["p90"] <= cost["max"]
    assert cost["median"] > 0
    assert proof["resolution_ns"]["monotonic_coarse"] > 0
    text = run([clockscope, "doctor"], timeout=60).stdout
    assert text.startswith("clockscope doctor: ")
    assert len(text.splitlines()) <= 40  # one terminal screen


@pytest.fixture(scope="module")
def seccomp_works(tmp_path_factory):
    """Whether this machine gives processes seccomp filters, asked by a probe that shares
    no code with the doctor (tests/progs/seccomp_probe.c)."""
    exe = tmp_path_factory.mktemp("probe") / "seccomp_probe"
    proc = run(["cc", "-O2", "-o", exe, ROOT / "tests/progs/seccomp_probe.c"])
    assert proc.returncode == 0, proc.stderr
    probe = run([exe])
    return probe.returncode == 0, probe.stderr.strip()


def test_live_proof_counts_where_seccomp_works(clockscope, seccomp_works):
    """Where seccomp filters work (a KVM guest, bare metal), the proof must count: "not
    counted, with a reason" is only for machines that refuse filters (qemu-user)."""
    works, why = seccomp_works
    if not works:
        pytest.skip(f"this machine refuses seccomp filters: {why}")
    doc = json.loads(run([clockscope, "doctor", "--json"], timeout=60).stdout)
    count = doc["proof"]["syscall_count"]
    assert count["counted"], count["why_not"]
    assert count["syscalls"]["control_raw_syscall"] == count["calls"] == 1000


def test_proof_counts_every_call_of_a_library_that_makes_syscalls(clockscope, seccomp_works,
                                                                   tmp_path):
    """The proof, checked on the host against a known answer: with clock_gettime and
    gettimeofday preloaded as raw syscalls (tests/progs/syscall_clock.c), each of the
    doctor's 1000 calls of each enters the kernel, so every count is exactly 1000 and the
    verdict is slow, decided by the proof."""
    works, why = seccomp_works
    if not works:
        pytest.skip(f"this machine refuses seccomp filters: {why}")
    lib = tmp_path / "syscall_clock.so"
    proc = run(["cc", "-O2", "-shared", "-fPIC", "-o", lib, ROOT / "tests/progs/syscall_clock.c"])
    assert proc.returncode == 0, proc.stderr
    env = dict(os.environ, LD_PRELOAD=str(lib))
    proc = run([clockscope, "doctor", "--json"], env=env, timeout=120)
    doc = json.loads(proc.stdout)
    count = doc["proof"]["syscall_count"]
    assert count["counted"], count["why_not"]
    assert count["calls"] == 1000
    assert count["syscalls"] == {"clock_gettime_monotonic": 1000, "clock_gettime_realtime": 1000,
                                 "gettimeofday": 1000, "control_raw_syscall": 1000,
                                 "control_cputime_clock": 1000}, count
    assert doc["fast_path"] is False and doc["decided_by"] == "proof"
    assert doc["verdict"] == "slow" and proc.returncode == EXIT["slow"]
    # ... and without the preload, on this machine's own library, the same count says
    # whether the vDSO answered: 0 or 1000, never something in between.
    plain = json.loads(run([clockscope, "doctor", "--json"], timeout=60).stdout)
    mono = plain["proof"]["syscall_count"]["syscalls"]["clock_gettime_monotonic"]
    assert mono in (0, 1000) and plain["fast_path"] is (mono == 0)


def test_facts_save_then_doctor_root_reasons_offline(clockscope, tmp_path):
    out = tmp_path / "saved"
    proc = run([clockscope, "facts", "--save", out])
    assert proc.returncode == 0, proc.stderr
    assert (out / "uname").is_file() and (out / "clockscope" / "cpu").is_file()
    live = json.loads(run([clockscope, "doctor", "--no-proof", "--json"], timeout=60).stdout)
    offline = doctor_json(clockscope, out)
    assert offline["proof"] is None
    assert offline["facts"]["clocksource"] == live["facts"]["clocksource"]
    assert offline["verdict"] == live["verdict"]
    # refuses a non-empty directory unless --force
    proc = run([clockscope, "facts", "--save", out])
    assert proc.returncode == 2 and "not empty" in proc.stderr
    assert run([clockscope, "facts", "--save", out, "--force"]).returncode == 0
    (tmp_path / "afile").write_text("x")
    assert run([clockscope, "facts", "--save", tmp_path / "afile"]).returncode == 2
    assert run([clockscope, "facts", "--force"]).returncode == 2
    listing = json.loads(run([clockscope, "facts", "--root", out, "--json"]).stdout)
    assert listing["schema"] == "clockscope.facts/1"
    assert {f["path"] for f in listing["facts"] if f["status"] == "ok"} >= {"uname", "clockscope/cpu"}


def test_cross_builds_degrade_under_qemu_user(cross_builds, tmp_path):
    """qemu-user gives no vDSO and refuses seccomp: the doctor must say so, not fail."""
    for arch, (build, qemu) in cross_builds.items():
        proc = run([qemu, build / "clockscope", "doctor", "--json"], timeout=180)
        assert proc.returncode in EXIT.values(), (arch, proc.stderr[-2000:])
        doc = json.loads(proc.stdout)
        count = doc["proof"]["syscall_count"]
        if not count["counted"]:
            assert count["why_not"]
        ids = finding_ids(doc)
        assert "proof-not-counted" in ids or "proof-no-syscalls" in ids or "proof-syscalls" in ids
        for case in corpus_cases()[:3]:
            proc = run([qemu, build / "clockscope", "doctor", "--root", case, "--json"], timeout=120)
            assert proc.returncode in EXIT.values(), (arch, case.name, proc.stderr[-2000:])


def test_help_and_exit_statuses_are_documented(clockscope):
    for cmd in ("doctor", "facts"):
        proc = run([clockscope, cmd, "--help"])
        assert proc.returncode == 0 and "Exit status" in proc.stdout
    text = run([clockscope, "doctor", "--help"]).stdout
    for line in ("  0      ok", "  3      slow: ", "  4      broken: ", "  5      unknown: "):
        assert f"\n{line}" in text, line
    assert "doctor" in run([clockscope, "--help"]).stdout
