#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Peer checks of `clockscope runtimes` (docs/benchmarks/runtimes.md): its Python and Go
figures against the runtimes' own benchmark tools, run side by side in one session.

    python3 benchmarks/runtimes_peer.py [--rounds 5] [--clockscope build/clockscope]

Each round runs, back to back: `clockscope runtimes --only c,python,go --json --no-count`,
`python3 -m timeit -s 'import time' 'time.time()'` as people run it (its best of 5 runs of
at least 0.2 s), `python3 -m timeit -v -n N -r 31` of 'time.time()' and of 'pass' (the
probe's harness: its loop), and `go test -bench . -benchtime Nx -count 15`
of time.Now and of an empty call (benchmarks/runtimes_go/, the probe's loop shape), N
being the probe's own calls per sample, so that every tool times runs of the same length
(about 2 ms: most fit inside one scheduler slice; a second or more, timeit's and go
test's defaults, does not on a loaded machine, and then includes the time others ran).
Each tool's figure is the median of its runs (timeit -v's raw times), and the medians
over the rounds are compared: every round runs each tool as a process of its own (timeit
with Python's own random hash seed), and `clockscope runtimes` takes its figure across its
own probe processes, so both sides are medians over processes (docs/METHODOLOGY.md,
"Across processes"):
  - Python time.time() net of the loop (the row's ns_per_call) vs timeit as people run
    it: the issue's check; as timed vs timeit, and net of the loop both ways, at the
    same run length;
  - Go time.Now as timed vs go test -bench, and net of the empty call both ways;
  - ctypes.clock_gettime's net figure vs the C row's clock_gettime(MONOTONIC): the FFI is
    not blamed on the clock (net between 0 and 1.15x the C row; a ~350 ns harness does not
    resolve a ~20 ns clock more finely, benchmarks/ctypes_resolution.py).
The other checks pass within 15%.  --defaults also runs go test with its default run length, for
comparison.  Each round also times 'gc.isenabled()' (a builtin call that does nothing), to
show how much of Python's figure is the interpreter's call rather than the clock.  The load average is printed: the machine may be shared.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


UNITS = {"nsec": 1, "usec": 1e3, "msec": 1e6, "sec": 1e9}


def timeit(python, setup, stmt, n=None):
    """ns per call: the median of 31 runs of n calls (timeit -v), or with n None timeit's
    own default (its best of 5 runs of at least 0.2 s)."""
    if n is None:
        out = subprocess.run([python, "-m", "timeit", "-s", setup, stmt], capture_output=True,
                             text=True, check=True).stdout
        m = re.search(r"best of \d+: ([\d.]+) (nsec|usec|msec|sec) per loop", out)
        return float(m.group(1)) * UNITS[m.group(2)]
    out = subprocess.run([python, "-m", "timeit", "-v", "-n", str(n), "-r", "31", "-s", setup, stmt],
                         capture_output=True, text=True, check=True).stdout
    raw = re.search(r"raw times: (.*)", out).group(1)
    runs = [float(v) * UNITS[u] / n for v, u in re.findall(r"([\d.]+) (nsec|usec|msec|sec)", raw)]
    return statistics.median(runs)


def go_bench(go, n=None):
    env = dict(os.environ, CGO_ENABLED="0")
    extra = ["-benchtime", f"{n}x", "-count", "15"] if n else ["-count", "5"]
    out = subprocess.run([go, "test", "-run", "^$", "-bench", ".", *extra],
                         cwd=ROOT / "benchmarks/runtimes_go", capture_output=True, text=True,
                         check=True, env=env).stdout
    got = {}
    for name, ns in re.findall(r"^Benchmark(\w+?)(?:-\d+)?\s+\d+\s+([\d.]+) ns/op", out, re.M):
        got.setdefault(name, []).append(float(ns))
    return {k: statistics.median(v) for k, v in got.items()}


def ours(clockscope):
    proc = subprocess.run([clockscope, "runtimes", "--only", "c,python,go", "--json", "--no-count"],
                          capture_output=True, text=True)
    doc = json.loads(proc.stdout)
    return {f"{r['runtime']}:{r['api']}": r for r in doc["results"] if r["available"]}


def within(a, b, bound=0.15):
    return abs(a / b - 1) <= bound


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--clockscope", default=str(ROOT / "build/clockscope"))
    ap.add_argument("--defaults", action="store_true",
                    help="also timeit and go test -bench with their default run lengths")
    args = ap.parse_args()
    python = shutil.which("python3")
    go = shutil.which("go") or "/usr/local/go/bin/go"
    rows = {k: [] for k in ("py_timed", "py_harness", "py_net", "ti_time", "ti_harness",
                            "go_timed", "go_harness", "gb_now", "gb_empty", "ct_net",
                            "ct_harness", "c_mono",
                            "ti_default", "gb_default", "ti_call")}
    for rnd in range(args.rounds):
        o = ours(args.clockscope)
        rows["py_timed"].append(o["python:time.time"]["timed_ns"])
        rows["py_harness"].append(o["python:time.time"]["harness_ns"])
        rows["py_net"].append(o["python:time.time"]["ns_per_call"])
        rows["go_timed"].append(o["go:time.Now"]["timed_ns"])
        rows["go_harness"].append(o["go:time.Now"]["harness_ns"])
        rows["ct_net"].append(o["python:ctypes.clock_gettime"]["ns_per_call"])
        rows["ct_harness"].append(o["python:ctypes.clock_gettime"]["harness_ns"])
        rows["c_mono"].append(o["c:clock_gettime(MONOTONIC)"]["ns_per_call"])
        n_py = o["python:time.time"]["iterations"]
        n_go = o["go:time.Now"]["iterations"]
        rows["ti_time"].append(timeit(python, "import time", "time.time()", n_py))
        rows["ti_harness"].append(timeit(python, "pass", "pass", n_py))
        rows["ti_call"].append(timeit(python, "import gc", "gc.isenabled()", n_py))
        rows["ti_default"].append(timeit(python, "import time", "time.time()"))
        g = go_bench(go, n_go)
        rows["gb_now"].append(g["TimeNow"])
        rows["gb_empty"].append(g["Empty"])
        if args.defaults:
            rows["gb_default"].append(go_bench(go)["TimeNow"])
        print(f"round {rnd + 1}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in rows.items() if v),
              file=sys.stderr)
    med = {k: statistics.median(v) for k, v in rows.items() if v}
    load = os.getloadavg()
    print(f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} CPUs; "
          f"{args.rounds} rounds, medians")
    checks = [
        ("Python time.time() ns_per_call vs timeit as people run it (best of 5)",
         med["py_net"], med["ti_default"]),
        ("Python time.time() as timed vs timeit (same run length)", med["py_timed"],
         med["ti_time"]),
        ("Python time.time() net vs timeit(time.time) - timeit(pass)", med["py_net"],
         med["ti_time"] - med["ti_harness"]),
        ("Go time.Now as timed vs go test -bench", med["go_timed"], med["gb_now"]),
        ("Go time.Now net vs bench(Now) - bench(empty)", med["go_timed"] - med["go_harness"],
         med["gb_now"] - med["gb_empty"]),
    ]
    if args.defaults:
        checks += [("Go time.Now as timed vs go test -bench, its default 1 s runs",
                    med["go_timed"], med["gb_default"])]
    print(f"Python's call of a builtin that does nothing (timeit gc.isenabled()): "
          f"{med['ti_call']:.1f} ns of time.time()'s {med['ti_time']:.1f} ns as timed")
    failed = 0
    print(f"{'check':70s} {'runtimes':>9s} {'peer':>9s} {'ratio':>6s}")
    for name, a, b in checks:
        ok = within(a, b)
        failed += not ok
        print(f"{name:70s} {a:8.1f}  {b:8.1f}  {a / b:5.2f}  {'ok' if ok else 'OUTSIDE 15%'}")
    # The ctypes row: its net is a difference of two ~350 ns FFI figures.  The RISC-V clock_gettime report's
    # mistake was to blame the FFI on the clock (a figure 15x the clock's); the check is
    # that the row does not: its net is at most the C row's clock (+15%), and at least 0
    # (the harness did not remove more than the FFI).  It is not expected to match the C
    # row closely: same-shape harnesses place it up to ~10 ns apart, and the clock's
    # marginal cost inside an FFI call is below its cost in a tight loop
    # (benchmarks/ctypes_resolution.py, docs/benchmarks/runtimes.md).
    ok = 0 <= med["ct_net"] <= 1.15 * med["c_mono"]
    failed += not ok
    label = f"ctypes.clock_gettime net (harness {med['ct_harness']:.0f} ns) vs C clock_gettime(MONOTONIC)"
    print(f"{label:70s} {med['ct_net']:8.1f}  {med['c_mono']:8.1f}  "
          f"{med['ct_net'] / med['c_mono']:5.2f}  {'ok' if ok else 'OUTSIDE'} (0 to 1.15x)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
