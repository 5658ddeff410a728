# SPDX-License-Identifier: MIT
"""clockscope runtimes: every runtime found is measured, each figure beside its harness;
a runtime that crashes, hangs or prints garbage is one clear error row and the others still
report; the JSON is clockscope.runtimes/1 as docs/json.md pins it; syscalls are counted the
way the doctor's proof counts them (its raw-syscall control is exactly one per call)."""
import json
import os
import re
from pathlib import Path

import pytest

from conftest import ROOT, need_tool, run

FAKE = ROOT / "tests/progs/fake_runtime.sh"
# Where clockscope itself looks besides PATH (runtime_table.c): the suite looks there too,
# so that need_tool finds what the command will find.
os.environ["PATH"] = os.pathsep.join([os.environ.get("PATH", ""), "/usr/local/go/bin",
                                      str(Path.home() / ".cargo/bin")] +
                                     ([os.environ["JAVA_HOME"] + "/bin"] if os.environ.get("JAVA_HOME") else []))
TOOLS = {"python": ["python3"], "go": ["go"], "java": ["java", "javac"], "node": ["node"],
         "rust": ["rustc"]}
PINNED = {"runtime": str, "api": (str, type(None)), "available": bool}


def runtimes(clockscope, *args, env=None, timeout=600):
    proc = run([clockscope, "runtimes", "--json", *args], timeout=timeout,
               env=dict(os.environ, **(env or {})))
    assert proc.stdout, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "clockscope.runtimes/2"
    return proc, doc


def flat(text):
    """text with its lines joined: what a sentence says, wherever it was wrapped."""
    return " ".join(text.split())


def rows(doc, runtime):
    return [r for r in doc["results"] if r["runtime"] == runtime]


def check_measured_row(r):
    for k, t in PINNED.items():
        assert isinstance(r[k], t), (k, r)
    assert r["available"] is True and r["status"] == "measured"
    for k in ("ns_per_call", "harness_ns_per_call", "timed_ns_per_call"):
        # a cost (docs/json.md "Costs"): every field there, the median a number
        assert set(r[k]) == {"median", "p10", "p90", "p99", "min", "max", "mean"}, (k, r)
        assert isinstance(r[k]["median"], (float, int)), (k, r)
    for k in ("calls_per_sec", "spread"):
        assert isinstance(r[k], float) or isinstance(r[k], int), (k, r)
    net, harness, timed = (r[k]["median"] for k in ("ns_per_call", "harness_ns_per_call",
                                                    "timed_ns_per_call"))
    # the figure as timed is the harness plus the clock: the subtraction is exact
    assert abs(timed - harness - net) < 1e-6 * timed + 1e-9
    assert harness > 0 and timed > 0
    assert abs(r["calls_per_sec"] * timed - 1e9) < 1e3
    assert r["enters_kernel"] in (True, False, None)
    assert r["path"] in ("libc", "vdso-direct", "ffi-libc", "syscall")
    assert r["shim_can_serve"] == (r["path"] in ("libc", "ffi-libc"))


def test_c_reference_and_the_count_control(clockscope):
    """The C probe (this binary re-executed) is measured and counted; its raw-syscall row
    is the control: exactly one syscall per call, as the doctor's proof requires."""
    proc, doc = runtimes(clockscope, "--only", "c", "--samples", "5")
    assert proc.returncode == 0, proc.stderr
    assert doc["config"]["counted"] is True, doc["config"]
    got = {r["api"]: r for r in rows(doc, "c")}
    assert set(got) == {"clock_gettime(MONOTONIC)", "clock_gettime(REALTIME)", "gettimeofday",
                        "syscall(clock_gettime)"}
    for r in got.values():
        check_measured_row(r)
    control = got["syscall(clock_gettime)"]
    assert control["syscalls_per_call"] == 1.0 and control["enters_kernel"] is True
    # the library calls agree with the doctor's own proof on this machine
    doctor = json.loads(run([clockscope, "doctor", "--json"], timeout=120).stdout)
    count = doctor["proof"]["syscall_count"]
    assert count["counted"] is True, count
    for api, key in [("clock_gettime(MONOTONIC)", "clock_gettime_monotonic"),
                     ("clock_gettime(REALTIME)", "clock_gettime_realtime"),
                     ("gettimeofday", "gettimeofday")]:
        assert got[api]["syscalls_per_call"] == pytest.approx(count["syscalls"][key] / count["calls"],
                                                              abs=0.01), api


