#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How long `clockscope doctor --roots DIR --json` takes over many facts roots (goal: 1000
roots in <= 5 s), against one `doctor --root` process per root, side by side in one run.

    python3 benchmarks/doctor_roots.py [--roots 1000] [--archives 20] [--binary build/clockscope]

Generates the roots in a temporary directory: machines of four kinds (healthy TSC; TSC
demoted by the watchdog to hpet; acpi_pm only; an arm64 guest), each with a clocksource,
cpuinfo, version, command line and a kernel log of about 1200 lines, so that every rule
family and the log scanner run.  --archives also packs that many of them as sosreport
.tar.xz archives (unpacked by the host's tar).  Prints a Markdown table for
docs/benchmarks/fleet.md."""
import argparse
import json
import os
import shutil
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path

CPUINFO = ("processor\t: {n}\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) CPU\n"
           "flags\t\t: fpu tsc msr constant_tsc nonstop_tsc rdtscp tsc_known_freq\n\n")
LOG_FILLER = "[    {t:.6f}] pci 0000:00:{n:02x}.0: [8086:1237] type 00 class 0x060000\n"
KINDS = {
    "tsc": ("tsc", "tsc hpet acpi_pm", []),
    "demoted": ("hpet", "hpet acpi_pm", [
        "[ 4000.123456] clocksource: timekeeping watchdog on CPU1: Marking clocksource 'tsc' as unstable because the skew is too large:\n",
        "[ 4000.123460] clocksource:                       'hpet' wd_now: 1 wd_last: 2 mask: ffffffff\n",
        "[ 4000.123470] tsc: Marking TSC unstable due to clocksource watchdog\n",
        "[ 4000.123480] clocksource: Switched to clocksource hpet\n"]),
    "acpi_pm": ("acpi_pm", "acpi_pm", []),
    "arm64": ("arch_sys_counter", "arch_sys_counter", []),
}


def make_root(d, kind, i):
    cur, avail, events = KINDS[kind]
    cs = d / "sys/devices/system/clocksource/clocksource0"
    cs.mkdir(parents=True)
    (cs / "current_clocksource").write_text(cur + "\n")
    (cs / "available_clocksource").write_text(avail + "\n")
    (d / "proc").mkdir()
    arm = kind == "arm64"
    (d / "proc/cpuinfo").write_text("processor\t: 0\nFeatures\t: fp asimd evtstrm\n" if arm
                                    else "".join(CPUINFO.format(n=n) for n in range(4)))
    (d / "proc/version").write_text(f"Linux version 6.1.0-{i % 30}-{'arm64' if arm else 'amd64'} "
                                    "(debian-kernel@lists.debian.org) #1 SMP Debian\n")
    (d / "proc/cmdline").write_text("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet\n")
    (d / "uname").write_text("aarch64\n" if arm else "x86_64\n")
    (d / "virt").write_text("kvm\n" if arm else "none\n")
    log = [LOG_FILLER.format(t=n * 0.001, n=n % 256) for n in range(1200)]
    log.insert(0, f"[    0.000000] clocksource: Switched to clocksource {cur if kind != 'demoted' else 'tsc'}\n")
    (d / "dmesg").write_text("".join(log + events))


def timed(cmd):
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    return time.monotonic() - t0, proc


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--roots", type=int, default=1000)
    ap.add_argument("--archives", type=int, default=20)
    ap.add_argument("--separate", type=int, default=100,
                    help="how many roots to run as separate processes, for the ratio")
    ap.add_argument("--binary", default="build/clockscope")
    args = ap.parse_args()
    binary = str(Path(args.binary).resolve())
    work = Path(tempfile.mkdtemp(prefix="clockscope-roots-"))
    try:
        roots = work / "roots"
        roots.mkdir()
        kinds = list(KINDS)
        for i in range(args.roots):
            make_root(roots / f"machine-{i:05d}", kinds[i % len(kinds)], i)
        arch = work / "archives"
        arch.mkdir()
        for i in range(args.archives):
            src = roots / f"machine-{i:05d}"
            with tarfile.open(arch / f"sosreport-machine-{i:05d}.tar.xz", "w:xz") as t:
                t.add(src, arcname=f"sosreport-machine-{i:05d}")

        wall, proc = timed([binary, "doctor", "--roots", str(roots), "--json"])
        lines = proc.stdout.splitlines()
        summary = json.loads(lines[-1])
        assert summary["roots"] == args.roots and summary["errors"] == 0, summary
        # The same on one CPU (taskset): doctor then runs the roots in one process, in turn.
        one_cpu = str(min(os.sched_getaffinity(0)))
        wall1, proc1 = timed(["taskset", "-c", one_cpu, binary, "doctor", "--roots", str(roots), "--json"])
        assert json.loads(proc1.stdout.splitlines()[-1])["roots"] == args.roots
        sep = min(args.separate, args.roots)
        t0 = time.monotonic()
        for i in range(sep):
            subprocess.run([binary, "doctor", "--root", str(roots / f"machine-{i:05d}"), "--json"],
                           capture_output=True)
        sep_wall = time.monotonic() - t0
        awall, aproc = timed([binary, "doctor", "--roots", str(arch), "--json"]) if args.archives else (0, None)
        asum = json.loads(aproc.stdout.splitlines()[-1]) if aproc else None

        print(f"roots: {args.roots} ({', '.join(kinds)} in turn); verdicts {summary['verdicts']}")
        print()
        print("| what | roots | wall s | ms per root |")
        print("|---|---:|---:|---:|")
        ncpu = len(os.sched_getaffinity(0))
        print(f"| `doctor --roots DIR --json` ({ncpu} CPUs: one worker each) | {args.roots} | {wall:.3f} | {1000 * wall / args.roots:.3f} |")
        print(f"| the same under `taskset -c {one_cpu}` (one process) | {args.roots} | {wall1:.3f} | {1000 * wall1 / args.roots:.3f} |")
        print(f"| `doctor --root R --json`, one process per root | {sep} | {sep_wall:.3f} | {1000 * sep_wall / sep:.3f} |")
        if asum:
            assert asum["errors"] == 0, asum
            print(f"| `doctor --roots DIR --json` over .tar.xz sosreports | {args.archives} | {awall:.3f} | {1000 * awall / args.archives:.3f} |")
        print()
        print(f"per root, in this run: workers on {ncpu} CPUs {wall1 / wall:.1f}x faster than one process; "
              f"one process {(sep_wall / sep) / (wall1 / args.roots):.1f}x cheaper than a process per root")
        print(f"load average at the end: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
