# SPDX-License-Identifier: MIT
"""Reading bundles (clockscope.bundle/1) and plain --json documents of single commands
(clockscope.bench/1, clockscope.doctor/1, clockscope.warp/1, clockscope.facts/1,
clockscope.runtimes/1, clockscope.ladder/1) into Machines.  Every file is read on its own: a bad one yields a
Problem naming the file and what is wrong, and the others are still reported."""

import json
import math
import os
import re
import stat
from typing import List, Optional, Tuple

from . import ladder
from . import profile
from .analysis import HEADLINE
from .model import Diagnosis, Finding, Machine, Measure, Problem, Stat, WarpPairs

BUNDLE_KIND = "clockscope.bundle"
BUNDLE_VERSION = 1
# The part schemas this report reads, with the newest version it understands.
PART_VERSIONS = {"bench": 1, "doctor": 1, "warp": 1, "facts": 1, "runtimes": 1, "ladder": 1,
                 "profile": 1}
# Parts whose absence from a bundle is reported (the others are optional).
EXPECTED_PARTS = ("bench", "doctor", "warp")
MAX_FILE_BYTES = 256 << 20
# A per-call cost beyond this (1000 s) is no measurement: such a figure (1e308 from a broken
# writer) is refused with the field named, before any chart has to place it on an axis.
MAX_NS = 1e12

TABLE_IDS = frozenset(HEADLINE)
_SCHEMA_RE = re.compile(r"^clockscope\.([a-z_.]+)/([0-9]+)$")


class Malformed(Exception):
    """A document whose structure is not what its schema says."""


# --- typed accessors: each returns the value or raises Malformed naming the field -------

def _obj(v, what) -> dict:
    if not isinstance(v, dict):
        raise Malformed(f"{what} is not an object")
    return v


def _list(v, what) -> list:
    if not isinstance(v, list):
        raise Malformed(f"{what} is not a list")
    return v


def _str(v, what, optional=True) -> Optional[str]:
    if v is None and optional:
        return None
    if not isinstance(v, str):
        raise Malformed(f"{what} is not a string")
    return v


def _num(v, what, optional=True) -> Optional[float]:
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


def _bool(v, what) -> bool:
    if v is None:
        return False
    if not isinstance(v, bool):
        raise Malformed(f"{what} is not true or false")
    return v


def _stat(v, what) -> Optional[Stat]:
    if v is None:
        return None
    o = _obj(v, what)
    med = _num(o.get("median"), what + ".median", optional=False)
    p10 = _num(o.get("p10", med), what + ".p10")
    p90 = _num(o.get("p90", med), what + ".p90")
    p10 = med if p10 is None else p10
    p90 = med if p90 is None else p90
    if not p10 <= med <= p90:
        raise Malformed(f"{what}: p10 <= median <= p90 does not hold")
    if med < 0 or p90 > MAX_NS:
        raise Malformed(f"{what}: {max(abs(med), p90):g} ns per call is no measurement "
                        f"(0 to {MAX_NS:g} ns)")
    return Stat(med, p10, p90)


def label_of(path: Optional[str], api: str, clock: Optional[str]) -> str:
    """'clock_gettime(CLOCK_MONOTONIC)', 'gettimeofday()', 'syscall clock_gettime(...)'."""
    call = f"{api}(CLOCK_{clock.upper()})" if clock else f"{api}()"
    if path in (None, "libc"):
        return call
    return f"{path} {call}"


# --- parts --------------------------------------------------------------------------

def _bench(doc: dict, m: Machine) -> None:
    for i, r in enumerate(_list(doc.get("results"), "results")):
        what = f"results[{i}]"
        r = _obj(r, what)
        rid = _str(r.get("id"), what + ".id", optional=False)
        if not m.every_method and rid not in TABLE_IDS and not rid.startswith("counter."):
            continue                    # a fleet's time goes here: read what is shown
        api = _str(r.get("api"), what + ".api") or rid
        label = label_of(_str(r.get("path"), what + ".path"), api, _str(r.get("clock"), what + ".clock"))
        stat = None
        why = None
        if not _bool(r.get("available"), what + ".available"):
            why = _str(r.get("why_unavailable"), what + ".why_unavailable") or "not available"
        elif r.get("error") is not None:
            why = _str(r.get("error"), what + ".error")
        else:
            stat = _stat(r.get("ns_per_call"), what + ".ns_per_call")
        m.measures[rid] = Measure(rid, label, stat, _num(r.get("calls_per_sec"), what + ".calls_per_sec"),
                                  _bool(r.get("noisy"), what + ".noisy"), why)


