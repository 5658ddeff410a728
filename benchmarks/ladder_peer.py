#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`clockscope ladder` against a peer, in one run, and its own running time.

1. Peer: for each of ROUNDS rounds, `clockscope ladder --json --only 'pipe.*.same_cpu'`
   (default configuration; its --cpus names one CPU: both sides pinned there), then
   `taskset -c CPU perf bench sched pipe -l LOOPS` (two processes) and the same with -T
   (two threads), each REPEAT times.  Both print round trips (perf's "usecs/op" is one
   write + read each way).  perf's figure is the mean over one run (LOOPS round trips,
   ~0.1 s), clockscope's the median over its runner processes (docs/METHODOLOGY.md, "Across
   processes") of 1 ms samples; the median of REPEAT perf runs (as many processes) is
   compared.  On an idle CPU the two statistics agree; where other work shares the CPU, a
   perf run's mean includes every time slice another task held it while the median of
   short samples does not (and perf runs shorter than ~0.1 s suffer too: a freshly forked
   child starts behind the CPU's other tasks), so the check means something only at low
   load: each round prints the load average, and clockscope's mean beside its median.  perf 6.1 cannot pin its two tasks to two different CPUs, so the
   peer check is the same-CPU round trip, pinned identically on both sides.
2. Running time: `ladder` (default) and `ladder --quick`, end to end.
3. The polling-server experiment's table: the default run's sweep, against the paper's 86% and 49%.

The machine may be shared: the 1-minute load average is printed with every figure.

Usage: benchmarks/ladder_peer.py [--binary build/clockscope] [--cpu N] [--rounds 3]
       [--loops 20000] [--repeat 7] [--label TEXT]
Prints Markdown (docs/benchmarks/ladder.md holds one)."""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def load():
    return os.getloadavg()[0]


def perf_pipe(cpu, loops, threads):
    cmd = ["taskset", "-c", str(cpu), "perf", "bench", "sched", "pipe", "-l", str(loops)]
    if threads:
        cmd.append("-T")
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    m = re.search(r"([0-9.]+) usecs/op", out)
    if not m:
        sys.exit(f"cannot read perf's output:\n{out}")
    return float(m.group(1)) * 1000


def ladder(binary, *args):
    t0 = time.monotonic()
    p = subprocess.run([binary, "ladder", "--json", *args], capture_output=True, text=True)
    wall = time.monotonic() - t0
    if p.returncode not in (0, 1):
        sys.exit(f"ladder failed ({p.returncode}):\n{p.stderr}")
    return json.loads(p.stdout), wall


def fmt(ns):
    if ns >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    return f"{ns / 1000:.2f} µs" if ns >= 1000 else f"{ns:.1f} ns"


def said(red):
    # poll slower (its CPU taken by other work, or emulated): a ratio, not "-245% lower"
    return f"{red:.0%} lower" if red >= 0 else f"{1 - red:.1f}x (higher)"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", default=str(ROOT / "build/clockscope"))
    ap.add_argument("--cpu", type=int, default=sorted(os.sched_getaffinity(0))[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--loops", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--label", default="this machine")
    ap.add_argument("--skip-peer", action="store_true", help="no perf (e.g. inside a VM)")
    ap.add_argument("--ladder-json", metavar="FILE",
                    help="tables from this saved `ladder --json` (e.g. from `clockscope vm`): "
                         "no peer, no running time")
    a = ap.parse_args()
    if a.ladder_json:
        a.skip_peer = True

    print(f"## {a.label}\n")
    if not a.skip_peer:
        if not shutil.which("perf"):
            sys.exit("perf is not installed (Debian: linux-perf, scripts/install-deps.sh)")
        print(f"### Peer: pipe round trip, both sides pinned to CPU {a.cpu}\n")
        print("| round | load 1m | ladder pipe.processes.same_cpu median (mean) | perf sched pipe "
              "(processes) | ladder pipe.threads.same_cpu median (mean) | perf sched pipe -T "
              "(threads) |")
        print("|---|---|---|---|---|---|")
        ours = {"processes": [], "threads": []}
        peer = {"processes": [], "threads": []}
        for r in range(a.rounds):
            ld = load()
            doc, _ = ladder(a.binary, "--cpus", str(a.cpu), "--only", "pipe.*.same_cpu")
            rung = {x["id"]: x for x in doc["rungs"]}
            cells = []
            for kind in ("processes", "threads"):
                x = rung[f"pipe.{kind}.same_cpu"]
                p = statistics.median(perf_pipe(a.cpu, a.loops, kind == "threads")
                                      for _ in range(a.repeat))
                ours[kind].append(x["ns"])
                peer[kind].append(p)
                cells += [f"{fmt(x['ns'])} ({fmt(x['mean_ns'])})", fmt(p)]
            print(f"| {r + 1} | {ld:.2f} | " + " | ".join(cells) + " |")
        print()
        for kind in ("processes", "threads"):
            o, p = statistics.median(ours[kind]), statistics.median(peer[kind])
            diff = o / p - 1
            verdict = "within 10%" if abs(diff) <= 0.10 else "NOT within 10%"
            print(f"- {kind}: ladder {fmt(o)}, perf {fmt(p)} (medians over {a.rounds} rounds; "
                  f"perf: median of {a.repeat} runs of {a.loops} round trips each): ladder "
                  f"{diff:+.1%} vs perf, {verdict}")
        print()

    if a.ladder_json:
        full = json.loads(Path(a.ladder_json).read_text())
        mach = full["machine"]
        print(f"{mach['cpu_model']}, virtualization {mach['virtualization']}, "
              f"{full['load']['cpus_online']} CPUs; `ladder` took {full['elapsed_s']:.1f} s "
              "inside\n")
    else:
        print("### Running time (wall clock, end to end)\n")
        ld0 = load()
        full, wall_full = ladder(a.binary)
        quick_walls = []
        for _ in range(3):
            _, w = ladder(a.binary, "--quick")
            quick_walls.append(w)
        print(f"- `ladder`: {wall_full:.1f} s; `ladder --quick`: "
              f"{', '.join(f'{w:.1f}' for w in quick_walls)} s (load 1m {ld0:.2f} before, "
              f"{load():.2f} after)\n")

    print("### The ladder\n")
    print(f"load average {full['load']['loadavg_1m_start']} at the start, "
          f"{full['load']['loadavg_1m_end']} at the end, {full['load']['cpus_online']} CPUs\n")
    print("| rung | kind | median | p99 | CPUs |")
    print("|---|---|---|---|---|")
    for x in full["rungs"]:
        if x["ns"] is not None:
            print(f"| `{x['id']}` | {x['kind']} | {fmt(x['ns'])} | {fmt(x['p99_ns'])} | "
                  f"{','.join(map(str, x['cpus']))} |")
        else:
            print(f"| `{x['id']}` | {x['kind']} | - | - | {x['why_unavailable'] or x['error']} |")
    m = full["cpu_matrix"]
    if m and m["available"]:
        pairs = [(m["cpus"][i], m["cpus"][k], m["ns"][i][k]) for i in range(len(m["cpus"]))
                 for k in range(len(m["cpus"])) if i != k and m["ns"][i][k] is not None]
        vals = [v for _, _, v in pairs]
        print(f"\nCache-line handoff (one_way), {len(pairs)} CPU pairs: min {fmt(min(vals))}, "
              f"median {fmt(statistics.median(vals))}, max {fmt(max(vals))}\n")

    print("### The polling-server experiment (FlexIPC, Journal of Software 2025): N clients -> one pinned server\n")
    setup = full["sweep_setup"]
    if not setup["available"]:
        print(f"not available: {setup['why_unavailable']}\n")
        return
    print(f"server on CPU {setup['server_cpu']}, clients on CPUs {setup['client_cpus']}; "
          "latency is a round trip per request; * oversubscribed\n")
    print("| clients | server | p50 | p99 | req/s | server CPU/req | clients CPU/req | "
          "server busy | server sleeps/req | poll's p50 vs this |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for row in full["sweep"]:
        modes = {x["mode"]: x for x in row["modes"]}
        for name in ("futex", "eventfd", "poll"):
            x = modes[name]
            c = f"{row['clients']}{'*' if row['oversubscribed'] else ''}"
            if not x["measured"]:
                print(f"| {c} | {name} | FAILED: {x['error']} | | | | | | | |")
                continue
            red = row["reduction"].get(f"poll_vs_{name}")
            redtxt = said(red) if red is not None else ""
            print(f"| {c} | {name} ({x['server']}) | {fmt(x['ns'])} | {fmt(x['p99_ns'])} | "
                  f"{x['throughput_per_s']:.0f} | {fmt(x['server_cpu_ns_per_request'])} | "
                  f"{fmt(x['client_cpu_ns_per_request'])} | {x['server_cpu_share']:.0%} | "
                  f"{x['server_sleeps_per_request']:.2f} | {redtxt} |")
    first, last = full["sweep"][0], full["sweep"][-1]
    paper = setup["paper"]
    print()
    for row, what in ((first, "lowest concurrency"), (last, "highest concurrency")):
        modes = {x["mode"]: x for x in row["modes"]}
        for name in ("futex", "eventfd"):
            if modes[name]["measured"] and modes["poll"]["measured"]:
                ratio = modes["poll"]["ns"] / modes[name]["ns"]
                print(f"- {row['clients']} client(s) ({what}), poll vs {name}: latency "
                      f"{ratio:.0%} of {name}'s ({said(1 - ratio)})")
    print(f"- paper: {paper['low_concurrency_reduction']:.0%} lower at low concurrency; at "
          f"{paper['high_concurrency_clients']} clients FlexIPC's latency is "
          f"{paper['high_concurrency_latency_ratio']:.0%} of the original's")


if __name__ == "__main__":
    main()
