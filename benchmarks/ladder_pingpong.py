#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`clockscope ladder`'s pipe.processes.cross_cpu against a plain ping-pong
(tests/progs/pingpong.c), interleaved in one run, for this build and another (the base
commit's), and the whole ladder's running time.

Each round runs, one after the other, for each build: ladder (default), ladder --quick (both
--only pipe.processes.cross_cpu, --cpus A,B), then pingpong A B ROUND_TRIPS 50 (its median
and p99 of individually timed round trips after a 50 ms warm-up).  The machine may be shared,
so the figure to read is each round's ratio ladder / pingpong, not the absolute figures.
--before BINARY runs that binary's rounds too (e.g. a build of the base commit in a separate
worktree); --whole also times each build's whole ladder and ladder --quick once per round.

Usage: benchmarks/ladder_pingpong.py [--binary build/clockscope] [--before BINARY]
       [--cpus 0,1] [--rounds 5] [--round-trips 20000] [--whole]
Prints Markdown (docs/benchmarks/ladder_pingpong.md holds one)."""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RUNG = "pipe.processes.cross_cpu"


def ladder_json(binary, *args):
    p = subprocess.run([binary, "ladder", "--json", *args], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"ladder failed ({p.returncode}):\n{p.stderr}")
    return json.loads(p.stdout)


def rung(binary, cpus, quick):
    """The rung's median, p99, round trips and elapsed seconds."""
    doc = ladder_json(binary, "--only", RUNG, "--cpus", cpus, *(["--quick"] if quick else []))
    x = doc["rungs"][0]
    c = x["ns_per_round_trip"]
    return c["median"], c["p99"], x.get("round_trips"), x["elapsed_s"]


def pingpong(exe, cpus, n):
    a, b = cpus.split(",")
    out = subprocess.run([exe, a, b, str(n), "50"], check=True, capture_output=True, text=True).stdout
    kv = dict(line.split() for line in out.splitlines())
    return float(kv["median_ns"]), float(kv["p99_ns"])


def us(ns):
    return f"{ns / 1e3:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=str(ROOT / "build/clockscope"))
    ap.add_argument("--before")
    ap.add_argument("--cpus", default="0,1")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--round-trips", type=int, default=20000)
    ap.add_argument("--whole", action="store_true")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp()
    exe = os.path.join(tmp, "pingpong")
    subprocess.run(["cc", "-O2", "-o", exe, str(ROOT / "tests/progs/pingpong.c")], check=True)
    builds = [("after", a.binary)] + ([("before", a.before)] if a.before else [])
    print(f"rung `{RUNG}`, CPUs {a.cpus}; pingpong: {a.round_trips} round trips after 50 ms\n")
    print("| round | load 1m | build | ladder median / p99 µs (round trips) "
          "| --quick median / p99 µs (round trips) | pingpong median / p99 µs "
          "| ladder / pingpong | quick / pingpong | rung's time, quick |")
    print("|---|---|---|---|---|---|---|---|---|")
    ratios = {b: ([], [], [], []) for b, _ in builds}
    whole = {b: ([], []) for b, _ in builds}
    for r in range(1, a.rounds + 1):
        for name, binary in builds:
            d, d99, dn, dt = rung(binary, a.cpus, False)
            q, q99, qn, qt = rung(binary, a.cpus, True)
            pm, p99 = pingpong(exe, a.cpus, a.round_trips)
            for k, v in enumerate((d / pm, q / pm, dt, qt)):
                ratios[name][k].append(v)
            print(f"| {r} | {os.getloadavg()[0]:.2f} | {name} | {us(d)} / {us(d99)} ({dn}) "
                  f"| {us(q)} / {us(q99)} ({qn}) | {us(pm)} / {us(p99)} | {d / pm:.2f} "
                  f"| {q / pm:.2f} | {dt:.2f} s, {qt:.2f} s |")
            if a.whole:
                whole[name][0].append(ladder_json(binary)["elapsed_s"])
                whole[name][1].append(ladder_json(binary, "--quick")["elapsed_s"])
    print()
    for name, (dr, qr, dt, qt) in ratios.items():
        print(f"- {name}: ladder / pingpong median ratio {statistics.median(dr):.2f} "
              f"(range {min(dr):.2f}-{max(dr):.2f}); --quick {statistics.median(qr):.2f} "
              f"({min(qr):.2f}-{max(qr):.2f}); the rung takes {statistics.median(dt):.2f} s, "
              f"--quick {statistics.median(qt):.2f} s")
        if a.whole:
            w, wq = whole[name]
            print(f"  - whole ladder: {statistics.median(w):.1f} s ({min(w):.1f}-{max(w):.1f}); "
                  f"--quick {statistics.median(wq):.2f} s ({min(wq):.2f}-{max(wq):.2f})")


if __name__ == "__main__":
    main()
