#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Validates `clockscope bench` against an independent measurement, in one run:

1. For each of ROUNDS rounds: a full default `bench` (pinned to --cpu), then the plain loop
   (benchmarks/plainloop.c: 10 million clock_gettime(CLOCK_MONOTONIC) calls in a bare loop, timed
   as a whole, pinned to the same CPU; its wall time is also taken from outside the process).
2. Compares bench's libc.clock_gettime.monotonic with the plain loop of the same round, and
   every method's median across rounds (max/min - 1).
3. Times `bench` and `bench --quick` end to end.

Usage: benchmarks/bench_validate.py [--binary build/clockscope] [--cpu N] [--rounds 3]
Prints a Markdown report (docs/benchmarks/bench.md holds one)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=str(ROOT / "build/clockscope"))
    ap.add_argument("--cpu", type=int, default=sorted(os.sched_getaffinity(0))[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--calls", type=int, default=10_000_000)
    a = ap.parse_args()

    plain = ROOT / "build/plainloop"
    subprocess.run(["cc", "-O2", "-o", plain, ROOT / "benchmarks/plainloop.c"], check=True)

    rounds = []
    for r in range(a.rounds):
        t0 = time.monotonic()
        out = subprocess.run([a.binary, "bench", "--json", "--cpus", str(a.cpu)],
                             check=True, capture_output=True, text=True).stdout
        bench_s = time.monotonic() - t0
        doc = json.loads(out)
        t0 = time.monotonic()
        pl = subprocess.run(["taskset", "-c", str(a.cpu), plain, str(a.calls)],
                            check=True, capture_output=True, text=True).stdout.split()
        outside_ns = (time.monotonic() - t0) * 1e9
        rounds.append({"doc": doc, "bench_s": bench_s, "plain_ns": float(pl[2]),
                       "plain_outside_ns": outside_ns / a.calls})
        print(f"round {r + 1}: bench {bench_s:.1f} s", file=sys.stderr)

    t0 = time.monotonic()
    subprocess.run([a.binary, "bench", "--quick", "--json"], check=True, capture_output=True)
    quick_s = time.monotonic() - t0

    m = rounds[0]["doc"]["machine"]
    print(f"Machine: {m['arch']}, {m['cpu_model']}, Linux {m['kernel']}, clocksource "
          f"{m['clocksource']}, virtualization {m['virtualization']}; pinned to CPU {a.cpu}.\n")
    print("## bench vs an independent plain loop (clock_gettime(CLOCK_MONOTONIC))\n")
    print("| round | bench median ns | plain loop ns (timed inside) | plain loop ns (timed outside the process) | bench / plain |")
    print("|---:|---:|---:|---:|---:|")
    for i, r in enumerate(rounds):
        res = {x["id"]: x for x in r["doc"]["results"]}
        b = res["libc.clock_gettime.monotonic"]["ns_per_call"]["median"]
        print(f"| {i + 1} | {b:.2f} | {r['plain_ns']:.2f} | {r['plain_outside_ns']:.2f} | "
              f"{b / r['plain_ns']:.3f} |")

    print(f"\n## Agreement of {a.rounds} runs (median ns/call per method)\n")
    print("| method | " + " | ".join(f"run {i + 1}" for i in range(a.rounds)) + " | max/min - 1 |")
    print("|---|" + "---:|" * (a.rounds + 1))
    worst = []
    ids = [x["id"] for x in rounds[0]["doc"]["results"] if "ns_per_call" in x]
    for mid in ids:
        vals = []
        for r in rounds:
            res = {x["id"]: x for x in r["doc"]["results"]}
            vals.append(res[mid]["ns_per_call"]["median"])
        dev = max(vals) / min(vals) - 1 if min(vals) > 0 else float("inf")
        worst.append((dev, mid))
        print(f"| {mid} | " + " | ".join(f"{v:.2f}" for v in vals) + f" | {100 * dev:.1f}% |")
    devs = sorted(d for d, _ in worst)
    print(f"\nMedian disagreement over all methods: {100 * statistics.median(devs):.1f}%; "
          f"worst: {100 * max(worst)[0]:.1f}% ({max(worst)[1]}).")
    print(f"\n## Duration\n\n- default suite: " +
          ", ".join(f"{r['bench_s']:.1f} s" for r in rounds) + f"\n- `--quick`: {quick_s:.2f} s")


if __name__ == "__main__":
    main()
