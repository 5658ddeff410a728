"""The charts (matplotlib, SVG): per-call cost per API per machine, slowdown ratios, the
warp CPU-pair matrix, and for a fleet the distribution of clock_gettime's cost.  Each
returns (file name, title, SVG text), or nothing when it has no data."""

import io
import math
import re
from typing import List, Tuple

from .analysis import KEY_ROW, Report
from .compare import fmt_ns
from .model import Machine

# Charts show at most this many machines (a fleet: the baseline and the slowest).
MAX_MACHINES_IN_CHART = 8

Chart = Tuple[str, str, str]


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    # Text stays text (svg.fonttype none): a fraction of the size and time of glyph
    # paths; the browser draws it in the same sans-serif family matplotlib measured.
    plt.rcParams.update({"svg.hashsalt": "clockscope", "font.size": 10, "axes.titlesize": 12,
                         "svg.fonttype": "none", "figure.dpi": 100,
                         "font.family": ["DejaVu Sans", "sans-serif"], "figure.constrained_layout.use": True})
    return plt


def _svg(fig, plt) -> str:
    buf = io.StringIO()
    fig.savefig(buf, format="svg")     # constrained layout: one drawing pass
    plt.close(fig)
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
    fig, ax = plt.subplots(figsize=(10, 0.5 + len(rows) * (0.28 * n + 0.35)))
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
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r.label for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("ns per call (log scale; bar: median, whisker: p10-p90)")
    ax.set_title("What one read of the time costs, per API and machine")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=9)
    return [("cost.svg", "Cost per call, per API and machine", _svg(fig, plt))]


def ratio_chart(rep: Report, plt) -> List[Chart]:
    machines = [m for m in _chart_machines(rep) if m is not rep.baseline]
    idx = [rep.machines.index(m) for m in machines]
    rows = [r for r in rep.rows if any(r.cells[i].ratio for i in idx)]
    if not rows or not machines:
        return []
    n = len(machines)
    height = 0.8 / n
    fig, ax = plt.subplots(figsize=(10, 0.5 + len(rows) * (0.28 * n + 0.35)))
    for k, (i, m, color) in enumerate(zip(idx, machines, _colors(n + 1)[1:])):
        ys, vals, errs = [], [], []
        for y, r in enumerate(rows):
            q = r.cells[i].ratio
            if q:
                ys.append(y + (k - (n - 1) / 2) * height)
                # Slower: the ratio; faster: its inverse, so the bar points left of 1.
                v = q.ratio if q.slower else 1 / q.ratio
                e = q.error if q.slower else q.error / q.ratio ** 2
                vals.append(v)
                errs.append(min(e, v * 0.999))
        ax.barh(ys, [v - 1 for v in vals], left=1, height=height * 0.9, color=color, label=m.name,
                xerr=errs, error_kw={"ecolor": "black", "capsize": 2, "elinewidth": 0.8})
    ax.set_xscale("log")
    ax.axvline(1, color="black", linewidth=1)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r.label for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel(f"times the cost on {rep.baseline.name} (log scale; right of 1: slower, left: faster; "
                  "whisker: ± error)")
    ax.set_title(f"Slowdown against the baseline, {rep.baseline.name}")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="lower right", fontsize=9)
    return [("ratio.svg", f"Slowdown against {rep.baseline.name}", _svg(fig, plt))]


def warp_charts(rep: Report, plt) -> List[Chart]:
    """One figure, a panel per machine: backward steps for each (earlier CPU, later CPU)."""
    machines = [m for m in rep.machines if m.warp]
    if len(machines) > MAX_MACHINES_IN_CHART:
        # A fleet: the machines whose clocks went backwards most.
        machines = sorted(machines, key=lambda m: -m.warp.backward_steps)[:MAX_MACHINES_IN_CHART]
    if not machines:
        return []
    cols = min(len(machines), 4)
    rows = (len(machines) + cols - 1) // cols
    biggest = max(len(m.warp.cpus) for m in machines)
    side = 2.4 + 0.35 * min(biggest, 16)
    fig, axes = plt.subplots(rows, cols, figsize=(side * cols + 1, side * rows + 0.6), squeeze=False)
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
        worst = f", worst {fmt_ns(w.max_backward_ns)}" if w.max_backward_ns else ""
        ax.set_title(f"{m.name}\n{w.method}{worst}", fontsize=9)
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


def all_charts(rep: Report) -> List[Chart]:
    plt = _plt()
    return fleet_chart(rep, plt) + cost_chart(rep, plt) + ratio_chart(rep, plt) + warp_charts(rep, plt)
