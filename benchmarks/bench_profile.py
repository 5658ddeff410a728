#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The overhead of `clockscope profile`: one program's run time with and without it, side
by side in one run.

The program is benchmarks/plainloop.c (CALLS calls of clock_gettime(CLOCK_MONOTONIC) in a
bare loop, timed by itself with CLOCK_MONOTONIC_RAW): the worst case for a sampler that
unwinds a call chain per sample, since every sample lands in a clock read.  Each round runs,
in turn: the program alone; `clockscope profile -- program` at each --frequency.  Two
figures per configuration, medians over the rounds:
  program    the program's own run time, as it measures it (what profiling costs it)
  end to end the wall time of the whole command (perf record's start and stop, perf
             script, the attribution)
and each as a ratio to the plain run of the same rounds.

Usage: benchmarks/bench_profile.py [--binary build/clockscope] [--rounds 5]
                                   [--calls 20000000] [--frequency 999,4000]
Prints a Markdown report (docs/profile.md quotes one)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def timed(cmd):
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if proc.returncode != 0:
        sys.exit(f"{cmd[0]} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return proc, wall


def program_seconds(text):
    """plainloop's "<calls> <elapsed_ns> <ns_per_call>" line, wherever it was printed."""
    for line in text.splitlines():
        f = line.split()
        if len(f) == 3 and f[0].isdigit():
            return float(f[1]) / 1e9
    sys.exit(f"no plainloop line in: {text[-500:]}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=str(ROOT / "build/clockscope"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=20_000_000)
    ap.add_argument("--frequency", default="999,4000")
    a = ap.parse_args()
    freqs = [int(f) for f in a.frequency.split(",")]

    prog = ROOT / "build/plainloop"
    subprocess.run(["cc", "-O2", "-o", prog, ROOT / "benchmarks/plainloop.c"], check=True)
    cmd = [str(prog), str(a.calls)]

    runs = {"plain": []} | {f: [] for f in freqs}
    samples = {f: [] for f in freqs}
    share = {f: [] for f in freqs}
    for _ in range(a.rounds):
        proc, wall = timed(cmd)
        runs["plain"].append((program_seconds(proc.stdout), wall))
        for f in freqs:
            proc, wall = timed([a.binary, "profile", "--json", "--frequency", str(f), "--", *cmd])
            doc = json.loads(proc.stdout)
            runs[f].append((program_seconds(proc.stderr), wall))   # --json: its stdout on stderr
            samples[f].append(doc["samples"])
            share[f].append(doc["time_share_percent"])

    def med(xs, i):
        return statistics.median(x[i] for x in xs)

    plain_prog, plain_wall = med(runs["plain"], 0), med(runs["plain"], 1)
    load = os.getloadavg()[0]
    print(f"`{' '.join(sys.argv)}`: {a.rounds} rounds of {a.calls:,} clock_gettime(CLOCK_MONOTONIC) "
          f"calls (benchmarks/plainloop.c), each configuration in turn per round; medians; "
          f"load average {load:.1f} on {os.cpu_count()} CPUs at the end.\n")
    print("| run | program's own time | ratio | end to end | ratio | samples | time share |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    print(f"| plain | {plain_prog:.3f} s | 1.00 | {plain_wall:.3f} s | 1.00 | | |")
    for f in freqs:
        p, w = med(runs[f], 0), med(runs[f], 1)
        print(f"| `profile --frequency {f}` | {p:.3f} s | {p / plain_prog:.2f} | {w:.3f} s | "
              f"{w / plain_wall:.2f} | {statistics.median(samples[f]):.0f} | "
              f"{statistics.median(share[f]):.1f}% |")


if __name__ == "__main__":
    main()
