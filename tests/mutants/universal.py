#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A sampled score from a general mutation tool, beside the hand-written catalogue.

universalmutator (PyPI) rewrites C by regular expressions: operators, constants,
conditions, deleted statements.  It generates about 1300 mutants for warp_analysis.c
alone, far too many to run in CI, so this script takes a seeded random sample from each
target file, applies each mutant in a scratch copy (as run.py does), and runs the
target's unit tests.  A mutant that does not compile is invalid (not counted).  A mutant
that survives may be equivalent (the same behaviour: e.g. `<` for `!=` where both hold):
the score is reported, not required; read the survivors (--keep) to find missing tests.

    python3 tests/mutants/universal.py [--per-file N] [--seed S] [--jobs 1|2] [--keep]
"""
import argparse
import difflib
import random
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import run as catalogue  # noqa: E402  (the scratch-copy and kill-test helpers)

ROOT = catalogue.ROOT
# file -> the tests that should kill its mutants (unit:NAME matches names containing NAME)
TARGETS = {
    "src/warp/warp_analysis.c": ["unit:warp_", "unit:resolution_"],
    "src/facts/kernel_text.c": ["unit:cmdline_param", "unit:kernel_versions", "unit:parsers_survive"],
    "src/vdso/vdso_elf.c": ["unit-san:vdso_"],
}


def generate(path, outdir):
    outdir.mkdir(parents=True)
    proc = subprocess.run(["mutate", str(path), "--noCheck", "--mutantDir", str(outdir)],
                          capture_output=True, text=True, cwd=outdir)
    if proc.returncode != 0:
        raise SystemExit(f"universal: mutate failed on {path}: {proc.stderr[-500:]}")
    return sorted(outdir.iterdir())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-file", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2))
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    if shutil.which("mutate") is None:
        print("universal: needs universalmutator (pip install universalmutator)", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="clockscope-universal-"))
    base = scratch / "base"
    catalogue.copy_repo(base)
    rng = random.Random(args.seed)
    jobs = []
    for rel, kill in TARGETS.items():
        mutants = generate(base / rel, scratch / "generated" / Path(rel).name)
        for mpath in rng.sample(mutants, min(args.per_file, len(mutants))):
            jobs.append((rel, kill, mpath))
    with open(scratch / "baseline.log", "w") as log:
        failed = catalogue.run_kill_tests(base, sorted({k for _, ks, _ in jobs for k in ks}), log)
    if failed:
        print(f"universal: the unmutated code fails {failed}")
        return 1

    def one(job):
        rel, kill, mpath = job
        work = scratch / ("w-" + mpath.name)
        shutil.copytree(base, work, symlinks=True)
        try:
            (work / rel).write_text(mpath.read_text())
            with open(scratch / (mpath.name + ".log"), "w") as log:
                killer = catalogue.run_kill_tests(work, kill, log)
            if killer and killer.endswith("build failed"):
                return job, "invalid"
            return job, "killed" if killer else "survived"
        except subprocess.TimeoutExpired:
            return job, "killed"
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)

    tally = {}
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for (rel, _, mpath), outcome in pool.map(one, jobs):
            t = tally.setdefault(rel, {"killed": 0, "survived": 0, "invalid": 0})
            t[outcome] += 1
            if outcome == "survived":
                diff = [d for d in difflib.unified_diff((base / rel).read_text().splitlines(),
                                                        mpath.read_text().splitlines(), n=0,
                                                        lineterm="")
                        if d[:1] in "+-" and d[:3] not in ("+++", "---")]
                print(f"  survived {rel}: {' / '.join(x.strip() for x in diff)}", flush=True)
    killed = sum(t["killed"] for t in tally.values())
    valid = killed + sum(t["survived"] for t in tally.values())
    for rel, t in tally.items():
        print(f"universal: {rel}: {t['killed']} killed, {t['survived']} survived, "
              f"{t['invalid']} did not compile")
    print(f"universal: score {killed}/{valid} valid mutants killed "
          f"({100 * killed / max(valid, 1):.0f}%), seed {args.seed}, {args.per_file} per file, "
          f"{time.monotonic() - t0:.0f} s; survivors kept in {scratch}" if args.keep else
          f"universal: score {killed}/{valid} valid mutants killed "
          f"({100 * killed / max(valid, 1):.0f}%), seed {args.seed}, {args.per_file} per file, "
          f"{time.monotonic() - t0:.0f} s")
    if not args.keep:
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
