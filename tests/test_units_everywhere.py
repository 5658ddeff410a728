# SPDX-License-Identifier: MIT
"""Every command's text prints durations, rates and counts in the one form of
src/common/units.c (report/clockscope_report/units.py for the report): no ASCII "us" for
microseconds, no rate as a bare integer of 7 or more digits, no "41,759,658"."""
import re

import pytest

from conftest import ROOT, run

BUNDLES = ROOT / "tests" / "data" / "bundles"

# "12.71 us": microseconds in ASCII (units.c prints µs).
ASCII_MICRO = re.compile(r"\d us\b")
# A bare figure of 7 or more digits: a rate or count nobody formatted.  The count table's
# calls column is an exact count on purpose and is left out below.
BARE = re.compile(r"(?<![\w.])\d{7,}(?![\w.])")
# Thousands separators: "41,759,658".
COMMAS = re.compile(r"\d,\d{3},\d{3}")
# A prefix glued to its number: "211k", "10.0M" (units.c puts a space between).
GLUED = re.compile(r"(?<![\w.])\d+(\.\d+)?[kMG]\b")
# A rate without its "/s": "45.10 M" (where a table prints no count, every k/M/G is a rate).
RATE_NO_UNIT = re.compile(r"\d [kMG](?!/s)\b")

COMMANDS = {
    "bench": ["bench", "--quick", "--only",
              "libc.clock_gettime.monotonic,libc.clock_gettime.monotonic_coarse,ref.getppid,"
              "fastclock.monotonic"],
    "bench_gap": ["bench", "--quick", "--only", "ref.empty_call", "--gap", "0,200us:10"],
    "ladder": ["ladder", "--quick", "--only", "pipe.threads.*,vdso.*"],
    "warp": ["warp", "--seconds", "0.3", "--only", "counter.*,libc.clock_gettime.monotonic"],
    "runtimes": ["runtimes", "--only", "c"],
    "doctor": ["doctor"],
    "report": ["report", *sorted(str(p) for p in BUNDLES.glob("*.json"))],
}


# Commands whose text has rates but no counts.
RATES_ONLY = {"bench", "runtimes", "report"}


def offences(text, rates_only=False):
    out = []
    for rx in (ASCII_MICRO, BARE, COMMAS, GLUED) + ((RATE_NO_UNIT,) if rates_only else ()):
        out += [f"{rx.pattern}: {line}" for line in text.splitlines() if rx.search(line)]
    return out


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_command_prints_figures_in_one_form(clockscope, name):
    proc = run([clockscope, *COMMANDS[name]], timeout=300)
    assert proc.returncode in (0, 1), proc.stderr
    assert proc.stdout.strip(), proc.stderr
    bad = offences(proc.stdout + proc.stderr, name in RATES_ONLY)
    assert not bad, "\n".join(bad[:10])


def test_count_table_rates_are_formatted(clockscope):
    """run --mode count: the calls column is exact, the calls/s column a formatted rate."""
    proc = run([clockscope, "run", "--mode", "count", "--", "python3", "-c",
                "import time\nfor i in range(2000): time.monotonic()"])
    assert proc.returncode == 0, proc.stderr
    rows = [l.split(None, 1) for l in proc.stderr.splitlines() if re.match(r"^\s+\d+\s", l)]
    assert rows, proc.stderr
    for calls, rest in rows:
        assert re.match(r"\d+(\.\d+)? [kMGTPE]?/s  ", rest), rest
    assert not offences("\n".join(rest for _, rest in rows))


def test_the_patterns_catch_the_old_forms():
    """The checks above can fail: each old form is an offence."""
    for old in ("worst 4.56 us back", "1843200       6006154  clock_gettime", "| 41,759,658 |",
                "in 211k cross-CPU comparisons"):
        assert offences(old), old
    assert offences("libc.clock_gettime.monotonic   28.4    35.16 M   19.4%!", rates_only=True)
    assert not offences("worst 4.56 µs back; 45.1 M/s; 78.5 k; 12706 ns/call")


def test_bench_table_and_answer_line_agree(clockscope):
    """The answer line's "COARSE 4.40 ns" and the table's ns/call cell are the same digits."""
    proc = run([clockscope, *COMMANDS["bench"]], timeout=300)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    answer = re.search(r"clock_gettime\(MONOTONIC\) (\S+) ns; COARSE (\S+) ns", proc.stdout)
    assert answer, proc.stdout
    cells = {l.split()[0]: l.split()[1] for l in lines if l.startswith("libc.clock_gettime.")}
    assert cells["libc.clock_gettime.monotonic"] == answer.group(1), proc.stdout
    assert cells["libc.clock_gettime.monotonic_coarse"] == answer.group(2), proc.stdout
