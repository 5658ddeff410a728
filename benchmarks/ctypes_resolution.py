#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""How finely a harness subtraction can resolve a clock under a ctypes call
(docs/benchmarks/runtimes.md, "The ctypes row's resolution").

    python3 benchmarks/ctypes_resolution.py [--pairs 200] [--runs 2]

`clockscope runtimes` times `clock_gettime(1, p)` through ctypes (the RISC-V clock_gettime report's trap: the
FFI call costs ~15x the clock) and subtracts a harness of the same call shape,
`strnlen(p, 0)`, pair by pair, to leave the clock.  This script uses the probe's own loop
(runtimes/probes/probe.py) and its pairing to set several same-shape ctypes calls against
the same `clock_gettime(1, p)`:
  - strnlen(p, 0)              the probe's harness;
  - sigismember(p, 1)          another libc call that returns at once;
  - clock_getres(1, p)         the vDSO's cheapest call (no counter read);
  - clock_gettime(6, p)        CLOCK_MONOTONIC_COARSE through the same function object:
                               the same FFI path, a clock that reads no counter;
  - clock_gettime(1, p)        the same clock through a second function object: should be 0.
Each net is the median over PAIRS pairs of (clock sample - harness sample) per call.  The
spread of the nets across harnesses that all "do nothing" is the resolution of the
subtraction: a difference of two ~350 ns figures cannot place a ~20 ns clock closer than
that.  For reference it prints the probe's C-level figures from `clockscope runtimes
--only c --no-count --json` if a built clockscope is found."""
import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "runtimes" / "probes"))
import probe  # noqa: E402  (the probe's own loop and setup)

SETUP = probe._CTYPES_SETUP + """
    si = libc.sigismember
    si.argtypes = [ctypes.c_void_p, ctypes.c_int]
    si.restype = ctypes.c_int
    cr = libc.clock_getres
    cr.argtypes = [ctypes.c_int, ctypes.c_void_p]
    cr.restype = ctypes.c_int
    cg2 = libc.clock_gettime
    cg2.argtypes = [ctypes.c_int, ctypes.c_void_p]
    cg2.restype = ctypes.c_int"""
HARNESSES = [
    ("strnlen(p, 0)  [the probe's]", "sn(p, 0)"),
    ("sigismember(p, 1)", "si(p, 1)"),
    ("clock_getres(1, p)", "cr(1, p)"),
    ("clock_gettime(COARSE, p)", "cg(6, p)"),
    ("clock_gettime(1, p), 2nd object", "cg2(1, p)"),
]


def nets(pairs):
    clock = probe.make_loop(SETUP, "cg(1, p)")
    n = probe.calibrate(clock, 2_000_000)
    out = {}
    for name, stmt in HARNESSES:
        h = probe.make_loop(SETUP, stmt)
        probe.run(clock, n)
        probe.run(h, n)
        d, hs = [], []
        for _ in range(pairs):
            a = probe.run(clock, n)
            b = probe.run(h, n)
            d.append((a - b) / n)
            hs.append(b / n)
        out[name] = (statistics.median(d), statistics.median(hs))
    return out


def c_row():
    cs = ROOT / "build" / "clockscope"
    if not cs.exists():
        return None
    p = subprocess.run([str(cs), "runtimes", "--only", "c", "--no-count", "--json"],
                       capture_output=True, text=True)
    try:
        rows = json.loads(p.stdout)["results"]
    except (ValueError, KeyError):
        return None
    return {r["api"]: r["ns_per_call"] for r in rows if r.get("available")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=200)
    ap.add_argument("--runs", type=int, default=2)
    a = ap.parse_args()
    got = {name: [] for name, _ in HARNESSES}
    for r in range(a.runs):
        for name, (net, harness) in nets(a.pairs).items():
            got[name].append((net, harness))
    print(f"ctypes clock_gettime(CLOCK_MONOTONIC, p) net of each harness, ns per call "
          f"(median of {a.pairs} pairs; {a.runs} runs):")
    for name, vals in got.items():
        print(f"  {name:34s} net " + " ".join(f"{n:6.1f}" for n, _ in vals) +
              "   harness " + " ".join(f"{h:6.1f}" for _, h in vals))
    do_nothing = [n for name, vals in got.items() for n, _ in vals
                  if "COARSE" not in name and "2nd" not in name]
    print(f"nets against the three do-nothing harnesses: {min(do_nothing):.1f} to "
          f"{max(do_nothing):.1f} ns (the subtraction's resolution)")
    c = c_row()
    if c:
        print("C row (clockscope runtimes --only c): " +
              ", ".join(f"{k} {v:.1f} ns" for k, v in c.items()))


if __name__ == "__main__":
    main()