def test_no_count_leaves_the_kernel_column_unknown(clockscope):
    proc, doc = runtimes(clockscope, "--only", "c", "--samples", "3", "--no-count")
    assert proc.returncode == 0
    assert doc["config"]["counted"] is False and doc["config"]["count_why"] == "--no-count"
    assert all(r["enters_kernel"] is None and r["syscalls_per_call"] is None for r in doc["results"])


BROKEN = {
    "crash": "the probe was killed by signal 11 (Segmentation fault)",
    "hang": "the probe did not finish within 2 s (killed)",
    "garbage": "the probe's output is not understood: line 1: not a clockscope probe's output",
    "fail": "the probe failed (exit status 3): ModuleNotFoundError: No module named 'time'",
    "truncated": "the probe's output is not understood: line 2: the output ends without a newline",
}


@pytest.mark.parametrize("behaviour", sorted(BROKEN))
def test_a_broken_runtime_is_one_error_row_and_the_others_report(clockscope, behaviour):
    proc, doc = runtimes(clockscope, "--only", "c,python", "--python", FAKE, "--samples", "3",
                         "--timeout", "2", env={"FAKE_RUNTIME": behaviour}, timeout=60)
    assert proc.returncode == 6, proc.stderr
    (py,) = rows(doc, "python")
    assert py["available"] is False and py["status"] == "failed" and py["api"] is None
    assert py["why_unavailable"].startswith(BROKEN[behaviour]), py["why_unavailable"]
    assert "ns_per_call" not in py
    c = rows(doc, "c")
    assert len(c) == 4 and all(r["available"] for r in c)
    # the table says the same, in one line
    text = run([clockscope, "runtimes", "--only", "c,python", "--python", FAKE, "--samples", "3",
                "--timeout", "2", "--no-count"], env=dict(os.environ, FAKE_RUNTIME=behaviour),
               timeout=60)
    assert text.returncode == 6
    line = next(l for l in text.stdout.splitlines() if l.startswith("python "))
    assert "failed: " + BROKEN[behaviour] in line
    assert any(l.startswith("c ") and "clock_gettime(MONOTONIC)" in l for l in text.stdout.splitlines())


@pytest.mark.parametrize("behaviour,why", [
    ("count-garbage", "the count run's output is not understood: line 1: not a clockscope"),
    ("count-hang", "the probe did not finish within 2 s (killed)"),
])
def test_a_broken_count_run_leaves_the_figures(clockscope, behaviour, why):
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, "--samples", "3",
                         "--timeout", "2", env={"FAKE_RUNTIME": behaviour}, timeout=60)
    assert proc.returncode == 0, proc.stderr
    (py,) = rows(doc, "python")
    check_measured_row(py)
    assert py["ns_per_call"]["median"] == pytest.approx((51000 - 20000) / 1000)
    assert py["harness_ns_per_call"]["median"] == pytest.approx(20.0)
    assert py["version"] == "fake-1.0"
    assert py["enters_kernel"] is None and py["count_why"].startswith(why), py["count_why"]


def test_a_good_fake_is_measured_exactly(clockscope):
    """Figures come from the probe's samples: median per call, harness median subtracted."""
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, "--samples", "3",
                         env={"FAKE_RUNTIME": "good"})
    (py,) = rows(doc, "python")
    check_measured_row(py)
    assert py["timed_ns_per_call"]["median"] == pytest.approx(51.0)
    net = py["ns_per_call"]
    assert net["median"] == pytest.approx(31.0)
    assert net["p10"] == pytest.approx(50.2 - 20) and net["p90"] == pytest.approx(51.8 - 20)
    assert py["enters_kernel"] is False and py["syscalls_per_call"] == 0.0   # counted: no calls
    assert py["harness_bound"] is False


