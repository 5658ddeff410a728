# SPDX-License-Identifier: MIT
"""The charts (matplotlib, SVG): per-call cost per API per machine, slowdown ratios, the
warp CPU-pair matrix, and for a fleet the distribution of clock_gettime's cost.  Each
returns (file name, title, SVG text), or nothing when it has no data."""

import io
import math
import re
from typing import List

from .analysis import KEY_ROW, Report
from .compare import fmt_ns
from .model import Machine, Problem
from .part import Chart

# Charts show at most this many machines (a fleet: the baseline and the slowest).
MAX_MACHINES_IN_CHART = 8

class Canvas:
    """What every chart is drawn with: matplotlib without pyplot (no GUI state, a second
    less to import): subplots() makes a Figure drawn by the SVG backend, svg() its text,
    colors() the machines' colours, machines() the machines a chart shows."""

    def __init__(self):
        import matplotlib
        from matplotlib.figure import Figure
        self.Figure = Figure
        # Text stays text (svg.fonttype none): a fraction of the size and time of glyph
        # paths; the browser draws it in the sans-serif family matplotlib measured.
        # text.parse_math off: a machine name is text, never TeX ("host$\frac{1$" would
        # stop the mathtext parser, and "$x$" be drawn in italics).
        matplotlib.rcParams.update({"text.parse_math": False, "svg.hashsalt": "clockscope", "font.size": 10, "axes.titlesize": 12,
                                    "svg.fonttype": "none", "figure.dpi": 100,
                                    "font.family": ["DejaVu Sans", "sans-serif"]})

    def subplots(self, rows=1, cols=1, figsize=None, squeeze=True):
        fig = self.Figure(figsize=figsize)
        return fig, fig.subplots(rows, cols, squeeze=squeeze)

    @staticmethod
    def svg(fig, _canvas=None) -> str:
        return _svg(fig)

    @staticmethod
    def colors(n):
        return _colors(n)

    @staticmethod
    def machines(rep: Report) -> List[Machine]:
        return _chart_machines(rep)


def _plain_log_ticks(fig) -> None:
    """Log axes labelled 0.1, 1, 10, 100, 1000, 1e+04: matplotlib's own log labels are
    mathtext ($10^{2}$), which this report turns off so that no bundle text is read as TeX."""
    from matplotlib.ticker import FuncFormatter, NullFormatter
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log":
                axis.set_major_formatter(FuncFormatter(lambda x, _pos: f"{x:g}"))
                axis.set_minor_formatter(NullFormatter())


def _svg(fig, _canvas=None) -> str:
    _plain_log_ticks(fig)
    buf = io.StringIO()
    fig.savefig(buf, format="svg", bbox_inches="tight")
    text = buf.getvalue()
    return text[text.index("<svg"):]


def _chart_machines(rep: Report) -> List[Machine]:
    if len(rep.machines) <= MAX_MACHINES_IN_CHART:
        return rep.machines

    def cost(m):
        s = m.stat(KEY_ROW)
        return -s.median if s else float("inf")
    rest = [m for m in sorted(rep.machines, key=cost) if m is not rep.baseline]
    return [rep.baseline] + rest[:MAX_MACHINES_IN_CHART - 1]


def _colors(n):
    palette = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]
    return [palette[i % len(palette)] for i in range(n)]


