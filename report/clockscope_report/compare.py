# SPDX-License-Identifier: MIT
"""Ratios between two machines' per-call costs, with an interval that means something for
skewed samples, and the word (slower, faster, no significant difference) that interval
decides (docs/report.md, "Ratio and interval"; docs/METHODOLOGY.md).

The ratio is machine median / baseline median.  Its interval:

- **bootstrap** (both sides carry their samples, bench's ns_per_call.samples): the 95%
  percentile interval of the ratio of two bootstrap medians, one resample of each side's
  samples.  The bootstrap distribution of a median is computed exactly rather than by
  drawing resamples: the median of a resample of n values (its lower middle one when n is
  even, the k-th smallest, k = ceil(n/2)) is at most the j-th smallest sample exactly
  when k or more of the n draws fall among the j smallest, so
  P(median* <= x_(j)) = P(Binomial(n, j/n) >= k).  That is the limit of infinitely many
  resamples: the same figures on every run, no random numbers and so no seed.  The ratio's
  distribution pairs every atom of one side with every atom of the other.
- **range** (a side without samples): from the p10-p90 ranges both sides allow, p10/p90'
  to p90/p10' (the whisker the ratio chart draws), said to be a range.

An interval that contains 1 reads "no significant difference"; otherwise the machine is
slower (the interval above 1) or faster (below)."""

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Dict, List, Optional, Tuple

from .model import Stat

# A machine this much slower on a row gets its doctor's explanation beside the row.
EXPLAIN_RATIO = 1.5
CONFIDENCE = 0.95
# More samples than this are thinned to this many evenly spaced order statistics (the
# exact distribution costs n^2 terms).
MAX_BOOTSTRAP_SAMPLES = 256
BOOTSTRAP = "bootstrap"
RANGE = "range"


def _inv(x: float) -> float:
    """1/x, where a ratio of 0 (a side whose samples include a cost of 0 ns: below what
    bench resolves) is an unbounded factor the other way."""
    return math.inf if x <= 0 else 1.0 / x


def fmt_x(r: float) -> str:
    """A factor: 63x, 9.3x, 1.04x; an unbounded one ∞x."""
    if not math.isfinite(r):
        return "∞x"
    if r >= 9.95:
        return f"{r:.0f}x"
    if r >= 1.095:
        return f"{r:.1f}x"
    return f"{r:.2f}x"


@dataclass
class Ratio:
    value: float            # machine median / baseline median
    low: float              # the interval of that ratio
    high: float
    method: str             # BOOTSTRAP or RANGE

    @property
    def significant(self) -> bool:
        return not self.low <= 1.0 <= self.high

    @property
    def slower(self) -> bool:
        """Slower than the baseline: the interval above 1 (or, not significant, the medians)."""
        if self.significant:
            return self.low > 1.0
        return self.value > 1.0

    @property
    def ratio(self) -> float:
        """The factor, >= 1: how many times slower or faster."""
        return self.value if self.value >= 1 else _inv(self.value)

    def _interval(self) -> str:
        """'9x to 400x' in the direction of the words (faster: the baseline over the machine)."""
        lo, hi = (self.low, self.high) if self.slower else (_inv(self.high), _inv(self.low))
        what = "range " if self.method == RANGE else ""
        if fmt_x(lo) == fmt_x(hi) and lo < 9.95 and math.isfinite(hi):     # narrow: one more digit
            return f"{what}{lo:.2f}x to {hi:.2f}x"
        return f"{what}{fmt_x(lo)} to {fmt_x(hi)}"

    def words(self, baseline: str = "") -> str:
        """'63x slower than BASELINE (9x to 400x)'; 'no significant difference (1.2x
        faster to 2.1x slower)'."""
        than = f" than {baseline}" if baseline else ""
        if not self.significant:
            lo = f"{fmt_x(_inv(self.low))} faster" if self.low < 1 else f"{fmt_x(self.low)} slower"
            hi = f"{fmt_x(self.high)} slower" if self.high > 1 else f"{fmt_x(_inv(self.high))} faster"
            what = "range " if self.method == RANGE else ""
            return f"no significant difference ({what}{lo} to {hi})"
        return f"{fmt_x(self.ratio)} {'slower' if self.slower else 'faster'}{than} ({self._interval()})"

    @property
    def much_slower(self) -> bool:
        return self.significant and self.slower and self.ratio >= EXPLAIN_RATIO


