#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 29: is Python's second level (time.time() at ~70 ns instead of ~45) set per process
(memory layout, hash seed) or by the machine (the host, a neighbour, frequency)?

    python3 benchmarks/level_origin.py [--processes 8] [--chunks 40] [--cc gcc]

Each of PROCESSES Python processes (each its own PYTHONHASHSEED and address-space layout)
takes CHUNKS chunks, one after the other, and in each chunk, within a few milliseconds:
  time.time()        Python's loop around time.time(), per call (as timed, loop included)
  abs(-1)            the same loop around a call of a builtin: a Python-level reference
  C clock_gettime    a C loop of clock_gettime(CLOCK_MONOTONIC) (a small shared object
                     compiled here with CC, called once through ctypes per 40000 reads)
  C arithmetic       a C loop of a dependent multiply-add chain (the core's speed alone)
each the minimum of 5 short samples (a preempted sample is never the minimum, so what is
left is the level, not the load).  It prints every chunk and, per process, whether its
time.time() level changed during its life.

How to read it: a layout level stays for the whole life of a process and differs between
processes that run in the same spell; a machine level changes within a process's life and
moves the references measured beside it.  The ratios time.time()/abs(-1) and
time.time()/C clock_gettime say which reference moves in proportion.
"""
import argparse
import ctypes
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from itertools import repeat

C_SOURCE = r"""
#include <time.h>
static long long now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}
double cg_loop(long n)
{
    struct timespec ts;
    long long t0 = now();
    for (long i = 0; i < n; i++)
        clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)(now() - t0) / n;
}
double arith_loop(long n)
{
    volatile unsigned long x = 1;
    unsigned long y = x;
    long long t0 = now();
    for (long i = 0; i < n; i++)
        y = y * 6364136223846793005UL + 1442695040888963407UL;
    x = y;
    return (double)(now() - t0) / n;
}
"""


def worker(lib_path, chunks):
    lib = ctypes.CDLL(lib_path)
    for f in (lib.cg_loop, lib.arith_loop):
        f.restype, f.argtypes = ctypes.c_double, [ctypes.c_long]
    pc = time.perf_counter_ns

    def tt(n):
        t = time.time
        t0 = pc()
        for _ in repeat(None, n):
            t()
        return (pc() - t0) / n

    def ab(n):
        f = abs
        t0 = pc()
        for _ in repeat(None, n):
            f(-1)
        return (pc() - t0) / n

    start = time.monotonic()
    for _ in range(chunks):
        a = min(tt(20000) for _ in range(5))
        r = min(ab(20000) for _ in range(5))
        c = min(lib.cg_loop(40000) for _ in range(5))
        m = min(lib.arith_loop(400000) for _ in range(5))
        print(f"{time.monotonic() - start:.3f} {a:.2f} {r:.2f} {c:.2f} {m:.3f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--processes", type=int, default=8)
    ap.add_argument("--chunks", type=int, default=40)
    ap.add_argument("--cc", default="gcc")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.worker:
        worker(a.worker[0], int(a.worker[1]))
        return
    with tempfile.TemporaryDirectory() as d:
        src, lib = os.path.join(d, "ref.c"), os.path.join(d, "ref.so")
        with open(src, "w") as f:
            f.write(C_SOURCE)
        subprocess.run([a.cc, "-O2", "-shared", "-fPIC", "-o", lib, src], check=True)
        print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs; per chunk: "
              "t (s), time.time(), abs(-1), C clock_gettime, C arithmetic (ns), ratios")
        changed = 0
        all_rows = []
        for p in range(a.processes):
            seed = random.randint(1, 2**32 - 1)
            env = dict(os.environ, PYTHONHASHSEED=str(seed))
            out = subprocess.run([sys.executable, __file__, "--worker", lib, str(a.chunks)],
                                 env=env, capture_output=True, text=True, check=True).stdout
            rows = [tuple(map(float, line.split())) for line in out.splitlines()]
            all_rows += rows
            print(f"== process {p + 1} (PYTHONHASHSEED={seed})")
            for t, tt, ab, cg, ar in rows:
                print(f"  {t:6.3f}  {tt:6.2f} {ab:6.2f} {cg:6.2f} {ar:6.3f}   "
                      f"time/abs {tt / ab:5.2f}  time/C {tt / cg:5.2f}")
            lo, hi = min(r[1] for r in rows), max(r[1] for r in rows)
            if hi >= 1.3 * lo:
                changed += 1
            print(f"  time.time() in this process: {lo:.1f} to {hi:.1f} ns"
                  f"{'  <- changed level during its life' if hi >= 1.3 * lo else ''}")
        base = min(r[1] for r in all_rows)
        high = [r for r in all_rows if r[1] >= 1.3 * base]
        low = [r for r in all_rows if r[1] < 1.15 * base]
        print(f"\n{changed} of {a.processes} processes changed level during their life")
        if high and low:
            def med(rows, i):
                return statistics.median(r[i] for r in rows)
            print(f"chunks on the low level ({len(low)}) / the high level ({len(high)}), medians:")
            for i, name in ((1, "time.time()"), (2, "abs(-1)"), (3, "C clock_gettime"),
                            (4, "C arithmetic")):
                print(f"  {name:16s} {med(low, i):7.2f} {med(high, i):7.2f} ns  "
                      f"x{med(high, i) / med(low, i):.2f}")
            for name, i in (("time.time()/abs(-1)", 2), ("time.time()/C clock_gettime", 3)):
                rl = statistics.median(r[1] / r[i] for r in low)
                rh = statistics.median(r[1] / r[i] for r in high)
                print(f"  {name:28s} {rl:5.2f} {rh:5.2f}  x{rh / rl:.2f}")
        print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
