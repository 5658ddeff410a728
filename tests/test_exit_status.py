# SPDX-License-Identifier: MIT
"""One table of exit statuses for every command (README.md "Exit status"): each command run
into each status it can give, and every --help's "Exit status" paragraph held to the
README's table and to the Python report's copy of it."""
import json
import os
import re
import shutil
import sys

import pytest

from conftest import ROOT, run

DATA = ROOT / "tests" / "data"
CORPUS = ROOT.parent / "shared" / "corpus" / "cases"
OK_ROOT = CORPUS / "arm64-aws-arch_sys_counter-healthy"
SLOW_ROOT = CORPUS / "x86-arch-6.5.5-hpet-acpi_pm-only"
UNKNOWN_ROOT = DATA / "roots" / "kvm-guest-nothing-else"
BUNDLE = DATA / "bundles" / "host.json"
FAKE_PART = ROOT / "tests" / "progs" / "fake_part.sh"
FAKE_RUNTIME = ROOT / "tests" / "progs" / "fake_runtime.sh"
COMMANDS = ["bench", "warp", "doctor", "profile", "runtimes", "ladder", "vdso", "facts", "run",
            "vm", "collect", "report", "metrics"]


def _junk(tmp_path):
    junk = tmp_path / "junk.json"
    junk.write_text('{"hello": "world"}\n')
    return junk


def _no_matplotlib(tmp_path):
    """A PYTHONPATH entry whose matplotlib cannot be imported."""
    block = tmp_path / "block"
    (block / "matplotlib").mkdir(parents=True)
    (block / "matplotlib" / "__init__.py").write_text("raise ImportError('hidden for the test')\n")
    return {"PYTHONPATH": str(block)}


def _fake_perf(tmp_path):
    """A PATH holding a `perf` (never run: the command is looked for first) and nothing else."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    (bindir / "perf").write_text("#!/bin/sh\nexit 1\n")
    (bindir / "perf").chmod(0o755)
    return {"PATH": str(bindir)}


def _not_executable(tmp_path):
    f = tmp_path / "data.txt"
    f.write_text("not a program\n")
    return f


# (command, status, why): a function of tmp_path giving (argv after the command, env);
# every one of them really runs the command into that status.
CASES = [
    ("doctor", 0, lambda t: (["--root", OK_ROOT], {})),
    ("doctor", 3, lambda t: (["--root", SLOW_ROOT], {})),
    ("doctor", 5, lambda t: (["--root", UNKNOWN_ROOT], {})),
    ("doctor", 6, lambda t: (["--root", OK_ROOT, "--root", t / "none"], {})),
    ("collect", 0, lambda t: (["--parts", "facts", "--json"], {})),
    ("collect", 6, lambda t: (["--parts", "facts,warp", "-o", t / "b.json"],
                              {"CLOCKSCOPE_COLLECT_SELF": str(FAKE_PART), "FAKE_WARP": "exit"})),
    ("report", 0, lambda t: ([BUNDLE], {})),
    ("report", 2, lambda t: ([t / "missing.json"], {})),
    ("report", 6, lambda t: ([BUNDLE, _junk(t)], {})),
    ("report", 7, lambda t: ([BUNDLE, "-o", t / "r.html"], _no_matplotlib(t))),
    ("report", 8, lambda t: ([_junk(t)], {})),
    ("vdso", 2, lambda t: (["--file", t / "missing.so"], {})),
    ("vdso", 8, lambda t: (["--file", "/bin/ls"], {})),
    ("vdso", 8, lambda t: (["--file", _junk(t)], {})),
    ("bench", 6, lambda t: (["--quick", "--only", "libc.time,libc.gettimeofday"],
                            {"CLOCKSCOPE_BENCH_FAULT": "libc.time"})),
    ("ladder", 6, lambda t: (["--quick", "--timeout", "0.2", "--only", "futex.threads.same_cpu"],
                             {"CLOCKSCOPE_LADDER_FAULT": "hang:futex.threads.same_cpu"})),
    ("warp", 4, lambda t: (["--seconds", "0.3", "--cpus", "0,1", "--only",
                            "libc.clock_gettime.monotonic"],
                           {"CLOCKSCOPE_WARP_FAULT": "behind:1:5000000"})),
    ("runtimes", 6, lambda t: (["--only", "python", "--python", FAKE_RUNTIME, "--samples", "3",
                                "--timeout", "2", "--no-count"], {"FAKE_RUNTIME": "crash"})),
    ("profile", 7, lambda t: (["--", "/bin/true"], {"PATH": str(t)})),
    ("profile", 8, lambda t: (["--perf-report", _junk(t)], {})),
    ("profile", 127, lambda t: (["--", "no-such-command-here"], _fake_perf(t))),
    ("run", "own", lambda t: (["--", "sh", "-c", "exit 9"], {})),
    ("run", 125, lambda t: (["--", "true"], {"CLOCKSCOPE_SHIM": str(t / "no-shim.so")})),
    ("run", 126, lambda t: (["--", _not_executable(t)], {})),
    ("run", 127, lambda t: (["--", "no-such-command-here"], {})),
    ("facts", 0, lambda t: (["--root", OK_ROOT], {})),
    ("metrics", 0, lambda t: (["--root", SLOW_ROOT], {})),
] + [(cmd, 2, lambda t: (["--no-such-option"], {})) for cmd in COMMANDS]


@pytest.mark.parametrize("cmd,status,make", CASES,
                         ids=[f"{c}-{s}-{i}" for i, (c, s, _) in enumerate(CASES)])
def test_each_command_into_each_status(cs, tmp_path, cmd, status, make):
    args, env_add = make(tmp_path)
    if any(str(a).startswith(str(CORPUS)) for a in args) and not CORPUS.is_dir():
        pytest.skip("the shared facts corpus is not beside this clone")
    if cmd == "warp" and len(os.sched_getaffinity(0)) < 2:
        pytest.skip("warp's injected fault needs two CPUs")
    env = dict(os.environ, **env_add)
    if cmd == "collect":
        env["REAL_CLOCKSCOPE"] = str(cs)
    if cmd == "run" and status == "own":
        status = 9
    proc = run([cs, cmd, *args], env=env, timeout=300)
    assert proc.returncode == status, (proc.returncode, proc.stderr[-2000:])
    if status == 2:
        assert "Try 'clockscope" in proc.stderr or "cannot" in proc.stderr, proc.stderr


def test_collect_json_is_the_bundle_on_stdout(clockscope):
    proc = run([clockscope, "collect", "--parts", "facts", "--json"], timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["schema"].startswith("clockscope.bundle/")
    both = run([clockscope, "collect", "--json", "-o", "-"], timeout=10)
    assert both.returncode == 2 and "do not go together" in both.stderr, both.stderr


def test_vdso_refusal_says_why(clockscope):
    proc = run([clockscope, "vdso", "--file", "/bin/ls"])
    interp = re.search(r"\((/[^)]+ld[^)]+)\)", proc.stderr)
    assert proc.returncode == 8 and "/bin/ls is not a vDSO image: it asks for an interpreter" \
        in proc.stderr and interp, proc.stderr
    for image in sorted((DATA / "vdso").glob("*.so")):       # real vDSOs of three arches
        assert run([clockscope, "vdso", "--file", image]).returncode == 0, image


# ---- the paragraph of every --help, against README's table -------------------------------

LINE = re.compile(r"^  (\d+|CMD|128\+N) +([a-z' ]+?)(?:: (.*))?$")


def help_statuses(text):
    """{label: (name, meaning)} from a --help's "Exit status" paragraph."""
    part = text.split("Exit status (one table for every command, README.md):\n", 1)
    assert len(part) == 2, text[-500:]
    found = {}
    for line in part[1].splitlines():
        m = LINE.match(line)
        if m:
            found[m.group(1)] = (m.group(2), m.group(3) or "")
        else:
            assert line.startswith("         ") or not line.strip(), line
    return found


