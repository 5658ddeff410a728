# SPDX-License-Identifier: MIT
"""clockscope bench --gap: sparse reads, each timed alone (docs/METHODOLOGY.md, "Sparse
reads").  Option parsing, the JSON shape, and live runs whose numbers must be coherent and
physically possible: no timing ratio is asserted (the machine is shared and noisy), only
bounds that a wrong per-read timing (bracket not subtracted, ticks taken for ns, a batch
timed instead of one call) cannot meet."""
import json
import os
import subprocess

import pytest

from conftest import run

FEW = "ref.empty_call,ref.getppid,libc.clock_gettime.monotonic,vdso.clock_getres.monotonic"


def gap_json(binary, *args, runner=None, timeout=180):
    cmd = ([runner] if runner else []) + [binary, "bench", "--json", *args]
    proc = run(cmd, timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout)


@pytest.mark.parametrize("args,needle", [
    (["--gap", ""], "--gap needs a value (LIST)"),
    (["--gap", "1"], "needs a unit"),
    (["--gap", "5m"], "unknown unit 'm'"),
    (["--gap", "1.5ns"], "whole number of nanoseconds"),
    (["--gap", "-1ms"], "does not start with a number"),
    (["--gap", "61s"], "longer than the maximum gap"),
    (["--gap", "1ms,1000us"], "given twice"),
    (["--gap", "1ms,,2ms"], "empty item"),
    (["--gap", "0:10"], "hot loop"),
    (["--gap", "1ms:0"], "read count '0'"),
    (["--gap", "1ms:lots"], "read count 'lots'"),
    (["--gap", "1ms", "--reads", "0"], "--reads"),
    (["--gap", "1ms", "--reads", "100001"], "--reads"),
    (["--gap", "1ms", "--reads", "ten"], "--reads"),
    (["--reads", "10"], "--reads goes only with --gap"),
    (["--gap", "0", "--reads", "10"], "--reads needs --gap"),
    (["--bracket", "counter"], "--bracket goes only with --gap"),
    (["--gap", "1ms", "--bracket", "tsc"], "'tsc' is not one of auto, counter, clock"),
    (["--gap", "1ms", "--threads", "2"], "--threads"),
    (["--gap"], "--gap"),
])
def test_bad_gap_usage_exits_2_with_a_message(clockscope, args, needle):
    proc = run([clockscope, "bench", *args])
    assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
    assert needle in proc.stderr, proc.stderr
    assert proc.stdout == ""


def ordered(d):
    return d["min"] <= d["p50"] <= d["p99"] <= d["p999"] <= d["max"]


def test_json_shape_and_coherent_numbers(clockscope):
    doc = gap_json(clockscope, "--gap", "0,200us:40,2ms:12", "--only", FEW)
    assert doc["schema"] == "clockscope.bench/2"
    assert doc["config"]["gaps_ns"] == [0, 200000, 2000000]
    # Gap 0 is the dense hot loop, in "results" as without --gap.
    hot = {r["id"]: r for r in doc["results"]}
    assert hot["ref.getppid"]["ns_per_call"]["median"] > 0
    sp = doc["sparse"]
    assert sp["cpu"] in os.sched_getaffinity(0)
    b = sp["bracket"]
    assert b["kind"] in ("counter", "clock") and b["name"]
    if b["kind"] == "counter":
        assert b["hz_start"] > 1e6 and b["hz_end"] > 1e6
        assert b["rate_disagreement_ppm"] < 1000, b
        assert b["counter_not_used_because"] is None
    else:
        assert b["counter_not_used_because"]
    # A method with no single-read form is named, not silently dropped.
    assert sp["not_measured"] == ["vdso.clock_getres.monotonic"]
    assert [g["gap_ns"] for g in sp["gaps"]] == [200000, 2000000]
    for g, wanted in zip(sp["gaps"], (40, 12)):
        assert g["reads_wanted"] == wanted
        assert g["rounds"] == wanted, g  # retaken when preempted, so all are kept here
        assert g["preempted_rounds"] >= 0 and g["warmup_rounds"] == 2
        # At least the sleeps themselves: one slot (3 methods and the empty bracket) per
        # sleep, so that no other method's read warms a method's cold read; warm-up rounds
        # and preempted ones come on top.
        assert g["elapsed_s"] >= g["gap_ns"] * (g["rounds"] + 2) * 4 / 1e9
        # The bracket's own cost is measured, reported and positive: two timer reads.
        for kind in ("cold", "hot"):
            bd = g["bracket"][kind]
            assert bd["reads"] == wanted and bd["p50"] > 0 and ordered(bd), bd
        assert [m["id"] for m in g["methods"]] == ["ref.empty_call", "ref.getppid",
                                                    "libc.clock_gettime.monotonic"]
        for m in g["methods"]:
            for kind in ("cold", "hot"):
                d = m[kind]
                assert d["reads"] == wanted
                assert ordered(d), (m["id"], kind, d)
                assert d["min"] >= 0  # net of the bracket, clamped at 0
                assert d["min"] <= d["mean"] <= d["max"]


