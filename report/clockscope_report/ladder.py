# SPDX-License-Identifier: MIT
"""The ladder part (clockscope.ladder/2 and /1, docs/json.md): reading it, and its place in
the report: the rungs on a log scale (every figure labelled call, round_trip or one_way), the CPU
matrix as a heatmap, the polling-server sweep (the experiment of FlexIPC, Journal of
Software 2025), and a few lines of text.

Its PART is listed in registry.py; text.py, html.py and charts.py reach it through that."""

from dataclasses import dataclass, field
from html import escape
from typing import Dict, List, Optional, Tuple

from .analysis import Report
from .checks import Malformed, cost, lst, num, obj, string
from .model import Machine
from .part import Canvas, Chart, Part
from .units import fmt_ns, plural


@dataclass
class Rung:
    id: str
    kind: str                    # "call" | "round_trip" | "one_way"
    ns: Optional[float]          # median
    p99_ns: Optional[float]
    why_not: Optional[str]       # unavailable, or failed: why


@dataclass
class SweepMode:
    mode: str
    ns: Optional[float]
    p99_ns: Optional[float]
    server_cpu_ns_per_request: Optional[float]
    error: Optional[str]


@dataclass
class SweepRow:
    clients: int
    oversubscribed: bool
    modes: Dict[str, SweepMode]
    reduction: Dict[str, Optional[float]]


@dataclass
class Ladder:
    rungs: List[Rung]
    matrix_cpus: List[int] = field(default_factory=list)
    matrix_ns: List[List[Optional[float]]] = field(default_factory=list)
    sweep: List[SweepRow] = field(default_factory=list)
    load_start: Optional[float] = None
    load_end: Optional[float] = None
    paper_low: float = 0.86
    paper_high_ratio: float = 0.49


# --- reading -------------------------------------------------------------------------

# Each kind's cost key (/2); a /1 document has its median under "ns", its p99 under "p99_ns".
COST_KEYS = {"call": "ns_per_call", "round_trip": "ns_per_round_trip", "one_way": "ns_one_way"}


def _figure(x: dict, key: str, what: str) -> Tuple[Optional[float], Optional[float]]:
    """(median, p99) of the cost under key (/2), else of "ns" and "p99_ns" (/1)."""
    if key in x:
        return cost(x[key], f"{what}.{key}"), cost(x[key], f"{what}.{key}", "p99")
    return num(x.get("ns"), what + ".ns"), num(x.get("p99_ns"), what + ".p99_ns")


def _rung(x, what) -> Rung:
    x = obj(x, what)
    rid = string(x.get("id"), what + ".id")
    kind = x.get("kind")
    if not rid or kind not in COST_KEYS:
        raise Malformed(f"{what} has no id or no kind call/round_trip/one_way")
    if COST_KEYS[kind] not in x and x.get("family") == "call":
        kind = "call"           # /1 named a call's kind "round_trip"
    ns, p99 = _figure(x, COST_KEYS[kind], what)
    why = string(x.get("why_unavailable"), what + ".why_unavailable") or \
        string(x.get("error"), what + ".error")
    if ns is not None and ns <= 0:
        ns = None  # a zero (all loop cost) cannot stand on a log scale
    return Rung(rid, kind, ns, p99 if ns is not None else None,
                why or (None if ns is not None else "not measured"))


def _sweep_row(x, what) -> SweepRow:
    x = obj(x, what)
    clients = x.get("clients")
    if not isinstance(clients, int) or isinstance(clients, bool) or clients < 1:
        raise Malformed(f"{what}.clients is not a positive whole number")
    modes = {}
    for i, mo in enumerate(lst(x.get("modes"), what + ".modes")):
        w = f"{what}.modes[{i}]"
        mo = obj(mo, w)
        name = string(mo.get("mode"), w + ".mode")
        if name not in ("futex", "eventfd", "poll"):
            raise Malformed(f"{w}.mode is not futex, eventfd or poll")
        modes[name] = SweepMode(name, *_figure(mo, COST_KEYS["round_trip"], w),
                                num(mo.get("server_cpu_ns_per_request"), w + ".server_cpu_ns_per_request"),
                                string(mo.get("error"), w + ".error"))
    red = obj(x.get("reduction", {}), what + ".reduction")
    return SweepRow(clients, bool(x.get("oversubscribed")), modes,
                    {k: num(red.get(f"poll_vs_{k}"), f"{what}.reduction.poll_vs_{k}")
                     for k in ("futex", "eventfd")})


