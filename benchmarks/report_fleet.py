#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How long `clockscope report` takes over a fleet: N bundles (copies of the real fixtures in
tests/data/bundles/, each renamed), HTML with charts, against the same command over the 5
fixtures, in one run.  Usage: python3 benchmarks/report_fleet.py [N] [REPEATS]
(docs/benchmarks/report.md has the figures)."""
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = sorted((ROOT / "tests" / "data" / "bundles").glob("*.json"))


def timed(files, out):
    cmd = [sys.executable, "-m", "clockscope_report", *map(str, files), "-o", str(out)]
    env = dict(os.environ, PYTHONPATH=str(ROOT / "report"))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"report failed ({proc.returncode}): {proc.stderr[-2000:]}")
    # CPU time too: on a shared machine the wall clock also counts other work.
    return took, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)


def main():
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    seeds = [json.loads(p.read_text()) for p in FIXTURES]
    with tempfile.TemporaryDirectory() as d:
        files = []
        for i in range(n):
            b = seeds[i % len(seeds)]
            b["machine"]["name"] = f"m{i:04d}-{FIXTURES[i % len(seeds)].stem}"
            p = Path(d) / f"m{i:04d}.json"
            p.write_text(json.dumps(b))
            files.append(p)
        size = sum(p.stat().st_size for p in files)
        small, fleet = [], []
        for _ in range(repeats):
            small.append(timed(FIXTURES, Path(d) / "small.html"))
            fleet.append(timed(files, Path(d) / "fleet.html"))
        html = (Path(d) / "fleet.html").stat().st_size
    med = lambda xs: sorted(xs)[len(xs) // 2]
    print(f"bundles: {len(FIXTURES)} fixtures vs {n} copies ({size / 1e6:.0f} MB of JSON); "
          f"{repeats} runs each, interleaved; HTML with charts; load average {os.getloadavg()[0]:.1f}")
    for label, runs in ((f"{len(FIXTURES)} bundles", small), (f"{n} bundles", fleet)):
        print(f"report over {label:>12}: wall best {min(w for w, _ in runs):.2f} s, median "
              f"{med([w for w, _ in runs]):.2f} s; CPU best {min(c for _, c in runs):.2f} s, "
              f"median {med([c for _, c in runs]):.2f} s")
    print(f"HTML over {n} bundles: {html / 1e6:.1f} MB")
    print(f"ratio {n} / {len(FIXTURES)} bundles (median CPU): "
          f"{med([c for _, c in fleet]) / med([c for _, c in small]):.2f}")


if __name__ == "__main__":
    main()
