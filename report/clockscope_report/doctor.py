# SPDX-License-Identifier: MIT
"""The doctor part (clockscope.doctor/2, and /1: the proof's timings, the one change, are not
read here): the verdict, the proof's syscalls per
clock_gettime, the findings, into Machine.diagnosis (the explanations of analysis.py and the
HTML's findings are made of it); its facts fill what the machine's description lacks."""

from .checks import boolean, lst, num, obj, string
from .model import Diagnosis, Finding, Machine
from .part import Part


def read(doc: dict, m: Machine) -> None:
    findings = []
    for i, f in enumerate(lst(doc.get("findings", []), "findings")):
        what = f"findings[{i}]"
        f = obj(f, what)
        findings.append(Finding(
            string(f.get("id"), what + ".id", optional=False),
            string(f.get("severity"), what + ".severity") or "info",
            string(f.get("title"), what + ".title") or "",
            [string(e, what + ".evidence") or "" for e in lst(f.get("evidence", []), what + ".evidence")],
            string(f.get("meaning"), what + ".meaning"),
            [string(e, what + ".fix") or "" for e in lst(f.get("fix", []), what + ".fix")],
            string(f.get("gain"), what + ".gain")))
    facts = obj(doc.get("facts") or {}, "facts")
    per_call = None
    proof = doc.get("proof")
    if proof is not None:
        count = obj(obj(proof, "proof").get("syscall_count") or {}, "proof.syscall_count")
        calls = num(count.get("calls"), "proof.syscall_count.calls")
        sys_ = obj(count.get("syscalls") or {}, "proof.syscall_count.syscalls")
        mono = num(sys_.get("clock_gettime_monotonic"), "syscalls.clock_gettime_monotonic")
        if boolean(count.get("counted"), "proof.syscall_count.counted") and calls and mono is not None:
            per_call = mono / calls
    fast = doc.get("fast_path")
    m.diagnosis = Diagnosis(
        string(doc.get("verdict"), "verdict") or "unknown",
        string(doc.get("summary"), "summary") or "",
        None if fast is None else boolean(fast, "fast_path"),
        string(facts.get("clocksource"), "facts.clocksource"),
        per_call, findings)
    if not m.description.get("clocksource") and m.diagnosis.clocksource:
        m.description["clocksource"] = m.diagnosis.clocksource
    ev = facts.get("emulation_evidence")
    if isinstance(ev, list) and ev and not m.description.get("emulation_evidence"):
        m.description["emulation_evidence"] = "; ".join(e for e in ev if isinstance(e, str))
    for key in ("machine", "kernel", "cpu_model", "virtualization", "emulation"):
        v = facts.get(key)
        target = "arch" if key == "machine" else key
        if isinstance(v, str) and not m.description.get(target):
            m.description[target] = v


PART = Part("doctor", 2, read, expected=True)
