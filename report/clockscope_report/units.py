# SPDX-License-Identifier: MIT
"""Durations, rates and counts as a person reads them: the same strings as src/common/units.c
prints for the same figure (tests/test_units_agree.py compares them)."""
import math
from typing import Optional

MISSING = "—"  # no figure at all (None); a figure that is not finite prints "-" as in C


def _printed(text: str) -> float:
    return abs(float(text))


def _three_digits(v: float) -> "tuple[str, bool]":
    """v with three significant digits, and whether it stayed below 1000."""
    a = abs(v)
    decimals = 2 if a < 10 else 1 if a < 100 else 0
    text = f"{v:.{decimals}f}"
    while decimals > 0 and _printed(text) >= (10 if decimals == 2 else 100):
        decimals -= 1
        text = f"{v:.{decimals}f}"
    return text, _printed(text) < 1000


_NS_UNITS = ("ns", "µs", "ms", "s")


def fmt_ns(ns: Optional[float]) -> str:
    """A duration: 4.56 ns, 33.5 ns, 245 ns, 12.71 µs, 1.20 ms, 2.50 s."""
    if ns is None:
        return MISSING
    if not math.isfinite(ns):
        return "-"
    a, scale, u = abs(ns), 1.0, 0
    while u + 1 < len(_NS_UNITS) and a >= scale * 1e3:
        scale *= 1e3
        u += 1
    while True:
        if u == 0:
            num, fits = _three_digits(ns)
        else:
            num = f"{ns / scale:.2f}"
            fits = _printed(num) < 1000
        if fits or u + 1 == len(_NS_UNITS):
            break
        scale *= 1e3
        u += 1
    return f"{num} {_NS_UNITS[u]}"


def fmt_ns_number(ns: Optional[float]) -> str:
    """A table's ns column: fmt_ns's digits below 1 µs without the unit, whole ns above."""
    if ns is None:
        return MISSING
    return _three_digits(ns)[0] if math.isfinite(ns) else "-"


_PREFIXES = ("", "k", "M", "G", "T", "P", "E")


def _si(v: float, whole_below_1000: bool) -> "tuple[str, str]":
    p = 0
    while p + 1 < len(_PREFIXES) and abs(v) >= 1e3:
        v /= 1e3
        p += 1
    while True:
        if p == 0 and whole_below_1000:
            num = f"{v:.0f}"
            fits = _printed(num) < 1000
        else:
            num, fits = _three_digits(v)
        if fits or p + 1 == len(_PREFIXES):
            return num, _PREFIXES[p]
        v /= 1e3
        p += 1


def _si_text(v: Optional[float], count: bool) -> str:
    if v is None:
        return MISSING
    if not math.isfinite(v):
        return "-"
    num, prefix = _si(float(v), count)
    if count:
        return f"{num} {prefix}" if prefix else num
    return f"{num} {prefix}/s"


def fmt_rate(per_second: Optional[float]) -> str:
    """Calls per second: 950 /s, 1.20 k/s, 45.1 M/s."""
    return _si_text(per_second, False)


def fmt_count(count: Optional[float]) -> str:
    """A count: 999, 1.00 k, 78.5 k, 10.0 M."""
    return _si_text(count, True)


def plural(n: int, noun: str) -> str:
    """"1 client", "2 clients" (units_plural in C)."""
    return f"{n} {noun}{'' if n == 1 else 's'}"
