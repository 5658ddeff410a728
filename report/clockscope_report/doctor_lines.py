# SPDX-License-Identifier: MIT
"""`clockscope doctor --roots DIR --json` output (JSON lines: one clockscope.doctor/2 document
per facts root, each with a "root" field; clockscope.doctor.error/1 lines for roots that
could not be read; a clockscope.doctor.fleet/1 summary last) read as one machine per root,
so that a support team's thousand sosreports become the report's fleet summary."""

import json
import os
import stat
from typing import List, Optional

from .checks import parse_json
from .model import Machine, Problem

MAX_FILE_BYTES = 1 << 30


def _first_doc(data: bytes) -> Optional[dict]:
    line = data.split(b"\n", 1)[0].strip()
    try:
        doc = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    return doc if isinstance(doc, dict) else None


def _is_lines(doc: Optional[dict]) -> bool:
    if not doc:
        return False
    schema = doc.get("schema")
    return (schema in ("clockscope.doctor/1", "clockscope.doctor/2") and isinstance(doc.get("root"), str)) or \
        schema in ("clockscope.doctor.error/1", "clockscope.doctor.fleet/1")


def _name(root: str) -> str:
    base = os.path.basename(root.rstrip("/")) or root
    for tail in (".tar.xz", ".tar.gz", ".tgz", ".txz", ".tar"):
        if base.endswith(tail):
            base = base[: -len(tail)]
            break
    return "".join("?" if ord(c) < 32 or 0x7f <= ord(c) <= 0x9f else c for c in base)[:100]


def load(path: str, problems: List[Problem], every_method: bool, read_part) -> Optional[List[Machine]]:
    """The machines of a doctor JSON-lines file, or None when path is not one (the caller
    then reads it as a bundle or a single document).  read_part(part name, document, machine, source,
    problems) reads one part into the machine (load._read_part)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb") as f:
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if not _is_lines(_first_doc(data)):
        return None
    if len(data) > MAX_FILE_BYTES:
        problems.append(Problem(path, f"larger than {MAX_FILE_BYTES >> 20} MiB: not read"))
        return []
    machines, roots, summary = [], 0, None
    for n, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        where = f"{path}:{n}"
        try:
            doc = parse_json(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
            problems.append(Problem(where, f"not a JSON document ({e.__class__.__name__}): skipped"))
            continue
        schema = doc.get("schema") if isinstance(doc, dict) else None
        if schema == "clockscope.doctor.fleet/1":
            summary = doc
            continue
        roots += 1
        root = doc.get("root") if isinstance(doc, dict) else None
        if not isinstance(root, str):
            problems.append(Problem(where, "a line without a \"root\": skipped"))
            continue
        if schema == "clockscope.doctor.error/1":
            err = doc.get("error")
            problems.append(Problem(where, f"root '{root}' could not be read: "
                                           f"{err if isinstance(err, str) else 'no reason given'}"))
            continue
        m = Machine(_name(root), where, {"root": root}, every_method=every_method)
        read_part("doctor", doc, m, where, problems)
        if m.parts:
            machines.append(m)
    if summary is None:
        problems.append(Problem(path, "no summary line (clockscope.doctor.fleet/1): the run may "
                                      "have been cut short"))
    elif summary.get("roots") != roots:
        problems.append(Problem(path, f"the summary counts {summary.get('roots')} roots, the file "
                                      f"holds {roots}: lines are missing"))
    return machines