def test_the_clock_is_taken_pair_by_pair(clockscope):
    """The net figure is the median of (API sample - the harness sample taken right after
    it): a slow spell that hits some samples of either loop does not move it, and the
    harness shown is what was subtracted, so the three figures add up."""
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, "--samples", "5",
                         env={"FAKE_RUNTIME": "spell"})
    assert proc.returncode == 0, proc.stderr
    (py,) = rows(doc, "python")
    check_measured_row(py)
    assert py["ns_per_call"]["median"] == pytest.approx(30.0)
    assert py["timed_ns_per_call"]["median"] == pytest.approx(52.0)
    assert py["harness_ns_per_call"]["median"] == pytest.approx(22.0)
    assert py["ns_per_call"]["p10"] == pytest.approx(6.0)
    assert py["ns_per_call"]["p90"] == pytest.approx(30.0)


def test_absent_runtimes_say_how_to_get_them(clockscope, tmp_path):
    proc, doc = runtimes(clockscope, "--only", "python,node,java", env={"PATH": str(tmp_path),
                                                                          "JAVA_HOME": ""})
    assert proc.returncode == 0, proc.stderr     # absent is not a failure
    for name, how in [("python", "apt install python3"), ("node", "apt install nodejs"),
                      ("java", "apt install default-jdk-headless")]:
        (r,) = rows(doc, name)
        assert r["available"] is False and r["status"] == "absent" and r["api"] is None
        assert r["why_unavailable"].endswith(how), r
    proc = run([clockscope, "runtimes", "--only", "node"], env={"PATH": str(tmp_path)})
    assert "node    absent: node not found on PATH (node, nodejs): apt install nodejs" in proc.stdout


def test_python_measured_with_the_ctypes_trap(clockscope):
    need_tool("python3")
    proc, doc = runtimes(clockscope, "--only", "python", "--samples", "5")
    assert proc.returncode == 0, proc.stderr
    got = {r["api"]: r for r in rows(doc, "python")}
    assert {"time.time", "time.time_ns", "time.monotonic", "time.monotonic_ns", "time.perf_counter",
            "time.perf_counter_ns", "time.process_time", "datetime.now",
            "ctypes.clock_gettime"} == set(got)
    for r in got.values():
        check_measured_row(r)
    # the RISC-V clock_gettime report's trap: the FFI call is most of the ctypes figure, and the row says so
    ct = got["ctypes.clock_gettime"]
    assert ct["harness_bound"] is True
    assert ct["harness_ns_per_call"]["median"] >= 0.8 * ct["timed_ns_per_call"]["median"]
    assert ct["harness"] == "ctypes.strnlen(p,0)" and ct["path"] == "ffi-libc"
    # process_time reads a CPU-time clock: always a syscall (the count sees Python's calls)
    assert got["time.process_time"]["enters_kernel"] is True
    assert got["time.process_time"]["syscalls_per_call"] >= 1.0


@pytest.mark.parametrize("runtime,apis,path", [
    ("go", {"time.Now", "time.Since", "time.Now().UnixNano"}, "vdso-direct"),
    ("java", {"System.nanoTime", "System.currentTimeMillis", "Instant.now"}, "libc"),
    ("node", {"process.hrtime.bigint", "process.hrtime", "performance.now", "Date.now"}, "libc"),
    ("rust", {"Instant::now", "SystemTime::now"}, "libc"),
])
def test_each_installed_runtime_is_measured(clockscope, tmp_path, runtime, apis, path):
    need_tool(*TOOLS[runtime])
    # a private cache: the probe is built here, then taken from the cache
    env = {"XDG_CACHE_HOME": str(tmp_path)}
    proc, doc = runtimes(clockscope, "--only", runtime, "--samples", "5", env=env)
    assert proc.returncode == 0, (proc.stderr, doc)
    got = {r["api"]: r for r in rows(doc, runtime)}
    assert set(got) == apis, doc
    for r in got.values():
        check_measured_row(r)
        assert r["path"] == path and r["enters_kernel"] is not None
    built = list((tmp_path / "clockscope/probes").glob(f"{runtime}-*"))
    if runtime != "node":
        assert len(built) == 1 and built[0].is_dir(), built
        stamp = built[0].stat().st_mtime_ns
        proc, _ = runtimes(clockscope, "--only", runtime, "--samples", "3", "--no-count", env=env)
        assert proc.returncode == 0
        assert list((tmp_path / "clockscope/probes").glob(f"{runtime}-*")) == built
        assert built[0].stat().st_mtime_ns == stamp       # not rebuilt


