#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Two `clockscope` binaries' `run -p PID` and `run --undo PID` timed side by side on one
target (docs/benchmarks/run.md, "the self-healing steps, before and after"):

    python3 benchmarks/bench_run_attach_ab.py BEFORE AFTER [--cycles 100] [--target go|storm]

Each cycle attaches and undoes with both binaries, in alternating order, on the same running
target (benchmarks/bench_run_attach.py builds it); every command must exit 0.  Prints each
binary's attach and undo wall time, median and 90th percentile."""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_run_attach import build, pct  # noqa: E402 (after the path)


def timed(cmd):
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)}: exit {r.returncode}: {r.stderr.strip()}")
    return (time.monotonic() - t0) * 1e3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--cycles", type=int, default=100)
    ap.add_argument("--target", choices=["go", "storm"], default="go")
    a = ap.parse_args()
    bins = {"before": a.before, "after": a.after}
    times = {k: ([], []) for k in bins}
    with tempfile.TemporaryDirectory() as tmp:
        cmd, env = build(a.target, Path(tmp))
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=dict(os.environ, **env))
        try:
            time.sleep(0.5)
            for i in range(a.cycles):
                for k in ("before", "after") if i % 2 else ("after", "before"):
                    times[k][0].append(timed([bins[k], "run", "--mode", "fast", "-p", str(p.pid)]))
                    times[k][1].append(timed([bins[k], "run", "--undo", str(p.pid)]))
        finally:
            p.kill()
    for k, (att, und) in times.items():
        print(f"{k}: attach median {statistics.median(att):.1f} p90 {pct(att, 0.9):.1f} ms | "
              f"undo median {statistics.median(und):.1f} p90 {pct(und, 0.9):.1f} ms "
              f"({len(att)} each)")


if __name__ == "__main__":
    main()