def _doctor(doc: dict, m: Machine) -> None:
    findings = []
    for i, f in enumerate(_list(doc.get("findings", []), "findings")):
        what = f"findings[{i}]"
        f = _obj(f, what)
        findings.append(Finding(
            _str(f.get("id"), what + ".id", optional=False),
            _str(f.get("severity"), what + ".severity") or "info",
            _str(f.get("title"), what + ".title") or "",
            [_str(e, what + ".evidence") or "" for e in _list(f.get("evidence", []), what + ".evidence")],
            _str(f.get("meaning"), what + ".meaning"),
            [_str(e, what + ".fix") or "" for e in _list(f.get("fix", []), what + ".fix")],
            _str(f.get("gain"), what + ".gain")))
    facts = _obj(doc.get("facts") or {}, "facts")
    per_call = None
    proof = doc.get("proof")
    if proof is not None:
        count = _obj(_obj(proof, "proof").get("syscall_count") or {}, "proof.syscall_count")
        calls = _num(count.get("calls"), "proof.syscall_count.calls")
        sys_ = _obj(count.get("syscalls") or {}, "proof.syscall_count.syscalls")
        mono = _num(sys_.get("clock_gettime_monotonic"), "syscalls.clock_gettime_monotonic")
        if _bool(count.get("counted"), "proof.syscall_count.counted") and calls and mono is not None:
            per_call = mono / calls
    fast = doc.get("fast_path")
    m.diagnosis = Diagnosis(
        _str(doc.get("verdict"), "verdict") or "unknown",
        _str(doc.get("summary"), "summary") or "",
        None if fast is None else _bool(fast, "fast_path"),
        _str(facts.get("clocksource"), "facts.clocksource"),
        per_call, findings)
    if not m.description.get("clocksource") and m.diagnosis.clocksource:
        m.description["clocksource"] = m.diagnosis.clocksource
    for key in ("machine", "kernel", "cpu_model", "virtualization"):
        v = facts.get(key)
        target = "arch" if key == "machine" else key
        if isinstance(v, str) and not m.description.get(target):
            m.description[target] = v


def _warp_pairs(meth: dict, what: str) -> WarpPairs:
    back = {}
    cpus = set()
    compared = 0
    for j, p in enumerate(_list(meth.get("pairs"), what + ".pairs")):
        p = _obj(p, f"{what}.pairs[{j}]")
        a = int(_num(p.get("cpu_a"), "cpu_a", optional=False))
        b = int(_num(p.get("cpu_b"), "cpu_b", optional=False))
        cpus.update((a, b))
        compared += int(_num(p.get("comparisons"), "comparisons") or 0)
        back[(a, b)] = int(_num(p.get("backward_a_to_b"), "backward_a_to_b") or 0)
        if a != b:
            back[(b, a)] = int(_num(p.get("backward_b_to_a"), "backward_b_to_a") or 0)
    steps = int(_num(meth.get("backward_steps"), what + ".backward_steps") or 0)
    return WarpPairs(_str(meth.get("id"), what + ".id") or "?", sorted(cpus), back,
                     _num(meth.get("max_backward_ns"), what + ".max_backward_ns"), steps, compared)


def _warp(doc: dict, m: Machine) -> None:
    # The matrix shown: the must-be-monotonic method that went back most; without one,
    # clock_gettime(MONOTONIC), the clock programs read.  Only its pairs are read.
    best = None
    for i, meth in enumerate(_list(doc.get("methods"), "methods")):
        what = f"methods[{i}]"
        meth = _obj(meth, what)
        if not meth.get("pairs"):
            continue
        steps = int(_num(meth.get("backward_steps"), what + ".backward_steps") or 0)
        must = _bool(meth.get("must_be_monotonic"), what + ".must_be_monotonic")
        score = (must and steps > 0, meth.get("id") == "libc.clock_gettime.monotonic", steps)
        if best is None or score > best[0]:
            best = (score, meth, what)
    m.warp = _warp_pairs(best[1], best[2]) if best else None
    m.warp_faults = int(_num(doc.get("faults"), "faults") or 0)


