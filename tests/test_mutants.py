# SPDX-License-Identifier: MIT
"""The test machinery itself: the C unit runner accounts for every test (no cap, skips
and failures counted apart), and the mutant runner fails on a surviving mutant and on a
find-text that does not occur exactly once (docs/testing.md)."""
import importlib.util
import os
import re
import subprocess
import sys

from conftest import ROOT, run

RUNNER = ROOT / "tests" / "mutants" / "run.py"


def test_unit_runner_accounts_for_600_tests(tmp_path):
    """600 tests (more than a fixed table of 512 would hold): every 7th fails, every 11th skips
    (and is not also failed), the rest pass; each is counted once, and the exit status is 1."""
    src = tmp_path / "many.c"
    lines = ['#include "check.h"']
    for i in range(600):
        if i % 7 == 0:
            body = "CHECK(0);"
        elif i % 11 == 0:
            body = 'SKIP("cannot run here"); CHECK(0);'
        else:
            body = "CHECK(1 + 1 == 2);"
        lines.append(f"TEST(t{i:03d}) {{ {body} }}")
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "many"
    proc = run(["cc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", ROOT / "tests/unit", "-o", exe,
                src, ROOT / "tests/unit/main.c"])
    assert proc.returncode == 0, proc.stderr
    failing = sum(1 for i in range(600) if i % 7 == 0)
    skipping = sum(1 for i in range(600) if i % 7 and i % 11 == 0)
    proc = run([exe])
    assert proc.returncode == 1
    assert (f"unit: 600 registered, 600 selected, 600 ran, {600 - failing - skipping} passed, "
            f"{failing} failed, {skipping} skipped") in proc.stdout, proc.stdout[-300:]
    assert len(re.findall(r"^SKIP t\d+: cannot run here$", proc.stdout, re.M)) == skipping
    assert "FAIL t599" not in proc.stdout and "FAIL t595" in proc.stdout  # 595 = 7 * 85
    proc = run([exe, "t59"])
    assert "unit: 600 registered, 10 selected, 10 ran," in proc.stdout


def write_mutant(d, name, find, replace, kill="unit:cmdline_param_last_wins_quotes_and_bare_flags"):
    (d / f"{name}.mutant").write_text(
        f"what: test mutant {name}\nfile: src/facts/kernel_text.c\nkill: {kill}\n"
        f"--- find\n{find}\n--- replace\n{replace}\n")


def mutants_run(d):
    return subprocess.run([sys.executable, RUNNER, "--all", "--dir", d], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def test_mutant_runner_fails_on_a_survivor_and_a_bad_find_text(native_build, tmp_path):
    killed = tmp_path / "killed"
    killed.mkdir()
    write_mutant(killed, "first_wins", "            found = true;\n            if (len) {",
                 "            if (found)\n                continue;\n            found = true;\n"
                 "            if (len) {")
    proc = mutants_run(killed)
    assert proc.returncode == 0 and "mutants: 1/1 killed" in proc.stdout, proc.stdout + proc.stderr
    survivor = tmp_path / "survivor"
    survivor.mkdir()
    write_mutant(survivor, "comment_only", "    return found;\n}", "    return found; /* same */\n}")
    proc = mutants_run(survivor)
    assert proc.returncode == 1 and "SURVIVED comment_only" in proc.stdout, proc.stdout
    assert "mutants: 0/1 killed" in proc.stdout
    bad = tmp_path / "bad"
    bad.mkdir()
    write_mutant(bad, "absent", "this text is not in the file", "x")
    write_mutant(bad, "twice", "return", "return")
    proc = mutants_run(bad)
    assert proc.returncode == 1, proc.stdout
    assert "absent: the find-text occurs 0 times" in proc.stdout
    assert re.search(r"twice: the find-text occurs \d+ times", proc.stdout)
    stillborn = tmp_path / "stillborn"
    stillborn.mkdir()
    write_mutant(stillborn, "no_compile", "    return found;\n}", "    return found +;\n}")
    proc = mutants_run(stillborn)
    assert proc.returncode == 1, proc.stdout
    assert "no_compile: the mutant does not build" in proc.stdout, proc.stdout
    assert "killed   no_compile" not in proc.stdout


def test_a_skip_fails_under_require_all_unless_listed(tmp_path):
    """conftest's hook: under CLOCKSCOPE_REQUIRE_ALL=1 a pytest skip is a failure, unless
    docs/testing.md lists the test; without it the skip stays a skip."""
    (tmp_path / "test_skipper.py").write_text(
        "import pytest\n\ndef test_skips():\n    pytest.skip('no such thing here')\n")
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "-p", "no:cacheprovider",
           str(tmp_path / "test_skipper.py")]
    base = dict(os.environ, PYTHONPATH=str(ROOT / "tests"))
    strict = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path,
                            env=dict(base, CLOCKSCOPE_REQUIRE_ALL="1"))
    assert strict.returncode == 1 and "1 failed" in strict.stdout, strict.stdout
    assert "not listed in docs/testing.md" in strict.stdout
    local = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path,
                           env={k: v for k, v in base.items() if k != "CLOCKSCOPE_REQUIRE_ALL"})
    assert local.returncode == 0 and "1 skipped" in local.stdout, local.stdout


