# SPDX-License-Identifier: MIT
"""clockscope report: tables and ratios on crafted numbers computed by hand, the doctor's
explanation beside a slow row, harness cost on runtime rows, every kind of bad input
(message naming the file, the rest still reported, exit 6), exit codes, the C command's
hand-over, the real fixtures, a fleet, and a mutation fuzz of the bundle reader."""
import copy
import csv
import io
import json
import os
import random
import statistics
import sys
from pathlib import Path

import pytest

from conftest import ROOT, need_tool, run

sys.path.insert(0, str(ROOT / "report"))
from clockscope_report import cli  # noqa: E402

BUNDLES = ROOT / "tests" / "data" / "bundles"
REAL = ["host", "x86_64-hpet", "x86_64-tsc", "aarch64", "riscv64"]


def bench_result(rid, median, p10, p90, noisy=False):
    path, api, *clock = rid.split(".")
    return {"id": rid, "path": path, "api": api, "clock": clock[0] if clock else None,
            "available": True, "ns_per_call": {"median": median, "p10": p10, "p90": p90},
            "calls_per_sec": 1e9 / median, "noisy": noisy}


def doctor(verdict="ok", syscalls=0, clocksource="tsc", findings=()):
    return {"schema": "clockscope.doctor/1", "verdict": verdict, "fast_path": syscalls == 0,
            "summary": f"summary of {verdict}", "findings": list(findings),
            "facts": {"clocksource": clocksource},
            "proof": {"syscall_count": {"counted": True, "calls": 1000,
                                        "syscalls": {"clock_gettime_monotonic": syscalls * 1000}}}}


def finding(fid, severity="warning", fix=("do the fix",)):
    return {"id": fid, "severity": severity, "title": f"title of {fid}", "evidence": [f"evidence of {fid}"],
            "meaning": None, "fix": list(fix), "gain": None}


def bundle(name, results, doc=None, runtimes=None, parts=None):
    doc = doc or doctor()
    b = {"schema": "clockscope.bundle/1",
         "machine": {"name": name, "arch": "x86_64", "clocksource": doc["facts"]["clocksource"],
                     "kernel": "6.1"},
         "clockscope": {"version": "0.1.0"}, "started": "2026-01-01T00:00:00Z", "duration_s": 1,
         "parts": {"bench": {"schema": "clockscope.bench/1", "results": results},
                   "doctor": doc,
                   "warp": {"schema": "clockscope.warp/1", "methods": [], "faults": 0}}}
    if runtimes is not None:
        b["parts"]["runtimes"] = {"schema": "clockscope.runtimes/1", "results": runtimes}
    if parts is not None:
        b["parts"] = parts
    return b


def write(tmp_path, name, doc):
    p = tmp_path / name
    p.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    return str(p)


def report(capsys, *args):
    code = cli.main([str(a) for a in args])
    out = capsys.readouterr()
    return code, out.out, out.err


MONO = "libc.clock_gettime.monotonic"


@pytest.fixture
def need_chromium():
    need_tool("chromium")
    import shutil
    return shutil.which("chromium")


@pytest.fixture
def pair(tmp_path):
    """base: 100 ns (p10 90, p90 110); slow: 300 ns (270, 330): 3.0x slower, no samples: the
    range both p10-p90 allow, 270/110 to 330/90."""
    base = bundle("base", [bench_result(MONO, 100, 90, 110), bench_result("libc.time", 100, 90, 110),
                           bench_result("libc.gettimeofday", 100, 90, 110)])
    slow = bundle("slow", [bench_result(MONO, 300, 270, 330), bench_result("libc.time", 50, 45, 55),
                           bench_result("libc.gettimeofday", 120, 100, 140)],
                  doctor("slow", 1, "hpet", [finding("clocksource-no-vdso", "critical",
                                                      ["echo tsc > current_clocksource"]),
                                              finding("minor", "notice")]))
    return write(tmp_path, "base.json", base), write(tmp_path, "slow.json", slow)


def test_ratios_by_hand(capsys, pair):
    code, out, err = report(capsys, *pair, "--csv")
    assert code == 0, err
    rows = {(r["machine"], r["measure"]): r for r in csv.DictReader(io.StringIO(out))}
    mono = rows[("slow", MONO)]
    assert mono["ratio"] == "3" and mono["direction"] == "slower" and mono["significant"] == "1"
    assert float(mono["ratio_low"]) == pytest.approx(270 / 110, rel=1e-3)
    assert float(mono["ratio_high"]) == pytest.approx(330 / 90, rel=1e-3) and mono["interval"] == "range"
    t = rows[("slow", "libc.time")]             # 50 vs 100: 2.0x faster, 45/110 to 55/90
    assert t["ratio"] == "2" and t["direction"] == "faster"
    assert float(t["ratio_low"]) == pytest.approx(45 / 110, rel=1e-3)
    g = rows[("slow", "libc.gettimeofday")]     # 100-140 overlaps 90-110
    assert g["significant"] == "0"
    assert rows[("base", MONO)]["ratio"] == ""  # the baseline is not compared with itself


def test_an_unstable_bench_figure_is_marked(capsys, tmp_path):
    """Issue 29: a bench figure whose reference moved during its run (the machine's speed
    changed), or whose processes split in two levels, is marked as a noisy one is."""
    def unstable(res, moved=False, bimodal=False):
        res["reference"] = {"method": "counter.lfence_rdtsc", "ns": 18.4, "min_ns": 18.4,
                            "max_ns": 19.7 if moved else 18.41, "relative": 1.2,
                            "relative_min": 1.2, "relative_max": 1.21,
                            "machine_speed_changed": moved}
        res["across_processes"] = {"count": 5, "bimodal": bimodal}
        return res
    base = bundle("base", [unstable(bench_result(MONO, 22.2, 22.1, 22.4)),
                           unstable(bench_result("libc.time", 5, 4.9, 5.1), bimodal=True)])
    slow = bundle("slow", [unstable(bench_result(MONO, 23.5, 23.4, 23.6), moved=True),
                           bench_result("libc.time", 5, 4.9, 5.1)])
    code, out, err = report(capsys, write(tmp_path, "base.json", base),
                            write(tmp_path, "slow.json", slow), "--csv")
    assert code == 0, err
    rows = {(r["machine"], r["measure"]): r for r in csv.DictReader(io.StringIO(out))}
    assert rows[("slow", MONO)]["noisy"] == "1" and rows[("base", MONO)]["noisy"] == "0"
    assert rows[("base", "libc.time")]["noisy"] == "1" and rows[("slow", "libc.time")]["noisy"] == "0"