def _runtimes(doc: dict, m: Machine) -> None:
    import sys
    from . import runtimes
    runtimes.read(doc, m, sys.modules[__name__])


def _facts(doc: dict, m: Machine) -> None:
    _list(doc.get("facts"), "facts")


READERS = {"bench": _bench, "doctor": _doctor, "warp": _warp, "runtimes": _runtimes, "facts": _facts,
           "ladder": ladder.read,
           "profile": lambda doc, m: profile.read(doc, m, (_obj, _list, _str, _num))}


def _schema_of(doc) -> Tuple[Optional[str], Optional[int]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("schema"), str):
        return None, None
    mt = _SCHEMA_RE.match(doc["schema"])
    return (mt.group(1), int(mt.group(2))) if mt else (None, None)


def _read_part(name: str, doc, m: Machine, source: str, problems: List[Problem]) -> None:
    if isinstance(doc, dict) and "error" in doc and "schema" not in doc:
        err = doc.get("error")
        m.part_errors[name] = err if isinstance(err, str) else "failed"
        problems.append(Problem(source, f"part '{name}' failed when collected: {m.part_errors[name]}"))
        return
    kind, version = _schema_of(doc)
    if kind != name:
        problems.append(Problem(source, f"part '{name}' is not a clockscope.{name} document: skipped"))
        m.part_errors[name] = "not a clockscope document"
        return
    if version > PART_VERSIONS[name]:
        problems.append(Problem(source, f"part '{name}' has schema clockscope.{name}/{version}, newer than "
                                        f"this report reads (/{PART_VERSIONS[name]}): skipped; "
                                        "upgrade clockscope_report"))
        m.part_errors[name] = "newer schema"
        return
    try:
        READERS[name](doc, m)
        m.parts.append(name)
    except (Malformed, TypeError, ValueError, OverflowError) as e:
        problems.append(Problem(source, f"part '{name}' is malformed ({e}): skipped"))
        m.part_errors[name] = f"malformed: {e}"


def _describe(obj, m: Machine) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (str, int, float)) and not isinstance(v, bool) and k not in m.description:
                m.description[k] = v


_SURROGATE = re.compile("[\ud800-\udfff]")   # json pairs a valid pair: what is left is lone
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _no_surrogates(doc):
    """A lone surrogate ("\\ud800", legal JSON, not a character) becomes U+FFFD in every
    string: it cannot be encoded as UTF-8 (the HTML file), drawn (matplotlib) or printed."""
    if isinstance(doc, str):
        return _SURROGATE.sub("\ufffd", doc)
    if isinstance(doc, list):
        return [_no_surrogates(v) for v in doc]
    if isinstance(doc, dict):
        return {_no_surrogates(k): _no_surrogates(v) for k, v in doc.items()}
    return doc


def parse_json(text: str):
    """json.loads, with lone surrogates replaced (only walked when the text escapes one)."""
    doc = json.loads(text)
    return _no_surrogates(doc) if _SURROGATE_ESCAPE.search(text) else doc


def _json_error(e: json.JSONDecodeError, data: bytes) -> str:
    end = len(data.rstrip())
    if e.pos >= end or e.msg.startswith("Unterminated string"):
        return f"truncated: the JSON text ends early ({e.msg} at byte {e.pos} of {len(data)})"
    return f"not JSON: {e.msg} at line {e.lineno} column {e.colno}"


