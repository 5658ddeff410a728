#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Per lab scenario (clockscope vm --scenario NAME): what clock_gettime, the raw counter,
COARSE and libfastclock cost inside the guest, and the doctor's verdict; one boot per
scenario (collect --quick --parts doctor,bench).  Under TCG: ratios inside one guest are
meaningful, absolute nanoseconds are emulation's.  Prints a Markdown table.

    make && make vm-binaries && python3 benchmarks/bench_lab.py [NAME...]"""
import json
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CS = str(ROOT / "build" / "clockscope")


def scenarios():
    out = subprocess.run([CS, "vm", "--list-scenarios"], capture_output=True, text=True,
                         check=True).stdout
    return re.findall(r"^(\S+)  \(doctor: (\w+)\)$", out, re.M)


def ns(results, rid):
    r = results.get(rid)
    if not r or not r["available"]:
        return "n/a"
    return f"{r['ns_per_call']['median']:.0f}"


def main():
    wanted = sys.argv[1:]
    print("| scenario | clock_gettime(MONOTONIC) ns | counter ns | COARSE ns | fastclock ns "
          "| raw syscall ns | doctor (expected) | boot + run s |")
    print("|---|---:|---:|---:|---:|---:|---|---:|")
    for name, expected in scenarios():
        if wanted and name not in wanted:
            continue
        t0 = time.monotonic()
        proc = subprocess.run([CS, "vm", "--scenario", name, "--quiet", "--", "collect", "--quick",
                               "--parts", "doctor,bench", "-o", "-"], capture_output=True, text=True)
        took = time.monotonic() - t0
        if proc.returncode != 0:
            print(f"| {name} | failed: {proc.stderr.strip()[-200:]} |||||||")
            continue
        parts = json.loads(proc.stdout)["parts"]
        res = {r["id"]: r for r in parts["bench"]["results"]}
        counters = [k for k in res if k.startswith("counter.") and res[k]["available"]]
        counter = counters[0] if counters else None
        cnt = f"{ns(res, counter)} ({counter[8:]})" if counter else "n/a"
        fc = ns(res, "fastclock.monotonic")
        if fc == "n/a" and "fastclock.monotonic" in res:
            fc = "refused"
        print(f"| `{name}` | {ns(res, 'libc.clock_gettime.monotonic')} | {cnt} | "
              f"{ns(res, 'libc.clock_gettime.monotonic_coarse')} | {fc} | "
              f"{ns(res, 'syscall.clock_gettime.monotonic')} | {parts['doctor']['verdict']} "
              f"({expected}) | {took:.0f} |", flush=True)


if __name__ == "__main__":
    main()