def test_probe_sources_missing_is_a_clear_failure(clockscope, tmp_path):
    need_tool("python3")
    proc, doc = runtimes(clockscope, "--only", "python", env={"CLOCKSCOPE_PROBES": str(tmp_path)})
    assert proc.returncode == 6
    (py,) = rows(doc, "python")
    assert py["why_unavailable"] == f"the probe source {tmp_path}/probe.py is not readable"


def test_installed_probes_are_found(tmp_path):
    """`make install` puts the probe sources where the installed binary finds them."""
    dest = tmp_path / "stage"
    proc = run(["make", "-s", "install-probes", "PREFIX=/opt/cs", f"DESTDIR={dest}"], cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    got = sorted(p.name for p in (dest / "opt/cs/share/clockscope/probes").iterdir())
    assert got == sorted(p.name for p in (ROOT / "runtimes/probes").iterdir())


def _cost(median, p10=None, p90=None):
    return {"median": median, "p10": p10, "p90": p90, "p99": None, "min": None, "max": None,
            "mean": None}


def _figures(version, net, harness):
    """A row's three figures as schema version wrote them: /1 numbers, /2 costs."""
    if version == 1:
        return {"ns_per_call": net, "harness_ns": harness, "timed_ns": net + harness,
                "p10_ns": net * 0.98, "p90_ns": net * 1.02}
    return {"ns_per_call": _cost(net, net * 0.98, net * 1.02),
            "harness_ns_per_call": _cost(harness), "timed_ns_per_call": _cost(net + harness)}


def _doc(name, go_ns, go_syscalls, version=2):
    row = lambda rt, api, net, harness, path, sc, **kw: dict(
        {"runtime": rt, "api": api, "available": True, "status": "measured",
         **_figures(version, net, harness), "spread": 0.04, "calls_per_sec": 1e9 / (net + harness), "noisy": False,
         "harness_bound": harness >= 0.8 * (net + harness), "path": path, "clock": "monotonic",
         "enters_kernel": None if sc is None else sc >= 0.5, "syscalls_per_call": sc}, **kw)
    return {"schema": f"clockscope.runtimes/{version}",
            "machine": {"arch": "x86_64", "clocksource": name},
            "results": [row("c", "clock_gettime(MONOTONIC)", 31.0, 3.0, "libc", 0.0),
                        row("python", "ctypes.clock_gettime", 33.0, 1337.0, "ffi-libc", 0.0),
                        row("go", "time.Now", go_ns, 3.0, "vdso-direct", go_syscalls),
                        {"runtime": "java", "api": None, "available": False, "status": "absent",
                         "why_unavailable": "javac not found (PATH, $JAVA_HOME/bin): apt install default-jdk-headless",
                         "enters_kernel": None}]}


@pytest.mark.parametrize("versions", [(2, 2), (1, 1), (1, 2)], ids=["v2", "v1", "v1-and-v2"])
def test_report_compares_runtimes_across_machines(clockscope, tmp_path, versions):
    """The report's runtimes section (report/clockscope_report/runtimes.py): net of the
    harness per machine, the path, syscall where the count saw the kernel; an absent
    runtime said; a harness-bound figure marked, not compared; its chart drawn.  The same
    from runtimes/1 documents (saved bundles), /2, and one of each."""
    need_tool("python3")
    a, b = tmp_path / "tsc.json", tmp_path / "hpet.json"
    a.write_text(json.dumps(_doc("tsc", 70.0, 0.0, versions[0])))
    b.write_text(json.dumps(_doc("hpet", 3800.0, 2.3, versions[1])))
    proc = run([clockscope, "report", a, b, "--markdown"], timeout=120)
    assert proc.returncode == 0, proc.stderr
    section = proc.stdout.split("## Language runtimes", 1)[1]
    go = next(l for l in section.splitlines() if l.startswith("| go | time.Now"))
    assert go == "| go | time.Now | vdso-direct | 70.0 ns (+3.00 ns) | 3.80 µs (+3.00 ns), syscall, " \
                 "54x slower (range 52x to 57x) |"
    ct = next(l for l in section.splitlines() if l.startswith("| python | ctypes.clock_gettime"))
    assert "33.0 ns? (harness 1.34 µs)" in ct
    assert "tsc: not installed: java" in section and "apt install" not in section   # advice is for the machine
    # compared net of the harness: go 54x slower, ctypes (harness-bound) not compared; each
    # runtime API is shown once, in this section, not again in the main table
    assert "slower" not in ct
    rows = proc.stdout.split("## Language runtimes", 1)[0].splitlines()
    assert not any(l.startswith(("| go time.Now", "| python ")) for l in rows)
    out = tmp_path / "r.html"
    proc = run([clockscope, "report", a, b, "-o", out], timeout=120)
    assert proc.returncode == 0, proc.stderr
    html = out.read_text()
    assert "<h2>Language runtimes</h2>" in html and 'data-file="runtimes.svg"' in html
    assert "3.80 µs syscall" in html          # the chart's label of the hpet machine's time.Now


def test_report_refuses_a_runtimes_row_that_does_not_add_up(clockscope, tmp_path):
    doc = _doc("tsc", 70.0, 0.0)
    doc["results"][0]["timed_ns_per_call"]["median"] = 999.0        # not net + harness
    a = tmp_path / "bad.json"
    a.write_text(json.dumps(doc))
    good = tmp_path / "good.json"
    good.write_text(json.dumps(_doc("hpet", 3800.0, 2.3)))
    proc = run([clockscope, "report", a, good, "--markdown"], timeout=120)
    assert "the figure as timed is not ns_per_call + the harness" in proc.stderr + proc.stdout


def test_figures_across_processes_each_with_its_own_hash_seed(clockscope, tmp_path):
    """Issue 29: the probe runs in several processes (default: 15 samples / 3 = 5), each
    Python one with its own PYTHONHASHSEED; the figure is the median over processes, the
    JSON keeps each one's, and processes at two levels are said to be bimodal."""
    state = tmp_path / "runs"
    env = {"FAKE_RUNTIME": "levels", "FAKE_STATE": str(state)}
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, env=env)
    assert proc.returncode == 0, proc.stderr
    assert doc["config"]["processes"] == 5 and doc["config"]["samples"] == 3
    (py,) = rows(doc, "python")
    check_measured_row(py)
    procs = py["processes"]
    assert [p["ns_per_call"]["median"] for p in procs] == pytest.approx([40, 70, 40, 70, 40])
    assert py["ns_per_call"]["median"] == pytest.approx(40.0)   # the median over processes
    across = py["across_processes"]
    assert across["count"] == 5 and across["bimodal"] is True
    assert [lv["ns_per_call"]["median"] for lv in across["levels"]] == pytest.approx([40, 70])
    assert [lv["processes"] for lv in across["levels"]] == [3, 2]
    seeds = state.with_name("runs.seeds").read_text().split()
    assert len(seeds) == 5 and len(set(seeds)) == 5 and "unset" not in seeds
    assert [str(p["pythonhashseed"]) for p in procs] == seeds
    # the table shows the lower level marked '~' and says why once; --verbose says the levels
    state.unlink()
    text = run([clockscope, "runtimes", "--only", "python", "--python", FAKE],
               env=dict(os.environ, **env)).stdout
    assert re.search(r"^python +time\.time +40\.0~ ", text, re.M), text
    assert "1 in two levels: the lower shown, with ~." in text
    state.unlink()
    text = run([clockscope, "runtimes", "--only", "python", "--python", FAKE, "--verbose"],
               env=dict(os.environ, **env)).stdout
    assert "bimodal across processes: 40.0 ns / 70.0 ns (3 and 2 of 5 processes)" in flat(text)
    # --processes 1: one run, its figure taken in that one process
    state.unlink()
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, "--processes", "1",
                         env=env)
    (py,) = rows(doc, "python")
    assert len(py["processes"]) == 1 and py["ns_per_call"]["median"] == pytest.approx(40.0)
    assert py["across_processes"]["bimodal"] is False


