#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Mutants as a standing check (docs/testing.md, "Mutants").

Each tests/mutants/AREA/NAME.mutant names one deliberate breakage of the code (AREA: the
directory of src/ its file is in, or the top-level place of any other file: report,
scripts, mk, ...; names are unique across areas):

    what: one line saying what breaks
    file: src/path/to/file.c
    kill: pytest node ids or unit:NAME / unit-san:NAME (C unit tests, native / ASan build)
    --- find
    exact text that occurs exactly once in the file
    --- replace
    the replacement text

For each, this script copies the repository (the files git knows, plus build/ so that
only what the mutant touches is rebuilt) into a scratch directory, applies the
replacement, and runs only the `kill` tests there.  A mutant is killed when one of them
fails.  First the unmutated copy runs every kill test once: they must pass, or a "kill"
would prove nothing.  A mutant of the C sources must build, or every test that builds
would "kill" it.  Exit status: 0 when every mutant was killed; 1 when one survived, did not
build, its find-text did not occur exactly once, or the baseline failed; 2 bad usage.

    python3 tests/mutants/run.py [--jobs N] [--keep] [--each] [--all | --budget S]
                                 [--file PATH ...] [NAME ...]

--each runs every kill test of a mutant on its own and says which of them kill it (for the
catalogue in docs/testing.md); by default a mutant's tests stop at the first failure.