def readme_table():
    """{label: (name, meaning, commands)} from README.md's table."""
    text = (ROOT / "README.md").read_text()
    section = text.split("### Exit status", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 4 and re.fullmatch(r"\d+|CMD|128\+N", cells[0]):
            cmds = set(COMMANDS) if cells[3] == "all" else {c.strip() for c in cells[3].split(",")}
            rows[cells[0]] = (cells[1], cells[2], cmds)
    return rows


@pytest.fixture(scope="module")
def helps(clockscope):
    out = {}
    for cmd in COMMANDS:
        proc = run([clockscope, cmd, "--help"], timeout=30)
        assert proc.returncode == 0, (cmd, proc.stderr)
        out[cmd] = help_statuses(proc.stdout)
    return out


def test_every_help_speaks_the_readme_table(helps):
    table = readme_table()
    assert set(table) == {"0", "1", "2", "3", "4", "5", "6", "7", "8", "CMD", "125", "126", "127",
                          "128+N"}
    for cmd, found in helps.items():
        for label, (name, meaning) in found.items():
            assert label in table, (cmd, label)
            t_name, t_meaning, _ = table[label]
            # README's meaning may say more ("(perf, matplotlib)"), never something else
            assert name == t_name and t_meaning.startswith(meaning.split(" (")[0]), \
                (cmd, label, name, meaning, t_name, t_meaning)
        # every command says 0, 1 and 2, or that the command it runs gives them
        assert {"1", "2"} <= set(found) and ("0" in found or "CMD" in found), (cmd, found)
    for label, (_, _, cmds) in table.items():
        if label in ("0", "1", "2"):
            continue
        users = {cmd for cmd, found in helps.items() if label in found}
        assert users == cmds, (label, "README says", sorted(cmds), "--help says", sorted(users))


def test_python_and_c_tables_agree(helps):
    """report's paragraph comes from exit_status.py, the others' from exit_status.c: the
    same words for the same status."""
    sys.path.insert(0, str(ROOT / "report"))
    try:
        from clockscope_report import exit_status
    finally:
        sys.path.pop(0)
    c_lines = {label: nm for cmd, found in helps.items() if cmd != "report"
               for label, nm in found.items()}
    for code, (label, name, meaning) in exit_status.TABLE.items():
        if label in c_lines:
            assert c_lines[label] == (name, meaning or ""), (label, c_lines[label])


def test_top_level_help_names_the_statuses(clockscope):
    text = run([clockscope, "--help"]).stdout
    for label, (name, _, _) in readme_table().items():
        if label != "CMD":
            assert f"{label} {name}" in text, (label, name)