def _cell(v, what: str) -> Optional[float]:
    """A matrix cell's one-way median: its /2 object's ns_one_way, or the /1 number."""
    if isinstance(v, dict):
        return cost(v.get(COST_KEYS["one_way"]), what + "." + COST_KEYS["one_way"])
    return num(v, what)


def of(m: Machine) -> Optional[Ladder]:
    """The machine's ladder part, or None."""
    return m.data.get("ladder")


def read(doc: dict, m: Machine) -> None:
    """The document into the machine's data["ladder"] (raises checks.Malformed)."""
    lad = Ladder([_rung(x, f"rungs[{i}]") for i, x in enumerate(lst(doc.get("rungs"), "rungs"))])
    mat = doc.get("cpu_matrix")
    if mat is not None and obj(mat, "cpu_matrix").get("available"):
        if mat.get("kind") != "one_way":
            raise Malformed("cpu_matrix.kind is not one_way")
        cpus = lst(mat.get("cpus"), "cpu_matrix.cpus")
        name = "cells" if "cells" in mat else "ns"    # /2: a cost per cell; /1: a number
        grid = lst(mat.get(name), "cpu_matrix." + name)
        if any(not isinstance(c, int) or isinstance(c, bool) for c in cpus) or len(grid) != len(cpus):
            raise Malformed(f"cpu_matrix: cpus and {name} do not match")
        lad.matrix_cpus = cpus
        for i, row in enumerate(grid):
            w = f"cpu_matrix.{name}[{i}]"
            row = lst(row, w)
            if len(row) != len(cpus):
                raise Malformed(f"{w} has {len(row)} cells for {len(cpus)} CPUs")
            lad.matrix_ns.append([_cell(v, w) for v in row])
    sweep = doc.get("sweep")
    if sweep is not None:
        lad.sweep = [_sweep_row(x, f"sweep[{i}]") for i, x in enumerate(lst(sweep, "sweep"))]
    load = doc.get("load")
    if isinstance(load, dict):
        lad.load_start = num(load.get("loadavg_1m_start"), "load.loadavg_1m_start")
        lad.load_end = num(load.get("loadavg_1m_end"), "load.loadavg_1m_end")
    paper = (doc.get("sweep_setup") or {}).get("paper") if isinstance(doc.get("sweep_setup"), dict) else None
    if isinstance(paper, dict):
        lad.paper_low = num(paper.get("low_concurrency_reduction"), "paper") or lad.paper_low
        lad.paper_high_ratio = num(paper.get("high_concurrency_latency_ratio"), "paper") or lad.paper_high_ratio
    m.data["ladder"] = lad


# --- text ----------------------------------------------------------------------------

def _load_text(lad: Ladder) -> str:
    if lad.load_start is None:
        return "load unknown"
    return f"load {lad.load_start:.2f} -> {lad.load_end:.2f}" if lad.load_end is not None \
        else f"load {lad.load_start:.2f}"


def _reduction(red: float, mode: str) -> str:
    # a poller that lost its CPU to other work is slower: a ratio reads better than "-2400%"
    return f"{red:.0%} lower than {mode}'s" if red >= 0 else f"{1 - red:.1f}x {mode}'s (higher)"


def _sweep_lines(name: str, lad: Ladder) -> List[str]:
    out = []
    for row, what in ((lad.sweep[0], "low concurrency"), (lad.sweep[-1], "high concurrency")) \
            if lad.sweep else ():
        r = row.reduction.get("futex")
        e = row.reduction.get("eventfd")
        parts = [_reduction(x, name_) for x, name_ in ((r, "futex"), (e, "eventfd")) if x is not None]
        if parts:
            over = ", oversubscribed" if row.oversubscribed else ""
            out.append(f"{name}: {plural(row.clients, 'client')} ({what}{over}): a polling server's p50 is "
                       + " and ".join(parts) + f" ({_load_text(lad)})")
        if len(lad.sweep) == 1:
            break
    if out:
        out.append(f"  the polling-server experiment (FlexIPC, Journal of Software 2025): "
                   f"{lad.paper_low:.0%} lower at low concurrency; "
                   f"at 32 clients {lad.paper_high_ratio:.0%} of the original's latency")
    return out


