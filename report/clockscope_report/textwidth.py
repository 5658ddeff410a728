# SPDX-License-Identifier: MIT
"""The terminal report's width: every line within WIDTH columns, no trailing spaces (prose
wrapped at spaces, a table too wide for it laid out one column group at a time)."""

import re
import textwrap
from typing import List, Sequence

WIDTH = 100


# A note's mark stays with the word before it: "(qemu-tcg) [1]", never "[1]" alone.
NOTE_MARK = re.compile(r" (\[\d+\])")
GLUE = "\u00a0"  # not a space to textwrap, which breaks only at ASCII white space


def wrap(text: str, indent: str = "", more: str = "  ") -> List[str]:
    """text as lines of at most WIDTH columns: the first after indent, the rest after
    indent + more.  Never breaks inside a word (a word wider than a line stands alone) nor
    before a note's mark."""
    lines = textwrap.wrap(NOTE_MARK.sub(GLUE + r"\1", text), WIDTH, initial_indent=indent,
                          subsequent_indent=indent + more, break_long_words=False,
                          break_on_hyphens=False)
    return [line.replace(GLUE, " ") for line in lines] or [indent.rstrip()]


def fit(lines: Sequence[str]) -> List[str]:
    """Every line within WIDTH columns and without trailing spaces: a longer line is wrapped
    at spaces, its continuation indented 4 more than the line."""
    out: List[str] = []
    for line in lines:
        line = line.rstrip()
        if len(line) <= WIDTH:
            out.append(line)
            continue
        lead = line[:len(line) - len(line.lstrip())]
        out += wrap(line.lstrip(), lead, "    ")
    return out


def aligned(header: List[str], rows: List[List[str]], right: Sequence[int] = ()) -> List[str]:
    """header and rows as aligned columns (left, or right for the indexes in right).  When
    that is wider than WIDTH, the first column stands on a line of its own above the rest
    (indented 2), where it changes."""
    def lay(hdr, body, widths, lead=""):
        return [(lead + "  ".join(c.rjust(w) if k in right_set else c.ljust(w)
                                  for k, (c, w) in enumerate(zip(r, widths)))).rstrip()
                for r in [hdr] + body]
    right_set = set(right)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    if sum(widths) + 2 * (len(widths) - 1) <= WIDTH or len(header) < 2:
        return lay(header, rows, widths)
    right_set = {k - 1 for k in right_set}
    rest = [r[1:] for r in rows]
    widths = [max(len(r[i]) for r in [header[1:]] + rest) for i in range(len(header) - 1)]
    lines = lay(header[1:], rest, widths, "  ")
    out = [header[0], lines[0]]
    for r, line in zip(rows, lines[1:]):
        if r[0]:
            out.append(r[0])
        out.append(line)
    return out
