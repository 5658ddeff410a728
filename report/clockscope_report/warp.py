# SPDX-License-Identifier: MIT
"""The warp part (clockscope.warp/1): one method's CPU-pair matrix of backward steps into
Machine.warp, drawn as a heatmap per machine (warp_charts)."""

from typing import Dict, List, Set, Tuple

from .analysis import Report
from .checks import boolean, lst, num, obj, string
from .model import Machine, WarpPairs
from .part import MAX_MACHINES_IN_CHART, Canvas, Chart, Part
from .units import fmt_count, fmt_ns


def _pairs(meth: dict, what: str) -> WarpPairs:
    back: Dict[Tuple[int, int], int] = {}
    cpus: Set[int] = set()
    compared = 0
    for j, p in enumerate(lst(meth.get("pairs"), what + ".pairs")):
        p = obj(p, f"{what}.pairs[{j}]")
        a = int(num(p.get("cpu_a"), "cpu_a", optional=False))
        b = int(num(p.get("cpu_b"), "cpu_b", optional=False))
        cpus.update((a, b))
        compared += int(num(p.get("comparisons"), "comparisons") or 0)
        back[(a, b)] = int(num(p.get("backward_a_to_b"), "backward_a_to_b") or 0)
        if a != b:
            back[(b, a)] = int(num(p.get("backward_b_to_a"), "backward_b_to_a") or 0)
    steps = int(num(meth.get("backward_steps"), what + ".backward_steps") or 0)
    return WarpPairs(string(meth.get("id"), what + ".id") or "?", sorted(cpus), back,
                     num(meth.get("max_backward_ns"), what + ".max_backward_ns"), steps, compared)


def read(doc: dict, m: Machine) -> None:
    # The matrix shown: the must-be-monotonic method that went back most; without one,
    # clock_gettime(MONOTONIC), the clock programs read.  Only its pairs are read.
    best = None
    for i, meth in enumerate(lst(doc.get("methods"), "methods")):
        what = f"methods[{i}]"
        meth = obj(meth, what)
        if not meth.get("pairs"):
            continue
        steps = int(num(meth.get("backward_steps"), what + ".backward_steps") or 0)
        must = boolean(meth.get("must_be_monotonic"), what + ".must_be_monotonic")
        score = (must and steps > 0, meth.get("id") == "libc.clock_gettime.monotonic", steps)
        if best is None or score > best[0]:
            best = (score, meth, what)
    m.warp = _pairs(best[1], best[2]) if best else None
    m.warp_faults = int(num(doc.get("faults"), "faults") or 0)



def warp_charts(rep: Report, canvas: Canvas) -> List[Chart]:
    """One figure, a panel per machine: backward steps for each (earlier CPU, later CPU)."""
    shown = [(m, m.warp) for m in rep.machines if m.warp]
    if len(shown) > MAX_MACHINES_IN_CHART:
        # A fleet: the machines whose clocks went backwards most.
        shown = sorted(shown, key=lambda mw: -mw[1].backward_steps)[:MAX_MACHINES_IN_CHART]
    if not shown:
        return []
    machines = [m for m, _ in shown]
    biggest = max(len(w.cpus) for _, w in shown)
    side = 2.0 + 0.3 * min(biggest, 16)
    cols = max(1, min(len(machines), int(9 // side)))
    rows = (len(machines) + cols - 1) // cols
    fig, axes = canvas.subplots(rows, cols, figsize=(side * cols + 1.2, (side + 0.5) * rows + 0.6),
                             squeeze=False)
    fig.subplots_adjust(hspace=0.6, wspace=0.8)
    top = max(max(w.backward.values(), default=0) for _, w in shown)
    im = None
    for k, ax in enumerate(axes.flat):
        if k >= len(machines):
            ax.set_visible(False)
            continue
        m, w = shown[k]
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
        worst = (f"{fmt_count(w.backward_steps)} of {fmt_count(w.comparisons)} back, "
                 f"worst {fmt_ns(w.max_backward_ns)}"
                 if w.backward_steps else f"0 of {fmt_count(w.comparisons)} reads back")
        ax.set_title(f"{m.name}\n{w.method}\n{worst}", fontsize=8)
    if im is not None:                  # the first panel always draws
        fig.colorbar(im, ax=list(axes.flat), shrink=0.8, label="reads that went back")
    fig.suptitle("Time going backwards between CPUs (warp): each machine's worst method", fontsize=12)
    return [("warp.svg", "Warp: backward steps per CPU pair", canvas.svg(fig))]


PART = Part("warp", 1, read, expected=True, charts=(warp_charts,))
