#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How fast the doctor reads a large kernel log (the log scanner, src/facts/logscan.c),
one or more clockscope binaries side by side in one run.

    python3 benchmarks/doctor_logscan.py [--runs 5] [--lines 180000] BINARY [BINARY...]

Writes a facts root whose `dmesg` holds LINES lines that all pass the scanner's first
filter (watchdog demotions, TSC calibrations, look-alikes with "Detected ... MHz", and a
quarter of unrelated USB lines), then runs `BINARY doctor --root ROOT --json` RUNS times
per binary, interleaved, and prints each binary's median user CPU time (from
os.wait4's rusage: the child's own CPU, not the noise of a shared machine's wall clock)
and its ratio to the first binary.  To compare with an earlier commit, build it elsewhere
(`git worktree add /tmp/before REV && make -C /tmp/before -j2`) and pass both binaries."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path


def write_log(path, lines):
    out = []
    for i in range(lines):
        kind = i % 4
        if kind == 0:
            out.append(f"[{i:6d}.000000] clocksource: timekeeping watchdog on CPU1: Marking "
                       f"clocksource 'tsc' as unstable because the skew is too large:")
        elif kind == 1:
            out.append(f"[{i:6d}.000000] tsc: Refined TSC clocksource calibration: 2445.406 MHz")
        elif kind == 2:
            out.append(f"[{i:6d}.000000] usb 1-1: new high-speed USB device number {i} using xhci_hcd")
        else:
            out.append(f"[{i:6d}.000000] hpet: Detected 25 MHz timer watchdog cs_now")
    path.write_text("\n".join(out) + "\n")


def user_seconds(cmd):
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 3, 4, 5):  # the doctor's verdict exit statuses (docs/doctor.md)
        sys.exit(f"{cmd[0]} exited {code}")
    return usage.ru_utime


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--lines", type=int, default=180000)
    ap.add_argument("binaries", nargs="+")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as root:
        log = Path(root) / "dmesg"
        write_log(log, args.lines)
        times = {b: [] for b in args.binaries}
        for _ in range(args.runs):
            for b in args.binaries:
                times[b].append(user_seconds([b, "doctor", "--root", root, "--json"]))
        size = log.stat().st_size
    print(f"kernel log: {args.lines} lines, {size / 1e6:.1f} MB; {args.runs} runs each, interleaved")
    print()
    print("| binary | median user CPU (s) | min | max | ratio to the first |")
    print("|---|---:|---:|---:|---:|")
    base = statistics.median(times[args.binaries[0]])
    for b in args.binaries:
        t = times[b]
        med = statistics.median(t)
        print(f"| {b} | {med:.3f} | {min(t):.3f} | {max(t):.3f} | {med / base:.2f} |")


if __name__ == "__main__":
    main()
