# SPDX-License-Identifier: MIT
"""The bench part (clockscope.bench/2): each method's per-call cost into Machine.measures,
which the comparison table (analysis.py) is made of, and its two charts: the per-call cost
per API and machine, and each machine's slowdown against the baseline."""

from typing import List, Optional

from .analysis import HEADLINE, Cell, Report
from .checks import boolean, lst, num, obj, stat, string
from .model import Machine, Measure, Stat
from .part import Canvas, Chart, Part
from .units import fmt_ns

TABLE_IDS = frozenset(HEADLINE)


def label_of(path: Optional[str], api: str, clock: Optional[str]) -> str:
    """'clock_gettime(CLOCK_MONOTONIC)', 'gettimeofday()', 'syscall clock_gettime(...)'."""
    call = f"{api}(CLOCK_{clock.upper()})" if clock else f"{api}()"
    if path in (None, "libc"):
        return call
    return f"{path} {call}"


def read(doc: dict, m: Machine) -> None:
    for i, r in enumerate(lst(doc.get("results"), "results")):
        what = f"results[{i}]"
        r = obj(r, what)
        rid = string(r.get("id"), what + ".id", optional=False)
        if not m.every_method and rid not in TABLE_IDS and not rid.startswith("counter."):
            continue                    # a fleet's time goes here: read what is shown
        api = string(r.get("api"), what + ".api") or rid
        label = label_of(string(r.get("path"), what + ".path"), api, string(r.get("clock"), what + ".clock"))
        cost = None
        why = None
        if not boolean(r.get("available"), what + ".available"):
            why = string(r.get("why_unavailable"), what + ".why_unavailable") or "not available"
        elif r.get("error") is not None:
            why = string(r.get("error"), what + ".error")
        else:
            cost = stat(r.get("ns_per_call"), what + ".ns_per_call")
        # (bench/1.4, issue 29) a figure from a run whose reference moved (the machine's
        # speed changed) or whose processes split in two levels is no level to compare:
        # marked as a noisy one is
        ref = r.get("reference")
        unstable = ref is not None and boolean(obj(ref, what + ".reference").get("machine_speed_changed"),
                                               what + ".reference.machine_speed_changed")
        across = r.get("across_processes")
        unstable |= across is not None and boolean(obj(across, what + ".across_processes").get("bimodal"),
                                                   what + ".across_processes.bimodal")
        m.measures[rid] = Measure(rid, label, cost, num(r.get("calls_per_sec"), what + ".calls_per_sec"),
                                  boolean(r.get("noisy"), what + ".noisy") or unstable, why)


def _drawn(cell: Cell) -> Optional[Stat]:
    """The cell's figure, when the cost chart can draw it (a median above 0)."""
    meas = cell.measure
    return meas.stat if meas and meas.stat and meas.stat.median > 0 else None


def cost_chart(rep: Report, canvas: Canvas) -> List[Chart]:
    machines = canvas.machines(rep)
    idx = [rep.machines.index(m) for m in machines]
    rows = [r for r in rep.rows if not r.runtime and any(_drawn(r.cells[i]) for i in idx)]
    if not rows:
        return []
    n = len(machines)
    height = 0.8 / n
    fig, ax = canvas.subplots(figsize=(10, 1.2 + len(rows) * (0.16 * n + 0.25)))
    for k, (i, m, color) in enumerate(zip(idx, machines, canvas.colors(n))):
        ys, vals, lo, hi = [], [], [], []
        for y, r in enumerate(rows):
            s = _drawn(r.cells[i])
            if s:
                ys.append(y + (k - (n - 1) / 2) * height)
                vals.append(s.median)
                lo.append(s.median - max(s.p10, s.median * 1e-3))
                hi.append(s.p90 - s.median)
        ax.barh(ys, vals, height=height * 0.9, color=color, label=m.name,
                xerr=[lo, hi], error_kw={"ecolor": "black", "capsize": 2, "elinewidth": 0.8})
        for yy, v, h in zip(ys, vals, hi):
            ax.text((v + h) * 1.12, yy, fmt_ns(v), va="center", fontsize=7, color="#333")
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
    return [("cost.svg", "Cost per call, per API and machine", canvas.svg(fig))]


def ratio_chart(rep: Report, canvas: Canvas) -> List[Chart]:
    """Each machine's cost over the baseline's, per API, on a log axis centred on 1.  The
    whisker is the ratio's interval the table gives (bootstrap, or the range both p10-p90
    allow): it crosses 1 exactly when the table says "no significant difference"."""
    machines = [m for m in canvas.machines(rep) if m is not rep.baseline]
    idx = [rep.machines.index(m) for m in machines]
    rows = [r for r in rep.rows if not r.runtime and any(r.cells[i].ratio for i in idx)]
    if not rows or not machines:
        return []
    n = len(machines)
    height = 0.8 / n
    fig, ax = canvas.subplots(figsize=(10, 1.2 + len(rows) * (0.16 * n + 0.25)))
    ends = []                                 # every whisker's two ends: the axis holds them all
    for k, (i, m, color) in enumerate(zip(idx, machines, canvas.colors(n + 1)[1:])):
        ys, vals, lo, hi = [], [], [], []
        for y, r in enumerate(rows):
            ratio = r.cells[i].ratio
            if not ratio:
                continue
            v, low, high = ratio.value, ratio.low, min(ratio.high, ratio.value * 1e6)
            ys.append(y + (k - (n - 1) / 2) * height)
            vals.append(v)
            lo.append(max(v - low, 0))
            hi.append(max(high - v, 0))
            ends += [max(low, 1e-6), high]
        ax.barh(ys, [v - 1 for v in vals], left=1, height=height * 0.9, color=color, label=m.name,
                xerr=[lo, hi], error_kw={"ecolor": "black", "capsize": 2, "elinewidth": 0.8})
        for yy, v, down, h in zip(ys, vals, lo, hi):
            word = f"{v:.1f}x" if v >= 1 else f"1/{1 / v:.1f}"
            # beyond the whisker's far end, so that no line crosses the figure
            if v >= 1:
                ax.text((v + h) * 1.12, yy, word, va="center", ha="left", fontsize=7, color="#333")
            else:
                ax.text((v - down) / 1.12, yy, word, va="center", ha="right", fontsize=7, color="#333")
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
    return [("ratio.svg", f"Slowdown against {rep.baseline.name}", canvas.svg(fig))]


PART = Part("bench", 2, read, expected=True, charts=(cost_chart, ratio_chart))
