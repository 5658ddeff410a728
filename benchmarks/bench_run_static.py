#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`clockscope run` on programs served through their patched vDSO (docs/run.md, "Static and
Go programs"): ns per call and syscalls per call, unserved and served, for a `gcc -static`
C program (benchmarks/run_static_loop.c: clock_gettime(CLOCK_MONOTONIC)) and the Go probe
built with CGO_ENABLED=0 (runtimes/probes/probe.go: time.Now, time.Since).
docs/benchmarks/run.md records the figures.

    python3 benchmarks/bench_run_static.py [--calls 2000000] [--mode fast] [--repeat 3]

Each figure is the best of --repeat runs, unserved and served runs alternating (on a busy
machine the best is the least disturbed).

Served syscalls per call come from the reader's own count of the syscalls it made
(`run --verbose` prints it at the end), divided by the calls made; unserved, the vDSO's
path is named instead (this script cannot count another program's syscalls without a
tracer, and a tracer would stop run from patching)."""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CS = ROOT / "build" / "clockscope"


def sh(*cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def go_rows(out):
    """{api: ns per call} from `probe time`: per row, the best sample minus the best harness
    sample, over the iterations."""
    rows = {}
    for line in out.splitlines():
        p = line.split()
        if p and p[0] == "row":
            name, iters = p[1], int(p[5])
            api = min(int(x) for x in p[6].split(","))
            harness = min(int(x) for x in p[7].split(","))
            rows[name] = max(api - harness, 0) / iters
    return rows


def syscalls(stderr):
    m = re.search(r"its patched vDSO made (\d+) syscalls", stderr)
    return int(m.group(1)) if m else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=2_000_000, help="calls per C loop (5 loops)")
    ap.add_argument("--mode", default="fast", help="run's mode for the served rows")
    ap.add_argument("--repeat", type=int, default=3, help="runs per figure (the best is kept)")
    args = ap.parse_args()
    if sh("make", "-j2", "-s", cwd=ROOT).returncode != 0:
        sys.exit("make failed")
    tmp = Path(tempfile.mkdtemp(prefix="bench-run-static-"))
    loop = tmp / "run_static_loop"
    r = sh("cc", "-O2", "-static", "-o", loop, ROOT / "benchmarks/run_static_loop.c")
    if r.returncode != 0:
        sys.exit("cannot build a static C program: " + r.stderr)
    shutil.copy(ROOT / "runtimes/probes/probe.go", tmp / "probe.go")
    env = dict(os.environ, CGO_ENABLED="0", GO111MODULE="off")
    r = sh("go", "build", "-o", tmp / "probe", tmp / "probe.go", env=env)
    if r.returncode != 0:
        sys.exit("cannot build the Go probe: " + r.stderr)

    print(f"| program | call | unserved ns/call | served ({args.mode}) ns/call | served syscalls/call |")
    print("|---|---|---|---|---|")
    rounds = 5
    best = {}

    def keep(key, value):
        if value == value and (key not in best or value < best[key]):  # NaN never kept
            best[key] = value

    syscalls_c, syscalls_go, served_stderr = [], [], ""
    for _ in range(args.repeat):
        plain = sh(loop, args.calls, rounds)
        keep("c-plain", float(re.search(r"ns_per_call ([\d.]+)", plain.stdout).group(1)))
        served = sh(CS, "run", "--mode", args.mode, "--verbose", "--", loop, args.calls, rounds)
        m = re.search(r"ns_per_call ([\d.]+)", served.stdout)
        keep("c-served", float(m.group(1)) if m else float("nan"))
        syscalls_c.append(syscalls(served.stderr))
        for api, ns in go_rows(sh(tmp / "probe", "time", 5, 20000).stdout).items():
            keep(("go-plain", api), ns)
        served_run = sh(CS, "run", "--mode", args.mode, "--verbose", "--", tmp / "probe", "time", 5, 20000)
        for api, ns in go_rows(served_run.stdout).items():
            keep(("go-served", api), ns)
        syscalls_go.append(syscalls(served_run.stderr))
        served_stderr = served_run.stderr
    nan = float("nan")
    per = max(syscalls_c) / (args.calls * rounds) if None not in syscalls_c else nan
    print(f"| gcc -static C | clock_gettime(MONOTONIC) | {best.get('c-plain', nan):.1f} | "
          f"{best.get('c-served', nan):.1f} | {per:.4f} (worst run) |")
    for api in ("time.Now", "time.Since"):
        print(f"| Go (CGO_ENABLED=0) | {api} | {best.get(('go-plain', api), nan):.1f} | "
              f"{best.get(('go-served', api), nan):.1f} | see below |")
    print(f"\nGo probe served: its patched vDSO made {syscalls_go} syscalls per run (every row's "
          f"samples and harness loops together: millions of time reads a run)")
    if "patched vDSO" not in served_stderr:
        print("note: the Go probe was not served: " + served_stderr.strip())
    shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