def cost_chart(rep: Report, plt) -> List[Chart]:
    machines = _chart_machines(rep)
    idx = [rep.machines.index(m) for m in machines]
    rows = [r for r in rep.rows if not r.runtime and any(
        r.cells[i].measure and r.cells[i].measure.stat and r.cells[i].measure.stat.median > 0 for i in idx)]
    if not rows:
        return []
    n = len(machines)
    height = 0.8 / n
    fig, ax = plt.subplots(figsize=(10, 1.2 + len(rows) * (0.16 * n + 0.25)))
    for k, (i, m, color) in enumerate(zip(idx, machines, _colors(n))):
        ys, vals, lo, hi = [], [], [], []
        for y, r in enumerate(rows):
            meas = r.cells[i].measure
            if meas and meas.stat and meas.stat.median > 0:
                s = meas.stat
                ys.append(y + (k - (n - 1) / 2) * height)
                vals.append(s.median)
                lo.append(s.median - max(s.p10, s.median * 1e-3))
                hi.append(s.p90 - s.median)
        ax.barh(ys, vals, height=height * 0.9, color=color, label=m.name,
                xerr=[lo, hi], error_kw={"ecolor": "black", "capsize": 2, "elinewidth": 0.8})
        for y, v, h in zip(ys, vals, hi):
            ax.text((v + h) * 1.12, y, fmt_ns(v), va="center", fontsize=7, color="#333")
    ax.set_xscale("log")
    lo_x, hi_x = ax.get_xlim()
    ax.set_xlim(lo_x, hi_x * 3)          # room for the value labels
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r.label for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("ns per call (log scale; bar: median, whisker: p10-p90)")
    ax.set_title("What one read of the time costs, per API and machine")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9, title="machine")
    return [("cost.svg", "Cost per call, per API and machine", _svg(fig, plt))]


def ratio_chart(rep: Report, plt) -> List[Chart]:
    """Each machine's cost over the baseline's, per API, on a log axis centred on 1.  The
    whisker is the ratio's interval the table gives (bootstrap, or the range both p10-p90
    allow): it crosses 1 exactly when the table says "no significant difference"."""
    machines = [m for m in _chart_machines(rep) if m is not rep.baseline]
    idx = [rep.machines.index(m) for m in machines]
    rows = [r for r in rep.rows if not r.runtime and any(r.cells[i].ratio for i in idx)]
    if not rows or not machines:
        return []
    n = len(machines)
    height = 0.8 / n
    fig, ax = plt.subplots(figsize=(10, 1.2 + len(rows) * (0.16 * n + 0.25)))
    ends = []                                 # every whisker's two ends: the axis holds them all
    for k, (i, m, color) in enumerate(zip(idx, machines, _colors(n + 1)[1:])):
        ys, vals, lo, hi = [], [], [], []
        for y, r in enumerate(rows):
            if not r.cells[i].ratio:
                continue
            ratio = r.cells[i].ratio
            v, low, high = ratio.value, ratio.low, min(ratio.high, ratio.value * 1e6)
            ys.append(y + (k - (n - 1) / 2) * height)
            vals.append(v)
            lo.append(max(v - low, 0))
            hi.append(max(high - v, 0))
            ends += [max(low, 1e-6), high]
        ax.barh(ys, [v - 1 for v in vals], left=1, height=height * 0.9, color=color, label=m.name,
                xerr=[lo, hi], error_kw={"ecolor": "black", "capsize": 2, "elinewidth": 0.8})
        for y, v, l, h in zip(ys, vals, lo, hi):
            word = f"{v:.1f}x" if v >= 1 else f"1/{1 / v:.1f}"
            # beyond the whisker's far end, so that no line crosses the figure
            if v >= 1:
                ax.text((v + h) * 1.12, y, word, va="center", ha="left", fontsize=7, color="#333")
            else:
                ax.text((v - l) / 1.12, y, word, va="center", ha="right", fontsize=7, color="#333")
    ax.set_xscale("log")
    # From the data, on the log scale: the linear limits matplotlib picks first can be
    # negative (a bar from 1 down to a faster machine's ratio), which a log axis cannot show.
    ax.set_xlim(min(ends + [1.0]) / 2, max(ends + [1.0]) * 4)
    ax.axvline(1, color="black", linewidth=1)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r.label for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel(f"cost on the machine / cost on {rep.baseline.name} (log scale; right of 1: slower, "
                  "left: faster)\nwhisker: the ratio's 95% bootstrap interval, or the range both p10-p90 allow; "
                  "crossing 1: no significant difference")
    ax.set_title(f"Slowdown against the baseline, {rep.baseline.name}")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=9, title="machine")
    return [("ratio.svg", f"Slowdown against {rep.baseline.name}", _svg(fig, plt))]