def load_file(path: str, problems: List[Problem], every_method: bool = True) -> Optional[Machine]:
    """One file's Machine, or None when nothing in it can be reported (problems say why)."""
    source = path
    try:
        # A FIFO would block and /dev/zero never end: only regular files are read.
        if not stat.S_ISREG(os.stat(path).st_mode):
            problems.append(Problem(source, "not a regular file"))
            return None
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        problems.append(Problem(source, f"cannot read: {e.strerror or e}"))
        return None
    if len(data) > MAX_FILE_BYTES:
        problems.append(Problem(source, f"larger than {MAX_FILE_BYTES >> 20} MiB: not a bundle"))
        return None
    if not data.strip():
        problems.append(Problem(source, "empty file"))
        return None
    try:
        # Decoded as UTF-8 here: json.loads(bytes) would guess UTF-16 from a stray BOM.
        doc = parse_json(data.decode("utf-8"))
    except UnicodeDecodeError as e:
        problems.append(Problem(source, f"not UTF-8 text (byte {e.start})"))
        return None
    except json.JSONDecodeError as e:
        problems.append(Problem(source, _json_error(e, data)))
        return None
    except RecursionError:
        problems.append(Problem(source, "nested too deeply"))
        return None
    kind, version = _schema_of(doc)
    if kind is None:
        problems.append(Problem(source, "not a clockscope document (no \"schema\": \"clockscope.KIND/N\")"))
        return None
    stem = os.path.splitext(os.path.basename(path))[0] or path
    if kind == "bundle":
        if version > BUNDLE_VERSION:
            problems.append(Problem(source, f"a bundle of schema clockscope.bundle/{version}, newer than this "
                                            f"report reads (clockscope.bundle/{BUNDLE_VERSION}): skipped; "
                                            "upgrade clockscope_report"))
            return None
        return _load_bundle(doc, source, stem, problems, every_method)
    if kind not in PART_VERSIONS:
        problems.append(Problem(source, f"a clockscope.{kind} document: not one this report reads "
                                        f"(bundles and {', '.join(sorted(PART_VERSIONS))})"))
        return None
    m = Machine(stem, source, {}, every_method=every_method)
    if isinstance(doc.get("machine"), dict):
        _describe(doc["machine"], m)
    _read_part(kind, doc, m, source, problems)
    return m if m.parts else None


def _load_bundle(doc: dict, source: str, stem: str, problems: List[Problem],
                 every_method: bool) -> Optional[Machine]:
    machine = doc.get("machine")
    if not isinstance(machine, dict):
        problems.append(Problem(source, "bundle has no \"machine\" object: named after the file"))
        machine = {}
    name = machine.get("name")
    if not isinstance(name, str) or not name.strip():
        name = stem
    # A name is shown everywhere (tables, chart labels): no control characters in it.
    name = re.sub("[\x00-\x1f\x7f-\x9f]", "?", name.strip()[:100])
    m = Machine(name, source, {}, every_method=every_method)
    _describe(machine, m)
    version = doc.get("clockscope")
    if isinstance(version, dict) and isinstance(version.get("version"), str):
        m.version = version["version"]
    if isinstance(doc.get("started"), str):
        m.started = doc["started"]
    parts = doc.get("parts")
    if not isinstance(parts, dict):
        problems.append(Problem(source, "bundle has no \"parts\" object: nothing to report"))
        return None
    for name_ in EXPECTED_PARTS:
        if name_ not in parts:
            problems.append(Problem(source, f"bundle has no '{name_}' part"))
    for pname, pdoc in parts.items():
        if pname in READERS:
            _read_part(pname, pdoc, m, source, problems)
        # parts of later commands (profile, ...) are kept out silently: a newer
        # collect may add them, and this report does not read them yet.
    return m if m.parts or m.part_errors else None


def load_all(paths: List[str], problems: List[Problem], every_method: bool = True) -> List[Machine]:
    """Every file's Machine, names made unique: a name seen before becomes 'name (file)'.
    Without every_method, only the bench methods the table shows are read."""
    machines = []
    seen = {}
    from . import doctor_lines  # one machine per facts root (doctor --roots --json)
    loaded = []
    for path in paths:
        lines = doctor_lines.load(path, problems, every_method, _read_part)
        loaded += [(path, m) for m in lines] if lines is not None else \
            [(path, load_file(path, problems, every_method))]
    for path, m in loaded:
        if m is None:
            continue
        if m.name in seen:
            new = f"{m.name} ({os.path.basename(path)})"
            k = 2
            while new in seen:
                new = f"{m.name} ({os.path.basename(path)} #{k})"
                k += 1
            problems.append(Problem(path, f"machine name '{m.name}' is also the name of {seen[m.name]}: "
                                          f"shown as '{new}'"))
            m.name = new
        seen[m.name] = path
        machines.append(m)
    return machines