Which mutants run (docs/testing.md, "CI's time budget"): NAME ... or --file PATH
(the mutants of those source files) pick exactly those; --all, every one.  Otherwise (what
`make mutants` and CI run): every mutant of a file the submission changed (its `file:`, or
a test file its `kill:` names, changed in the commits of the RECENT_HOURS before HEAD's,
or in the work tree), then one of ROTATION_SLICES interleaved slices of the rest, the
slice picked by HEAD's commit count, so that consecutive submissions cover the whole
catalogue between them; within --budget seconds for the whole stage, after which no
further mutant of the slice starts (the changed files' mutants always all run).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MUTANTS = ROOT / "tests" / "mutants"
TIMEOUT_S = 900
# The baseline runs every selected mutant's kill tests in one pytest: a large submission's
# are a good part of the suite (VM boots included), so its bound is the suite's, not one
# mutant's.
BASELINE_TIMEOUT_S = 2400
# Where a submission begins: tests/mutants/submission-base names the commit the submission
# was started from (the main it was built on), written with the submission.  A clean clone
# has no other record of it.  Without that file, or when it names no ancestor of HEAD, the
# commits of the RECENT_HOURS before HEAD's are the submission (one working session).
SUBMISSION_BASE = MUTANTS / "submission-base"
RECENT_HOURS = 12
# The rest of the catalogue in this many slices, one per run.  With one CPU kept busy the
# baseline (every kill test once, unmutated) took 534 s and 248 mutants 1114 s more, two at a
# time (docs/testing.md): the whole catalogue is ~35 min, a third of the rest ~8 min.
ROTATION_SLICES = 3
DEFAULT_BUDGET_S = 1200


class MutantError(Exception):
    pass


def parse_mutant(path):
    text = path.read_text()
    head, sep, rest = text.partition("\n--- find\n")
    if not sep:
        raise MutantError(f"{path.name}: no '--- find' line")
    find, sep, replace = rest.partition("\n--- replace\n")
    if not sep:
        raise MutantError(f"{path.name}: no '--- replace' line")
    fields = {}
    for line in head.splitlines():
        key, colon, value = line.partition(":")
        if colon and key.strip() in ("what", "file", "kill"):
            fields[key.strip()] = value.strip()
    for key in ("what", "file", "kill"):
        if not fields.get(key):
            raise MutantError(f"{path.name}: no '{key}:' line")
    if replace.endswith("\n"):
        replace = replace[:-1]
    return {"name": path.stem, "what": fields["what"], "file": fields["file"],
            "kill": fields["kill"].split(), "find": find, "replace": replace}


def copy_repo(dest):
    """The files git knows (tracked and untracked-but-not-ignored, so uncommitted work is
    tested too) with their times kept, plus build/ so make rebuilds only what changed."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=ROOT,
                            capture_output=True, check=True).stdout.split(b"\0")
    for rel in filter(None, listed):
        src = ROOT / os.fsdecode(rel)
        if not src.is_file():
            continue  # deleted in the work tree
        dst = dest / os.fsdecode(rel)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst, follow_symlinks=False)
    if (ROOT / "build").is_dir():
        shutil.copytree(ROOT / "build", dest / "build", symlinks=True,
                        ignore=shutil.ignore_patterns("fuzz", "mutants"))


def run_kill_tests(repo, kill, log, timeout=TIMEOUT_S):
    """Runs the kill tests in `repo`, each process bounded by `timeout` seconds; returns the
    first one that failed, or None."""
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    unit = {"unit": [], "unit-san": []}
    pytest_ids = []
    for k in kill:
        kind, colon, name = k.partition(":")
        if colon and kind in unit:
            unit[kind].append(name)
        else:
            pytest_ids.append(k)
    for kind, names in unit.items():
        if not names:
            continue
        build = "build" if kind == "unit" else "build/san"
        make = ["make", "-s", "-j1", f"O={build}", f"{build}/unit_tests"]
        if kind == "unit-san":
            make.insert(3, "SAN=1")
        proc = subprocess.run(make, cwd=repo, capture_output=True, text=True, env=env,
                              timeout=timeout)
        log.write(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            return f"{kind}: build failed"
        for name in names:
            proc = subprocess.run([f"{build}/unit_tests", name], cwd=repo, capture_output=True,
                                  text=True, env=env, timeout=timeout)
            log.write(f"$ {build}/unit_tests {name}\n{proc.stdout}{proc.stderr}\n")
            m = re.search(r" (\d+) passed, (\d+) failed, (\d+) skipped$", proc.stdout, re.M)
            if proc.returncode != 0 or not m or m.group(1) == "0" or m.group(3) != "0":
                return f"{kind}:{name}"
    if pytest_ids:
        proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                               *pytest_ids], cwd=repo, capture_output=True, text=True, env=env,
                              timeout=timeout)
        log.write(proc.stdout + proc.stderr)
        if proc.returncode != 0:
            failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, re.M)
            return failed[0] if failed else "pytest: " + (proc.stdout.strip().splitlines() or ["?"])[-1]
    return None


def apply_mutant(repo, m):
    target = repo / m["file"]
    if not target.is_file():
        raise MutantError(f"{m['name']}: no file {m['file']}")
    text = target.read_text()
    n = text.count(m["find"])
    if n != 1:
        raise MutantError(f"{m['name']}: the find-text occurs {n} times in {m['file']} "
                          f"(must be exactly once)")
    st = target.stat()
    target.write_text(text.replace(m["find"], m["replace"]))
    # A later mtime than every object built from it, even within the copy's second.
    os.utime(target, (st.st_atime, max(time.time(), st.st_mtime + 2)))


def check_it_builds(repo, m):
    """A mutant of the C sources must compile: one that does not is killed by every test
    that builds, and proves nothing about the tests (a stale replacement, a -Werror)."""
    if not (m["file"].startswith("src/") and m["file"].endswith((".c", ".h"))):
        return
    proc = subprocess.run(["make", "-s", "-j1", "O=build", "all", "build/unit_tests"], cwd=repo,
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["?"])
        errors = [line for line in last if "error" in line] or last
        raise MutantError(f"{m['name']}: the mutant does not build, so no test can judge it: "
                          f"{errors[0].strip()}")


def git(*args, root=ROOT):
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True,
                          check=True).stdout


def recorded_base(root=ROOT, record=SUBMISSION_BASE):
    """The commit submission-base names, when it is an ancestor of HEAD; else None."""
    try:
        name = record.read_text().split()[0]
    except (OSError, IndexError):
        return None
    if not re.fullmatch(r"[0-9a-f]{7,40}", name):
        return None
    ok = subprocess.run(["git", "merge-base", "--is-ancestor", name, "HEAD"], cwd=root,
                        capture_output=True).returncode == 0
    return name if ok else None


def changed_files(hours=RECENT_HOURS, root=ROOT, record=SUBMISSION_BASE):
    """The files the submission changed (from its recorded base, else the commits of the
    `hours` before HEAD's commit), and the work tree's changes (tracked and untracked)."""
    files = set()
    base = recorded_base(root, record)
    if base:
        files.update(git("diff", "--name-only", base, "HEAD", root=root).split())
        files.update(git("diff", "--name-only", "HEAD", root=root).split())
        files.update(git("ls-files", "--others", "--exclude-standard", root=root).split())
        return files
    head_time = int(git("log", "-1", "--format=%ct", "HEAD", root=root).strip())
    commits = git("log", "--format=%H %ct", "HEAD", root=root).splitlines()
    recent = [c.split()[0] for c in commits if int(c.split()[1]) >= head_time - hours * 3600]
    if recent:
        parents = git("log", "-1", "--format=%P", recent[-1], root=root).split()
        base = parents[0] if parents else git("hash-object", "-t", "tree", "/dev/null",
                                              root=root).strip()
        files.update(git("diff", "--name-only", base, "HEAD", root=root).split())
    files.update(git("diff", "--name-only", "HEAD", root=root).split())
    files.update(git("ls-files", "--others", "--exclude-standard", root=root).split())
    return files


def touches(m, files):
    """A mutant is the submission's when its file or a test file it is killed by changed."""
    if m["file"] in files:
        return True
    return any(k.split("::")[0] in files for k in m["kill"] if k.startswith("tests/"))


def area(path):
    """The folder of tests/mutants/ a mutant of this file lives in."""
    parts = path.split("/")
    return parts[1] if parts[0] == "src" and len(parts) > 2 else parts[0]


def print_index(mutants, under):
    """Source file -> its mutants -> the tests that kill each, from the `kill:` lines: where
    to look for the tests of a piece of code."""
    by_file = {}
    for m in mutants:
        if m["file"].startswith(under):
            by_file.setdefault(m["file"], []).append(m)
    if not by_file:
        print(f"mutants: none of a file under {under!r}", file=sys.stderr)
        return 1
    for f in sorted(by_file):
        print(f)
        for m in sorted(by_file[f], key=lambda m: m["name"]):
            print(f"  {m['name']}: {m['what']}")
            for k in m["kill"]:
                print(f"      {k}")
    return 0


def rotation_slice(mutants, count, slices=ROTATION_SLICES):
    """The `count % slices`-th of `slices` interleaved slices of mutants (by name), so that
    each slice reaches every part of the tree."""
    ordered = sorted(mutants, key=lambda m: m["name"])
    return [m for i, m in enumerate(ordered) if i % slices == count % slices]


def select(mutants, args):
    """(mutants to run in order, mutants that must run whatever the budget, what to say)."""
    if args.names or args.all:
        return mutants, mutants, f"{len(mutants)} named" if args.names else "all"
    if args.file:
        picked = [m for m in mutants if m["file"] in args.file]
        return picked, picked, f"{len(picked)} of {', '.join(args.file)}"
    files = changed_files()
    mine = [m for m in mutants if touches(m, files)]
    count = int(git("rev-list", "--count", "HEAD").strip())
    rest = rotation_slice([m for m in mutants if m not in mine], count)
    k = count % ROTATION_SLICES + 1
    return (mine + rest, mine,
            f"{len(mine)} of the files this submission changed, then slice {k} of "
            f"{ROTATION_SLICES} of the other {len(mutants) - len(mine)} ({len(rest)}) within "
            f"{args.budget:.0f} s")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="only these mutants (file names without .mutant)")
    ap.add_argument("--jobs", type=int, default=2, choices=(1, 2),
                    help="mutants tested at once (at most 2)")
    ap.add_argument("--keep", action="store_true", help="keep the scratch directories")
    ap.add_argument("--dir", type=Path, default=MUTANTS,
                    help="where the .mutant files are (default tests/mutants)")
    ap.add_argument("--each", action="store_true",
                    help="run each kill test on its own and report every one that kills")
    ap.add_argument("--all", action="store_true", help="every mutant, no budget")
    ap.add_argument("--file", action="append", default=[], metavar="PATH",
                    help="the mutants of this source file (repeatable)")
    ap.add_argument("--index", nargs="?", const="", metavar="PATH",
                    help="print each source file's mutants and the tests that kill them "
                         "(those of files under PATH only); runs nothing")
    ap.add_argument("--budget", type=float, default=DEFAULT_BUDGET_S, metavar="S",
                    help="seconds after which no further rotating mutant starts "
                         f"(default {DEFAULT_BUDGET_S})")
    args = ap.parse_args()
    if args.budget <= 0:
        ap.error("--budget must be positive")
    if args.file:
        unknown = [f for f in args.file if not (ROOT / f).is_file()]
        if unknown:
            ap.error(f"no such file: {', '.join(unknown)}")

    paths = sorted(args.dir.rglob("*.mutant"))
    if args.index:
        return print_index([parse_mutant(p) for p in paths], args.index)
    if args.names:
        paths = [p for p in paths if p.stem in args.names]
        missing = set(args.names) - {p.stem for p in paths}
        if missing:
            ap.error(f"no such mutant: {', '.join(sorted(missing))}")
    if not paths:
        print(f"mutants: none found in {args.dir}", file=sys.stderr)
        return 1
    problems, mutants = [], []
    for p in paths:
        try:
            mutants.append(parse_mutant(p))
        except MutantError as e:
            problems.append(str(e))

    everyone = len(mutants)
    mutants, required, said = select(mutants, args)
    required_names = {m["name"] for m in required}
    print(f"mutants: {len(mutants)} of {everyone}: {said}", flush=True)
    if not mutants:
        print("mutants: none selected")
        return 0 if not problems else 1

    t0 = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="clockscope-mutants-"))
    # Tests may read ../shared/corpus beside the repository: give the copies the same.
    if (ROOT.parent / "shared").exists():
        (scratch / "shared").symlink_to((ROOT.parent / "shared").resolve())
    base = scratch / "base"
    copy_repo(base)
    # Every find-text must occur exactly once before anything runs.
    for m in mutants:
        target = base / m["file"]
        n = target.read_text().count(m["find"]) if target.is_file() else -1
        if n != 1:
            problems.append(f"{m['name']}: the find-text occurs {max(n, 0)} times in {m['file']}"
                            f"{'' if n >= 0 else ' (no such file)'} (must be exactly once)")
    mutants = [m for m in mutants if not any(p.startswith(m["name"] + ":") for p in problems)]

    all_kill = list(dict.fromkeys(k for m in mutants for k in m["kill"]))
    with open(scratch / "baseline.log", "w") as log:
        failed = run_kill_tests(base, all_kill, log, BASELINE_TIMEOUT_S) if all_kill else None
    if failed:
        print(f"mutants: the unmutated code fails {failed} (log: {scratch}/baseline.log)")
        return 1
    print(f"mutants: baseline passes all {len(all_kill)} kill tests "
          f"({time.monotonic() - t0:.0f} s)", flush=True)

    def one(m):
        start = time.monotonic()
        if m["name"] not in required_names and start - t0 > args.budget:
            return m, None, None, -1.0  # the budget is spent: left for another run
        work = scratch / m["name"]
        shutil.copytree(base, work, symlinks=True)
        log_path = scratch / f"{m['name']}.log"
        try:
            apply_mutant(work, m)
            check_it_builds(work, m)
            with open(log_path, "w") as log:
                if args.each:
                    killers = [k for k in m["kill"] if run_kill_tests(work, [k], log)]
                    spared = [k for k in m["kill"] if k not in killers]
                    killer = ", ".join(killers) + (f"; NOT by {', '.join(spared)}" if spared else "")
                    killer = killer if killers else None
                else:
                    killer = run_kill_tests(work, m["kill"], log)
        except subprocess.TimeoutExpired:
            killer = f"timeout after {TIMEOUT_S} s"
        except MutantError as e:
            return m, None, str(e), time.monotonic() - start
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        return m, killer, None, time.monotonic() - start

    killed = left = 0
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        for m, killer, error, secs in pool.map(one, mutants):
            if secs < 0:
                left += 1
            elif error:
                problems.append(error)
                print(f"  ERROR    {m['name']}: {error}", flush=True)
            elif killer:
                killed += 1
                print(f"  killed   {m['name']:40s} by {killer} ({secs:.0f} s)", flush=True)
            else:
                problems.append(f"{m['name']} survived: {m['what']}")
                print(f"  SURVIVED {m['name']:40s} {m['what']} (log: {scratch}/{m['name']}.log)",
                      flush=True)
    total = len(mutants) - left
    print(f"mutants: {killed}/{total} killed in {time.monotonic() - t0:.0f} s"
          + (f"; {left} left for another run (the budget of {args.budget:.0f} s was spent)"
             if left else ""))
    for p in problems:
        print(f"mutants: {p}")
    if not args.keep and not problems:
        shutil.rmtree(scratch, ignore_errors=True)
    return 1 if problems or killed != total else 0


if __name__ == "__main__":
    sys.exit(main())
