#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 29's acceptance: do clockscope's figures hold from one run to the next?

    python3 benchmarks/across_processes.py [--clockscope build/clockscope] [--runs 8]
                                           [--against OLD_BIN] [--gapped GAP]
                                           [--budgets] [--only python|bench|budgets]

Runs, RUNS times each, back to back:
  clockscope runtimes --only python --no-count --json   -> time.time()'s ns_per_call (and,
      where the binary has the reference: its ratio to the reference, the reference's range
      over the run's processes and what the run said)
  clockscope bench --only libc.clock_gettime.monotonic --json -> ns_per_call.median (and
      its ratio to the counter read timed after each sample, the same way)
and prints every run's figure, the max/min ratio of each (the issue asks within 1.15 for
Python's time.time() and within 1.05 for libc's clock_gettime(MONOTONIC), over four runs;
eight are taken), and each run's wall time.  With --budgets, it also times three runs of
`bench`, `runtimes` and `ladder --quick` with their defaults (the time budgets the change
must keep): the median wall time, and the median CPU time (user + system of the command and
its children), which a shared machine inflates less.  With --against OLD_BIN, the old
binary's runs and the new one's take turns, run by run, so that the machine's slow spells
meet both series alike; the load average is printed (the machine may be shared).
"""
import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def probes_of(cs):
    """The probe sources of the tree the binary was built in (BIN's ../../runtimes/probes):
    a binary from before the reference cannot read the probe of after it."""
    mine = Path(cs).resolve().parent.parent / "runtimes" / "probes"
    return str(mine if mine.is_dir() else ROOT / "runtimes" / "probes")


def run_json(cmd):
    t0 = time.monotonic()
    env = dict(os.environ, CLOCKSCOPE_PROBES=probes_of(cmd[0]))
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    if out.returncode not in (0, 1):
        sys.exit(f"{' '.join(cmd)}: exit {out.returncode}: {out.stderr[-400:]}")
    return json.loads(out.stdout), wall


def python_time_time(cs):
    """time.time()'s ns_per_call, and beside it (binaries with issue 29's reference) its
    ratio to the reference timed in the same processes, the reference's range over the
    run's processes, and what the run said."""
    doc, wall = run_json([cs, "runtimes", "--only", "python", "--no-count", "--json"])
    row = next(r for r in doc["results"] if r.get("api") == "time.time")
    ref = row.get("reference")
    extra = None
    if ref:
        extra = {"relative": ref["relative"], "ref": (ref["min_ns"], ref["max_ns"]),
                 "verdict": row.get("verdict")}
    return row["ns_per_call"], wall, extra


def gapped_python(cs, gap, processes=5):
    """A run of `runtimes` spread out: PROCESSES single-process runs of the Python probe
    with GAP seconds between them, the figure the median over those whose reference is
    within 20% of the fastest one's (runtimes' at-speed rule, process by process).  Whether
    a run spread over more wall time escapes the machine's slow spells."""
    figs, refs = [], []
    t0 = time.monotonic()
    for p in range(processes):
        doc, _ = run_json([cs, "runtimes", "--only", "python", "--no-count", "--json",
                           "--processes", "1", "--samples", "3"])
        row = next(r for r in doc["results"] if r.get("api") == "time.time")
        figs.append(row["ns_per_call"])
        refs.append(row["reference"]["ns"])
        if p + 1 < processes:
            time.sleep(gap)
    fast = min(refs)
    at_speed = [f for f, r in zip(figs, refs) if r < 1.2 * fast]
    extra = {"relative": statistics.median(f / r for f, r in zip(figs, refs)),
             "ref": (min(refs), max(refs)),
             "verdict": "processes " + " ".join(f"{f:.0f}" for f in figs)}
    return statistics.median(at_speed), time.monotonic() - t0, extra


