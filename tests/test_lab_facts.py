# SPDX-License-Identifier: MIT
"""The doctor offline on what a platform offers (tests/data/roots/<case>/root, the oracle
in expected.json beside it): when the TSC is lost, the next clocksource decides, and which
one exists depends on the platform (bare metal and most hypervisors have no paravirtual
clock; KVM, Hyper-V and Xen do, each with its own condition for the vDSO).  Where the
facts name the platform the verdict is decided; where a fact is missing, the most likely
verdict is labelled inferred and the missing fact named.  These cover what the lab cannot
boot here (Xen, Hyper-V, kvm-clock: they need KVM)."""
import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, flat, run
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


def test_facts_shows_what_each_fact_says(clockscope, tmp_path):
    """`facts` lists values, not file sizes: the clocksource, the CPUs and their model, the
    kernel version, a few key=value lines joined, a long log by its lines; a one-line value
    whole, however long (wrapped on indented lines); the same summary in --json beside the size."""
    root = tmp_path / "root"
    shutil.copytree(ROOTS / "riscv-sifive-u74" / "root", root)
    (root / "proc/cmdline").write_text("console=ttyS0 " + "x" * 200 + " clocksource=riscv\n")
    (root / "dmesg").write_text("".join(f"[    0.{i:06d}] line {i}\n" for i in range(40)))
    (root / "clockscope").mkdir()
    (root / "clockscope/cpu").write_text("arch=riscv64\ntimebase_hz=1000000\n")
    proc = run([clockscope, "facts", "--root", root])
    assert proc.returncode == 0, proc.stderr
    said, path = {}, None
    for line in proc.stdout.splitlines()[1:]:   # a path at 2 spaces, its value below it,
        if not line.startswith("   "):          # wrapped within 100 columns
            path = line.strip()
        else:
            assert len(line) <= 100, line
            said[path] = (said[path] + " " if path in said else "") + line.strip()
    assert said["sys/devices/system/clocksource/clocksource0/current_clocksource"] == \
        "riscv_clocksource"
    assert said["proc/cpuinfo"] == "1 CPU: sifive,u74-mc"
    assert said["proc/version"] == "Linux version 6.6.20 (builder) #1 SMP"
    assert said["proc/cmdline"].endswith(" clocksource=riscv")      # whole, 220 characters
    assert said["proc/cmdline"].replace(" ", "") == "console=ttyS0" + "x" * 200 + "clocksource=riscv"
    assert said["dmesg"].startswith("40 lines, from: [    0.000000] line 0")
    assert said["clockscope/cpu"] == "arch=riscv64, timebase_hz=1000000"
    assert said["sys/hypervisor/type"] == "not known"
    assert "bytes" not in proc.stdout
    doc = json.loads(run([clockscope, "facts", "--root", root, "--json"]).stdout)
    facts = {f["path"]: f for f in doc["facts"]}
    assert facts["proc/cpuinfo"]["summary"] == "1 CPU: sifive,u74-mc"
    assert facts["proc/cpuinfo"]["bytes"] > 0
@pytest.mark.parametrize("name", cases())
def test_emulation_recorded(clockscope, name):
    """An emulated CPU (QEMU TCG) is recorded with what gave it away, on every arch; a KVM
    guest on the same virt board, and every hardware or hypervisor case, is not emulated."""
    want = json.loads((ROOTS / name / "expected.json").read_text())
    proc = run([clockscope, "doctor", "--root", ROOTS / name / "root", "--json"])
    facts = json.loads(proc.stdout)["facts"]
    assert facts["emulation"] == want.get("emulation"), facts["emulation_evidence"]
    if want.get("emulation"):
        assert any(want["emulation_evidence_mentions"] in e for e in facts["emulation_evidence"])
        text = flat(run([clockscope, "doctor", "--root", ROOTS / name / "root"]).stdout)
        assert f"emulated CPU: {want['emulation']} (" in text and "the emulator's" in text
    else:
        assert facts["emulation_evidence"] == []


def test_verbose_footer_offers_only_what_is_not_shown(clockscope):
    """The footer points to --verbose only when the findings were cut short; with --verbose it
    keeps the exit status alone."""
    root = ROOTS / "xen-guest-nothing-else" / "root"
    short = run([clockscope, "doctor", "--root", root]).stdout.splitlines()[-1]
    full = run([clockscope, "doctor", "--root", root, "--verbose"]).stdout.splitlines()[-1]
    assert short == "--verbose shows every finding in full, --json everything. Exit status 5 (unknown)."
    assert full == "Exit status 5 (unknown)."
