#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Why `clockscope runtimes` and `python3 -m timeit`'s default can differ for Python's
`time.time()` (docs/benchmarks/runtimes.md, section 1): the same loop, run as one long
stretch or cut into pieces, in one process, no timer read between the pieces.

    python3 benchmarks/python_run_length.py [--rounds 3]

For each round it runs `for _ in repeat(None, n): time.time()` as
  - one stretch of 1.8 M calls (timeit's default runs are stretches of >= 0.2 s);
  - 100 stretches of 18,000 calls (~2 ms each: the probe's samples, timeit -n 18000);
  - 1,000 stretches of 1,800 calls;
and prints the wall time per call of each (one clock read around the whole run, so no
timer is read between the stretches).  On the development machine the one long stretch
ran at ~100 ns a call and the cut ones at ~110-117 ns: a property of the interpreter on
this machine, not of any harness; timeit's best of 5 long runs takes the faster figure,
the probe's median of 2 ms samples the other."""
import argparse
import statistics
import time
from itertools import repeat


def stretches(n, count):
    import time     # a local, as in timeit's loop
    for _ in range(count):
        for _ in repeat(None, n):
            time.time()


def per_call(n, count):
    t0 = time.perf_counter_ns()
    stretches(n, count)
    return (time.perf_counter_ns() - t0) / (n * count)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    shapes = [("1 x 1,800,000", 1_800_000, 1), ("100 x 18,000", 18_000, 100),
              ("1000 x 1,800", 1_800, 1000)]
    got = {name: [] for name, _, _ in shapes}
    per_call(18_000, 10)    # warm: the loop's instructions specialised before timing
    for r in range(a.rounds):
        for name, n, count in shapes:
            got[name].append(per_call(n, count))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.1f} ns" for k, v in got.items()))
    print("median over the rounds, ns per time.time() call: " +
          ", ".join(f"{k}: {statistics.median(v):.1f}" for k, v in got.items()))


if __name__ == "__main__":
    main()