def test_every_mutant_applies_and_every_c_mutant_compiles(native_build, tmp_path):
    """Each mutant's find-text occurs exactly once in its file, and each mutant of a C file
    still compiles (syntax and types, with the project's warnings as errors).  The mutant
    run finds both too, but only at its end, half an hour into CI: a change that moves a
    find-text or a signature under a mutant is caught here, in seconds.  A file built only
    for another arch (src/arch/*/, *_inject.c) is compiled with that arch's cross compiler
    when there is one."""
    sys.path.insert(0, str(RUNNER.parent))
    import run as mutant_runner
    src_copy = tmp_path / "src"
    subprocess.run(["cp", "-a", ROOT / "src", src_copy], check=True)
    arches = {"x86_64": "cc", "aarch64": "aarch64-linux-gnu-gcc",
              "riscv64": "riscv64-linux-gnu-gcc"}
    native = subprocess.run(["cc", "-dumpmachine"], capture_output=True, text=True).stdout
    native = native.split("-")[0]
    problems, compiled = [], 0
    for path in sorted((ROOT / "tests" / "mutants").rglob("*.mutant")):
        m = mutant_runner.parse_mutant(path)
        text = (ROOT / m["file"]).read_text()
        if text.count(m["find"]) != 1:
            problems.append(f"{m['name']}: its find-text occurs {text.count(m['find'])} "
                            f"times in {m['file']}")
            continue
        if not m["file"].startswith("src/") or not m["file"].endswith((".c", ".h")):
            continue
        rel = m["file"][len("src/"):]
        target = src_copy / rel
        target.write_text(text.replace(m["find"], m["replace"]))
        try:
            units = [rel] if rel.endswith(".c") else sorted(
                str(c.relative_to(ROOT / "src")) for c in (ROOT / "src").rglob("*.c")
                if os.path.basename(rel) in c.read_text())[:3]
            for unit in units:
                name = os.path.basename(unit)
                arch = next((a for a in arches if f"/{a}/" in f"/{unit}" or
                             name == a + ".c" or name.startswith(a + "_")), native)
                cc = "cc" if arch == native else arches[arch]
                if subprocess.run(["which", cc], capture_output=True).returncode != 0:
                    continue
                proc = subprocess.run(
                    [cc, "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                     "-D_GNU_SOURCE", "-I", src_copy, "-I", native_build / "gen",
                     "-iquote", (src_copy / unit).parent, src_copy / unit],
                    capture_output=True, text=True)
                compiled += 1
                if proc.returncode != 0:
                    first = next((l for l in proc.stderr.splitlines() if "error" in l),
                                 proc.stderr.strip()[:300])
                    problems.append(f"{m['name']}: does not compile: {first}")
        finally:
            target.write_text(text)
    assert not problems, "\n".join(problems)
    assert compiled >= 200  # the C mutants were compiled, not skipped


def load_runner():
    spec = importlib.util.spec_from_file_location("mutants_run", RUNNER)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rotation_covers_the_catalogue_in_its_slices():
    run = load_runner()
    # Ten directories of ten mutants each, named (and so ordered) by directory.
    mutants = [{"name": f"m{i:03d}", "file": f"src/{'abcdefghij'[i // 10]}/f{i}.c", "kill": []}
               for i in range(100)]
    slices = [run.rotation_slice(mutants, count) for count in range(run.ROTATION_SLICES)]
    names = [m["name"] for s in slices for m in s]
    assert sorted(names) == sorted(m["name"] for m in mutants), "every mutant in one slice"
    assert all(abs(len(s) - 100 / run.ROTATION_SLICES) <= 1 for s in slices)
    assert all(len({m["file"].split("/")[1] for m in s}) == 10 for s in slices), "interleaved"
    assert run.rotation_slice(mutants, run.ROTATION_SLICES + 1) == slices[1]