def libc_monotonic(cs):
    doc, wall = run_json([cs, "bench", "--only", "libc.clock_gettime.monotonic", "--json"])
    r = doc["results"][0]
    ref = r.get("reference")
    extra = None
    if ref:
        extra = {"relative": ref["relative"], "ref": (ref["min_ns"], ref["max_ns"]),
                 "verdict": r.get("verdict")}
    return r["ns_per_call"]["median"], wall, extra


def max_min(v):
    return max(v) / min(v) if min(v) > 0 else float("inf")


def series(name, fn, bins, runs):
    """RUNS runs of each binary, interleaved run by run (with --against, the old one first
    in each round), so that a spell of the machine meets both alike."""
    figs, rels = {b: [] for b in bins}, {b: [] for b in bins}
    for i in range(runs):
        for b in bins:
            v, wall, extra = fn(b)
            figs[b].append(v)
            tag = f" [{b}]" if len(bins) > 1 else ""
            line = f"  {name} run {i + 1}{tag}: {v:7.1f} ns   ({wall:.1f} s)"
            if extra:
                rels[b].append(extra["relative"])
                line += (f"  x ref {extra['relative']:.3f}  (reference {extra['ref'][0]:.1f} to "
                         f"{extra['ref'][1]:.1f} ns)")
                if extra["verdict"]:
                    line += f"\n      says: {extra['verdict']}"
            print(line, flush=True)
    for b in bins:
        tag = f" [{b}]" if len(bins) > 1 else ""
        print(f"  {name}{tag}: " + " ".join(f"{v:.1f}" for v in figs[b]) +
              f"  max/min {max_min(figs[b]):.3f}", flush=True)
        if rels[b]:
            print(f"  {name}{tag} relative to the reference: " +
                  " ".join(f"{v:.3f}" for v in rels[b]) + f"  max/min {max_min(rels[b]):.3f}",
                  flush=True)
    print(flush=True)


def budget(cs, args):
    """Wall time and CPU time (user + system, the command and its children): on a shared
    machine the wall time also counts the time others held the CPUs; the CPU time is what
    the command itself spent, close to its wall time on an idle machine."""
    env = dict(os.environ, CLOCKSCOPE_PROBES=probes_of(cs))
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run([cs] + args, capture_output=True, env=env)
    wall = time.monotonic() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return wall, cpu


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--clockscope", default=str(ROOT / "build" / "clockscope"))
    ap.add_argument("--against", metavar="OLD_BIN",
                    help="another clockscope binary, run in turn with --clockscope's (the old "
                         "one first in each round): both series under the same spells")
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--gapped", type=float, metavar="GAP",
                    help="also a series of Python runs spread out: 5 single-process runs "
                         "GAP seconds apart, at speed as runtimes selects (the binary must "
                         "have the reference)")
    ap.add_argument("--budgets", action="store_true")
    ap.add_argument("--only", choices=("python", "bench", "budgets"),
                    help="one of the two series, or only the budgets (implies --budgets)")
    a = ap.parse_args()
    cs = a.clockscope
    bins = [a.against, cs] if a.against else [cs]
    print(f"{' and '.join(bins)}; load average {os.getloadavg()[0]:.2f} on "
          f"{os.cpu_count()} CPUs", flush=True)
    if a.only in (None, "python"):
        series("python time.time()", python_time_time, bins, a.runs)
    if a.gapped is not None and a.only in (None, "python"):
        series(f"python time.time() spread {a.gapped:g} s apart",
               lambda b: gapped_python(b, a.gapped), bins, a.runs)
    if a.only in (None, "bench"):
        series("libc.clock_gettime.monotonic", libc_monotonic, bins, a.runs)
    if a.budgets or a.only == "budgets":
        for args in (["bench"], ["runtimes"], ["ladder", "--quick"]):
            for b in bins:
                runs = [budget(b, args) for _ in range(3)]
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                tag = f" [{b}]" if len(bins) > 1 else ""
                print(f"  time of `clockscope {' '.join(args)}`{tag}: {wall:.1f} s wall, "
                      f"{cpu:.1f} s CPU (medians of 3)", flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