def test_a_reference_says_whether_the_machine_or_the_processes_moved(clockscope, tmp_path):
    """Issue 29: a probe's reference (its `ref` line, timed around each pair) says whether a
    split between processes is the machine's speed (the reference moved with it: "unstable",
    and the ratio to the reference is the figure that holds) or the processes' own (the
    reference steady); the JSON keeps each process's reference and ratio; the report shows
    the ratio and the range over processes."""
    state = tmp_path / "runs"
    env = {"FAKE_RUNTIME": "machine", "FAKE_STATE": str(state)}
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, env=env)
    assert proc.returncode == 0, proc.stderr
    (py,) = rows(doc, "python")
    assert [p["reference_ns_per_call"]["median"] for p in py["processes"]] == \
        pytest.approx([12.5, 21.875] * 2 + [12.5])
    assert [p["relative"] for p in py["processes"]] == pytest.approx([3.2] * 5)
    ref = py["reference"]
    assert ref["loop_of"] == "abs(-1)" and ref["machine_speed_changed"] is True
    assert ref["relative"] == pytest.approx(3.2)
    cost = ref["ns_per_call"]
    assert (cost["min"], cost["max"], cost["median"]) == pytest.approx((12.5, 21.875, 12.5))
    says = ("unstable: this machine's speed changed during the run (reference abs(-1) 12.5 ns "
            "to 21.9 ns); the figure is the median of the 3 of 5 processes at its fastest speed "
            "(reference within 20%), 3.20x the reference; the levels 40.0 ns / 70.0 ns "
            "(3 and 2 of 5 processes)")
    assert py["verdict"] == says
    state.unlink()
    text = run([clockscope, "runtimes", "--only", "python", "--python", FAKE, "--verbose"],
               env=dict(os.environ, **env)).stdout
    assert "^ " + says in flat(text)
    assert "reference of python: a loop of abs(-1), 12.5 ns (12.5 ns to 21.9 ns over its rows' processes)" in flat(text)
    # the report: the range over processes, the ratio, the verdict
    a = tmp_path / "machine.json"
    a.write_text(json.dumps(doc))
    rep = run([clockscope, "report", a, "--markdown"], timeout=120)
    assert rep.returncode == 0, rep.stderr
    line = next(l for l in rep.stdout.split("## Language runtimes", 1)[1].splitlines()
                if l.startswith("| python | time.time"))
    assert "40.0–70.0 ns over 5 processes" in line and "3.20x the reference" in line
    assert "unstable: the machine's speed changed" in line
    # the reference steady: not the machine's speed as the reference sees it
    state.unlink()
    env["FAKE_RUNTIME"] = "layout"
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, env=env)
    (py,) = rows(doc, "python")
    assert py["reference"]["machine_speed_changed"] is False
    assert py["verdict"] == ("bimodal across processes: 40.0 ns / 70.0 ns (3 and 2 of 5 processes) "
                             "with the reference steady (abs(-1) 12.5 ns): not a change of speed "
                             "the reference sees; neither level is the figure")
    # no reference (a probe without `ref` lines): null, and the bimodal sentence alone
    state.unlink()
    env["FAKE_RUNTIME"] = "levels"
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, env=env)
    (py,) = rows(doc, "python")
    assert py["reference"] is None and py["processes"][0]["relative"] is None
    assert py["verdict"].endswith("(3 and 2 of 5 processes): neither level is the figure")


