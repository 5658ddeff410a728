# SPDX-License-Identifier: MIT
"""Long commands say what they are doing and how long is left (issue 27, item 4): on stderr,
when stderr is a terminal or --progress asks; never on stdout, and not a word when neither."""
import os
import pty
import re
import subprocess

import pytest

from conftest import ROOT, run

FAKE = ROOT / "tests/progs/fake_runtime.sh"
LINE = re.compile(r"^clockscope (\w+): .+ \(\d+%(, about [\dhmins ]+ left)?\)$")

COMMANDS = {
    "bench": ["bench", "--quick", "--only", "ref.empty_call,libc.clock_gettime.monotonic"],
    "bench --gap": ["bench", "--only", "libc.clock_gettime.monotonic", "--gap", "0,1ms:20"],
    "warp": ["warp", "--seconds", "0.2", "--only", "libc.clock_gettime.monotonic"],
    "ladder": ["ladder", "--quick", "--only", "ref.empty_call,ref.getppid"],
    "runtimes": ["runtimes", "--only", "python", "--python", str(FAKE), "--no-count"],
}


# What a run says of its own processes (the machine's speed moved, two levels) comes and
# goes with the machine, not with --progress: a line that is only such a note is left out
# of the comparison; a row that carries one keeps its place (its first word).
RUN_VERDICT = re.compile(r"unstable: |bimodal across processes")
# So does the one summary of the rows marked '*' (measure/instability.c): from its first
# line to the blank line after it.
SUMMARY = re.compile(r"^\d+ (of \d+ (figures )?marked \*|in two levels)")


def shape(stdout):
    """The first word of each line: what stays the same from run to run (figures move).
    A line's continuation (wrapped within 100 columns where it neared them, so at a place
    that moves with its figures' digits) is left out, and so is a note on the machine's
    load, which comes and goes with it."""
    kept, in_summary, under_note, last_len = [], False, False, 0
    for line in stdout.splitlines():
        wrapped = line.startswith(" ") and last_len > 70
        last_len = len(line)
        in_summary = in_summary or bool(SUMMARY.match(line))
        if in_summary:
            in_summary = line.strip() != ""
            continue
        under_note = line.startswith("note: load average") or (under_note and wrapped)
        if under_note or wrapped:
            continue
        if line.startswith("* noisy"):   # ladder's one mark, said when a rung is marked
            continue
        if not (line.split() and RUN_VERDICT.search(line.split(None, 1)[0] + " ")):
            kept.append(re.sub(r"[\d.]+", "N", line.split()[0]) if line.split() else "")
    return kept


@pytest.mark.parametrize("name", COMMANDS)
def test_progress_on_stderr_only_when_asked_or_on_a_terminal(clockscope, name):
    args = COMMANDS[name]
    env = dict(os.environ, FAKE_RUNTIME="good")
    quiet = run([clockscope, *args], env=env)
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr == "", quiet.stderr          # not a terminal, not asked: nothing
    loud = run([clockscope, *args, "--progress"], env=env)
    assert loud.returncode == 0, loud.stderr
    lines = loud.stderr.splitlines()
    cmd = args[0]
    said = [l for l in lines if LINE.match(l)]
    assert said, loud.stderr
    assert all(l.startswith(f"clockscope {cmd}: ") for l in lines), lines
    assert lines[-1].startswith(f"clockscope {cmd}: done in "), lines
    assert "\r" not in loud.stderr and "\x1b" not in loud.stderr   # a file gets plain lines
    if name == "bench --gap":
        assert any("the sparse reads will take about" in l for l in lines), lines
        assert any("sparse reads 1 ms apart" in l for l in lines), lines
    # stdout is the same with or without progress
    assert shape(loud.stdout) == shape(quiet.stdout)


def test_a_terminal_gets_one_line_redrawn_and_cleared(clockscope):
    """stderr on a terminal: progress without asking, redrawn in place, cleared at the end."""
    master, slave = pty.openpty()
    proc = subprocess.run([clockscope, *COMMANDS["ladder"]], stdout=subprocess.PIPE,
                          stderr=slave, timeout=120)
    os.close(slave)
    out = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        out += chunk
    os.close(master)
    assert proc.returncode == 0
    text = out.decode()
    assert "\r\x1b[Kclockscope ladder: rung ref.empty_call" in text, text
    assert text.endswith("\r\x1b[K"), text                        # nothing left behind
    assert b"\r" not in proc.stdout and b"rung ref.empty_call" not in proc.stdout


LEFT = re.compile(r"\((\d+)%, about ((?:\d+ h ?)?(?:\d+ min ?)?(?:\d+ s)?) left\)$")


def seconds(said):
    """'1 min 5 s' -> 65."""
    units = {"h": 3600, "min": 60, "s": 1}
    parts = said.split()
    return sum(int(n) * units[u] for n, u in zip(parts[::2], parts[1::2]))


def test_ladder_time_left_is_true_early_and_late(clockscope):
    """The time left said at about 10% and about 90% of a ladder run is within 2x of what
    was really left (issue 35): cheap rungs first, then the long sweep, so that counting
    steps rather than work is wrong at both ends.  The truth is taken from when each line
    arrived and when the run ended; the said figure is rounded to the second, so it is
    taken as the half-second around it."""
    import time
    only = "ref.*,vdso.*,syscall.*,counter.*,pipe.*,eventfd.*,futex.*,socketpair.*,sweep"
    proc = subprocess.Popen([clockscope, "ladder", "--progress", "--only", only],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stderr:
        lines.append((time.monotonic(), line.rstrip("\n")))
    assert proc.wait(timeout=300) == 0
    end = time.monotonic()
    said = [(t, int(m.group(1)), seconds(m.group(2)))
            for t, l in lines for m in [LEFT.search(l)] if m]
    assert said, lines
    for target in (10, 90):
        t, pct, left = min(said, key=lambda s: abs(s[1] - target))
        assert abs(pct - target) <= 12, (target, lines)
        true_left = end - t
        assert left + 0.5 >= true_left / 2 and left - 0.5 <= true_left * 2, \
            (target, pct, left, true_left, lines)


def test_runtimes_progress_weighs_each_runtime_by_its_time(clockscope):
    """Python's probe takes about ten times C's: after C, the run is a small part done, not
    half (two runtimes counted as two equal steps said 50%)."""
    proc = run([clockscope, "runtimes", "--only", "c,python", "--python", FAKE, "--no-count",
                "--progress"], timeout=120)
    assert proc.returncode in (0, 6), proc.stderr
    said = [re.search(r"\((\d+)%", l) for l in proc.stderr.splitlines()
            if l.startswith("clockscope runtimes: python ")]
    assert said, "a new runtime a point or more further is said, however soon\n" + proc.stderr
    assert int(said[0].group(1)) < 25, proc.stderr