def warp_charts(rep: Report, plt) -> List[Chart]:
    """One figure, a panel per machine: backward steps for each (earlier CPU, later CPU)."""
    machines = [m for m in rep.machines if m.warp]
    if len(machines) > MAX_MACHINES_IN_CHART:
        # A fleet: the machines whose clocks went backwards most.
        machines = sorted(machines, key=lambda m: -m.warp.backward_steps)[:MAX_MACHINES_IN_CHART]
    if not machines:
        return []
    biggest = max(len(m.warp.cpus) for m in machines)
    side = 2.0 + 0.3 * min(biggest, 16)
    cols = max(1, min(len(machines), int(9 // side)))
    rows = (len(machines) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(side * cols + 1.2, (side + 0.5) * rows + 0.6),
                             squeeze=False)
    fig.subplots_adjust(hspace=0.6, wspace=0.8)
    top = max(max(m.warp.backward.values(), default=0) for m in machines)
    im = None
    for k, ax in enumerate(axes.flat):
        if k >= len(machines):
            ax.set_visible(False)
            continue
        m = machines[k]
        w = m.warp
        cpus = w.cpus
        size = len(cpus)
        grid = [[w.backward.get((a, b), 0) for b in cpus] for a in cpus]
        im = ax.imshow(grid, cmap="Reds", vmin=0, vmax=max(top, 1))
        if size <= 16:
            for a in range(size):
                for b in range(size):
                    ax.text(b, a, str(grid[a][b]), ha="center", va="center", fontsize=9,
                            color="white" if top and grid[a][b] > top * 0.6 else "black")
        ticks = list(range(size)) if size <= 16 else list(range(0, size, max(1, size // 8)))
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(cpus[t]) for t in ticks])
        ax.set_yticks(ticks)
        ax.set_yticklabels([str(cpus[t]) for t in ticks])
        ax.set_xlabel("later read on CPU")
        ax.set_ylabel("earlier read on CPU")
        worst = (f"{w.backward_steps:,} of {w.comparisons:,} back, worst {fmt_ns(w.max_backward_ns)}"
                 if w.backward_steps else f"0 of {w.comparisons:,} reads back")
        ax.set_title(f"{m.name}\n{w.method}\n{worst}", fontsize=8)
    fig.colorbar(im, ax=list(axes.flat), shrink=0.8, label="reads that went back")
    fig.suptitle("Time going backwards between CPUs (warp): each machine's worst method", fontsize=12)
    return [("warp.svg", "Warp: backward steps per CPU pair", _svg(fig, plt))]


def fleet_chart(rep: Report, plt) -> List[Chart]:
    if not rep.fleet or not rep.fleet["cost"]:
        return []
    vals = rep.fleet["cost"]["values"]
    fig, ax = plt.subplots(figsize=(10, 3.5))
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
    return [("fleet-cost.svg", "clock_gettime cost across the fleet", _svg(fig, plt))]


def _guarded(rep: Report, draw, canvas) -> List[Chart]:
    """One chart's failure (a value matplotlib cannot place) costs that chart, named among
    the input problems, never the whole report."""
    try:
        return draw(rep, canvas)
    except (ValueError, OverflowError, ArithmeticError, RuntimeError, TypeError, KeyError, IndexError) as e:
        rep.problems.append(Problem(f"{_chart_name(draw)} chart", f"not drawn: {e.__class__.__name__}: "
                                                                  f"{str(e)[:200]}"))
        return []


def _chart_name(draw) -> str:
    return re.sub(r"_charts?$", "", draw.__name__)


def all_charts(rep: Report) -> List[Chart]:
    """The fleet's histogram, then every part's charts in the registry's order."""
    from .registry import PARTS
    canvas = Canvas()
    out = _guarded(rep, fleet_chart, canvas)
    for part in PARTS:
        for draw in part.charts:
            out += _guarded(rep, draw, canvas)
    return out
