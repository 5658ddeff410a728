# SPDX-License-Identifier: MIT
"""The failure lab: every scenario of `clockscope vm --scenario` boots, and inside it the
doctor gives the scenario's expected verdict for the scenario's own reason, and bench
(with libfastclock's methods) measures.  One boot per scenario: the guest runs
`collect --quick --parts doctor,bench`, one command that runs both.

`clockscope run` needs a dynamic program and the shim added to the guest (host arch only):
on the x86_64 scenarios where the kernel has thrown the TSC out, a second boot runs
`run --mode auto` with the shim and even the test-only invariant-TSC override, and
libfastclock must refuse the counter the kernel declared unstable (clocksource=hpet with a
healthy TSC is tests/test_vm_fastclock.py's).  The scenario table itself (names, verdicts, --list-scenarios, bad usage) is checked
without booting."""
import json
import os
import re
import time

import pytest

from conftest import ROOT, make, run, until_fair, flat
from test_vm import VM_TIMEOUT, GUEST_TIMEOUT, decided_by_cost, guest_binaries, our_qemus  # noqa: F401  (fixture)
from test_vm_fastclock import OVERRIDE, SHIM_IN_GUEST, assert_correct, clockloop, facts  # noqa: F401

# name -> (expected verdict, clocksource, finding ids that must be there: the reason)
SCENARIOS = {
    "riscv64-time-trap": ("slow", "riscv_clocksource", {"counter-read-traps"}),
    "riscv64-user-counters": ("ok", "riscv_clocksource", set()),
    "x86_64-hpet": ("slow", "hpet", {"clocksource-no-vdso", "proof-syscalls"}),
    "x86_64-acpi-pm": ("slow", "acpi_pm", {"clocksource-no-vdso", "proof-syscalls"}),
    "x86_64-tsc-unstable": ("slow", "hpet", {"cmdline-tsc-unstable", "proof-syscalls"}),
    "x86_64-tsc-sync": ("slow", "hpet", {"tsc-unsynchronized", "proof-syscalls"}),
    "aarch64-timer-erratum": ("slow", "arch_sys_counter",
                              {"arm-timer-erratum-traps-counter", "proof-syscalls"}),
}


def test_list_names_every_scenario_with_its_verdict(clockscope):
    proc = run([clockscope, "vm", "--list-scenarios"])
    assert proc.returncode == 0, proc.stderr
    listed = dict(re.findall(r"^(\S+)  \(doctor: (\w+)\)$", proc.stdout, re.M))
    assert listed == {k: v[0] for k, v in SCENARIOS.items()}
    for what in ("xen", "hyperv", "kvm-clock"):
        assert what in proc.stdout.split("Not emulated here")[1]
    doc = (ROOT / "docs" / "lab.md").read_text()
    for name in SCENARIOS:
        assert f"`{name}`" in doc, name


@pytest.mark.parametrize("args, message", [
    (["--scenario", "nope", "--", "doctor"], "--scenario: 'nope' is not one of riscv64-time-trap"),
    (["--scenario", "x86_64-hpet", "--arch", "x86_64", "--", "doctor"],
     "--arch and --scenario do not go together"),
    (["--scenario", "x86_64-hpet", "--machine", "q35", "--", "doctor"],
     "--machine and --scenario do not go together"),
    (["--arch", "riscv64", "--machine", "pc", "--", "doctor"],
     "--machine: 'pc' is not one of virt, sifive_u (the riscv64 machine models)"),
    (["--arch", "aarch64", "--machine", "sifive_u", "--", "doctor"], "is not one of virt"),
    (["--list-scenarios", "--", "doctor"], "--list-scenarios does not go with a command"),
    (["--list-scenarios", "--bogus"], "unknown option '--bogus'"),
    (["--", "doctor"], "--arch or --scenario is required"),
    (["--scenario", "x86_64-hpet", "--append", "a" * 1890, "--", "doctor"],
     "--append: the kernel command line would be 1907 bytes (at most 1900)"),
    (["--arch", "x86_64", "--apply-fix", "--", "doctor"], "--apply-fix needs --scenario NAME"),
    (["--scenario", "x86_64-hpet", "--json", "--", "doctor"], "--json goes with --apply-fix"),
])
def test_bad_usage_says_why_without_booting(clockscope, args, message):
    t0 = time.monotonic()
    proc = run([clockscope, "vm", *args], timeout=10)
    assert proc.returncode == 2 and message in proc.stderr, (args, proc.stderr)
    assert time.monotonic() - t0 < 5


