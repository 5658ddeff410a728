# SPDX-License-Identifier: MIT
"""Every command's text fits a terminal of 100 columns and can be pasted from.

A line is at most 100 columns (µ and … are one column each; no tab) and ends without
spaces.  The one exception is a command a user may paste: it stands on a line of its own,
indented four spaces, and is never wrapped whatever its length, so a triple click copies it
whole.  The commands run here are each command's most natural invocation (the quick variant
where one exists) and every `--help`; the doctor also on every facts root of tests/data."""
import os
import re
import unicodedata

import pytest

from conftest import ROOT, run

WIDTH = 100
BUNDLES = ROOT / "tests" / "data" / "bundles"
ROOTS = sorted(p / "root" for p in (ROOT / "tests" / "data" / "roots").iterdir()
               if (p / "root").is_dir())
PERF_SCRIPT = ROOT / "tests" / "data" / "perf" / "python-unknown-callers.script"

# The programs a pasteable line may start with (after "sudo " or "VAR=value ").
COMMAND_WORDS = {"clockscope", "./build/clockscope", "build/clockscope", "echo", "cat",
                 "grubby", "cpupower", "make", "perf", "dmesg", "sysctl", "modprobe",
                 "systemctl", "tee", "apt", "apt-get", "dnf", "taskset", "journalctl",
                 "grep", "update-grub", "sed", "chrt", "python3", "for", "printf"}
COMMAND_LINE = re.compile(r"^    (sudo |[A-Z_]+=\S+ )*(?P<word>\S+)")


def columns(line):
    """Terminal columns: one per character, two for an East Asian wide one."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in line)


def is_command(line):
    m = COMMAND_LINE.match(line)
    return bool(m) and not line.startswith("     ") and m.group("word") in COMMAND_WORDS


def offences(text):
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        if "\t" in line:
            out.append(f"line {n} has a tab: {line!r}")
        if line != line.rstrip():
            out.append(f"line {n} ends in spaces: {line!r}")
        if columns(line) > WIDTH and not is_command(line):
            out.append(f"line {n} is {columns(line)} columns: {line!r}")
    return out


def test_the_check_catches_what_it_must():
    assert offences("x" * 101) and not offences("x" * 100)
    assert offences("µ" * 101) and not offences("µ" * 100)
    assert offences("a table row   ")
    assert offences("a\tb")
    long_fix = "    echo tsc | sudo tee " + "/sys/devices/system/clocksource/" * 3
    assert not offences(long_fix)
    assert offences("  fix: " + long_fix.strip()), "a command inside prose is not exempt"
    assert offences("    the meaning of a finding, wrapped too late " + "word " * 12)


BUNDLE_FILES = sorted(str(p) for p in BUNDLES.glob("*.json"))
# name -> argv; profile runs under tests/progs/fake_perf.sh as perf.
COMMANDS = {
    "bench": ["bench", "--quick"],
    "runtimes": ["runtimes", "--only", "c"],
    "ladder": ["ladder", "--quick"],
    "warp": ["warp", "--seconds", "0.5"],
    "doctor": ["doctor"],
    "doctor --verbose": ["doctor", "--verbose"],
    "facts": ["facts"],
    "vdso": ["vdso"],
    "run --verbose": ["run", "--verbose", "--", "true"],
    "run --mode count": ["run", "--mode", "count", "--", "python3", "-c",
                         "import time\nfor i in range(1000): time.monotonic()"],
    "vm --list-scenarios": ["vm", "--list-scenarios"],
    "metrics --quick": ["metrics", "--quick"],
    "report": ["report", *BUNDLE_FILES],
    "profile": ["profile", "--", "python3", "-c", "pass"],
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_text_fits_100_columns(clockscope, tmp_path, name):
    env = dict(os.environ, COLUMNS="100", LC_ALL="C.UTF-8")
    if name == "profile":
        bins = tmp_path / "bin"
        bins.mkdir()
        (bins / "perf").symlink_to(ROOT / "tests" / "progs" / "fake_perf.sh")
        env.update(PATH=f"{bins}:{env['PATH']}", FAKE_PERF_ARGS=str(tmp_path / "args"),
                   FAKE_PERF_SCRIPT=str(PERF_SCRIPT))
    proc = run([clockscope, *COMMANDS[name]], timeout=600, env=env)
    assert proc.returncode in (0, 3, 4, 5, 6), (proc.returncode, proc.stderr[-2000:])
    assert proc.stdout.strip() or proc.stderr.strip()
    stdout = proc.stdout
    if name.startswith("metrics"):
        # A series line is data for Prometheus, as long as its labels; its # HELP is prose.
        stdout = "\n".join(line for line in stdout.splitlines() if line.startswith("#"))
    bad = offences(stdout) + offences(proc.stderr)
    assert not bad, "\n".join(bad[:12])


HELP_OF = ["", "bench", "runtimes", "ladder", "warp", "doctor", "facts", "vdso", "run", "vm",
           "collect", "report", "metrics", "profile"]


@pytest.mark.parametrize("command", HELP_OF)
def test_help_fits_100_columns(clockscope, command):
    proc = run([clockscope, *([command] if command else []), "--help"])
    assert proc.returncode == 0, proc.stderr
    bad = offences(proc.stdout)
    assert not bad, "\n".join(bad[:12])


@pytest.mark.parametrize("root", ROOTS, ids=[r.parent.name for r in ROOTS])
def test_doctor_on_every_facts_root_fits(clockscope, root):
    for extra in ([], ["--verbose"]):
        proc = run([clockscope, "doctor", "--root", root, *extra])
        assert proc.returncode in (0, 3, 4, 5), proc.stderr
        bad = offences(proc.stdout) + offences(proc.stderr)
        assert not bad, "\n".join(bad[:12])