def test_markdown_table_and_explanation(capsys, pair):
    code, out, err = report(capsys, *pair, "--markdown")
    assert code == 0, err
    assert "| API | base ns/call | base calls/s | slow ns/call | slow calls/s | slow vs base | why |" in out
    row = next(l for l in out.splitlines() if l.startswith("| clock_gettime(CLOCK_MONOTONIC)"))
    assert "| 100 ns | 10.0 M/s | 300 ns | 3.33 M/s | 3.0x slower (range 2.5x to 3.7x) |" in row
    # beside the slow row, its cause in a few words and its footnote; the footnote holds
    # slow's own doctor: verdict, proof, clocksource, the most severe finding and its fix
    assert row.endswith("| every read a syscall (clocksource hpet) [^1] |"), row
    note = next(l for l in out.splitlines() if l.startswith("[^1]: "))
    for piece in ("doctor: slow", "1 syscall per call", "clocksource hpet",
                  "finding clocksource-no-vdso", "fix: echo tsc > current_clocksource"):
        assert piece in note, piece
    assert "2.0x faster (range 1.6x to 2.4x)" in out
    assert "no significant difference (range 1.1x faster to 1.6x slower)" in out
    assert "slow is 3.0x slower than base (range 2.5x to 3.7x) at reading the time" in out    # the answer


def test_baseline_option(capsys, pair):
    code, out, _ = report(capsys, *pair, "--markdown", "--baseline", "slow")
    assert code == 0
    assert "base vs slow" in out and "3.0x faster (range 2.5x to 3.7x)" in out
    with pytest.raises(SystemExit) as e:
        cli.main([*pair, "--baseline", "nobody"])
    assert e.value.code == 2
    assert "not one of the machines" in capsys.readouterr().err


def test_terminal_and_long_form(capsys, tmp_path, pair):
    third = write(tmp_path, "third.json", bundle("third", [bench_result(MONO, 1000, 900, 1100)]))
    code, out, _ = report(capsys, *pair, third)
    assert code == 0
    lines = out.splitlines()
    head = next(l for l in lines if "ns/call" in l)
    assert "machine" in head and "vs base" in head
    assert any("third" in l and "10x slower (range 8.2x to 12x)" in l for l in lines)
    assert any(l.strip().startswith("↳") and "no fault found" in l for l in lines)
    # third is slower while its doctor finds it healthy: the answer says where the gap lies
    flat = " ".join(out.split())                    # the notes are wrapped at 100 columns
    assert "third is 10x slower than base (range 8.2x to 12x)" in flat and "Its doctor finds nothing wrong" in flat


def test_harness_polluted_runtime_figure(capsys, tmp_path):
    """The RISC-V clock_gettime report's trap: a runtime figure that is mostly the harness (an FFI call) must be
    shown with its harness cost, not as a slow clock."""
    rt = lambda ns, harness: {"runtime": "python", "api": "ctypes.clock_gettime", "available": True,
                              "status": "measured", "ns_per_call": ns - harness, "harness_ns": harness,
                              "timed_ns": ns, "p10_ns": ns * 0.95 - harness, "p90_ns": ns * 1.05 - harness,
                              "path": "ffi-libc", "harness_bound": harness >= 0.8 * ns,
                              "enters_kernel": False}
    a = write(tmp_path, "a.json", bundle("a", [bench_result(MONO, 20, 19, 21)], runtimes=[rt(60, 10)]))
    b = write(tmp_path, "b.json", bundle("b", [bench_result(MONO, 21, 19, 22)], runtimes=[rt(400, 380)]))
    code, out, err = report(capsys, a, b, "--markdown")
    assert code == 0, err
    row = next(l for l in out.splitlines() if l.startswith("| python | ctypes.clock_gettime"))
    assert row == "| python | ctypes.clock_gettime | ffi-libc | 50.0 ns (+10.0 ns) | 20.0 ns? (harness 380 ns) |"
    assert "slower" not in row                              # not called a slow clock
    code, out, err = report(capsys, a, b, "--csv")
    r = next(r for r in csv.DictReader(io.StringIO(out)) if r["machine"] == "b" and r["row"].startswith("python"))
    assert r["harness_ns_median"] == "380.0" and r["ratio"] == ""       # not compared
    # net of the harness both ways, the comparison holds: 50 ns vs 100 ns net is shown
    c = write(tmp_path, "c.json", bundle("c", [bench_result(MONO, 20, 19, 21)], runtimes=[rt(110, 10)]))
    code, out, _ = report(capsys, a, c, "--markdown")
    row = next(l for l in out.splitlines() if l.startswith("| python | ctypes.clock_gettime"))
    assert "100 ns (+10.0 ns), 2.0x slower (range " in row             # (110-10) / (60-10)