@lru_cache(maxsize=4096)
def median_distribution(samples: Tuple[float, ...]) -> Tuple[Tuple[float, float], ...]:
    """The exact bootstrap distribution of the median of samples: (value, probability),
    ascending, atoms below 1e-9 left out."""
    xs = sorted(samples)
    if len(xs) > MAX_BOOTSTRAP_SAMPLES:
        last = len(xs) - 1
        xs = [xs[round(i * last / (MAX_BOOTSTRAP_SAMPLES - 1))] for i in range(MAX_BOOTSTRAP_SAMPLES)]
    n = len(xs)
    k = (n + 1) // 2
    lg = [math.lgamma(i + 1) for i in range(n + 1)]

    def at_least_k(p: float) -> float:        # P(Binomial(n, p) >= k)
        if p >= 1.0:
            return 1.0
        lp, lq = math.log(p), math.log1p(-p)
        return min(1.0, sum(math.exp(lg[n] - lg[i] - lg[n - i] + i * lp + (n - i) * lq)
                            for i in range(k, n + 1)))
    atoms: Dict[float, float] = {}
    below = 0.0
    for j in range(1, n + 1):
        cdf = at_least_k(j / n)
        p = cdf - below
        below = cdf
        if p > 1e-9:        # the tails beyond: far from the 2.5% and 97.5% points, and n^2 pairs less
            atoms[xs[j - 1]] = atoms.get(xs[j - 1], 0.0) + p
    return tuple(sorted(atoms.items()))


@lru_cache(maxsize=4096)
def bootstrap_interval(machine: Tuple[float, ...], baseline: Tuple[float, ...],
                       confidence: float = CONFIDENCE) -> Optional[Tuple[float, float]]:
    """The central `confidence` interval of median*(machine) / median*(baseline)."""
    base = [(1.0 / b, pb) for b, pb in median_distribution(baseline) if b > 0]
    pairs: List[Tuple[float, float]] = sorted(
        (a * ib, pa * pb) for a, pa in median_distribution(machine) for ib, pb in base)
    total = sum(p for _, p in pairs)
    if not pairs or total <= 0:
        return None
    lo_at, hi_at = (1 - confidence) / 2 * total, (1 + confidence) / 2 * total
    acc = 0.0
    lo: Optional[float] = None
    for v, p in pairs:
        acc += p
        if lo is None and acc >= lo_at:
            lo = v
        if lo is not None and acc >= hi_at:     # lo_at < hi_at: lo is set first
            return lo, v
    return None if lo is None else (lo, pairs[-1][0])


def compare(machine: Optional[Stat], baseline: Optional[Stat]) -> Optional[Ratio]:
    """machine against baseline; None when either has no positive median (nothing to divide)."""
    if machine is None or baseline is None or machine.median <= 0 or baseline.median <= 0:
        return None
    value = machine.median / baseline.median
    if machine.samples and baseline.samples:
        iv = bootstrap_interval(machine.samples, baseline.samples)
        if iv is not None:
            return Ratio(value, min(iv[0], value), max(iv[1], value), BOOTSTRAP)
    # The range both p10-p90 allow; a p10 of 0 (all loop cost) allows any ratio below.
    low = machine.p10 / baseline.p90
    high = machine.p90 / baseline.p10 if baseline.p10 > 0 else math.inf
    return Ratio(value, min(low, value), max(high, value), RANGE)

