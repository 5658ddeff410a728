# SPDX-License-Identifier: MIT
"""What a part of a bundle is to the report: one object with its reader and, optionally, its
sections and charts.  registry.PARTS lists them; cli.py passes that list to load.py, which
reads, and to text.py, html.py and charts.py, which render by looping over it, so a new part
is its module (which defines PART) and one line in registry.py.

Every hook but the reader takes the whole Report (analysis.Report) and returns lines or
charts, [] when the part has nothing to show (no machine has it).  A chart draws on the
Canvas it is given (charts.Canvas is the one the report passes)."""

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Protocol, Tuple

from .analysis import Report
from .model import Machine

if TYPE_CHECKING:                       # matplotlib is imported only to draw
    from matplotlib.figure import Figure

Chart = Tuple[str, str, str]            # (file name, title, SVG text)
# Charts show at most this many machines (a fleet: the baseline and the slowest).
MAX_MACHINES_IN_CHART = 8


class Canvas(Protocol):
    """What a chart draws with: subplots() a Figure and its Axes (an array of them with
    squeeze=False), svg() the Figure's SVG text, colors() n machines' colours, machines()
    the machines a chart of per-machine bars shows (at most MAX_MACHINES_IN_CHART)."""

    def subplots(self, rows: int = 1, cols: int = 1, figsize: Optional[Tuple[float, float]] = None,
                 squeeze: bool = True) -> Tuple["Figure", Any]: ...

    def svg(self, fig: "Figure") -> str: ...

    def colors(self, n: int) -> List[str]: ...

    def machines(self, rep: Report) -> List[Machine]: ...


# read(doc, machine): fills the machine from the document; raises checks.Malformed
Reader = Callable[[Dict[str, Any], Machine], None]
Section = Callable[[Report], List[str]]
ChartHook = Callable[[Report, Canvas], List[Chart]]


@dataclass(frozen=True)
class Part:
    name: str                            # the bundle's key and the schema's KIND (clockscope.KIND/N)
    version: int                         # the newest schema version this report reads
    read: Reader
    expected: bool = False               # a bundle without it is named among the problems
    text: Optional[Section] = None       # the terminal's section, after the comparison table
    markdown: Optional[Section] = None   # the Markdown section
    html: Optional[Section] = None       # the HTML section (escaped by the part), before the charts
    # drawn one by one, a failure costs only that chart
    charts: Tuple[ChartHook, ...] = ()

    def section(self, form: str) -> Optional[Section]:
        """The section hook of one form: "text", "markdown" or "html"."""
        hooks = {"text": self.text, "markdown": self.markdown, "html": self.html}
        return hooks[form]
