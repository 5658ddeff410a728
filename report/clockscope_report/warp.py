# SPDX-License-Identifier: MIT
"""The warp part (clockscope.warp/1): one method's CPU-pair matrix of backward steps into
Machine.warp, drawn as a heatmap per machine (charts.warp_charts)."""

from . import charts
from .checks import boolean, lst, num, obj, string
from .model import Machine, WarpPairs
from .part import Part


def _pairs(meth: dict, what: str) -> WarpPairs:
    back = {}
    cpus = set()
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


PART = Part("warp", 1, read, expected=True, charts=(charts.warp_charts,))
