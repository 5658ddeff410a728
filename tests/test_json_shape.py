# SPDX-License-Identifier: MIT
"""One JSON shape for a cost (issue 35, docs/json.md "Costs"): every command's --json, and
a bundle of them, walked whole.  Every key that names a cost (ends in ns_per_call,
ns_per_round_trip or ns_one_way) holds {"median", "p10", "p90", "p99", "min", "max",
"mean"} (+ "samples" where there are some), the median a number, the rest a number or null;
or null as a whole, for a figure not measured.  None of the shapes before it is left (a bare
"ns", "p10_ns" and the like).  The report reads the /2 bundle and a /1 one side by side."""
import json
import re

import pytest

from conftest import ROOT, run

COST_KEY = re.compile(r"(ns_per_call|ns_per_round_trip|ns_one_way)$")
FIELDS = {"median", "p10", "p90", "p99", "min", "max", "mean"}
OLD_KEY = re.compile(r"^(ns|p10_ns|p90_ns|p99_ns|min_ns|max_ns|mean_ns|ns_per_call_(median|p10|p90)"
                     r"|harness_ns|timed_ns|reference_ns|round_trip_ns)$")
V2 = ROOT / "tests" / "data" / "bundles" / "host-v2.json"


def is_num(v):
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def walk(doc, path="$"):
    """(costs found, problems) over doc and everything in it."""
    found, bad = 0, []
    if isinstance(doc, list):
        for i, v in enumerate(doc):
            f, b = walk(v, f"{path}[{i}]")
            found, bad = found + f, bad + b
        return found, bad
    if not isinstance(doc, dict):
        return 0, []
    for k, v in doc.items():
        where = f"{path}.{k}"
        if OLD_KEY.match(k):
            bad.append(f"{where}: a key of the old shapes")
        if COST_KEY.search(k) and v is not None:
            if not isinstance(v, dict) or set(v) - {"samples"} != FIELDS:
                bad.append(f"{where}: not a cost object with the seven fields: {v!r}"[:300])
            elif not is_num(v["median"]) or any(not (is_num(v[x]) or v[x] is None) for x in FIELDS):
                bad.append(f"{where}: a field neither a number nor null (median: a number)")
            elif "samples" in v and not all(is_num(x) for x in v["samples"]):
                bad.append(f"{where}.samples: not numbers")
            else:
                found += 1
            continue
        f, b = walk(v, where)
        found, bad = found + f, bad + b
    return found, bad


def document(clockscope, *args, ok=(0,)):
    r = run([clockscope, *args, "--json"], timeout=300)
    assert r.returncode in ok, r.stderr
    return json.loads(r.stdout)


COMMANDS = {
    "bench": (["bench", "--quick", "--only", "libc.clock_gettime.monotonic,ref.empty_call"],
              "clockscope.bench/2"),
    "runtimes": (["runtimes", "--only", "c"], "clockscope.runtimes/2"),
    "ladder": (["ladder", "--quick", "--only", "ref.empty_call,pipe.threads.*,cpu_matrix,sweep"],
               "clockscope.ladder/2"),
    "doctor": (["doctor"], "clockscope.doctor/2"),
}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_cost_has_the_one_shape(clockscope, name):
    args, schema = COMMANDS[name]
    doc = document(clockscope, *args, ok=(0, 1) if name == "doctor" else (0,))
    assert doc["schema"] == schema
    found, bad = walk(doc)
    assert not bad, "\n".join(bad)
    assert found >= 1, f"{name}: no cost found"
    # what jq '.. | .ns_per_call?.median' gives: every call's median
    medians = [c["median"] for c in calls(doc)]
    assert medians and all(is_num(m) for m in medians)


def calls(doc):
    """Every non-null ns_per_call value in doc."""
    if isinstance(doc, list):
        return [c for v in doc for c in calls(v)]
    if not isinstance(doc, dict):
        return []
    out = [doc["ns_per_call"]] if isinstance(doc.get("ns_per_call"), dict) else []
    return out + [c for k, v in doc.items() if k != "ns_per_call" for c in calls(v)]


def test_ladder_calls_are_calls(clockscope):
    """A call rung's kind is "call", its figure ns_per_call; a handoff's round_trip and
    ns_per_round_trip; a matrix cell's ns_one_way."""
    doc = document(clockscope, "ladder", "--quick", "--only", "ref.empty_call,pipe.threads.same_cpu")
    by = {x["id"]: x for x in doc["rungs"]}
    assert by["ref.empty_call"]["kind"] == "call" and by["ref.empty_call"]["ns_per_call"]["median"] > 0
    pipe = by["pipe.threads.same_cpu"]
    assert pipe["kind"] == "round_trip" and pipe["ns_per_round_trip"]["median"] > 0
    assert "ns_per_call" not in pipe and "ns_per_round_trip" not in by["ref.empty_call"]


def test_the_v2_fixture_and_the_report_read_both_versions(clockscope):
    """The saved /2 bundle (tests/data/bundles/README.md) has the one shape, and the report
    reads it beside a /1 bundle: both machines compared, no part skipped, a call said a
    call in both."""
    bundle = json.loads(V2.read_text())
    found, bad = walk(bundle)
    assert not bad, "\n".join(bad)
    assert found > 10
    for part in ("bench", "doctor", "ladder", "runtimes"):
        assert bundle["parts"][part]["schema"] == f"clockscope.{part}/2"
    r = run([clockscope, "report", V2, ROOT / "tests/data/bundles/host.json"], timeout=120)
    assert r.returncode == 0, r.stderr
    assert "malformed" not in r.stderr and "newer" not in r.stderr, r.stderr
    for name in ("host-v2", "host"):
        assert re.search(rf"^{name} \(load [^)]*\): vdso\.clock_gettime\S* [^()]+ \(call\)",
                         r.stdout, re.M), r.stdout
    assert "language runtimes" in r.stdout