def test_a_mutant_is_the_submissions_when_its_file_or_its_test_changed():
    run = load_runner()
    m = {"name": "x", "file": "src/a/x.c",
         "kill": ["tests/test_a.py::test_one", "unit:some_test", "unit-san:other"]}
    assert run.touches(m, {"src/a/x.c"})
    assert run.touches(m, {"tests/test_a.py"})
    assert not run.touches(m, {"src/a/y.c", "tests/test_b.py", "unit:some_test"})


def test_the_submission_is_the_recent_commits_and_the_work_tree(tmp_path):
    run = load_runner()
    def git(*args, when):
        env = dict(os.environ, GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when,
                   GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        subprocess.run(["git", *args], cwd=tmp_path, env=env, check=True, capture_output=True)
    git("init", "-q", when="2026-01-01T00:00:00")
    for name, when in (("old.c", "2026-01-01T00:00:00"), ("older_edit.c", "2026-01-02T00:00:00"),
                       ("new.c", "2026-01-05T00:00:00"), ("newer.c", "2026-01-05T08:00:00")):
        (tmp_path / name).write_text(name)
        git("add", name, when=when)
        git("commit", "-q", "-m", name, when=when)
    (tmp_path / "old.c").write_text("edited, not committed")
    (tmp_path / "untracked.c").write_text("x")
    none = tmp_path / "no-record"
    assert run.changed_files(12, root=tmp_path, record=none) == {"new.c", "newer.c", "old.c",
                                                                 "untracked.c"}
    assert run.changed_files(24 * 5, root=tmp_path, record=none) == {
        "old.c", "older_edit.c", "new.c", "newer.c", "untracked.c"}
    # A recorded base wins over the hours: the submission is what follows it.
    base = subprocess.run(["git", "rev-parse", "HEAD~1"], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout.strip()
    record = tmp_path / ".git" / "submission-base"  # not in the work tree
    record.write_text(base + "\n")
    assert run.changed_files(12, root=tmp_path, record=record) == {"newer.c", "old.c",
                                                                   "untracked.c"}
    assert run.changed_files(24 * 5, root=tmp_path, record=record) == {"newer.c", "old.c",
                                                                       "untracked.c"}
    # A base that is not an ancestor (a rewritten history, a typo) is not trusted.
    for junk in ("0" * 40, "not a commit", ""):
        record.write_text(junk)
        assert run.changed_files(12, root=tmp_path, record=record) == {
            "new.c", "newer.c", "old.c", "untracked.c"}


def test_each_mutant_lives_in_the_folder_of_its_file():
    """tests/mutants/AREA/: AREA is the src/ directory of the mutant's file (or the top-level
    place of another file), so that a file's mutants are found beside its directory's; names
    are unique across folders (`run.py NAME` picks by name)."""
    run_module = load_runner()
    seen, wrong = {}, []
    for path in sorted((ROOT / "tests" / "mutants").rglob("*.mutant")):
        m = run_module.parse_mutant(path)
        if path.parent.name != run_module.area(m["file"]):
            wrong.append(f"{path.relative_to(ROOT)}: its file {m['file']} belongs in "
                         f"tests/mutants/{run_module.area(m['file'])}/")
        if path.stem in seen:
            wrong.append(f"{path.stem}: in {seen[path.stem]} and {path.parent.name}")
        seen[path.stem] = path.parent.name
    assert len(seen) > 300 and not wrong, "\n".join(wrong)
    assert run_module.area("src/facts/logscan.c") == "facts"
    assert run_module.area("report/clockscope_report/bench.py") == "report"
    assert run_module.area("Makefile") == "Makefile"


def test_the_index_names_each_files_mutants_and_their_tests():
    proc = subprocess.run([sys.executable, RUNNER, "--index", "src/facts/logscan.c"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "src/facts/logscan.c"
    assert any(l.startswith("  logscan_prefilter_misses_an_anchor: ") for l in lines)
    assert "      unit:logscan_every_anchor_passes_the_prefilter" in lines
    proc = subprocess.run([sys.executable, RUNNER, "--index", "src/nothing/"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert proc.returncode == 1 and "none of a file under" in proc.stderr
