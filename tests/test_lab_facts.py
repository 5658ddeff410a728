# SPDX-License-Identifier: MIT
"""The doctor offline on what a platform offers (tests/data/roots/<case>/root, the oracle
in expected.json beside it): when the TSC is lost, the next clocksource decides, and which
one exists depends on the platform (bare metal and most hypervisors have no paravirtual
clock; KVM, Hyper-V and Xen do, each with its own condition for the vDSO).  Where the
facts name the platform the verdict is decided; where a fact is missing, the most likely
verdict is labelled inferred and the missing fact named.  These cover what the lab cannot
boot here (Xen, Hyper-V, kvm-clock: they need KVM)."""
import json
from pathlib import Path

import pytest

from conftest import ROOT, run
from test_doctor import check_actions

ROOTS = ROOT / "tests" / "data" / "roots"
EXIT = {"ok": 0, "slow": 3, "broken": 4, "unknown": 5}


def cases():
    return sorted(p.name for p in ROOTS.iterdir() if (p / "expected.json").is_file())


def test_there_are_cases():
    assert len(cases()) >= 15


@pytest.mark.parametrize("name", cases())
def test_platform_case(clockscope, name):
    want = json.loads((ROOTS / name / "expected.json").read_text())
    proc = run([clockscope, "doctor", "--root", ROOTS / name / "root", "--json"])
    doc = json.loads(proc.stdout)
    assert proc.returncode == EXIT[want["verdict"]], proc.stderr
    assert doc["verdict"] == want["verdict"], doc["summary"]
    assert doc["inferred"] is want["inferred"], doc["summary"]
    if want["inferred"]:
        assert want["missing_fact_mentions"] in doc["missing_fact"], doc["missing_fact"]
        assert "inferred; not known: " in doc["summary"]
    else:
        assert doc["missing_fact"] is None
    ids = {f["id"] for f in doc["findings"]}
    assert set(want["findings"]) <= ids, sorted(ids)
    check_actions(doc)   # every fix also as data, valid against docs/json.md
    if doc["verdict"] == "slow":   # a slow verdict always comes with a warning that has a fix
        assert any(f["severity"] == "warning" and f["fix"] for f in doc["findings"]), sorted(ids)
    text = " ".join(run([clockscope, "doctor", "--root", ROOTS / name / "root"]).stdout.split())
    if want["inferred"]:
        assert text.startswith("clockscope doctor: inferred (not decided): ")
        assert "(inferred)" in text and "inferred; not known" in text