def text_section(rep: Report) -> List[str]:
    """The ladder's lines for the terminal: the rungs that frame a time read, per machine."""
    out = []
    for m in rep.machines:
        lad = of(m)
        if not lad:
            continue
        by = {r.id: r for r in lad.rungs}
        # the calls carry bench's ids since issue 27 (older bundles: vdso.clock_gettime, ...)
        keys = ["vdso.clock_gettime.monotonic", "vdso.clock_gettime",
                "syscall.clock_gettime.monotonic", "syscall.clock_gettime",
                "futex.threads.cross_cpu", "pipe.processes.cross_cpu", "spin.threads.cross_cpu"]
        cells = [f"{k} {fmt_ns(by[k].ns)} ({by[k].kind})" for k in keys if k in by and by[k].ns]
        if cells:
            out.append(f"{m.name} ({_load_text(lad)}): " + "; ".join(cells))
        out += _sweep_lines(m.name, lad)
    return ["", "ladder (kernel crossings and cross-CPU handoffs):"] + out if out else []


def html_section(rep: Report) -> List[str]:
    text = text_section(rep)
    if not text:
        return []
    return ["<h2>The ladder</h2>", "<ul>"] + [f"<li>{escape(t)}</li>" for t in text[2:]] + ["</ul>"]


# --- charts --------------------------------------------------------------------------

def _machines(rep: Report) -> List[Machine]:
    return [m for m in rep.machines if of(m)][:8]


def _drawn(m: Machine) -> Ladder:
    """The ladder of a machine _machines() chose: it has one."""
    return m.data["ladder"]