def test_a_stateful_method_settles_after_an_idle_spell(clockscope):
    """fastclock keeps state between reads: its ticker parks after 2 s without a read and,
    parked, looks for reads once a second, so the first reads after an idle spell are the
    kernel clock's.  Between a method's blocks the others read (an idle spell for it): a
    fastclock block that follows a spell of 1 s or more, and its first block, warm up for
    1.5 s (30 rounds at 50 ms) before its reads count; a method without state gets the
    fixed 2 rounds per block, and so does fastclock after a shorter spell.  Here: blocks
    of 20, 20 and 5 reads per slot (the bracket, the empty call, fastclock); fastclock's
    second block follows the others' first (2.2 s), its third their last (0.7 s)."""
    doc = gap_json(clockscope, "--gap", "50ms:45", "--only", "fastclock.monotonic,ref.empty_call")
    g = doc["sparse"]["gaps"][0]
    assert g["rounds"] == 45 and g["warmup_rounds"] == 2
    m = {x["id"]: x for x in g["methods"]}
    fc, empty = m["fastclock.monotonic"], m["ref.empty_call"]
    assert fc["settled_blocks"] == 2 and fc["warmup_rounds"] == 30 + 30 + 2, fc
    assert empty["settled_blocks"] == 0 and empty["warmup_rounds"] == 3 * 2, empty
    assert fc["cold"]["reads"] == empty["cold"]["reads"] == 45
    # The warm-ups are slept through too: three slots of 45 reads, 6 + 6 + 62 warm-up.
    assert g["elapsed_s"] >= 0.05 * (3 * 45 + 74)


def test_per_read_cost_is_physical(clockscope):
    """getppid read alone costs what it costs in the hot loop (a syscall serializes: no
    pipelining to lose), within bounds that a wrong conversion (ticks as ns: x2 or more
    on a GHz counter; eight calls timed: x8) breaks.  The hot loop and the sparse reads are
    timed at different moments, and a busy machine (the lead's, CI's) can slow either by
    half (issue 30: 260 ns against 168): the pair is measured again, up to 5 times, until
    one pair was taken under the same conditions.  A wrong conversion is off in every
    pair; load moves them apart only now and then.  The bracket's subtraction is checked
    on fixed ticks (unit sparse_summary_subtracts_the_brackets_median_from_each_read): an
    empty call read alone, net of the bracket, is a few ns on an idle machine and about
    the bracket itself with the other CPU busy, where a missing subtraction would put it
    on an idle one."""
    attempts = []
    for _ in range(5):
        doc = gap_json(clockscope, "--gap", "0,500us:200", "--only", "ref.getppid")
        loop = {r["id"]: r["ns_per_call"]["median"] for r in doc["results"]}
        g = doc["sparse"]["gaps"][0]
        m = {x["id"]: x for x in g["methods"]}
        getppid_hot = m["ref.getppid"]["hot"]["p50"]
        attempts.append((getppid_hot, loop["ref.getppid"]))
        fair = 0.5 * loop["ref.getppid"] <= getppid_hot <= 1.4 * loop["ref.getppid"] + 20
        # The first read after a sleep is never cheaper than the one right after it.
        cold_ok = m["ref.getppid"]["cold"]["p50"] >= getppid_hot * 0.9
        if fair and cold_ok:
            return
    pytest.fail(f"getppid read alone vs in the hot loop (ns), 5 pairs: {attempts}")


def test_text_table(clockscope):
    proc = run([clockscope, "bench", "--gap", "1ms:20", "--only", FEW], timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "gap 1 ms: 20 of 20 reads kept per method" in out
    assert "cold: the first read after the sleep" in out and "hot: the read right after it" in out
    assert "bracket (empty; median subtracted)" in out
    for rid in ("ref.empty_call", "ref.getppid", "libc.clock_gettime.monotonic"):
        row = [line for line in out.splitlines() if line.startswith(rid + " ")]
        assert len(row) == 1 and len(row[0].split()) == 11, row
    assert "not measured with --gap (no single-read form): vdso.clock_getres.monotonic" in out
    assert "ns/call" not in out  # no gap 0 asked: no hot-loop table


def test_clock_bracket(clockscope):
    doc = gap_json(clockscope, "--gap", "1ms:10", "--bracket", "clock", "--only",
                   "ref.getppid")
    b = doc["sparse"]["bracket"]
    assert b["kind"] == "clock" and b["name"] == "CLOCK_MONOTONIC_RAW" and b["hz_start"] is None
    g = doc["sparse"]["gaps"][0]
    assert g["bracket"]["hot"]["p50"] > 0 and ordered(g["methods"][0]["hot"])


def test_other_arches_under_qemu_user(cross_builds):
    for arch, (build, qemu) in cross_builds.items():
        doc = gap_json(build / "clockscope", "--gap", "1ms:10", "--only",
                       "libc.clock_gettime.monotonic", runner=qemu, timeout=300)
        g = doc["sparse"]["gaps"][0]
        assert g["rounds"] == 10 and ordered(g["methods"][0]["cold"]), arch


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_unwritable_output_is_a_failure(clockscope, json_flag):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([str(clockscope), "bench", *json_flag, "--gap", "1ms:3", "--only",
                               "ref.getppid"], stdout=full, stderr=subprocess.PIPE, text=True,
                              timeout=60)
    assert proc.returncode == 1
    assert "cannot write the results" in proc.stderr
