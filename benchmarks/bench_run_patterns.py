#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`clockscope run` on static and Go programs outside the hot loop (issue 25; the hot loop is
benchmarks/bench_run_static.py's): what one read costs served and unserved, side by side in
one run, ratio pair by pair.  docs/benchmarks/run.md records the figures.

    python3 benchmarks/bench_run_patterns.py [--mode fast] [--repeat 5] [--first 15] [--program c|go|both]

Programs: a `gcc -static` C program (benchmarks/run_patterns.c: clock_gettime(MONOTONIC))
and a Go program built with CGO_ENABLED=0 (benchmarks/run_patterns_go/: time.Now, which
reads REALTIME and MONOTONIC: two vDSO calls).  Each read is timed alone by the TSC inside
the program.  Patterns:
  first         the process's first read (C: nothing read a clock before; Go: the first
                time.Now of main); --first processes each way, the median
  sparse N ms   one read after each pause of 1, 10 and 100 ms (caches and TLB cooled by
                whatever else the machine runs meanwhile): the median read
  threads T     T threads (Go: goroutines locked to threads) reading in a loop at once:
                the median thread's ns per call; at the start, and for 4 threads also
                after 1.2 s (past fastclock's short first lines: the steady state)
  signal        C only: one read inside a SIGUSR1 handler, many times: the median (Go code
                never runs inside a signal handler)
Served and unserved runs alternate, --repeat times; the figure is the median of the runs
and the ratio is served / unserved of the same round, the median of those.  The tail
columns pool every read of every round (first read: every process's; sparse, signal:
each read the program printed) and give p50 / p99 / max; threads have none (a loop is
timed as a whole).

Also the instructions one clock_gettime executes (benchmarks/insn_count.c, single-stepped:
independent of the machine's load, and available where `perf stat -e instructions` is not,
as in a VM without a PMU), served and unserved, for CLOCK_MONOTONIC, CLOCK_REALTIME and CLOCK_MONOTONIC_COARSE (served
through the reader's slow path; a single-stepped syscall counts as one instruction)."""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CS = ROOT / "build" / "clockscope"

SPARSE = [(1, 40), (10, 20), (100, 8)]  # (ms, reads)
THREADS = [2, 4]
LOOP_CALLS = 200000
SETTLE_MS = 1200


def sh(*cmd, **kw):
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True, **kw)


def ns(proc):
    m = re.search(r"^ns ([\d.]+)$", proc.stdout, re.M)
    return float(m.group(1)) if m else None


def every_read(proc):
    """The program's "all X ..." line (sparse, signal): each read's ns, or []."""
    m = re.search(r"^all((?: [\d.]+)+)$", proc.stdout, re.M)
    return [float(x) for x in m.group(1).split()] if m else []


def quantile(v, q):
    v = sorted(v)
    return v[min(len(v) - 1, int(q * len(v)))]


def tail(v):
    """p50 / p99 / max of reads pooled over the rounds ("" for a pattern without them)."""
    if len(v) < 20:
        return ""
    return f"{quantile(v, 0.5):.0f} / {quantile(v, 0.99):.0f} / {max(v):.0f}"


def served_cmd(mode, *cmd):
    return [CS, "run", "--mode", mode, "--", *cmd]


def build(tmp):
    r = sh("cc", "-O2", "-static", "-o", tmp / "run_patterns", ROOT / "benchmarks/run_patterns.c", "-lpthread")
    if r.returncode != 0:
        sys.exit("cannot build a static C program: " + r.stderr)
    r = sh("cc", "-O2", "-static", "-o", tmp / "insn_count", ROOT / "benchmarks/insn_count.c")
    if r.returncode != 0:
        sys.exit("cannot build insn_count: " + r.stderr)
    src = tmp / "gosrc"
    shutil.copytree(ROOT / "benchmarks/run_patterns_go", src)
    env = dict(os.environ, CGO_ENABLED="0", GO111MODULE="off", GOCACHE=os.environ.get("GOCACHE", str(tmp / "gocache")))
    r = sh("go", "build", "-o", tmp / "run_patterns_go", ".", cwd=src, env=env)
    if r.returncode != 0:
        sys.exit("cannot build the Go program: " + r.stderr)
    return tmp / "run_patterns", tmp / "run_patterns_go", tmp / "insn_count"


def cases(c_prog, go_prog):
    """(program, pattern, argv, runs per round)."""
    out = []
    for name, prog in (("gcc -static C", c_prog), ("Go (CGO_ENABLED=0)", go_prog)):
        out.append((name, "first read", [prog, "first"], None))
        for ms, n in SPARSE:
            out.append((name, f"sparse: 1 read per {ms} ms", [prog, "sparse", ms, n], 1))
        for t in THREADS:
            out.append((name, f"{t} threads at once", [prog, "threads", t, LOOP_CALLS], 1))
        # The same after fastclock's first second (its first lines are short, 2, 4, 8 ms
        # ..., and refreshed by a helper that competes for the CPU): the steady state.
        out.append((name, f"{THREADS[-1]} threads at once, after {SETTLE_MS} ms",
                    [prog, "threads", THREADS[-1], LOOP_CALLS, SETTLE_MS], 1))
        if prog == c_prog:
            out.append((name, "inside a signal handler", [prog, "signal", 5000], 1))
            out.append((name, "first read of a forked child", [prog, "fork", 40], 1))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mode", default="fast", help="run's mode for the served rows")
    ap.add_argument("--repeat", type=int, default=5, help="rounds (served and unserved alternate)")
    ap.add_argument("--first", type=int, default=15, help="processes per round for the first read")
    ap.add_argument("--program", choices=("c", "go", "both"), default="both", help="which program's rows")
    args = ap.parse_args()
    if sh("make", "-j2", "-s", cwd=ROOT).returncode != 0:
        sys.exit("make failed")
    tmp = Path(tempfile.mkdtemp(prefix="bench-run-patterns-"))
    try:
        c_prog, go_prog, insn = build(tmp)
        print("| program | pattern | unserved ns/read | served ns/read | served / unserved | "
              "unserved p50 / p99 / max | served p50 / p99 / max |")
        print("|---|---|---|---|---|---|---|")
        for name, pattern, argv, _ in cases(c_prog, go_prog):
            if args.program != "both" and (argv[0] == go_prog) != (args.program == "go"):
                continue
            plain, served, ratios = [], [], []
            plain_all, served_all = [], []  # every read, pooled over the rounds (the tail)
            for _ in range(args.repeat):
                if pattern == "first read":
                    p = [ns(sh(*argv)) for _ in range(args.first)]
                    s = [ns(sh(*served_cmd(args.mode, *argv))) for _ in range(args.first)]
                    p = [x for x in p if x is not None]
                    s = [x for x in s if x is not None]
                    plain_all += p
                    served_all += s
                    a = statistics.median(p) if p else None
                    b = statistics.median(s) if s else None
                else:
                    pa = sh(*argv)
                    pb = sh(*served_cmd(args.mode, *argv))
                    a, b = ns(pa), ns(pb)
                    plain_all += every_read(pa)
                    served_all += every_read(pb)
                if a is None or b is None:
                    continue
                plain.append(a), served.append(b)
                if a > 0:
                    ratios.append(b / a)
            if not plain:
                print(f"| {name} | {pattern} | failed | failed | | | |")
                continue
            ratio = f"{statistics.median(ratios):.2f}" if ratios else ""
            print(f"| {name} | {pattern} | {statistics.median(plain):.1f} | {statistics.median(served):.1f} | "
                  f"{ratio} | {tail(plain_all)} | {tail(served_all)} |")
        print()
        print("| clock_gettime (gcc -static, libc's wrapper included) | unserved instructions (transfers) | "
              f"served ({args.mode}) instructions (transfers) |")
        print("|---|---|---|")
        for clock, cid in (("CLOCK_MONOTONIC", 1), ("CLOCK_REALTIME", 0), ("CLOCK_MONOTONIC_COARSE", 6)):
            a = sh(insn, cid, 9).stdout.split()
            b = sh(*served_cmd(args.mode, insn, cid, 9)).stdout.split()
            fmt = lambda w: f"{w[1]} ({w[3]})" if len(w) == 4 else "failed"
            print(f"| {clock} | {fmt(a)} | {fmt(b)} |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
