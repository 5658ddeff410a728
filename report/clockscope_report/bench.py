# SPDX-License-Identifier: MIT
"""The bench part (clockscope.bench/1): each method's per-call cost into Machine.measures,
which the comparison table (analysis.py), the cost chart and the ratio chart are made of."""

from typing import Optional

from . import charts
from .analysis import HEADLINE
from .checks import boolean, lst, num, obj, stat, string
from .model import Machine, Measure
from .part import Part

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


PART = Part("bench", 1, read, expected=True, charts=(charts.cost_chart, charts.ratio_chart))
