#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""`clockscope run -p PID` / `run --undo PID` (docs/run.md, "A running process"): the
issue's acceptance run and the time an attach takes.  docs/benchmarks/run.md records it.

    python3 benchmarks/bench_run_attach.py [--cycles 200] [--target go|storm|storm-leader-exits]
                                           [--cs PATH]

go: tests/progs/go_clock (CGO_ENABLED=0) with 8 goroutines reading time.Now without pause,
the CPU profiler at 1 kHz (SIGPROF) and a GC every 10 ms (SIGURG).  storm: tests/progs/
attach_storm.c (-static) with 8 reader threads, real-time signals queued to every thread
without pause and threads created without pause; storm-leader-exits: the same with its main
thread ended (pthread_exit) while the others run on.  Each cycle: attach (must succeed), a
second attach (must be refused: served already), undo (must succeed), and the vDSO's bytes
compared with this process's pristine image.  At the end the program must still run and
report no backward step (storm: no signal lost, no read failed).  Prints the wall time of
each attach (median, 90th percentile, max) and of each undo; exit 1 on any failure."""
import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from proc_vdso import vdso_bytes  # noqa: E402 (after the path)


def build(target, d):
    if target == "go":
        shutil.copy(ROOT / "tests/progs/go_clock/main.go", d / "main.go")
        env = dict(os.environ, CGO_ENABLED="0", GO111MODULE="off",
                   GOCACHE=os.environ.get("GOCACHE", str(d / "cache")))
        subprocess.run(["go", "build", "-o", str(d / "go_clock"), str(d / "main.go")], env=env,
                       check=True)
        return [str(d / "go_clock"), "goroutines", "8", "3600"], {"GO_CLOCK_STDIN_ENDS": "1"}
    subprocess.run(["cc", "-O2", "-static", "-o", str(d / "attach_storm"),
                    str(ROOT / "tests/progs/attach_storm.c"), "-lpthread"], check=True)
    return [str(d / "attach_storm"), "8"] + (["leader-exits"] if target != "storm" else []), {}


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cycles", type=int, default=200)
    ap.add_argument("--target", choices=["go", "storm", "storm-leader-exits"], default="go")
    ap.add_argument("--cs", default=str(ROOT / "build" / "clockscope"))
    ap.add_argument("--timeout", type=float, default=60)
    a = ap.parse_args()
    pristine = vdso_bytes("self")
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        cmd, env = build(a.target, Path(tmp))
        p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, env=dict(os.environ, **env))
        attach_s, undo_s = [], []
        try:
            time.sleep(0.5)
            for i in range(a.cycles):
                t0 = time.monotonic()
                r = subprocess.run([a.cs, "run", "--mode", "fast", "-p", str(p.pid)],
                                   capture_output=True, text=True, timeout=a.timeout)
                attach_s.append(time.monotonic() - t0)
                if r.returncode != 0:
                    failures.append(f"cycle {i}: attach exit {r.returncode}: {r.stderr.strip()}")
                    if p.poll() is not None:
                        break
                    continue
                r = subprocess.run([a.cs, "run", "--mode", "fast", "-p", str(p.pid)],
                                   capture_output=True, text=True, timeout=a.timeout)
                if r.returncode != 1 or "served already" not in r.stderr:
                    failures.append(f"cycle {i}: second attach: {r.returncode} {r.stderr.strip()}")
                t0 = time.monotonic()
                r = subprocess.run([a.cs, "run", "--undo", str(p.pid)], capture_output=True,
                                   text=True, timeout=a.timeout)
                undo_s.append(time.monotonic() - t0)
                if r.returncode != 0:
                    failures.append(f"cycle {i}: undo exit {r.returncode}: {r.stderr.strip()}")
                elif vdso_bytes(p.pid) != pristine:
                    failures.append(f"cycle {i}: the vDSO is not pristine after --undo")
                if p.poll() is not None:
                    failures.append(f"cycle {i}: the program ended (status {p.returncode})")
                    break
            out, err = p.communicate(input="", timeout=120)
        finally:
            p.kill()
    last = (out.strip().splitlines() or [""])[-1]
    if not last.startswith("ok ") or p.returncode != 0:
        failures.append(f"the program's verdict: {last!r} (status {p.returncode}) {err[-500:]}")
    print(f"target {a.target}: {len(attach_s)} attaches, {len(failures)} failures")
    if attach_s:
        print("attach wall ms: median %.1f p90 %.1f max %.1f" % (
            1e3 * statistics.median(attach_s), 1e3 * pct(attach_s, 0.9), 1e3 * max(attach_s)))
    if undo_s:
        print("undo wall ms:   median %.1f p90 %.1f max %.1f" % (
            1e3 * statistics.median(undo_s), 1e3 * pct(undo_s, 0.9), 1e3 * max(undo_s)))
    print("program:", last)
    for f in failures[:20]:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
