# SPDX-License-Identifier: MIT
"""The text doctor, profile and facts print for a person: every line within 100 columns with
no trailing space, no figure parted from its unit at a line's end, and each command a fix
offers on a line of its own (4 spaces, then the whole command: `sh -n` takes it), the one kind
of line that may be wider (src/common/text_wrap.c)."""
import re
import subprocess

import pytest

from conftest import ROOT, run
from test_doctor import CORPUS, CS, HPET_ASKED, INVARIANT_CPU, make_root

WIDTH = 100
SYSFS_PATH = "/sys/devices/system/clocksource/clocksource0/current_clocksource"
UNITS = ("ns", "µs", "us", "ms", "s", "%", "x", "M/s", "k/s", "G/s", "k", "M", "G", "min", "h")
ROOTS = sorted((ROOT / "tests" / "data" / "roots").iterdir())
CORPUS_ROOTS = sorted(CORPUS.iterdir()) if CORPUS.is_dir() else []


def command_line(line):
    return line.startswith("    ") and not line.startswith("     ")


def width_problems(text, commands=True):
    """Each line wider than WIDTH (but a command line), with a trailing space or a tab, or
    ending in a figure whose unit starts the next line."""
    lines = text.split("\n")
    bad = []
    for i, line in enumerate(lines):
        if (len(line) > WIDTH and not (commands and command_line(line))) \
                or line != line.rstrip() or "\t" in line:
            bad.append(line)
        nxt = lines[i + 1].split() if i + 1 < len(lines) else []
        if re.search(r"\d$", line) and nxt and nxt[0].rstrip("),.;:") in UNITS:
            bad.append(f"{line} / {lines[i + 1]}")
    return bad


def doctor_text(clockscope, root, *args):
    proc = run([clockscope, "doctor", "--root", root, *args])
    assert proc.returncode in (0, 3, 4, 5), proc.stderr
    return proc.stdout + proc.stderr


def hpet_root(tmp_path):
    return make_root(tmp_path / "hpet", dict(HPET_ASKED, **{"proc/cpuinfo": INVARIANT_CPU}))


def test_every_fix_command_of_an_hpet_root_is_whole_on_its_own_line(clockscope, tmp_path):
    root = hpet_root(tmp_path)
    for args in ([], ["--verbose"]):
        text = doctor_text(clockscope, root, *args)
        assert not width_problems(text), width_problems(text)
        commands = [l[4:] for l in text.splitlines() if command_line(l)]
        switch = f"echo tsc | sudo tee {SYSFS_PATH}"
        assert switch in commands, text                       # the first fix, whole
        assert "sudo grubby --update-kernel=ALL --args=clocksource=tsc" in " ".join(commands)
        for cmd in commands:
            sh = subprocess.run(["sh", "-n", "-c", cmd], capture_output=True, text=True)
            assert sh.returncode == 0 and "`" not in cmd, (cmd, sh.stderr)
        assert not [l for l in text.splitlines() if "sudo tee" in l and not command_line(l)]


def hpet_corpus_roots():
    return [r for r in ROOTS + CORPUS_ROOTS if "hpet" in r.name]


@pytest.mark.parametrize("root", hpet_corpus_roots(), ids=lambda p: p.name)
def test_hpet_corpus_roots_print_whole_commands_within_100_columns(clockscope, root):
    for args in ([], ["--verbose"]):
        text = doctor_text(clockscope, root, *args)
        assert not width_problems(text), width_problems(text)
        for cmd in (l[4:] for l in text.splitlines() if command_line(l)):
            assert subprocess.run(["sh", "-n", "-c", cmd]).returncode == 0, cmd


@pytest.mark.parametrize("root", ROOTS + CORPUS_ROOTS, ids=lambda p: p.name)
def test_doctor_and_facts_text_of_every_root_fit_100_columns(clockscope, root):
    text = doctor_text(clockscope, root, "--verbose")
    assert not width_problems(text), width_problems(text)
    facts = run([clockscope, "facts", "--root", root])
    assert not width_problems(facts.stdout, commands=False), width_problems(facts.stdout, False)


def test_the_short_meaning_does_not_end_at_e_g(clockscope, tmp_path):
    # tsc-not-registered's meaning says "(e.g. Ubuntu 14.04's kernel on a Core i9)"
    root = make_root(tmp_path / "r", {CS + "current_clocksource": "hpet\n",
                                      CS + "available_clocksource": "hpet acpi_pm\n",
                                      "uname": "x86_64", "proc/version": "Linux version 4.4.0 (x)\n"})
    text = " ".join(doctor_text(clockscope, root).split())
    assert "(e.g. Ubuntu 14.04's kernel on a Core i9)" in text, text


def test_facts_wraps_a_long_command_line_at_spaces(clockscope, tmp_path):
    params = [f"param{i}=value{i}" for i in range(60)]
    word = "x" * 150
    root = make_root(tmp_path / "r", {"proc/cmdline": " ".join(params + [word]) + "\n",
                                      "uname": "x86_64"})
    out = run([clockscope, "facts", "--root", root]).stdout
    assert not width_problems(out, commands=False), width_problems(out, False)
    # every parameter whole on some line, the lines after the first indented further
    lines = out.splitlines()
    first = next(i for i, l in enumerate(lines) if "param0=" in l)
    for p in params:
        assert any(re.search(rf"(^| ){re.escape(p)}( |$)", l) for l in lines), p
    assert lines[first].startswith("      param0") and lines[first + 1].startswith("        ")
    assert "".join(l.strip() for l in lines if "xxx" in l) == word


@pytest.mark.parametrize("name", sorted(p.name for p in (ROOT / "tests" / "data" / "perf").glob("*.script")))
def test_profile_text_fits_100_columns(clockscope, name):
    proc = run([clockscope, "profile", "--perf-script", ROOT / "tests" / "data" / "perf" / name])
    assert proc.returncode == 0, proc.stderr
    assert not width_problems(proc.stdout, commands=False), width_problems(proc.stdout, False)
    assert "note: " in proc.stdout
