# SPDX-License-Identifier: MIT
"""Reading bundles (clockscope.bundle/1) and plain --json documents of single commands (one
per part of registry.PARTS: clockscope.bench/1, clockscope.doctor/1, ...) into Machines, each
part by its own reader.  Every file is read on its own: a bad one yields a Problem naming
the file and what is wrong, and the others are still reported."""

import json
import os
import re
import stat
from functools import partial
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from . import doctor_lines
from .checks import Malformed, parse_json
from .model import Machine, Problem
from .part import Part

BUNDLE_KIND = "clockscope.bundle"
BUNDLE_VERSION = 1
MAX_FILE_BYTES = 256 << 20

_SCHEMA_RE = re.compile(r"^clockscope\.([a-z_.]+)/([0-9]+)$")


def _schema_of(doc: Any) -> Optional[Tuple[str, int]]:
    """(KIND, N) from the document's "schema": "clockscope.KIND/N", or None."""
    if not isinstance(doc, dict) or not isinstance(doc.get("schema"), str):
        return None
    mt = _SCHEMA_RE.match(doc["schema"])
    return (mt.group(1), int(mt.group(2))) if mt else None


def _read_part(parts: Mapping[str, Part], name: str, doc, m: Machine, source: str,
               problems: List[Problem]) -> None:
    if isinstance(doc, dict) and "error" in doc and "schema" not in doc:
        err = doc.get("error")
        m.part_errors[name] = err if isinstance(err, str) else "failed"
        problems.append(Problem(source, f"part '{name}' failed when collected: {m.part_errors[name]}"))
        return
    schema = _schema_of(doc)
    if schema is None or schema[0] != name:
        problems.append(Problem(source, f"part '{name}' is not a clockscope.{name} document: skipped"))
        m.part_errors[name] = "not a clockscope document"
        return
    version = schema[1]
    part = parts[name]                  # the parts this report reads, each with its newest version
    if version > part.version:
        problems.append(Problem(source, f"part '{name}' has schema clockscope.{name}/{version}, newer than "
                                        f"this report reads (/{part.version}): skipped; "
                                        "upgrade clockscope_report"))
        m.part_errors[name] = "newer schema"
        return
    try:
        part.read(doc, m)
        m.parts.append(name)
    except (Malformed, TypeError, ValueError, OverflowError) as e:
        problems.append(Problem(source, f"part '{name}' is malformed ({e}): skipped"))
        m.part_errors[name] = f"malformed: {e}"


def _describe(obj, m: Machine) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(v, (str, int, float)) and not isinstance(v, bool) and k not in m.description:
                m.description[k] = v


def _emulation(obj, m: Machine) -> None:
    """machine.emulation ("qemu-tcg") and what gave it away, kept as one line of text."""
    if not isinstance(obj, dict):
        return
    ev = obj.get("emulation_evidence")
    if isinstance(ev, list) and ev and "emulation_evidence" not in m.description:
        m.description["emulation_evidence"] = "; ".join(str(e) for e in ev if isinstance(e, str))


def _json_error(e: json.JSONDecodeError, data: bytes) -> str:
    end = len(data.rstrip())
    if e.pos >= end or e.msg.startswith("Unterminated string"):
        return f"truncated: the JSON text ends early ({e.msg} at byte {e.pos} of {len(data)})"
    return f"not JSON: {e.msg} at line {e.lineno} column {e.colno}"


def load_file(path: str, problems: List[Problem], parts: Mapping[str, Part],
              every_method: bool = True) -> Optional[Machine]:
    """One file's Machine, or None when nothing in it can be reported (problems say why);
    parts: the parts this report reads, by name."""
    source = path
    try:
        # A FIFO would block and /dev/zero never end: only regular files are read.
        if not stat.S_ISREG(os.stat(path).st_mode):
            problems.append(Problem(source, "not a regular file", unreadable=True))
            return None
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        problems.append(Problem(source, f"cannot read: {e.strerror or e}", unreadable=True))
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
    schema = _schema_of(doc)
    if schema is None:
        problems.append(Problem(source, "not a clockscope document (no \"schema\": \"clockscope.KIND/N\")"))
        return None
    kind, version = schema
    stem = os.path.splitext(os.path.basename(path))[0] or path
    if kind == "bundle":
        if version > BUNDLE_VERSION:
            problems.append(Problem(source, f"a bundle of schema clockscope.bundle/{version}, newer than this "
                                            f"report reads (clockscope.bundle/{BUNDLE_VERSION}): skipped; "
                                            "upgrade clockscope_report"))
            return None
        return _load_bundle(doc, source, stem, problems, parts, every_method)
    if kind not in parts:
        problems.append(Problem(source, f"a clockscope.{kind} document: not one this report reads "
                                        f"(bundles and {', '.join(sorted(parts))})"))
        return None
    m = Machine(stem, source, {}, every_method=every_method)
    if isinstance(doc.get("machine"), dict):
        _describe(doc["machine"], m)
    _read_part(parts, kind, doc, m, source, problems)
    return m if m.parts else None


def _load_bundle(doc: dict, source: str, stem: str, problems: List[Problem],
                 parts: Mapping[str, Part], every_method: bool) -> Optional[Machine]:
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
    _emulation(machine, m)
    version = doc.get("clockscope")
    if isinstance(version, dict) and isinstance(version.get("version"), str):
        m.version = version["version"]
    if isinstance(doc.get("started"), str):
        m.started = doc["started"]
    found = doc.get("parts")
    if not isinstance(found, dict):
        problems.append(Problem(source, "bundle has no \"parts\" object: nothing to report"))
        return None
    for name_ in (p.name for p in parts.values() if p.expected):
        if name_ not in found:
            problems.append(Problem(source, f"bundle has no '{name_}' part"))
    for pname, pdoc in found.items():
        if pname in parts:
            _read_part(parts, pname, pdoc, m, source, problems)
        # parts of later commands (profile, ...) are kept out silently: a newer
        # collect may add them, and this report does not read them yet.
    return m if m.parts or m.part_errors else None


def load_all(paths: List[str], problems: List[Problem], parts: Sequence[Part],
             every_method: bool = True) -> List[Machine]:
    """Every file's Machine, names made unique: a name seen before becomes 'name (file)'.
    parts: the parts this report reads (registry.PARTS).  Without every_method, only the
    bench methods the table shows are read."""
    machines = []
    seen: Dict[str, str] = {}
    by_name = {p.name: p for p in parts}
    loaded: List[Tuple[str, Optional[Machine]]] = []
    for path in paths:
        # one machine per facts root (doctor --roots --json)
        lines = doctor_lines.load(path, problems, every_method, partial(_read_part, by_name))
        loaded += [(path, m) for m in lines] if lines is not None else \
            [(path, load_file(path, problems, by_name, every_method))]
    for path, m in loaded:
        if m is None:
            continue
        if m.name in seen:
            new = f"{m.name} ({os.path.basename(path)})"
            k = 2
            while new in seen:
                new = f"{m.name} ({os.path.basename(path)} #{k})"
                k += 1
            # Normal in a fleet (every `clockscope vm` guest is "vm"; cloud images share
            # hostnames): a note, and the machine is shown under a name of its own.
            problems.append(Problem(path, f"machine name '{m.name}' is also the name of {seen[m.name]}: "
                                          f"shown as '{new}'", note=True))
            m.name = new
        seen[m.name] = path
        machines.append(m)
    return machines
