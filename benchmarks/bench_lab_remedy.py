#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The application-side remedy on the lab's scenarios with no kernel fix: per scenario,
`clockscope vm --scenario NAME --apply-fix --json --add lab_remedy -- lab_remedy N` (the
doctor's first action there is `clockscope run --mode coarse`, which --apply-fix wraps the
program in), and benchmarks/lab_remedy.c, cross-built for the scenario's arch, measures
calls/s of clock_gettime(CLOCK_MONOTONIC) without the remedy (libc's own definition) and
with it (the program's call, served by the shim) in the same process, in one boot.  Prints a
Markdown table (docs/benchmarks/lab.md).  Under TCG: ratios inside one guest are meaningful,
absolute rates are emulation's.

    make && make vm-binaries && python3 benchmarks/bench_lab_remedy.py [NAME...]"""
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CS = str(ROOT / "build" / "clockscope")
# scenario -> (compiler, calls per loop: the erratum's syscall costs ~100 us under TCG)
SCENARIOS = {
    "riscv64-time-trap": ("riscv64-linux-gnu-gcc", 20000),
    "aarch64-timer-erratum": ("aarch64-linux-gnu-gcc", 4000),
}


def facts(text):
    return dict(line.split(" ", 1) for line in text.splitlines() if " " in line)


def main(names):
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in names or SCENARIOS:
            cc, n = SCENARIOS[name]
            prog = Path(tmp) / f"lab_remedy-{name}"
            subprocess.run([cc, "-O1", "-o", prog, ROOT / "benchmarks/lab_remedy.c"], check=True)
            proc = subprocess.run([CS, "vm", "--scenario", name, "--quiet", "--apply-fix", "--json",
                                   "--add", f"{prog}:/bin/lab_remedy", "--", "lab_remedy", str(n)],
                                  capture_output=True, text=True, timeout=1200)
            if proc.returncode != 0:
                sys.exit(f"{name}: exit {proc.returncode}\n{proc.stderr[-2000:]}")
            doc = json.loads(proc.stdout)
            f = facts(doc["command"]["stdout"])
            b = doc["before"]
            rows.append((name, f"{b['verdict']}, {b['ns_per_call']:.0f} ns, "
                               f"{b['syscalls_per_1000_calls']:.0f} syscalls/1000",
                         " ".join(doc["action"]["argv"][1:]), f["before_calls_per_s"],
                         f["after_calls_per_s"], f["ratio"], f"{int(f['behind_ns']) / 1e6:.1f}"))
    print("| scenario | doctor before (verdict, clock_gettime, syscalls) | remedy applied | "
          "calls/s before | calls/s after | after / before | served value behind the kernel (ms, max of 1000) |")
    print("|---|---|---|---:|---:|---:|---:|")
    for r in rows:
        print("| `%s` | %s | `%s` | %s | %s | %sx | %s |" % r)


if __name__ == "__main__":
    main(sys.argv[1:])
