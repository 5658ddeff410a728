#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`clockscope ladder`'s pipe.processes.cross_cpu against a plain ping-pong
(tests/progs/pingpong.c), interleaved in one run, and ladder --quick's running time.

Each round runs, one after the other: ladder (default), ladder --quick (both --only
pipe.processes.cross_cpu, --cpus A,B), then pingpong A B ROUND_TRIPS 50 (its median and p99
of individually timed round trips after a 50 ms warm-up).  The machine may be shared, so the
figure to read is each round's ratio ladder / pingpong, not the absolute figures.  With
--before BINARY the same rounds run that binary's ladder too (e.g. a build of the base
commit), interleaved.

Usage: benchmarks/ladder_pingpong.py [--binary build/clockscope] [--before BINARY]
       [--cpus 0,1] [--rounds 5] [--round-trips 20000]
Prints Markdown (docs/benchmarks/ladder_pingpong.md holds one)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNG = "pipe.processes.cross_cpu"


def ladder(binary, cpus, quick):
    args = [binary, "ladder", "--json", "--only", RUNG, "--cpus", cpus] + (["--quick"] if quick else [])
    t0 = time.monotonic()
    p = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"ladder failed ({p.returncode}):\n{p.stderr}")
    rung = json.loads(p.stdout)["rungs"][0]
    return rung["ns_per_round_trip"]["median"], rung.get("round_trips"), wall


def pingpong(exe, cpus, n):
    a, b = cpus.split(",")
    out = subprocess.run([exe, a, b, str(n), "50"], check=True, capture_output=True, text=True).stdout
    kv = dict(line.split() for line in out.splitlines())
    return float(kv["median_ns"]), float(kv["p99_ns"])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / "build/clockscope"))
    ap.add_argument("--before")
    ap.add_argument("--cpus", default="0,1")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--round-trips", type=int, default=20000)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    exe = os.path.join(tmp, "pingpong")
    subprocess.run(["cc", "-O2", "-o", exe, str(ROOT / "tests/progs/pingpong.c")], check=True)
    builds = [("after", a.binary)] + ([("before", a.before)] if a.before else [])
    print(f"rung `{RUNG}`, CPUs {a.cpus}; pingpong: {a.round_trips} round trips after 50 ms\n")
    print("| round | load 1m | build | ladder median (round trips) | ladder --quick median (round trips) "
          "| pingpong median / p99 | ladder / pingpong | quick / pingpong | quick wall |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = {b: ([], [], []) for b, _ in builds}
    for r in range(1, a.rounds + 1):
        for name, binary in builds:
            d, dn, _ = ladder(binary, a.cpus, False)
            q, qn, qwall = ladder(binary, a.cpus, True)
            pm, p99 = pingpong(exe, a.cpus, a.round_trips)
            ratios[name][0].append(d / pm)
            ratios[name][1].append(q / pm)
            ratios[name][2].append(qwall)
            print(f"| {r} | {os.getloadavg()[0]:.2f} | {name} | {d / 1e3:.1f} µs ({dn}) | {q / 1e3:.1f} µs ({qn}) "
                  f"| {pm / 1e3:.1f} / {p99 / 1e3:.1f} µs | {d / pm:.2f} | {q / pm:.2f} | {qwall:.2f} s |")
    print()
    for name, (dr, qr, qw) in ratios.items():
        print(f"- {name}: ladder / pingpong median ratio {statistics.median(dr):.2f} "
              f"(range {min(dr):.2f}-{max(dr):.2f}); --quick {statistics.median(qr):.2f} "
              f"({min(qr):.2f}-{max(qr):.2f}); this rung's --quick wall {statistics.median(qw):.2f} s")


if __name__ == "__main__":
    main()
