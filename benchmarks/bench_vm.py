#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""VM boot times and `bench --quick` figures inside guests (docs/benchmarks/vm.md).

    make && make vm-binaries && python3 benchmarks/bench_vm.py [ROUNDS]

Each configuration is booted ROUNDS times (default 3); the table gives the median boot
time (qemu start to /init), the median whole run, and the bench figures of the median
run by boot time.  Under TCG these are emulation timings, not hardware timings."""
import json
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFIGS = [
    ("x86_64", ""), ("x86_64", "clocksource=hpet"), ("x86_64", "clocksource=acpi_pm"),
    ("x86_64", "clocksource=tsc tsc=reliable"), ("aarch64", ""), ("riscv64", ""),
]
METHODS = ["libc.clock_gettime.monotonic", "vdso.clock_gettime.monotonic",
           "syscall.clock_gettime.monotonic"]


def one(arch, append):
    cmd = [str(ROOT / "build/clockscope"), "vm", "--arch", arch]
    if append:
        cmd += ["--append", append]
    cmd += ["--", "bench", "--quick", "--json"]
    t0 = time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    boot = float(re.search(r"/init ran ([\d.]+) s", p.stderr).group(1))
    accel = "KVM" if ", KVM\n" in p.stderr and "TCG (" not in p.stderr else "TCG"
    return {"boot": boot, "wall": wall, "accel": accel, "doc": json.loads(p.stdout)}


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    print("| arch | --append | accel | clocksource | boot to /init (s) | whole run (s) | "
          + " | ".join(m.replace(".clock_gettime.monotonic", "") + " ns" for m in METHODS) + " |")
    print("|---|---|---|---|---:|---:|" + "---:|" * len(METHODS))
    for arch, append in CONFIGS:
        runs = sorted((one(arch, append) for _ in range(rounds)), key=lambda r: r["boot"])
        mid = runs[len(runs) // 2]
        res = {r["id"]: r for r in mid["doc"]["results"]}
        cells = []
        for m in METHODS:
            r = res.get(m)
            cells.append(f"{r['ns_per_call']['median']:.0f}" if r and r.get("ns_per_call")
                         else "-")
        print(f"| {arch} | {append or '(none)'} | {mid['accel']} | "
              f"{mid['doc']['machine']['clocksource']} | "
              f"{statistics.median(r['boot'] for r in runs):.1f} | "
              f"{statistics.median(r['wall'] for r in runs):.1f} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