def test_a_slow_spell_of_the_machine_is_left_out_of_the_figure(clockscope, tmp_path):
    """Issue 29, on a quiet machine: spells of the machine slow three of five processes
    (every pair of them, the reference with it) and the first pair of a fourth.  The figure is
    the one at the machine's speed, 40 ns (the median over the two processes at speed, each
    from its pairs at speed), not the median of all five (70 ns); the JSON marks which
    processes it is over, and the sentence says so.  With --processes 5 that is all; by
    default, two at speed are too few, and one more process is run (at speed: the spell
    is over), so that the figure is the median of three."""
    state = tmp_path / "runs"
    env = {"FAKE_RUNTIME": "machine-spell", "FAKE_STATE": str(state)}
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, "--processes", "5",
                         env=env)
    assert proc.returncode == 0, proc.stderr
    (py,) = rows(doc, "python")
    procs = py["processes"]
    assert [p["ns_per_call"]["median"] for p in procs] == pytest.approx([70, 70, 70, 40, 40])
    assert [p["at_speed"] for p in procs] == [False, False, False, True, True]
    assert py["ns_per_call"]["median"] == pytest.approx(40.0)
    assert py["timed_ns_per_call"]["median"] == pytest.approx(60.0)
    assert py["harness_ns_per_call"]["median"] == pytest.approx(20.0)
    ref = py["reference"]
    assert ref["machine_speed_changed"] is True and ref["processes_at_speed"] == 2
    assert ref["figure_from_processes_at_speed"] is True and ref["processes_added_for_speed"] == 0
    assert "the figure is the median of the 2 of 5 processes at its fastest speed" in py["verdict"]
    # the default count (5): one more, the sixth, at speed
    state.unlink()
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, env=env)
    assert proc.returncode == 0, proc.stderr
    (py,) = rows(doc, "python")
    assert [p["ns_per_call"]["median"] for p in py["processes"]] == pytest.approx([70, 70, 70, 40, 40, 40])
    assert [p["at_speed"] for p in py["processes"]] == [False, False, False, True, True, True]
    ref = py["reference"]
    assert ref["processes_at_speed"] == 3 and ref["processes_added_for_speed"] == 1
    assert py["ns_per_call"]["median"] == pytest.approx(40.0)
    assert ("the figure is the median of the 3 of 6 processes at its fastest speed (reference "
            "within 20%; 1 process more than the 5 asked, run for that)") in py["verdict"]
    # a spell that does not end: as many again as asked, and no more
    state.unlink()
    env["FAKE_RUNTIME"] = "machine-spell-long"
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, env=env)
    assert proc.returncode == 0, proc.stderr
    (py,) = rows(doc, "python")
    assert [p["at_speed"] for p in py["processes"]] == [True] + [False] * 9
    ref = py["reference"]
    assert ref["processes_at_speed"] == 1 and ref["processes_added_for_speed"] == 5
    assert py["ns_per_call"]["median"] == pytest.approx(40.0)
    assert "1 of 10 processes" in py["verdict"] and "5 processes more than the 5 asked" in py["verdict"]
    # without a move of the reference, every process counts and nothing is said of speed
    state.unlink()
    env["FAKE_RUNTIME"] = "layout"
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE, env=env)
    (py,) = rows(doc, "python")
    assert [p["at_speed"] for p in py["processes"]] == [True] * 5
    assert py["reference"]["processes_at_speed"] == 0
    assert py["reference"]["figure_from_processes_at_speed"] is False


