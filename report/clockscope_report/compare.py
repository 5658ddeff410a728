# SPDX-License-Identifier: MIT
"""Ratios between two machines' per-call costs, with their uncertainty.

Each side's cost is its median ns per call, and its spread the p10-p90 range of its samples
(bench's own percentiles).  The relative uncertainty of one side is half that range over
the median, h = (p90 - p10) / (2 * median); the ratio r = slower / faster carries
r * sqrt(h_a^2 + h_b^2), the first-order propagation hyperfine uses for `ratio ± error`
(with its standard deviations replaced by these half-widths).  Two sides whose p10-p90
ranges overlap show "no significant difference".  Ratios are always >= 1; the direction is
in words (docs/report.md)."""

import math
from dataclasses import dataclass
from typing import Optional

from .model import Stat

# A machine this much slower on a row gets its doctor's explanation beside the row.
EXPLAIN_RATIO = 1.5


@dataclass
class Ratio:
    ratio: float            # >= 1
    error: float            # ± on the ratio
    slower: bool            # the machine is slower than the baseline
    significant: bool       # the p10-p90 ranges do not overlap

    def words(self, baseline: str = "") -> str:
        """'6.4x ± 0.3 slower than BASELINE' (without a name: '6.4x ± 0.3 slower')."""
        if not self.significant:
            return f"no significant difference ({self.ratio:.1f}x ± {self.error:.1f})"
        than = f" than {baseline}" if baseline else ""
        return f"{self.ratio:.1f}x ± {self.error:.1f} {'slower' if self.slower else 'faster'}{than}"

    @property
    def much_slower(self) -> bool:
        return self.significant and self.slower and self.ratio >= EXPLAIN_RATIO


def compare(machine: Optional[Stat], baseline: Optional[Stat]) -> Optional[Ratio]:
    """machine against baseline; None when either has no positive median (nothing to divide)."""
    if machine is None or baseline is None or machine.median <= 0 or baseline.median <= 0:
        return None
    slower = machine.median > baseline.median
    ratio = machine.median / baseline.median if slower else baseline.median / machine.median
    error = ratio * math.sqrt(machine.half_width ** 2 + baseline.half_width ** 2)
    overlap = machine.p10 <= baseline.p90 and baseline.p10 <= machine.p90
    return Ratio(ratio, error, slower, not overlap)


def fmt_ns(ns: Optional[float]) -> str:
    """A per-call cost a person reads at a glance: 33.5 ns, 3.12 µs, 1.20 ms."""
    if ns is None:
        return "—"
    a = abs(ns)
    if a >= 1e6:
        return f"{ns / 1e6:.2f} ms"
    if a >= 1e3:
        return f"{ns / 1e3:.2f} µs"
    if a >= 100:
        return f"{ns:.0f} ns"
    if a >= 10:
        return f"{ns:.1f} ns"
    return f"{ns:.2f} ns"


def fmt_rate(calls: Optional[float]) -> str:
    return "—" if calls is None else f"{calls:,.0f}"
