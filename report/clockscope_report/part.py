# SPDX-License-Identifier: MIT
"""What a part of a bundle is to the report: one object with its reader and, optionally, its
sections and charts.  registry.PARTS lists them; cli.py passes that list to load.py, which
reads, and to text.py, html.py and charts.py, which render by looping over it, so a new part
is its module (which defines PART) and one line in registry.py.

Every hook takes the whole Report (analysis.Report) and returns lines or charts, [] when the
part has nothing to show (no machine has it)."""

from dataclasses import dataclass
from typing import Any, Callable, List, Optional, Tuple

Chart = Tuple[str, str, str]            # (file name, title, SVG text)
# Charts show at most this many machines (a fleet: the baseline and the slowest).
MAX_MACHINES_IN_CHART = 8
Lines = Callable[[Any], List[str]]


@dataclass(frozen=True)
class Part:
    name: str                            # the bundle's key and the schema's KIND (clockscope.KIND/N)
    version: int                         # the newest schema version this report reads
    # read(doc, machine): fills the machine from the document; raises checks.Malformed
    read: Callable[[dict, Any], None]
    expected: bool = False               # a bundle without it is named among the problems
    text: Optional[Lines] = None         # the terminal's section, after the comparison table
    markdown: Optional[Lines] = None     # the Markdown section
    html: Optional[Lines] = None         # the HTML section (escaped by the part), before the charts
    # each chart(rep, canvas) -> [Chart]; drawn one by one, a failure costs only that chart
    charts: Tuple[Callable[[Any, Any], List[Chart]], ...] = ()