def test_python_probe_retakes_a_switched_out_triple(monkeypatch):
    """The Python probe retakes a triple (API, harness, reference) during which its process
    was switched out, at most RETAKE times the pairs asked, and short of clean ones fills
    the rest with the last switched ones (runtimes/probes/probe.py, triples())."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("probe", ROOT / "runtimes/probes/probe.py")
    probe = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(probe)
    clock = iter(range(10**6))
    monkeypatch.setattr(probe, "run", lambda loop, n: next(clock))
    def switched(pattern):
        # one switches() before and one after each triple: the count moves when switched
        seq = []
        total = 0
        for was in pattern:
            seq.append(total)
            total += was
            seq.append(total)
        it = iter(seq)
        monkeypatch.setattr(probe, "switches", lambda: next(it))
    # triples 0 and 2 switched out: retaken; 1, 3, 4 clean are the three kept (each run
    # of a triple: reference, API, harness, reference: four values of the clock; the
    # reference kept is the faster of its two)
    switched([1, 0, 1, 0, 0])
    got = probe.triples(None, 1, None, None, 1, 3)
    assert [t[0] for t in got] == [5, 13, 17] and [t[2] for t in got] == [4, 12, 16]
    # never clean: RETAKE * pairs tries, the last ones kept
    switched([1] * (3 * probe.RETAKE))
    got = probe.triples(None, 1, None, None, 1, 3)
    assert len(got) == 3 and got[-1][0] == next(clock) - 3 and probe.RETAKE >= 2
    # one clean among them: it, then the last switched ones
    switched([1, 1, 0] + [1] * (3 * probe.RETAKE - 3))
    start = next(clock) + 1
    got = probe.triples(None, 1, None, None, 1, 3)
    assert got[0][0] == start + 9 and len(got) == 3


@pytest.mark.parametrize("home,says", [
    ("file", "cannot create {home}/.cache: Not a directory"),
    ("unset", "HOME and XDG_CACHE_HOME unset"),
    ("relative", "HOME is not an absolute path"),
], ids=["home-a-file", "unset", "home-relative"])
def test_no_cache_directory_says_why(clockscope, tmp_path, home, says):
    """Issue 30 item 9: a HOME that is set but cannot hold a cache was reported as "HOME and
    XDG_CACHE_HOME unset".  The Go probe needs a build, so the cache."""
    need_tool("go")
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME")}
    if home == "file":
        (tmp_path / "homefile").write_text("")
        env["HOME"] = str(tmp_path / "homefile")
    elif home == "relative":
        env["HOME"] = "relative/home"
    proc = run([clockscope, "runtimes", "--only", "go", "--no-count", "--json"], env=env,
               timeout=300, cwd=tmp_path)
    why = rows(json.loads(proc.stdout), "go")[0]["why_unavailable"]
    assert "no cache directory" in why and says.format(home=env.get("HOME")) in why, why


