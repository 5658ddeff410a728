#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How long a live `clockscope doctor` takes (goal: <= 3 s), and what its proof measured.

    python3 benchmarks/doctor_timing.py [--runs 10] [--binary build/clockscope]

Runs `clockscope doctor --json` N times, timing each process from outside, and prints
a Markdown table for docs/benchmarks/doctor.md."""
import argparse
import json
import statistics
import subprocess
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--binary", default="build/clockscope")
    args = ap.parse_args()
    walls, docs = [], []
    for _ in range(args.runs):
        t0 = time.monotonic()
        proc = subprocess.run([args.binary, "doctor", "--json"], capture_output=True, text=True)
        walls.append(time.monotonic() - t0)
        docs.append(json.loads(proc.stdout))
    print(f"runs: {args.runs}; wall time per run (s): min {min(walls):.3f}, "
          f"median {statistics.median(walls):.3f}, max {max(walls):.3f}")
    print()
    print("| run | verdict | syscalls / 1000 MONOTONIC | / 1000 REALTIME | control | "
          "MONOTONIC ns | REALTIME ns | raw syscall ns | COARSE ns | counter ns | wall s |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for i, (d, w) in enumerate(zip(docs, walls), 1):
        p = d["proof"]
        c = p["syscall_count"]["syscalls"]
        t = {x["id"]: x.get("ns_per_call") for x in p["timings"]}
        counter = next((v for k, v in t.items() if k.startswith("counter.")), None)

        def f(v):
            return "-" if v is None else f"{v:.1f}"
        print(f"| {i} | {d['verdict']} | {c['clock_gettime_monotonic']} | {c['clock_gettime_realtime']} | "
              f"{c['control_raw_syscall']} | {f(t.get('libc.clock_gettime.monotonic'))} | "
              f"{f(t.get('libc.clock_gettime.realtime'))} | {f(t.get('syscall.clock_gettime.monotonic'))} | "
              f"{f(t.get('libc.clock_gettime.monotonic_coarse'))} | {f(counter)} | {w:.3f} |")


if __name__ == "__main__":
    main()
