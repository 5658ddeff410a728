"""clockscope warp: structure of real runs (never whether a given read happened to warp),
one CPU, CPUs excluded by affinity, qemu-user, and bad usage."""
import json
import os
import shutil

import pytest

from conftest import run

CPUS = sorted(os.sched_getaffinity(0))


def warp_json(binary, *args, runner=None, timeout=120, prefix=()):
    cmd = [*prefix] + ([runner] if runner else []) + [binary, "warp", "--json", *args]
    proc = run(cmd, timeout=timeout)
    assert proc.returncode in (0, 1), proc.stderr
    doc = json.loads(proc.stdout)
    return proc, doc


def check_document(proc, doc, cpus):
    assert doc["schema"] == "clockscope.warp/1"
    assert doc["config"]["cpus"] == cpus
    assert doc["cross_cpu"] == (len(cpus) > 1)
    for key in ("arch", "cpu_model", "kernel", "clocksource", "virtualization"):
        assert key in doc["machine"]
    assert doc["methods"], "no method was tested"
    faults = 0
    for m in doc["methods"]:
        for key in ("id", "reads", "backward_steps", "max_backward_ns", "classification",
                    "must_be_monotonic", "resolution"):
            assert key in m, (m["id"], key)
        assert m["value_unit"] in ("ns", "ticks")
        if not m["available"]:
            assert m["why_unavailable"] and m["reads"] is None
            continue
        if m["reads"] is None:           # a per-thread clock: resolution only
            assert "per-thread" in m["error"]
            continue
        assert m["reads"] > 0
        assert m["comparisons"] == m["reads"] - 1
        assert sum(c["reads"] for c in m["reads_per_cpu"]) == m["reads"]
        assert [c["cpu"] for c in m["reads_per_cpu"]] == cpus
        assert 0 <= m["backward_steps"] <= m["comparisons"]
        assert (m["backward_steps"] == 0) == (m["classification"] == "monotonic")
        assert (m["max_backward_ns"] == 0) == (m["backward_steps"] == 0) or \
            m["max_backward_ns"] is None
        pairs = m["pairs"]
        assert sum(p["backward_a_to_b"] + p["backward_b_to_a"] for p in pairs) == \
            m["backward_steps"]
        assert sum(p["comparisons"] for p in pairs) == m["comparisons"]
        for p in pairs:
            assert p["cpu_a"] <= p["cpu_b"] and p["cpu_a"] in cpus and p["cpu_b"] in cpus
            assert p["class"] in ("none", "offset", "random", "same_cpu")
            assert (p["class"] == "none") == (p["backward_a_to_b"] + p["backward_b_to_a"] == 0)
        if len(cpus) == 1:
            assert m["cross_cpu_comparisons"] == 0
        res = m["resolution"]
        assert res["reads"] > 0 and 0 <= res["stalls"] < res["reads"]
        if m["must_be_monotonic"] and m["backward_steps"]:
            faults += 1
    # The exit status says whether a method that must be monotonic went backwards.
    assert doc["faults"] == faults
    assert proc.returncode == (1 if faults or doc["failures"] else 0)
    for c in doc["rate"]["counters"]:
        # fastclock.ticks is the counter while libfastclock uses it (ns otherwise).
        assert c["id"].startswith("counter.") or c["id"] == "fastclock.ticks"
    drift = doc["drift"]
    assert drift["seconds"] > 0 and drift["monotonic_slew_ppm"] is not None


def test_default_run_structure(clockscope):
    proc, doc = warp_json(clockscope, "--seconds", "1.5")
    check_document(proc, doc, CPUS)
    ids = {m["id"] for m in doc["methods"]}
    assert "libc.clock_gettime.monotonic" in ids and "vdso.clock_gettime.monotonic" in ids
    # CPU-time clocks and the vDSO/syscall copies of every clock are --only choices.
    assert "libc.clock_gettime.thread_cputime_id" not in ids
    assert "syscall.clock_gettime.realtime" not in ids
    counters = [m for m in doc["methods"] if m["id"].startswith("counter.") and m["available"]]
    assert counters, "every arch has a counter"
    for m in counters:
        assert m["must_be_monotonic"] == m["ordered"]
    # The counter ticks: its rate is measured, and ns conversions follow from it.
    rates = {c["id"]: c for c in doc["rate"]["counters"]}
    for m in counters:
        assert rates[m["id"]]["measured_hz"] > 0
    coarse = {m["id"]: m for m in doc["methods"]}.get("libc.clock_gettime.monotonic_coarse")
    if coarse and coarse["available"]:
        # A tick-based clock stalls between ticks, and never steps by less than its getres.
        assert coarse["resolution"]["stall_fraction"] > 0.5
        step = coarse["resolution"]["min_step_ns"]
        assert step is None or step >= coarse["resolution"]["getres_ns"] * 0.5


def test_text_output_and_exit_status(clockscope):
    proc = run([clockscope, "warp", "--seconds", "0.5", "--only", "counter.*,libc.gettimeofday"])
    assert proc.returncode in (0, 1), proc.stderr
    out = proc.stdout
    for heading in ("cross-CPU monotonicity", "counter rate", "clock drift", "resolution"):
        assert heading in out
    assert ("FAULT" in out) == (proc.returncode == 1)
    assert proc.stderr == ""  # progress only goes to a terminal


@pytest.mark.skipif(len(CPUS) < 1, reason="no CPU")
def test_one_cpu_says_nothing_to_compare(clockscope):
    proc, doc = warp_json(clockscope, "--seconds", "0.5", "--cpus", str(CPUS[-1]),
                          "--only", "counter.*,libc.clock_gettime.monotonic*")
    check_document(proc, doc, [CPUS[-1]])
    text = run([clockscope, "warp", "--seconds", "0.3", "--cpus", str(CPUS[0]), "--only",
                "libc.clock_gettime.monotonic"])
    assert "nothing to compare across CPUs" in text.stdout


def test_cpus_excluded_by_affinity(clockscope):
    if not shutil.which("taskset") or len(CPUS) < 2:
        pytest.skip("needs taskset and two CPUs")
    only = str(CPUS[-1])
    prefix = ["taskset", "-c", only]
    proc, doc = warp_json(clockscope, "--seconds", "0.4", "--only", "libc.clock_gettime.monotonic",
                          prefix=prefix)
    check_document(proc, doc, [CPUS[-1]])
    bad = run(prefix + [clockscope, "warp", "--cpus", str(CPUS[0])])
    assert bad.returncode == 2 and "not in this process's affinity mask" in bad.stderr


def test_help(clockscope):
    proc = run([clockscope, "warp", "--help"])
    assert proc.returncode == 0 and "Exit status" in proc.stdout


def test_sanitized_build_runs_warp(san_build):
    proc, doc = warp_json(san_build / "clockscope", "--seconds", "0.5", "--only",
                          "counter.*,libc.clock_gettime.monotonic,libc.clock_gettime.thread*",
                          timeout=300)
    check_document(proc, doc, CPUS)


def test_cross_builds_under_qemu_user(cross_builds):
    for arch, (build, qemu) in cross_builds.items():
        proc, doc = warp_json(build / "clockscope", "--seconds", "1", runner=qemu, timeout=300)
        assert doc["machine"]["arch"] == arch
        check_document(proc, doc, CPUS)
        assert any(m["id"].startswith("counter.") and m["reads"] for m in doc["methods"])
        # A budget shorter than emulated thread start-up still reads every method.
        proc, doc = warp_json(build / "clockscope", "--seconds", "0.05", "--cpus", str(CPUS[0]),
                              runner=qemu, timeout=300)
        check_document(proc, doc, [CPUS[0]])