BAD = {
    "truncated.json": (lambda good: good[: len(good) // 2], "truncated"),
    "malformed.json": (lambda good: good.replace(":", "=", 3), "not JSON"),
    "empty.json": (lambda good: "", "empty file"),
    "newer.json": (lambda good: good.replace('"clockscope.bundle/1"', '"clockscope.bundle/2"'),
                   "newer than this report reads"),
    "notours.json": (lambda good: '{"hello": 1}', "not a clockscope document"),
    "binary.json": (lambda good: "\udcff\udcfe garbage", "not UTF-8"),
}


@pytest.mark.parametrize("name", sorted(BAD))
def test_bad_file_named_and_rest_reported(capsys, tmp_path, pair, name):
    make, message = BAD[name]
    good = Path(pair[1]).read_text()
    bad = tmp_path / name
    bad.write_bytes(make(good).encode("utf-8", "surrogateescape"))
    code, out, err = report(capsys, pair[0], bad, pair[1], "--markdown")
    assert code == 6, err
    assert f"{bad}: " in err and message in err, err
    assert "slow vs base" in out                 # the good files are still compared
    assert message in out                        # and the problem is in the report too


def test_missing_and_failed_and_malformed_parts(capsys, tmp_path, pair):
    b = json.loads(Path(pair[1]).read_text())
    nobench = copy.deepcopy(b)
    nobench["machine"]["name"] = "nobench"
    del nobench["parts"]["bench"]
    failed = copy.deepcopy(b)
    failed["machine"]["name"] = "failed"
    failed["parts"]["doctor"] = {"error": "killed by signal 9 (Killed)"}
    broken = copy.deepcopy(b)
    broken["machine"]["name"] = "broken"
    broken["parts"]["bench"]["results"] = "oops"
    newer = copy.deepcopy(b)
    newer["machine"]["name"] = "newerpart"
    newer["parts"]["warp"]["schema"] = "clockscope.warp/7"
    files = [write(tmp_path, f"{k}.json", v) for k, v in
             (("nobench", nobench), ("failed", failed), ("broken", broken), ("newer", newer))]
    code, out, err = report(capsys, pair[0], *files, "--markdown")
    assert code == 6
    assert "nobench.json: bundle has no 'bench' part" in err
    assert "failed.json: part 'doctor' failed when collected: killed by signal 9" in err
    assert "broken.json: part 'bench' is malformed (results is not a list)" in err
    assert "newer.json: part 'warp' has schema clockscope.warp/7, newer than" in err
    assert "no diagnosis (killed by signal 9 (Killed))" in out     # failed: doctor missing, bench kept
    assert "| failed |" in out and "3.0x slower (range 2.5x to 3.7x)" in out


def test_duplicate_names(capsys, tmp_path, pair):
    again = write(tmp_path, "again.json", json.loads(Path(pair[1]).read_text()))
    code, out, err = report(capsys, *pair, again, "--markdown")
    assert code == 0      # normal in a fleet: a note, nothing skipped
    assert "clockscope report: note: " in err and "machine name 'slow' is also the name of" in err
    assert "shown as 'slow (again.json)'" in err and err.count("\n") == 1, err
    assert "| slow (again.json) |" in out and "problems" not in out


def test_nothing_readable_and_no_input(capsys, tmp_path):
    e = write(tmp_path, "e.json", "")
    code, out, err = report(capsys, e, tmp_path / "missing.json")
    assert code == 8      # a file read (empty) is bad input
    assert "empty file" in err and "missing.json: cannot read" in err and "nothing to report" in err
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, out, err = report(capsys, fifo, tmp_path, "/dev/zero")
    assert code == 2      # no file could be read: the command line names the wrong ones
    assert err.count("not a regular file") == 3
    with pytest.raises(SystemExit) as ex:
        cli.main([])
    assert ex.value.code == 2


def test_single_command_documents(capsys, tmp_path, clockscope):
    """Plain --json outputs of single commands are machines named after their files."""
    bench = run([clockscope, "bench", "--quick", "--only", "libc.clock_gettime.monotonic", "--json"])
    doc = run([clockscope, "doctor", "--json"])
    b = write(tmp_path, "mybench.json", bench.stdout)
    d = write(tmp_path, "mydoctor.json", doc.stdout)
    code, out, err = report(capsys, b, d, "--markdown")
    assert code == 0, err
    assert "mybench" in out and "mydoctor" in out
    assert "clock_gettime(CLOCK_MONOTONIC)" in out


def test_fleet_summary(capsys, tmp_path):
    files = []
    for i in range(10):
        slow = i >= 7
        files.append(write(tmp_path, f"m{i}.json", bundle(
            f"m{i}", [bench_result(MONO, 2000 if slow else 30 + i, 1800 if slow else 28 + i, 2200 if slow else 32 + i)],
            doctor("slow" if slow else "ok", 1 if slow else 0, "hpet" if slow else "tsc",
                   [finding("clocksource-no-vdso")] if slow else []))))
    code, out, err = report(capsys, *files, "--markdown")
    assert code == 0, err
    assert out.index("## Fleet summary") < out.index("## Machines")
    assert "Of 9 machines compared with m0 (clock_gettime(CLOCK_MONOTONIC): 30.0 ns): 5 " \
           "significantly slower, 0 faster, 4 no significant difference" in out
    assert "The reason most of the slower machines share (3 of 5): clocksource-no-vdso" in out
    assert "Machines per verdict: ok 7, slow 3" in out
    assert "Machines per clocksource: tsc 7, hpet 3" in out
    assert "clocksource-no-vdso (title of clocksource-no-vdso): 3" in out
    assert "over 10 machines: min 30.0 ns" in out and "max 2.00 µs" in out
    machines = [l.split(" | ")[0][2:] for l in out.splitlines() if l.startswith("| m") and "| x86_64 |" in l]
    assert set(machines[:3]) == {"m7", "m8", "m9"}          # slowest first
    assert machines[-1] == "m0"
    slow_row = next(l for l in out.splitlines() if l.startswith("| m7 "))
    assert "67x slower (range 56x to 79x)" in slow_row and "slow, 1 syscall per clock_gettime" in slow_row


def test_real_fixtures(capsys, tmp_path):
    """The real bundles (scripts/make-bundle-fixtures.sh): riscv64 against this machine
    reads "slower" with the reason from riscv64's own doctor."""
    files = [BUNDLES / f"{n}.json" for n in ("host", "riscv64")]
    rv = json.loads(files[1].read_text())
    code, out, err = report(capsys, *files, "--markdown")
    assert code == 0, err
    row = next(l for l in out.splitlines() if l.startswith("| clock_gettime(CLOCK_MONOTONIC)"))
    assert "slower" in row and row.endswith(" [^1] |")
    row = next(l for l in out.splitlines() if l.startswith("[^1]: "))          # its note
    assert f"doctor: {rv['parts']['doctor']['verdict']}" in row
    assert f"clocksource {rv['parts']['doctor']['facts']['clocksource']}" in row
    ids = [f["id"] for f in rv["parts"]["doctor"]["findings"]]
    assert any(f"finding {i}" in row for i in ids)
    code, out, err = report(capsys, *[BUNDLES / f"{n}.json" for n in REAL], "--markdown")
    assert code == 0, err
    assert "x86_64-hpet" in out and "clocksource hpet" in out
    # the TCG guests say that their CPU is emulated (their machine's cpu_model says so)
    assert json.loads((BUNDLES / "x86_64-tsc.json").read_text())["machine"]["cpu_model"].startswith("QEMU TCG")
    assert "  - doctor: ok; clock_gettime makes 0 syscalls per call (served by the vDSO); " \
           "clocksource tsc; an emulated CPU (qemu-tcg): its nanoseconds are the emulator's" in out
    # an emulated machine's gap is never put down to the CPU itself
    tsc_line = next(l for l in out.splitlines() if l.startswith("[^") and "]: x86_64-tsc is" in l)
    assert "the gap is the emulator's" in tsc_line and "in the CPU itself" not in tsc_line


def test_html_and_chart_files(capsys, tmp_path):
    out_html = tmp_path / "r.html"
    charts = tmp_path / "charts"
    code, out, err = report(capsys, *[BUNDLES / f"{n}.json" for n in REAL], "-o", out_html,
                          "--charts", charts)
    assert code == 0, err
    assert out == ""      # -o: the HTML is the report; only the "written" line, on stderr
    assert err.startswith(f"clockscope report: {out_html} written ("), err
    html = out_html.read_text()
    names = sorted(p.name for p in charts.iterdir())
    # the guests' bundles carry ladder and runtimes parts: their charts too
    assert names == ["cost.svg", "ladder-matrix.svg", "ladder-sweep.svg", "ladder.svg", "ratio.svg",
                     "runtimes.svg", "warp.svg"]
    assert html.count("<svg") == 7
    # log axes labelled in plain numbers: mathtext is off, so its $10^{2}$ would show raw
    for name in names:
        assert "mathdefault" not in (charts / name).read_text(), name
    # self-contained: nothing fetched at view time
    for ref in ('src="http', "href=\"http", "url(http", "@import", "<script", "<link"):
        assert ref not in html
    # the answer comes first, then tables, charts, findings, machines
    order = [html.index(s) for s in ('class="answer"', "Cost of reading the time", "<h2>Charts",
                                     "Doctor findings", "<h2>Machines")]
    assert order == sorted(order)


def test_output_errors(capsys, tmp_path, pair):
    code, _, err = report(capsys, *pair, "-o", tmp_path / "nodir" / "r.html")
    assert code == 1 and "cannot write" in err


def _mutations(doc, rng):
    """Structure-aware mutations: a value replaced by another type, a key dropped."""
    def walk(node, depth=0):
        if isinstance(node, dict) and node:
            k = rng.choice(list(node))
            r = rng.random()
            if r < 0.25:
                del node[k]
            elif r < 0.6 or depth > 8:
                node[k] = rng.choice([None, "x", -1, 1e308, True, [], {}, [1, "a"], {"median": "1"}, 0])
            else:
                walk(node[k], depth + 1)
        elif isinstance(node, list) and node:
            i = rng.randrange(len(node))
            if rng.random() < 0.5:
                node[i] = rng.choice([None, "x", 3, [], {}])
            else:
                walk(node[i], depth + 1)
    for _ in range(rng.randint(1, 4)):
        walk(doc)
    return doc


def test_fuzz_bundle_reader(capsys, tmp_path):
    """Mutated real bundles (byte-level and structural): the report never crashes; every
    file is either reported or named with what is wrong; exit status 0 or 6."""
    rng = random.Random(2024)
    seeds = [(BUNDLES / f"{n}.json").read_text() for n in REAL]
    for i in range(120):
        text = rng.choice(seeds)
        if i % 2:
            b = list(text)
            for _ in range(rng.randint(1, 5)):
                b[rng.randrange(len(b))] = rng.choice('{}[]",:0-e\\ ')
            text = "".join(b)
        else:
            text = json.dumps(_mutations(json.loads(text), rng))
        f = write(tmp_path, f"f{i}.json", text)
        code = cli.main([f, str(BUNDLES / "host.json"), "--markdown"])
        out = capsys.readouterr()
        assert code in (0, 6), (code, out.err)
        assert "## The answer" in out.out
        if code == 6:
            assert f in out.err


def test_c_command_hands_over(clockscope, tmp_path):
    files = [BUNDLES / f"{n}.json" for n in ("host", "riscv64")]
    proc = run([clockscope, "report", *files, "--markdown"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "riscv64 vs host" in proc.stdout
    # a clockscope_report planted in the current directory is never imported
    (tmp_path / "clockscope_report").mkdir()
    (tmp_path / "clockscope_report" / "__init__.py").write_text("raise SystemExit(77)\n")
    assert run([clockscope, "report", *files], cwd=tmp_path).returncode == 0
    env = dict(os.environ, CLOCKSCOPE_PYTHON="no-such-python3")
    proc = run([clockscope, "report", *files], env=env)
    assert proc.returncode == 7 and "install Python 3 and matplotlib" in proc.stderr
    env = dict(os.environ, CLOCKSCOPE_REPORT_PATH=str(tmp_path / "none"))
    proc = run([clockscope, "report", *files], env=env, cwd="/")
    assert proc.returncode == 7 and "pip install ./report" in proc.stderr
    proc = run([clockscope, "report", "--bogus"])
    assert proc.returncode == 2


def test_missing_matplotlib_is_named(tmp_path, pair):
    """Without matplotlib, -o says what to install and exits 7; --markdown still works."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "matplotlib").mkdir()
    (blocker / "matplotlib" / "__init__.py").write_text("raise ImportError('blocked for the test')\n")
    env = dict(os.environ, PYTHONPATH=f"{blocker}:{ROOT / 'report'}")
    proc = run([sys.executable, "-m", "clockscope_report", *pair, "-o", tmp_path / "r.html"], env=env)
    assert proc.returncode == 7, proc.stderr
    assert "pip install matplotlib" in proc.stderr
    proc = run([sys.executable, "-m", "clockscope_report", *pair, "--markdown"], env=env)
    assert proc.returncode == 0


def test_html_in_headless_chromium(capsys, tmp_path, need_chromium):
    """The real report in a real browser: no console errors, every chart an SVG in the
    DOM with a size, and a screenshot that is not blank (kept in tmp_path)."""
    out_html = tmp_path / "r.html"
    code, _, err = report(capsys, *[BUNDLES / f"{n}.json" for n in REAL], "-o", out_html)
    assert code == 0, err
    html = out_html.read_text()
    # a console message must be caught: the page gets one deliberate script that logs
    # when the renderer runs it (the report itself has no script).
    probe = tmp_path / "probe.html"
    # and a header cell narrower than one of its words (the word would be cut: "runtim/e";
    # a field name may break after its "_").
    probe.write_text(html.replace("</body>", "<script>var c = document.createElement('canvas')"
                                  ".getContext('2d'), cut = [];"
                                  "document.querySelectorAll('th').forEach(function (th) {"
                                  " var s = getComputedStyle(th);"
                                  " c.font = s.fontWeight + ' ' + s.fontSize + ' ' + s.fontFamily;"
                                  " var room = th.clientWidth - parseFloat(s.paddingLeft)"
                                  " - parseFloat(s.paddingRight);"
                                  " th.textContent.split(/\\s+|_/).forEach(function (w) {"
                                  "  if (w && c.measureText(w).width > room + 1) cut.push(w); }); });"
                                  "console.error('probe-' + "
                                  "document.querySelectorAll('div.chart svg').length + ' width-' + "
                                  "(document.documentElement.scrollWidth <= innerWidth) + ' cut-' + "
                                  "cut.join(','))</script></body>"))
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
             "--disable-component-update", "--disable-sync", "--no-first-run",
             f"--user-data-dir={tmp_path / 'profile'}", "--enable-logging=stderr", "--v=0"]
    shot = tmp_path / "report.png"
    proc = run([need_chromium, *flags, f"--screenshot={shot}", "--window-size=1400,4000",
                f"file://{out_html}"], timeout=120)
    assert shot.exists(), proc.stderr
    console = [l for l in proc.stderr.splitlines() if "CONSOLE" in l or "Uncaught" in l]
    assert console == [], console
    proc = run([need_chromium, *flags, "--window-size=1400,4000", "--dump-dom", f"file://{probe}"],
               timeout=120)
    # the console is seen, in the form the check above looks for, and 7 charts were in the DOM
    # and nothing is wider than the window (no sideways scrolling)
    assert any("CONSOLE" in l and "probe-7 width-true cut-\"" in l for l in proc.stderr.splitlines()), \
        proc.stderr
    dom = proc.stdout
    assert dom.count('<div class="chart"') == 7 and dom.count("<svg") >= 7
    # the RISC-V clock_gettime report's two-machine form (the widest table) fits a 1280-pixel window
    pair = tmp_path / "pair.html"
    code, _, err = report(capsys, BUNDLES / "host.json", BUNDLES / "riscv64.json", "-o", pair)
    assert code == 0, err
    pair.write_text(pair.read_text().replace("</body>", "<script>console.error('pair-width-' + "
                                             "(document.documentElement.scrollWidth <= innerWidth))"
                                             "</script></body>"))
    proc = run([need_chromium, *flags, "--window-size=1280,2000", "--dump-dom", f"file://{pair}"],
               timeout=120)
    assert "pair-width-true" in proc.stderr, proc.stderr[-2000:]
    import matplotlib.image
    img = matplotlib.image.imread(str(shot))
    assert img.shape[0] >= 1000 and img.shape[1] >= 1000
    ink = (img[:, :, :3].mean(axis=2) < 0.9).mean()
    assert ink > 0.02, f"screenshot almost blank ({ink:.3%} of pixels not white)"
    # the charts' region has colour (bars, heatmap), not only text
    coloured = ((img[:, :, 0] - img[:, :, 2]) ** 2 > 0.04).mean()
    assert coloured > 0.002, coloured


def test_hostile_names_and_text(capsys, tmp_path, pair):
    """Markup and terminal escapes from a bundle reach neither the HTML nor the terminal."""
    evil = json.loads(Path(pair[1]).read_text())
    evil["machine"]["name"] = '<img src=x onerror="alert(1)">\x1b]0;owned\x07|x'
    evil["parts"]["doctor"]["findings"][0]["evidence"] = ["kernel: \x1b[31mred\x1b[0m </script>"]
    evil["parts"]["doctor"]["findings"][0]["title"] = "\x1b[2Jcleared screen"   # shown beside the row
    f = write(tmp_path, "evil.json", evil)
    code, out, err = report(capsys, pair[0], f)
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out
    code, out, _ = report(capsys, pair[0], f, "--markdown")
    assert "\x1b" not in out and "\\|x" in out        # the table's column stays whole
    html = tmp_path / "r.html"
    code, _, err = report(capsys, pair[0], f, "-o", html)
    assert code == 0, err
    text = html.read_text()
    assert "<img" not in text and "</script>" not in text and "\x1b" not in text
    assert "&lt;img src=x" in text


@pytest.mark.parametrize("case", ["dollar", "surrogate", "huge"])
def test_hostile_values_in_charts(capsys, tmp_path, pair, case):
    """-o and --charts on a name matplotlib would read as TeX, a lone surrogate (legal JSON,
    not encodable), and a 1e308 ns figure: the report and every chart are written; the
    absurd figure is refused with its field named."""
    evil = json.loads(Path(pair[1]).read_text())
    if case == "dollar":
        evil["machine"]["name"] = "host$\\frac{1$"
    elif case == "surrogate":
        evil["machine"]["name"] = "host\ud800x"
    else:
        evil["parts"]["bench"]["results"][0]["ns_per_call"] = {"median": 1e308, "p10": 1e308, "p90": 1e308}
    f = write(tmp_path, "evil.json", json.dumps(evil))       # ensure_ascii: "\ud800" escaped
    html, charts = tmp_path / "r.html", tmp_path / "charts"
    code, out, err = report(capsys, pair[0], f, "-o", html, "--charts", charts)
    assert "not drawn" not in err and "Traceback" not in err
    text = html.read_text(encoding="utf-8")
    if case == "huge":
        assert code == 6 and "results[0].ns_per_call" in err and "no measurement" in err
        return
    assert code == 0, err
    assert sorted(p.name for p in charts.iterdir()) == ["cost.svg", "ratio.svg"]
    name = "host$\\frac{1$" if case == "dollar" else "host\ufffdx"
    assert name in text and name in (charts / "cost.svg").read_text(encoding="utf-8")
    code, out, _ = report(capsys, pair[0], f, "--markdown")
    assert code == 0 and name in out


def test_a_chart_that_fails_costs_only_itself(capsys, tmp_path, pair, monkeypatch):
    """A chart matplotlib cannot draw is named among the input problems (exit 6); the other
    charts and the report are written."""
    import dataclasses
    from clockscope_report import bench, registry

    def ratio_chart(rep, canvas):
        raise OverflowError("cannot convert float infinity to integer")
    parts = tuple(dataclasses.replace(p, charts=(bench.cost_chart, ratio_chart)) if p.name == "bench" else p
                  for p in registry.PARTS)
    monkeypatch.setattr(registry, "PARTS", parts)
    html = tmp_path / "r.html"
    code, _, err = report(capsys, *pair, "-o", html)
    assert code == 6 and "ratio chart: not drawn: OverflowError" in err
    text = html.read_text()
    assert text.count("<svg") == 1 and "ratio chart: not drawn" in text   # cost.svg is there


def test_markdown_and_csv_are_inert(capsys, tmp_path, pair):
    """Markup from a bundle is shown, never run, by a Markdown renderer; a CSV cell that a
    spreadsheet would take for a formula starts with a quote; a number stays a number."""
    evil = json.loads(Path(pair[1]).read_text())
    evil["machine"]["name"] = "=HYPERLINK(\"http://x\",\"y\")"
    evil["parts"]["doctor"]["findings"][0]["title"] = "<script>alert(1)</script>"
    evil["parts"]["doctor"]["findings"][0]["evidence"] = ['<img src=x onerror="alert(2)"> & more']
    evil["parts"]["bench"]["results"].append(dict(bench_result("libc.time", 60, 55, 65), id="@SUM(A1)"))
    f = write(tmp_path, "evil.json", evil)
    neg = json.loads(Path(pair[0]).read_text())
    neg["machine"]["name"] = "-3.5"
    base = write(tmp_path, "neg.json", neg)
    code, out, err = report(capsys, base, f, "--markdown")
    assert code == 0, err
    assert "<script" not in out and "<img" not in out
    assert "&lt;script>alert(1)&lt;/script>" in out and "&lt;img src=x onerror" in out
    assert "&amp; more" in out
    code, out, err = report(capsys, base, f, "--csv", "--all")
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out)))
    cells = [c for r in rows[1:] for c in r]
    assert "'=HYPERLINK(\"http://x\",\"y\")" in cells and "'@SUM(A1)" in cells
    assert not any(c.startswith(("=", "+", "@")) for c in cells)
    assert "-3.5" in cells and "'-3.5" not in cells       # the baseline's name: a number
    assert all(not c.startswith("-") or c == "-3.5" for c in cells)


def test_a_new_part_is_one_module_and_one_registry_line(capsys, tmp_path, pair, monkeypatch):
    """The part interface (report/clockscope_report/part.py): a part defined here and added
    to the registry is read from a bundle and a single document, and shows in the terminal,
    Markdown and HTML sections and the charts, with nothing else touched."""
    from clockscope_report import checks, registry
    from clockscope_report.part import Part

    def read(doc, m):
        m.data["uptime"] = checks.num(doc.get("seconds"), "seconds", optional=False)

    def section(rep):
        return [f"uptime of {m.name}: {m.data['uptime']:g} s" for m in rep.machines if "uptime" in m.data]

    def uptime_chart(rep, canvas):
        fig, ax = canvas.subplots(figsize=(3, 2))
        ax.bar([m.name for m in rep.machines], [m.data.get("uptime", 0) for m in rep.machines])
        return [("uptime.svg", "Uptime", canvas.svg(fig))]
    part = Part("uptime", 1, read, text=section, markdown=section, html=section, charts=(uptime_chart,))
    monkeypatch.setattr(registry, "PARTS", registry.PARTS + (part,))
    b = json.loads(Path(pair[1]).read_text())
    b["parts"]["uptime"] = {"schema": "clockscope.uptime/1", "seconds": 42}
    f = write(tmp_path, "up.json", b)
    single = write(tmp_path, "single.json", {"schema": "clockscope.uptime/1", "seconds": 7})
    for form in ([], ["--markdown"]):
        code, out, err = report(capsys, pair[0], f, single, *form)
        assert code == 0, err
        assert "uptime of slow: 42 s" in out and "uptime of single: 7 s" in out
    html, charts = tmp_path / "r.html", tmp_path / "charts"
    code, _, err = report(capsys, pair[0], f, "-o", html, "--charts", charts)
    assert code == 0, err
    assert "uptime of slow: 42 s" in html.read_text() and (charts / "uptime.svg").exists()
    newer = write(tmp_path, "newer.json", dict(b, parts=dict(b["parts"], uptime={"schema": "clockscope.uptime/2"})))
    code, _, err = report(capsys, pair[0], newer)
    assert code == 6 and "part 'uptime' has schema clockscope.uptime/2, newer than this report reads (/1)" in err


def _with_samples(name, samples, **kw):
    xs = sorted(samples)
    q = lambda f: xs[min(len(xs) - 1, int(f * len(xs)))]
    r = bench_result(MONO, statistics.median(xs), q(0.1), q(0.9))
    r["ns_per_call"]["samples"] = list(samples)
    return bundle(name, [r], **kw)


def test_bootstrap_interval_decides_the_words(capsys, tmp_path):
    """Medians 1.8x apart, but so few and so spread samples that the bootstrap interval of
    the ratio of medians straddles 1: "no significant difference", never "slower"; with
    tight samples the same medians are "slower", and the interval is the bootstrap's."""
    base = write(tmp_path, "base.json", _with_samples("base", [90, 100, 110, 190, 200]))
    wide = write(tmp_path, "wide.json", _with_samples("wide", [50, 60, 200, 210, 220]))
    code, out, err = report(capsys, base, wide, "--markdown")
    assert code == 0, err
    row = next(l for l in out.splitlines() if l.startswith("| clock_gettime(CLOCK_MONOTONIC)"))
    assert "no significant difference (" in row and "slower (" not in row.split("no significant")[0]
    assert "range" not in row                       # a bootstrap interval, not a range
    assert "wide is" not in out and "wide against base: no significant difference" in out
    code, out, _ = report(capsys, base, wide, "--csv")
    r = next(r for r in csv.DictReader(io.StringIO(out)) if r["machine"] == "wide")
    assert r["interval"] == "bootstrap" and r["significant"] == "0"
    assert float(r["ratio_low"]) < 1 < float(r["ratio_high"])
    tight = write(tmp_path, "tight.json", _with_samples("tight", [195, 198, 200, 202, 205] * 8))
    base2 = write(tmp_path, "base2.json", _with_samples("base2", [108, 109, 110, 111, 112] * 8))
    code, out, err = report(capsys, base2, tight, "--markdown")
    assert code == 0, err
    assert "tight is 1.8x slower than base2 (1.80x to 1.84x)" in out


def test_exact_bootstrap_matches_resampling():
    """The exact bootstrap distribution of the median (compare.median_distribution) gives
    the interval that many seeded resamples converge to, on skewed samples."""
    from clockscope_report.compare import bootstrap_interval
    rng = random.Random(2027)
    a = tuple(rng.lognormvariate(0, 1) * 100 for _ in range(41))
    b = tuple(rng.lognormvariate(0, 0.5) * 60 for _ in range(40))      # an even count too
    lo, hi = bootstrap_interval(a, b)
    ratios = sorted(statistics.median_low(rng.choices(a, k=len(a))) /
                    statistics.median_low(rng.choices(b, k=len(b))) for _ in range(20000))
    assert lo == pytest.approx(ratios[500], rel=0.03) and hi == pytest.approx(ratios[19500], rel=0.03)


def test_bench_hands_its_samples_to_the_bootstrap(clockscope, tmp_path):
    """bench's JSON carries each method's pooled samples (ns_per_call.samples, ascending,
    as many as it took); two such documents are compared by the bootstrap, not the range."""
    docs = []
    for k in range(2):
        proc = run([clockscope, "bench", "--quick", "--samples", "9", "--only", "libc.clock_gettime.monotonic",
                    "--json"], timeout=120)
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        r = doc["results"][0]
        s = r["ns_per_call"]["samples"]
        assert len(s) == r["samples"] and s == sorted(s)
        assert statistics.median(s) == pytest.approx(r["ns_per_call"]["median"], rel=1e-6)
        docs.append(write(tmp_path, f"b{k}.json", doc))
    proc = run([sys.executable, "-m", "clockscope_report", *docs, "--csv"],
               env=dict(os.environ, PYTHONPATH=str(ROOT / "report")))
    row = next(r for r in csv.DictReader(io.StringIO(proc.stdout)) if r["machine"] == "b1")
    assert row["interval"] == "bootstrap", proc.stdout


def test_emulated_machine_is_said_so(capsys, tmp_path, pair):
    """A bundle whose machine records an emulated CPU (collect's machine.emulation, from
    facts: docs/json.md): the answer says its nanoseconds are the emulator's and never puts
    the gap down to the CPU itself; the same from a lone doctor document's facts; the HTML
    lists it among the machine's description."""
    emu = bundle("rv-guest", [bench_result(MONO, 1000, 900, 1100)])
    emu["machine"].update(arch="riscv64", emulation="qemu-tcg",
                          emulation_evidence=["kernel command line: clockscope.emulated=tcg"])
    hw = bundle("rv-board", [bench_result(MONO, 1000, 900, 1100)])
    files = [pair[0], write(tmp_path, "emu.json", emu), write(tmp_path, "hw.json", hw)]
    code, out, err = report(capsys, *files, "--markdown")
    assert code == 0, err
    guest = next(l for l in out.splitlines() if l.startswith("[^") and "]: rv-guest is" in l)
    board = next(l for l in out.splitlines() if l.startswith("[^") and "]: rv-board is" in l)
    assert "an emulated CPU (qemu-tcg): its nanoseconds are the emulator's" in guest
    assert "emulated CPU (qemu-tcg): kernel command line: clockscope.emulated=tcg" in out   # the details
    assert "the gap is the emulator's" in guest and "CPU itself" not in guest
    assert "in the CPU itself" in board and "emulat" not in board
    doc = doctor()
    doc["facts"].update(emulation="qemu-tcg", emulation_evidence=["CPUID hypervisor leaf: TCGTCGTCGTCG"])
    lone = write(tmp_path, "lone.json", doc)
    code, out, err = report(capsys, lone, "--markdown")
    assert code == 0, err
    assert "an emulated CPU (qemu-tcg)" in out and "(qemu-tcg): CPUID hypervisor leaf: TCGTCGTCGTCG" in out
    html = tmp_path / "r.html"
    code, _, err = report(capsys, *files, "-o", html)
    assert code == 0, err
    assert "<th>emulation</th>" in html.read_text() and "<td>qemu-tcg</td>" in html.read_text()


def test_long_form_says_each_thing_once(capsys, tmp_path):
    """Three machines: each machine's explanation appears once (not on every row), a machine
    that did not measure a row gets no "—" line, a runtime API is shown once (in its
    section, not again in the table), and one machine is "1 machine"."""
    rt = {"runtime": "python", "api": "time.perf_counter", "available": True, "status": "measured",
          "ns_per_call": 50, "harness_ns": 10, "timed_ns": 60, "path": "libc", "harness_bound": False,
          "enters_kernel": False}
    results = lambda k: [bench_result(MONO, 100 * k, 90 * k, 110 * k), bench_result("libc.time", 10 * k, 9 * k, 11 * k),
                         bench_result("libc.gettimeofday", 100 * k, 90 * k, 110 * k)]
    files = [write(tmp_path, "a.json", bundle("a", results(1), runtimes=[rt])),
             write(tmp_path, "g1.json", bundle("g1", results(5)[:1] + results(5)[2:],    # no time()
                                               doctor("ok", 0, "arch_sys_counter"))),
             write(tmp_path, "g2.json", bundle("g2", results(9), doctor("ok", 0, "riscv_clocksource")))]
    code, out, err = report(capsys, *files)
    assert code == 0, err
    lines = out.splitlines()
    for n in ("[1]", "[2]"):            # g1's and g2's notes, each referred to once
        assert sum(l.endswith(n) for l in lines if l.strip().startswith("↳")) == 1, out
    assert " ".join(out.split()).count("clocksource riscv_clocksource") == 1     # in its note
    table = lines[lines.index(next(l for l in lines if l.startswith("API"))):]
    table = table[:table.index("")]
    time_rows = table[table.index(next(l for l in table if l.startswith("time()"))):][:3]
    assert not any(l.split()[:1] == ["g1"] for l in time_rows), time_rows      # g1 has no time()
    assert not any("—" in l for l in table), out
    assert not any("perf_counter" in l for l in table)
    assert sum("time.perf_counter" in l for l in lines) == 1       # in the runtimes section
    code, out, _ = report(capsys, files[0])
    assert out.startswith("clockscope report: 1 machine, baseline a")


def test_interval_reaching_zero_is_said(capsys, tmp_path):
    """A side whose samples include 0 ns (a read below what bench resolves, as a TCG guest's
    COARSE read gives): the interval reaches an unbounded factor, said as ∞x, never a crash."""
    base = write(tmp_path, "base.json", _with_samples("base", [0, 0, 0.2, 0.3, 5, 6, 7]))
    other = write(tmp_path, "other.json", _with_samples("other", [0, 0, 0, 0.1, 4, 5, 6]))
    code, out, err = report(capsys, base, other, "--markdown")
    assert code == 0, err
    assert "no significant difference (∞x faster to " in out


def _answer_lines(out):
    """The terminal's answer: the lines between the title's blank line and the next blank."""
    lines = out.splitlines()
    return lines[2:lines.index("", 2)]


def test_answer_is_one_line_per_machine_led_by_its_cause(capsys):
    """Issue 35, finding 20: each machine's answer fits in two lines of 100 columns and
    carries its cause in a few words (from its own doctor and facts); the full paragraph
    is a numbered note at the end, which the line and the machine's why cell refer to."""
    code, out, err = report(capsys, *[BUNDLES / f"{n}.json" for n in REAL])
    assert code == 0, err
    answer = _answer_lines(out)
    causes = {"x86_64-hpet": "every read a syscall (clocksource hpet)", "riscv64": "emulated (qemu-tcg)",
              "x86_64-tsc": "emulated (qemu-tcg)", "aarch64": "emulated (qemu-tcg)"}
    for name, cause in causes.items():
        at = next(k for k, l in enumerate(answer) if l.startswith(f"{name}: "))
        line = answer[at] + "".join(" " + l.strip() for l in answer[at + 1:at + 2] if l.startswith("  "))
        more = next((k for k, l in enumerate(answer[at + 1:]) if not l.startswith("  ")), len(answer) - at - 1)
        assert more <= 1, answer                            # at most one continuation line
        assert f"x slower than host: {cause}" in line, line
        n = line.rsplit("[", 1)[1].rstrip("]")
        assert any(l.startswith(f"[{n}] {name} is ") for l in out.splitlines()), out   # its note
        assert any(l.strip().startswith(f"↳ {cause}") and l.endswith(f" [{n}]") for l in out.splitlines())
    assert len(answer) <= 2 * len(causes)


def test_a_note_mark_never_starts_a_line():
    """A wrapped line keeps a note's mark with the word before it: never "[1]" alone."""
    from clockscope_report import textwidth
    text = "x86_64-hpet: 6.1x slower than aarch64: every read a syscall (clocksource hpet); " \
           "emulated (qemu-tcg) [1]"
    lines = textwidth.wrap(text)
    assert len(lines) == 2 and lines[1] == "  (qemu-tcg) [1]", lines
    assert textwidth.wrap("short [2]") == ["short [2]"]


@pytest.mark.parametrize("form", [[], ["--markdown"]], ids=["text", "markdown"])
def test_text_within_100_columns(capsys, form):
    """Issue 35, finding 8: every line of the terminal report is within 100 columns (µ is
    one) and none ends in a space; Markdown has no trailing spaces either."""
    code, out, err = report(capsys, *[BUNDLES / f"{n}.json" for n in REAL], *form)
    assert code == 0, err
    for line in out.splitlines():
        assert line == line.rstrip(), repr(line)
        if not form:
            assert len(line) <= 100, line


def test_html_answer_folds_its_paragraphs(capsys, tmp_path):
    """Issue 35, finding 20: the HTML answer is a line per machine with its paragraph in a
    <details>; each why cell is one short line linking to the machine's note."""
    html = tmp_path / "r.html"
    code, _, err = report(capsys, *[BUNDLES / f"{n}.json" for n in REAL], "-o", html)
    assert code == 0, err
    text = html.read_text()
    answer = text[text.index('<div class="answer">'):text.index("</div>", text.index('<div class="answer">'))]
    items = answer.split("<li>")[1:]
    assert len(items) == 4 and all("<details><summary>why</summary>" in i for i in items), answer
    assert all(len(i[:i.index("<details>")]) <= 100 for i in items), items
    cells = [c.split("</td>")[0] for c in text.split('<td class="why">')[1:]]
    filled = [c for c in cells if c]
    assert filled and all("<br>" not in c and len(c.split("<a ")[0]) <= 61 for c in filled), filled
    for c in filled:
        n = c.split('href="#note-')[1].split('"')[0]
        assert f'<details id="note-{n}">' in text


def test_cause_phrase_picks_the_cause():
    """The cause in a few words, in order: the vDSO's syscall fallback, a trapped counter
    read, an emulated CPU, then the doctor's verdict; an emulated CPU named after another
    cause."""
    from clockscope_report import analysis
    from clockscope_report.model import Diagnosis, Finding, Machine, Measure, Stat
    def machine(syscalls=0, verdict="ok", counter_ns=10.0, emulated=False, clocksource="tsc"):
        desc = {"clocksource": clocksource}
        if emulated:
            desc.update(emulation="qemu-tcg")
        top = Finding("clocksource-watchdog", "warning", "t", [], None, [], None)
        d = Diagnosis(verdict, "s", syscalls == 0, clocksource, syscalls, [top])
        m = Machine("m", "m.json", desc, diagnosis=d)
        m.measures["counter.rdtsc"] = Measure("counter.rdtsc", "rdtsc", Stat(counter_ns, counter_ns, counter_ns))
        return m
    phrase = analysis.cause_phrase
    assert phrase(machine(syscalls=1, clocksource="hpet")) == "every read a syscall (clocksource hpet)"
    assert phrase(machine(syscalls=1, emulated=True)) == "every read a syscall (clocksource tsc); emulated (qemu-tcg)"
    assert phrase(machine(counter_ns=2500)).startswith("the counter read traps (rdtsc 2.50 µs")
    assert phrase(machine(emulated=True)) == "emulated (qemu-tcg)"
    assert phrase(machine()) == "no fault found (the vDSO serves it)"
    assert phrase(machine(verdict="slow")) == "doctor: slow (clocksource-watchdog)"
    assert len(phrase(machine(syscalls=1, clocksource="x" * 80, emulated=True))) <= analysis.CAUSE_MAX
