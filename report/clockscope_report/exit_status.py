# SPDX-License-Identifier: MIT
"""The one table of exit statuses every clockscope command keeps (README.md "Exit status";
src/common/exit_status.c holds the same rows in the same words, tests/test_exit_status.py
compares them), and the "Exit status:" paragraph of report's --help printed from it."""

from typing import Optional, Sequence, Tuple

OK = 0
FAILED = 1               # nothing useful produced: no input could be read, cannot write
USAGE = 2                # a wrong command line, or a named file that cannot be read
SLOW = 3                 # the doctor's verdicts
BROKEN = 4
UNKNOWN = 5
PARTIAL = 6              # the report was produced, but an input (or a part of one) was skipped
MISSING_DEPENDENCY = 7   # matplotlib (charts, HTML), or Python itself (the C launcher)
BAD_INPUT = 8            # a file was read but is not a clockscope document

# code -> (how the code column shows it, name, meaning); the order of the table
TABLE = {
    OK: ("0", "ok", None),
    FAILED: ("1", "failed", "nothing useful was produced (cannot measure, cannot write)"),
    USAGE: ("2", "usage", "the command line is wrong, or names a file or directory that cannot be read"),
    SLOW: ("3", "slow", "the verdict"),
    BROKEN: ("4", "broken", "the verdict"),
    UNKNOWN: ("5", "unknown", "the facts do not decide the verdict"),
    PARTIAL: ("6", "partial", "output was written, but a part or an input was skipped"),
    MISSING_DEPENDENCY: ("7", "missing dependency", "a program or module the command needs is not there"),
    BAD_INPUT: ("8", "bad input", "a file given was read, but is not what the command needs"),
}


def name(code: int) -> Optional[str]:
    row = TABLE.get(code)
    return row[1] if row else None


def help_paragraph(uses: Sequence[Tuple[int, Optional[str]]]) -> str:
    """The paragraph a --help ends with: one line per status used, in the table's words,
    each detail on the lines below it (as the C commands' exit_status_help)."""
    lines = ["Exit status (one table for every command, README.md):"]
    for code, detail in uses:
        label, what, meaning = TABLE[code]
        lines.append(f"  {label:<6} {what}{': ' + meaning if meaning else ''}")
        lines += [f"         {d}" for d in (detail.split("\n") if detail else [])]
    return "\n".join(lines)
