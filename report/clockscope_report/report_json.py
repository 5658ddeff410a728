# SPDX-License-Identifier: MIT
"""report --json: the comparison as one clockscope.report/1 document (docs/json.md), from
the same rows the text, Markdown and CSV forms print."""

import json
import math
from typing import Optional

from .analysis import Report
from .compare import Ratio
from .model import Stat

SCHEMA = "clockscope.report/1"


def _num(x: Optional[float]) -> Optional[float]:
    """A figure, or null when there is none (an interval open above is null, not Infinity)."""
    return x if x is not None and math.isfinite(x) else None


def _cost(s: Optional[Stat]):
    """A per-call cost, in ns: the one shape of a cost in clockscope's JSON."""
    if s is None:
        return None
    return {"median": _num(s.median), "p10": _num(s.p10), "p90": _num(s.p90)}


def _ratio(r: Optional[Ratio]):
    """The machine's median over the baseline's, its interval, and what it says."""
    if r is None:
        return None
    verdict = ("slower" if r.slower else "faster") if r.significant else "no_significant_difference"
    return {"value": _num(r.value), "low": _num(r.low), "high": _num(r.high), "interval": r.method,
            "verdict": verdict}


def document(rep: Report) -> dict:
    rows = []
    for row in rep.rows:
        cells = []
        for m, cell in zip(rep.machines, row.cells):
            meas = cell.measure
            cells.append({"machine": m.name, "measure": meas.id if meas else None,
                          "ns_per_call": _cost(meas.stat if meas else None),
                          "ratio": _ratio(cell.ratio)})
        rows.append({"id": row.key, "label": row.label, "runtime": row.runtime, "machines": cells})
    return {
        "schema": SCHEMA,
        "baseline": rep.baseline.name,
        "machines": [{"name": m.name, "file": m.source,
                      "verdict": m.diagnosis.verdict if m.diagnosis else None} for m in rep.machines],
        "rows": rows,
        "problems": [{"file": p.source, "message": p.message} for p in rep.problems],
    }


def render(rep: Report) -> str:
    return json.dumps(document(rep), indent=2, allow_nan=False) + "\n"