def test_missing_dtc_is_named_before_booting(guest_binaries, tmp_path):  # noqa: F811
    """The erratum scenario needs the device-tree compiler: without it, one message
    naming the package, and nothing left behind."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    qemu = run(["sh", "-c", "command -v qemu-system-aarch64"]).stdout.strip()
    (bindir / "qemu-system-aarch64").symlink_to(qemu)
    env = dict(os.environ, PATH=str(bindir), TMPDIR=str(tmp_path))
    proc = run([guest_binaries, "vm", "--scenario", "aarch64-timer-erratum", "--", "doctor"],
               timeout=60, env=env)
    assert proc.returncode == 125, proc.stderr
    assert "apt-get install device-tree-compiler" in flat(proc.stderr)
    assert not list(tmp_path.glob("clockscope-vm-*"))


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_scenario_gives_its_verdict(guest_binaries, tmp_path, name):  # noqa: F811
    verdict, clocksource, reasons = SCENARIOS[name]
    env = dict(os.environ, TMPDIR=str(tmp_path))

    def boot():
        proc = run([guest_binaries, "vm", "--scenario", name, "--timeout", str(VM_TIMEOUT), "--",
                    "collect", "--quick", "--parts", "doctor,bench", "--name", name, "-o", "-"],
                   timeout=GUEST_TIMEOUT, env=env)
        assert our_qemus(tmp_path) == [] and not list(tmp_path.glob("clockscope-vm-*"))
        return proc

    def fair(proc):
        """Where the scenario's verdict rests on emulated costs: an ok that came out slow
        by cost alone, or a trap whose cost ratio a busy host squeezed, is booted again."""
        try:
            doctor = json.loads(proc.stdout)["parts"]["doctor"]
        except (ValueError, KeyError, TypeError):
            return True
        if verdict == "ok":
            return not decided_by_cost(doctor)
        if "counter-read-traps" in reasons:
            return "counter-read-traps" in {f["id"] for f in doctor["findings"]}
        return True

    t0 = time.monotonic()
    proc = until_fair(boot, fair)
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert f"scenario {name}" in flat(proc.stderr)
    parts = json.loads(proc.stdout)["parts"]
    doctor, bench = parts["doctor"], parts["bench"]
    ids = {f["id"] for f in doctor["findings"]}
    assert doctor["verdict"] == verdict, (doctor["summary"], sorted(ids))
    assert doctor["decided_by"] == "proof" and not doctor["inferred"]
    assert doctor["facts"]["clocksource"] == clocksource
    assert reasons <= ids, (reasons - ids, sorted(ids))
    count = doctor["proof"]["syscall_count"]
    if "proof-syscalls" in reasons:   # the exact proof: one syscall per call
        assert count["counted"] and count["syscalls"]["clock_gettime_monotonic"] == count["calls"]
    if verdict == "ok" or "counter-read-traps" in reasons:
        assert count["counted"] and count["syscalls"]["clock_gettime_monotonic"] == 0, count
    if verdict == "ok":
        assert "counter-read-traps" not in ids
    results = {r["id"]: r for r in bench["results"]}
    assert results["libc.clock_gettime.monotonic"]["available"]
    assert results["libc.clock_gettime.monotonic_coarse"]["available"]
    # libfastclock: measured, or refused with its reason (never silently absent).
    for fid in ("fastclock.monotonic", "fastclock.ticks"):
        r = results[fid]
        assert r["available"] or r["why_unavailable"], r
    if name == "x86_64-tsc-sync":   # no safe kernel fix: the finding says why, and the remedy
        unsync = next(f for f in doctor["findings"] if f["id"] == "tsc-unsynchronized")
        assert any("do NOT boot with tsc=reliable" in x for x in unsync["fix"]), unsync
        assert not any("tsc=reliable" in a.get("add", []) for a in doctor["actions"])
        assert doctor["actions"][0]["kind"] == "run", doctor["actions"][0]
    if name == "riscv64-user-counters":   # the RISC-V clock_gettime report's check: rdcycle beside rdtime
        assert results["counter.rdcycle"]["available"], results["counter.rdcycle"]
        reads = "\n".join(e for f in doctor["findings"] if f["id"] == "counter-facts"
                          for e in f["evidence"])
        assert "rdcycle=permitted" in reads and "perf_user_access = 2" in reads, reads
    print(f"{name}: {took:.1f} s, verdict {doctor['verdict']}")


@pytest.mark.parametrize("name", ["x86_64-tsc-unstable", "x86_64-tsc-sync"])
def test_run_refuses_the_tsc_the_kernel_threw_out(guest_binaries, clockloop, tmp_path, name):  # noqa: F811
    """The kernel marked the TSC unstable, so it left available_clocksource: libfastclock
    must not serve time from it, not even with FASTCLOCK_UNSAFE_ASSUME_INVARIANT_TSC=1 (that
    only stands in for the CPU's invariant-TSC bit, never for the kernel's verdict); the
    program gets the kernel's values, inside every syscall sandwich, never backwards."""
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = run([guest_binaries, "vm", "--scenario", name, "--timeout", str(VM_TIMEOUT),
                "--add", str(clockloop), "--add", f"{ROOT}/build/libclockscope-shim.so:{SHIM_IN_GUEST}",
                "--env", f"CLOCKSCOPE_SHIM={SHIM_IN_GUEST}", "--env", OVERRIDE,
                "--", "run", "--mode", "auto", "--verbose", "--", "clockloop", "20000"],
               timeout=GUEST_TIMEOUT, env=env)
    assert our_qemus(tmp_path) == [] and not list(tmp_path.glob("clockscope-vm-*"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"clockscope-shim: serving nothing: counter not safe: .*'tsc' is not in "
                     r"available_clocksource \(hpet[a-z_ ]*\): not registered, or marked "
                     r"unstable", proc.stderr), proc.stderr[-3000:]
    f = facts(proc.stdout)
    assert_correct(f)
    below, above = map(int, f["pair"].split())
    assert below <= 0 and above <= 0, f   # the kernel's own clock


# ---- vm --apply-fix: the doctor's remedy applied and measured (one boot pair each) --------

CLOCKSOURCE = "/sys/devices/system/clocksource/clocksource0/current_clocksource"


def apply_fix(binary, tmp_path, name, *command, extra=(), env=None):
    """`vm --scenario NAME --apply-fix --json -- COMMAND`: (process, document).  The after
    doctor's ok rests on emulated costs once its proof counts no syscall (a call over 1000
    ns is slow): an after that came out slow by cost alone is applied again
    (conftest.until_fair), and so is a trap scenario whose before doctor did not judge the
    counter a trap by its cost ratio, which then recommends another action."""
    env = dict(os.environ, TMPDIR=str(tmp_path), **(env or {}))

    def once():
        proc = run([binary, "vm", "--scenario", name, "--timeout", str(VM_TIMEOUT), *extra,
                    "--apply-fix", "--json", "--", *command], timeout=3 * GUEST_TIMEOUT, env=env)
        assert our_qemus(tmp_path) == [] and not list(tmp_path.glob("clockscope-vm-*"))
        return proc, json.loads(proc.stdout) if proc.stdout.startswith("{") else None

    return until_fair(once, lambda result: fair_fix(name, result[1]))


def fair_fix(name, doc):
    if not doc:
        return True
    after = doc.get("after") or {}
    if after.get("verdict") == "slow" and after.get("syscalls_per_1000_calls") == 0:
        return False
    return name != "riscv64-time-trap" or (doc.get("action") or {}).get("kind") == "run"


# scenario -> the kind of the doctor's first action: a kernel fix the guest allows.
KERNEL_FIXES = {"x86_64-hpet": "sysfs", "x86_64-acpi-pm": "sysfs", "x86_64-tsc-unstable": "cmdline"}
SCENARIO_CLOCKSOURCE = {"x86_64-hpet": "hpet", "x86_64-acpi-pm": "acpi_pm"}


@pytest.mark.parametrize("name", sorted(KERNEL_FIXES))
def test_apply_fix_proves_the_kernel_remedy(guest_binaries, tmp_path, name):  # noqa: F811
    """`vm --scenario NAME --apply-fix -- doctor --json`: slow with a syscall per call before;
    the doctor's recommended fix applied in the guest; ok with 0 syscalls per 1000 calls after,
    in the command's own doctor output."""
    proc, doc = apply_fix(guest_binaries, tmp_path, name, "doctor", "--json")
    assert proc.returncode == 0 and doc, proc.stderr[-3000:]
    assert doc["schema"] == "clockscope.vm-apply-fix/2" and doc["scenario"] == name
    assert doc["before"]["verdict"] == "slow" and doc["before"]["syscalls_per_1000_calls"] == 1000
    action = doc["action"]
    assert action["risk"], action
    if action["kind"] == "sysfs":
        assert KERNEL_FIXES[name] == "sysfs", action
        assert action["path"] == CLOCKSOURCE and action["value"] == "tsc", action
    elif KERNEL_FIXES[name] == "sysfs":
        # The switch needs a TSC the kernel has registered and not thrown out in this boot.
        # Under TCG on a busy host the kernel may not have registered the TSC yet when the
        # doctor looks (its refined calibration comes late), and the doctor then offers the
        # command line instead: either without the scenario's clocksource= (the kernel then
        # chooses, tsc-early and then tsc: the command-line finding's action, first when the
        # kernel lists no TSC yet) or with clocksource=tsc (the clocksource finding's, next
        # after its sysfs switch when the guest did not take that). Either must still end
        # with no syscall.
        undone = f"clocksource={SCENARIO_CLOCKSOURCE[name]}" in action["remove"]
        assert action["kind"] == "cmdline" and (undone or "clocksource=tsc" in action["add"]), action
    else:
        assert action["kind"] == "cmdline" and "tsc=unstable" in action["remove"], action
    assert doc["after"] == {"verdict": "ok", "ns_per_call": doc["after"]["ns_per_call"],
                            "syscalls_per_1000_calls": 0}, doc["after"]
    after = json.loads(doc["command"]["stdout"])   # the command's own doctor says it too
    assert after["verdict"] == "ok" and doc["command"]["exit_status"] == 0
    assert after["proof"]["syscall_count"]["syscalls"]["clock_gettime_monotonic"] == 0


def test_apply_fix_on_unsynchronized_tscs_applies_the_application_remedy(guest_binaries,  # noqa: F811
                                                                          clockloop, tmp_path):
    """x86_64-tsc-sync: no kernel fix is safe (tsc=reliable would let time go backwards between
    CPUs, and the finding says so); the doctor recommends `run --mode coarse`, which
    --apply-fix wraps the program in: its reads come from the tick, behind the kernel's
    clock and never ahead of it or backwards."""
    make("O=build/x86_64", "CC=x86_64-linux-gnu-gcc", "STATIC=1", "build/x86_64/libclockscope-shim.so")
    proc, doc = apply_fix(guest_binaries, tmp_path, "x86_64-tsc-sync", "clockloop", "3000",
                          "coarse", extra=["--add", str(clockloop)])
    assert proc.returncode == 0 and doc, proc.stderr[-3000:]
    assert doc["before"]["verdict"] == "slow"
    assert doc["action"]["kind"] == "run", doc["action"]
    assert doc["action"]["argv"][:4] == ["clockscope", "run", "--mode", "coarse"], doc["action"]
    assert doc["after"] is None and "changes only the program it wraps (`clockloop`, exit 0)" \
        in doc["after_why"], doc
    assert doc["action"]["finding"] == "clocksource-no-vdso", doc["action"]
    # `clockloop N coarse`: every value between raw CLOCK_MONOTONIC_COARSE syscalls taken
    # before and after it, exactly, on any of the guest's 4 CPUs however late its tick
    f = facts(doc["command"]["stdout"])
    below, above = map(int, f["pair"].split())
    assert below <= 0 and above <= 0 and f["backwards"] == "0", f


def test_apply_fix_skips_what_the_guest_does_not_allow(guest_binaries, tmp_path):  # noqa: F811
    """The doctor's actions in its order (given here as its JSON, the test hook
    CLOCKSCOPE_APPLY_FIX_DOCTOR_JSON): firmware and code advice cannot be applied; a
    clocksource the guest does not have is refused (the kernel takes the write but keeps
    its own choice: an unknown override name makes it choose afresh, here the TSC, so it reads
    back as 'tsc', or 'tsc-early' before the kernel's refined TSC calibration has run, which
    under TCG on a busy host can take longer than the boot); the next action, a command line
    without clocksource=hpet, is applied."""
    doctor = json.loads((ROOT / "tests/data/apply-fix/x86_64-hpet-doctor.json").read_text())
    doctor["actions"] = [
        {"kind": "firmware", "text": "update the BIOS", "risk": "none"},
        {"kind": "code", "text": "call fastclock_recent_ns()", "risk": "none"},
        {"kind": "sysfs", "path": CLOCKSOURCE, "value": "no_such_clock", "reboot": False,
         "risk": "low", "finding": "clocksource-no-vdso"},
        {"kind": "cmdline", "add": [], "remove": ["clocksource=hpet"], "reboot": True,
         "risk": "low", "finding": "cmdline-clocksource"},
    ]
    hook = tmp_path / "doctor.json"
    hook.write_text(json.dumps(doctor))
    proc, doc = apply_fix(guest_binaries, tmp_path, "x86_64-hpet", "doctor", "--json",
                          env={"CLOCKSCOPE_APPLY_FIX_DOCTOR_JSON": str(hook)})
    assert proc.returncode == 0 and doc, proc.stderr[-3000:]
    assert doc["action"]["kind"] == "cmdline", doc
    skipped = doc["skipped"]
    assert len(skipped) == 3, skipped
    assert "firmware" in skipped[0] and "not one clockscope can apply" in skipped[0]
    assert "no_such_clock" in skipped[2] and re.search(r"but it reads 'tsc(-early)?'\)", skipped[2]), skipped
    assert doc["after"]["verdict"] == "ok" and doc["after"]["syscalls_per_1000_calls"] == 0


def test_apply_fix_text_report(guest_binaries, tmp_path):  # noqa: F811
    """Without --json: the command's output alone on stdout (its --json one document a pipe
    can read), and on stderr what was applied and the table."""
    env = dict(os.environ, TMPDIR=str(tmp_path))
    # An after of slow with 0 syscalls per 1000 calls is slow by emulated cost alone
    # (apply_fix above): applied again.
    proc = until_fair(
        lambda: run([guest_binaries, "vm", "--scenario", "x86_64-hpet", "--timeout", str(VM_TIMEOUT),
                     "--apply-fix", "--", "doctor", "--json"], timeout=3 * GUEST_TIMEOUT, env=env),
        lambda p: not re.search(r"^  after   slow +[\d.]+ +0$", p.stderr, re.M))
    assert our_qemus(tmp_path) == [] and not list(tmp_path.glob("clockscope-vm-*"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert json.loads(proc.stdout)["verdict"] == "ok", proc.stdout[:2000]   # the after boot's
    assert "--apply-fix" not in proc.stdout
    assert re.search(r"^clockscope vm --apply-fix: scenario x86_64-hpet: applying ", proc.stderr, re.M)
    report = proc.stderr.split("clockscope vm --apply-fix: scenario x86_64-hpet\n")[-1]
    # the sysfs switch, or (the TSC not registered yet when the doctor looked, as in
    # test_apply_fix_proves_the_kernel_remedy) the command line without clocksource=hpet or
    # with clocksource=tsc
    assert re.search(r"^  applied: (write 'tsc' to " + CLOCKSOURCE + r"|reboot with the kernel "
                     r"command line (.* )?(-clocksource=hpet|\+clocksource=tsc)\b)", report, re.M), proc.stdout
    assert re.search(r"^  before  slow +[\d.]+ +1000$", report, re.M), report
    # a failed boot says why on stderr only: shown with the report
    assert re.search(r"^  after   ok +[\d.]+ +0$", report, re.M), report + proc.stderr[-3000:]


# scenario -> the cross compiler of its arch: no kernel fix there, the remedy is the program's.
TRAP_SCENARIOS = {"riscv64-time-trap": "riscv64-linux-gnu-gcc",
                  "aarch64-timer-erratum": "aarch64-linux-gnu-gcc"}


@pytest.mark.parametrize("name", sorted(TRAP_SCENARIOS))
def test_apply_fix_serves_the_program_where_no_kernel_fix_exists(guest_binaries, tmp_path, name):  # noqa: F811
    """The counter read traps (riscv64 sifive_u) or the kernel traps it (the aarch64 erratum):
    the doctor recommends `run --mode coarse` first, --apply-fix wraps the program in it, and
    the program's clock_gettime(CLOCK_MONOTONIC) is answered by the shim from the tick:
    between raw CLOCK_MONOTONIC_COARSE syscalls taken before and after it, exactly, and never
    ahead of the fine clock.  How far behind the fine clock (a tick, or more when the
    emulator's tick comes late) and what the remedy gains are a benchmark's
    (benchmarks/bench_lab_remedy.py, docs/benchmarks/lab.md), not assertions: the host's
    load moves both."""
    cc = TRAP_SCENARIOS[name]
    arch = cc.split("-")[0]
    make(f"O=build/{arch}", f"CC={cc}", "STATIC=1", f"build/{arch}/libclockscope-shim.so")
    prog = tmp_path / "lab_remedy"
    built = run([cc, "-O1", "-o", prog, ROOT / "benchmarks/lab_remedy.c"])
    assert built.returncode == 0, built.stderr
    proc, doc = apply_fix(guest_binaries, tmp_path, name, "lab_remedy", "500",
                          extra=["--add", str(prog)])
    assert proc.returncode == 0 and doc, proc.stderr[-3000:]
    assert doc["before"]["verdict"] == "slow"
    assert doc["action"]["kind"] == "run" and doc["action"]["argv"] == [
        "clockscope", "run", "--mode", "coarse", "--"], doc["action"]
    f = facts(doc["command"]["stdout"])
    assert f["served"] == "1", f
    assert int(f["ahead_ns"]) <= 0, f
    assert int(f["coarse_behind_ns"]) <= 0 and int(f["coarse_ahead_ns"]) <= 0, f