def test_a_moving_machine_is_said_once_within_100_columns(clockscope, tmp_path):
    """Issue 35, findings 2 and 8: a run whose reference moved (the fake's "machine": two of
    five processes in a slow spell) marks its row '*' and says so once after the table, with
    a line of advice, not under the row; every line within 100 columns, none ending in
    spaces; the JSON's "stability" counts the same."""
    state = tmp_path / "runs"
    env = dict(os.environ, FAKE_RUNTIME="machine", FAKE_STATE=str(state))
    proc = run([clockscope, "runtimes", "--only", "c,python", "--python", FAKE, "--samples", "6"],
               env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    # A row's own note that its harness outweighs it (C's real probe on a busy machine) is
    # not a word about the machine's steadiness: it may stay under its row.
    assert not any("unstable:" in l or ("^ " in l and "^ the harness" not in l)
                   for l in lines), proc.stdout
    assert not any(re.search(r"\d%!", l) for l in lines), proc.stdout
    assert [l for l in lines if len(l) > 100 or l != l.rstrip()] == [], proc.stdout
    (row,) = [l for l in lines if l.startswith("python ")]
    assert "*" in row, row
    said = [i for i, l in enumerate(lines) if re.match(r"^\d+ of \d+ (figures )?marked \*: ", l)]
    assert len(said) == 1, proc.stdout
    assert "reference 12.5-21.9 ns" in lines[said[0]], lines[said[0]]
    assert lines[said[0] + 1].startswith("likely: "), proc.stdout
    state.unlink()
    proc, doc = runtimes(clockscope, "--only", "python", "--python", FAKE,
                         env={"FAKE_RUNTIME": "machine", "FAKE_STATE": str(state)})
    st = doc["stability"]
    assert (st["figures"], st["unstable"], st["marked"]) == (1, 1, 1), st
    assert st["reference_move"] == pytest.approx(21.875 / 12.5 - 1), st
    assert len(st["summary"]) >= 2 and st["summary"][1].startswith("likely: "), st