def rung_chart(rep: Report, canvas: Canvas) -> List[Chart]:
    machines = _machines(rep)
    ids = []
    for m in machines:
        for r in _drawn(m).rungs:
            if r.ns and r.id not in ids:
                ids.append(r.id)
    if not ids:
        return []
    kinds = {r.id: r.kind for m in machines for r in _drawn(m).rungs}
    n = len(machines)
    height = 0.8 / n
    fig, ax = canvas.subplots(figsize=(10, 1.4 + len(ids) * (0.13 * n + 0.2)))
    for k, (m, color) in enumerate(zip(machines, canvas.colors(n))):
        by = {r.id: r for r in _drawn(m).rungs}
        ys, vals, hi = [], [], []
        for y, rid in enumerate(ids):
            rung = by.get(rid)
            if rung and rung.ns:
                ys.append(y + (k - (n - 1) / 2) * height)
                vals.append(rung.ns)
                hi.append(max((rung.p99_ns or rung.ns) - rung.ns, 0))
        ax.barh(ys, vals, height=height * 0.9, color=color,
                label=f"{m.name} ({_load_text(_drawn(m))})",
                xerr=[[0] * len(vals), hi], error_kw={"ecolor": "black", "capsize": 2, "elinewidth": 0.8})
        for yy, v, h in zip(ys, vals, hi):
            ax.text((v + h) * 1.15, yy, fmt_ns(v), va="center", fontsize=7, color="#333")
    ax.set_xscale("log")
    lo_x, hi_x = ax.get_xlim()
    ax.set_xlim(lo_x, hi_x * 4)
    ax.set_yticks(range(len(ids)))
    ax.set_yticklabels([f"{rid}  [{kinds[rid]}]" for rid in ids], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("ns (log scale; bar: median, whisker: to p99)")
    ax.set_title("The ladder: calls and kernel crossings, round trips between threads and processes")
    ax.grid(axis="x", which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8, title="machine")
    return [("ladder.svg", "The ladder (log scale)", canvas.svg(fig))]


def matrix_chart(rep: Report, canvas: Canvas) -> List[Chart]:
    machines = [m for m in _machines(rep) if _drawn(m).matrix_cpus]
    if not machines:
        return []
    side = 2.2 + 0.35 * min(max(len(_drawn(m).matrix_cpus) for m in machines), 16)
    cols = max(1, min(len(machines), int(10 // side)))
    rows = (len(machines) + cols - 1) // cols
    fig, axes = canvas.subplots(rows, cols, figsize=(side * cols + 1.5, (side + 0.6) * rows + 0.6),
                             squeeze=False)
    fig.subplots_adjust(hspace=0.6, wspace=0.9)
    # One colour scale for every machine: a 0.1 ns spread on one machine is not drawn as
    # the full scale beside another's 100 ns.
    every = [v for m in machines for row in _drawn(m).matrix_ns for v in row if v is not None]
    lo, hi = min(every, default=0.0), max(every, default=1.0)
    im = None
    for k, ax in enumerate(axes.flat):
        if k >= len(machines):
            ax.set_visible(False)
            continue
        m = machines[k]
        cpus, grid = _drawn(m).matrix_cpus, _drawn(m).matrix_ns
        vals = [v for row in grid for v in row if v is not None]
        # the diagonal (same CPU) and failed cells are blank: NaN is not coloured
        data = [[float("nan") if v is None else v for v in row] for row in grid]
        im = ax.imshow(data, cmap="viridis", vmin=lo, vmax=hi if hi > lo else lo + 1)
        size = len(cpus)
        if size <= 16:
            for a in range(size):
                for b in range(size):
                    v = grid[a][b]
                    ax.text(b, a, "same CPU" if a == b else (fmt_ns(v) if v is not None else "failed"),
                            ha="center", va="center", fontsize=7,
                            color="black" if v is None or v > (lo + hi) / 2 else "white")
        ticks = list(range(size)) if size <= 16 else list(range(0, size, max(1, size // 8)))
        ax.set_xticks(ticks)
        ax.set_xticklabels([str(cpus[t]) for t in ticks])
        ax.set_yticks(ticks)
        ax.set_yticklabels([str(cpus[t]) for t in ticks])
        ax.set_xlabel("to CPU (sees the store)")
        ax.set_ylabel("from CPU (stores)")
        spread = f"{fmt_ns(min(vals))} to {fmt_ns(max(vals))}" if vals else "no figures"
        ax.set_title(f"{m.name}\n{_load_text(_drawn(m))}\n{spread}", fontsize=8)
    if im is not None:                  # the first panel always draws
        fig.colorbar(im, ax=list(axes.flat), shrink=0.8, label="one_way ns (one scale for every machine)")
    fig.suptitle("Cache-line handoff between CPUs (one_way: half a round trip)", fontsize=11)
    return [("ladder-matrix.svg", "Cache-line handoff per CPU pair (one_way)", canvas.svg(fig))]


def sweep_chart(rep: Report, canvas: Canvas) -> List[Chart]:
    machines = [m for m in _machines(rep) if _drawn(m).sweep]
    if not machines:
        return []
    fig, ax = canvas.subplots(figsize=(9, 4))
    styles = {"futex": "--", "eventfd": ":", "poll": "-"}
    for m, color in zip(machines, canvas.colors(len(machines))):
        for mode, style in styles.items():
            pts = [(row.clients, row.modes[mode].ns) for row in _drawn(m).sweep
                   if mode in row.modes and row.modes[mode].ns]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", color=color,
                        label=f"{m.name}: {mode} ({'polls' if mode == 'poll' else 'sleeps'})")
        over = [row.clients for row in _drawn(m).sweep if row.oversubscribed]
        if over:
            ax.axvspan(min(over) * 0.85, max(over) * 1.15, color=color, alpha=0.06)
    ax.set_xscale("log", base=2)
    counts = sorted({row.clients for m in machines for row in _drawn(m).sweep})
    ax.set_xticks(counts)
    ax.set_xticklabels([str(c) for c in counts])
    ax.minorticks_off()
    ax.set_yscale("log")
    ax.set_xlabel("clients (shaded: oversubscribed, more clients than client CPUs)")
    ax.set_ylabel("p50 latency per request, round_trip (ns)")
    ax.set_title("One pinned server that sleeps in the kernel or polls\n"
                 "(the polling-server experiment of FlexIPC, Journal of Software 2025)")
    ax.grid(which="both", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return [("ladder-sweep.svg", "A sleeping vs a polling server (the FlexIPC experiment)", canvas.svg(fig))]


PART = Part("ladder", 2, read, text=text_section, html=html_section,
            charts=(rung_chart, matrix_chart, sweep_chart))
