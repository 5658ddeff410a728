# SPDX-License-Identifier: MIT
"""What every chart is drawn with (Canvas: matplotlib, SVG), the fleet's distribution of
clock_gettime's cost, and all_charts(), which draws the fleet's chart and then every part's
(each part module holds its own charts).  Each chart returns (file name, title, SVG text),
or nothing when it has no data."""

import io
import math
import re
from typing import TYPE_CHECKING, Any, List, Optional, Sequence, Tuple

from .analysis import KEY_ROW, Report
from .model import Machine, Problem
from .part import MAX_MACHINES_IN_CHART, Chart, ChartHook, Part
from .part import Canvas as PartCanvas

if TYPE_CHECKING:                       # matplotlib is imported only to draw
    from matplotlib.figure import Figure


class Canvas:
    """What every chart is drawn with (part.Canvas): matplotlib without pyplot (no GUI
    state, a second less to import): subplots() makes a Figure drawn by the SVG backend,
    svg() its text, colors() the machines' colours, machines() the machines a chart shows."""

    def __init__(self) -> None:
        import matplotlib
        from matplotlib.figure import Figure
        self.Figure = Figure
        # Text stays text (svg.fonttype none): a fraction of the size and time of glyph
        # paths; the browser draws it in the sans-serif family matplotlib measured.
        # text.parse_math off: a machine name is text, never TeX ("host$\frac{1$" would
        # stop the mathtext parser, and "$x$" be drawn in italics).
        matplotlib.rcParams.update({"text.parse_math": False, "svg.hashsalt": "clockscope", "font.size": 10,
                                    "axes.titlesize": 12, "svg.fonttype": "none", "figure.dpi": 100,
                                    "font.family": ["DejaVu Sans", "sans-serif"]})

    def subplots(self, rows: int = 1, cols: int = 1, figsize: Optional[Tuple[float, float]] = None,
                 squeeze: bool = True) -> Tuple["Figure", Any]:
        fig = self.Figure(figsize=figsize)
        return fig, fig.subplots(rows, cols, squeeze=squeeze)

    @staticmethod
    def svg(fig: "Figure") -> str:
        _plain_log_ticks(fig)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        text = buf.getvalue()
        return text[text.index("<svg"):]

    @staticmethod
    def colors(n: int) -> List[str]:
        palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
        return [palette[i % len(palette)] for i in range(n)]

    @staticmethod
    def machines(rep: Report) -> List[Machine]:
        """Every machine, or for a fleet the baseline and the slowest (by clock_gettime)."""
        if len(rep.machines) <= MAX_MACHINES_IN_CHART:
            return rep.machines

        def cost(m: Machine) -> float:
            s = m.stat(KEY_ROW)
            return -s.median if s else float("inf")
        rest = [m for m in sorted(rep.machines, key=cost) if m is not rep.baseline]
        return [rep.baseline] + rest[:MAX_MACHINES_IN_CHART - 1]


def _plain_log_ticks(fig: "Figure") -> None:
    """Log axes labelled 0.1, 1, 10, 100, 1000, 1e+04: matplotlib's own log labels are
    mathtext ($10^{2}$), which this report turns off so that no bundle text is read as TeX."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log":
                axis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g}"))
                axis.set_minor_formatter(NullFormatter())


def fleet_chart(rep: Report, canvas: PartCanvas) -> List[Chart]:
    if rep.fleet is None or rep.fleet.cost is None:
        return []
    vals = rep.fleet.cost.values
    fig, ax = canvas.subplots(figsize=(10, 3.5))
    lo, hi = math.log10(min(vals)), math.log10(max(vals))
    if hi - lo < 0.1:
        lo, hi = lo - 0.05, hi + 0.05
    bins = [10 ** (lo + (hi - lo) * k / 30) for k in range(31)]
    ax.hist(vals, bins=bins, color="#1f77b4")
    ax.set_xscale("log")
    ax.set_xlabel("clock_gettime(CLOCK_MONOTONIC), ns per call (log scale)")
    ax.set_ylabel("machines")
    ax.set_title(f"Distribution of clock_gettime's cost over {len(vals)} machines")
    ax.grid(alpha=0.3)
    return [("fleet-cost.svg", "clock_gettime cost across the fleet", canvas.svg(fig))]


def _guarded(rep: Report, draw: ChartHook, canvas: PartCanvas) -> List[Chart]:
    """One chart's failure (a value matplotlib cannot place) costs that chart, named among
    the input problems, never the whole report."""
    try:
        return draw(rep, canvas)
    except (ValueError, OverflowError, ArithmeticError, RuntimeError, TypeError, KeyError, IndexError) as e:
        rep.problems.append(Problem(f"{_chart_name(draw)} chart", f"not drawn: {e.__class__.__name__}: "
                                                                  f"{str(e)[:200]}"))
        return []


def _chart_name(draw: ChartHook) -> str:
    return re.sub(r"_charts?$", "", draw.__name__)


def all_charts(rep: Report, parts: Sequence[Part]) -> List[Chart]:
    """The fleet's histogram, then every part's charts in the parts' order (registry.PARTS)."""
    canvas = Canvas()
    out = _guarded(rep, fleet_chart, canvas)
    for part in parts:
        for draw in part.charts:
            out += _guarded(rep, draw, canvas)
    return out
