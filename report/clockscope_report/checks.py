# SPDX-License-Identifier: MIT
"""The one set of typed accessors every part's reader uses: each returns the value, or raises
Malformed naming the field, so that nothing past the reader trips over a malformed document
(load.py turns Malformed into "part 'X' is malformed (...): skipped")."""

import json
import math
import re
from typing import Any, Literal, Optional, Tuple, overload

from .model import Stat

# A per-call cost beyond this (1000 s) is no measurement: such a figure (1e308 from a broken
# writer) is refused with the field named, before any chart has to place it on an axis.
MAX_NS = 1e12


class Malformed(ValueError):
    """A document whose structure is not what its schema says."""


def obj(v: Any, what: str) -> dict:
    if not isinstance(v, dict):
        raise Malformed(f"{what} is not an object")
    return v


def lst(v: Any, what: str) -> list:
    if not isinstance(v, list):
        raise Malformed(f"{what} is not a list")
    return v


@overload
def string(v: Any, what: str, optional: Literal[False]) -> str: ...
@overload
def string(v: Any, what: str, optional: bool = True) -> Optional[str]: ...
def string(v: Any, what: str, optional: bool = True) -> Optional[str]:
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise Malformed(f"{what} is not a string")
    return v


@overload
def num(v: Any, what: str, optional: Literal[False]) -> float: ...
@overload
def num(v: Any, what: str, optional: bool = True) -> Optional[float]: ...
def num(v: Any, what: str, optional: bool = True) -> Optional[float]:
    """A finite number (bool is not one); None when optional and absent."""
    t = type(v)
    if t is float:
        if math.isfinite(v):
            return v
        raise Malformed(f"{what} is not a number")
    if t is int:
        return float(v)
    if v is None and optional:
        return None
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise Malformed(f"{what} is not a number")
    return float(v)


def boolean(v: Any, what: str) -> bool:
    """true or false; absent (None) reads as false."""
    if v is None:
        return False
    if not isinstance(v, bool):
        raise Malformed(f"{what} is not true or false")
    return v


def stat(v: Any, what: str) -> Optional[Stat]:
    """A per-call cost {median, p10, p90, samples?} in ns: ordered, and within 0 to MAX_NS."""
    if v is None:
        return None
    o = obj(v, what)
    med = num(o.get("median"), what + ".median", optional=False)
    p10 = num(o.get("p10", med), what + ".p10")
    p90 = num(o.get("p90", med), what + ".p90")
    p10 = med if p10 is None else p10
    p90 = med if p90 is None else p90
    if not p10 <= med <= p90:
        raise Malformed(f"{what}: p10 <= median <= p90 does not hold")
    if med < 0 or p90 > MAX_NS:
        raise Malformed(f"{what}: {max(abs(med), p90):g} ns per call is no measurement "
                        f"(0 to {MAX_NS:g} ns)")
    return Stat(med, p10, p90, _samples(o.get("samples"), what + ".samples"))


def cost(v: Any, what: str, field: str = "median") -> Optional[float]:
    """One field of a cost in ns, None when absent or null: a cost is an object {"median",
    "p10", "p90", "p99", "min", "max", "mean"} (the /2 schemas, docs/json.md "Costs"); a
    plain number (the /1 schemas) is a median, and knows no other field."""
    if isinstance(v, dict):
        return num(v.get(field), f"{what}.{field}")
    if field != "median":
        num(v, what)            # still a number, or malformed
        return None
    return num(v, what)


def _samples(v: Any, what: str) -> Optional[Tuple[float, ...]]:
    """bench's per-sample ns per call (optional): the bootstrap's data.  A sample below 0
    (the loop's cost over-subtracted from a sub-nanosecond read) counts as 0."""
    if v is None:
        return None
    vals = tuple(max(num(x, f"{what}[{i}]", optional=False), 0.0) for i, x in enumerate(lst(v, what)))
    if any(x > MAX_NS for x in vals):
        raise Malformed(f"{what}: a sample beyond {MAX_NS:g} ns per call is no measurement")
    return vals or None


# --- JSON text ---------------------------------------------------------------------------

_SURROGATE = re.compile("[\ud800-\udfff]")   # json pairs a valid pair: what is left is lone
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _no_surrogates(doc: Any) -> Any:
    """A lone surrogate ("\\ud800", legal JSON, not a character) becomes U+FFFD in every
    string: it cannot be encoded as UTF-8 (the HTML file), drawn (matplotlib) or printed."""
    if isinstance(doc, str):
        return _SURROGATE.sub("\ufffd", doc)
    if isinstance(doc, list):
        return [_no_surrogates(v) for v in doc]
    if isinstance(doc, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in doc.items()}
    return doc


def parse_json(text: str) -> Any:
    """json.loads, with lone surrogates replaced (only walked when the text escapes one)."""
    doc = json.loads(text)
    return _no_surrogates(doc) if _SURROGATE_ESCAPE.search(text) else doc
