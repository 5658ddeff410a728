# SPDX-License-Identifier: MIT
"""clockscope report: tables and ratios on crafted numbers computed by hand, the doctor's
explanation beside a slow row, harness cost on runtime rows, every kind of bad input
(message naming the file, the rest still reported, exit 3), exit codes, the C command's
hand-over, the real fixtures, a fleet, and a mutation fuzz of the bundle reader."""
import copy
import csv
import io
import json
import os
import random
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
    """base: 100 ns (p10 90, p90 110); slow: 300 ns (270, 330): 3.0x ± 3*sqrt(0.1²+0.1²)."""
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
    assert float(mono["error"]) == pytest.approx(3 * (0.1 ** 2 * 2) ** 0.5, rel=1e-3)   # 0.424
    t = rows[("slow", "libc.time")]             # 50 vs 100: 2.0x faster, ± 2*sqrt(0.01+0.01)
    assert t["ratio"] == "2" and t["direction"] == "faster"
    assert float(t["error"]) == pytest.approx(0.2828, rel=1e-3)
    g = rows[("slow", "libc.gettimeofday")]     # 100-140 overlaps 90-110
    assert g["significant"] == "0"
    assert rows[("base", MONO)]["ratio"] == ""  # the baseline is not compared with itself


def test_markdown_table_and_explanation(capsys, pair):
    code, out, err = report(capsys, *pair, "--markdown")
    assert code == 0, err
    assert "| API | base ns/call | base calls/s | slow ns/call | slow calls/s | slow vs base | why |" in out
    row = next(l for l in out.splitlines() if l.startswith("| clock_gettime(CLOCK_MONOTONIC)"))
    assert "| 100 ns | 10,000,000 | 300 ns | 3,333,333 | 3.0x ± 0.4 slower |" in row
    # the reason beside the slow row, from slow's own doctor: verdict, proof, clocksource,
    # the most severe finding and its fix
    for piece in ("doctor: slow", "1 syscall per call", "clocksource hpet",
                  "finding clocksource-no-vdso", "fix: echo tsc > current_clocksource"):
        assert piece in row, piece
    assert "2.0x ± 0.3 faster" in out
    assert "no significant difference (1.2x ± 0.2)" in out
    assert "slow is 3.0x ± 0.4 slower than base at reading the time" in out    # the answer


def test_baseline_option(capsys, pair):
    code, out, _ = report(capsys, *pair, "--markdown", "--baseline", "slow")
    assert code == 0
    assert "base vs slow" in out and "3.0x ± 0.4 faster" in out
    with pytest.raises(SystemExit) as e:
        cli.main([*pair, "--baseline", "nobody"])
    assert e.value.code == 2
    assert "not one of the machines" in capsys.readouterr().err


def test_terminal_and_long_form(capsys, tmp_path, pair):
    third = write(tmp_path, "third.json", bundle("third", [bench_result(MONO, 1000, 900, 1100)]))
    code, out, _ = report(capsys, *pair, third)
    assert code == 0
    lines = out.splitlines()
    head = next(l for l in lines if l.startswith("API"))
    assert "machine" in head and "vs base" in head
    assert any("third" in l and "10.0x ± 1.4 slower" in l for l in lines)
    assert any(l.strip().startswith("↳") and "doctor: ok" in l for l in lines)
    # third is slower while its doctor finds it healthy: the answer says where the gap lies
    assert "third is 10.0x ± 1.4 slower" in out and "Its doctor finds nothing wrong" in out


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
    row = next(l for l in out.splitlines() if l.startswith("| python ctypes.clock_gettime"))
    assert "400 ns" in row
    assert "harness 380 ns of 400 ns (95%): this figure measures the harness, not the clock" in row
    assert "slower" not in row                              # not called a slow clock
    assert "harness 10.0 ns (17%); clock alone ≈ 50.0 ns" in row
    # net of the harness both ways, the comparison holds: 50 ns vs 20 ns net is shown
    c = write(tmp_path, "c.json", bundle("c", [bench_result(MONO, 20, 19, 21)], runtimes=[rt(110, 10)]))
    code, out, _ = report(capsys, a, c, "--markdown")
    row = next(l for l in out.splitlines() if l.startswith("| python ctypes.clock_gettime"))
    assert "2.0x ± " in row and "slower" in row             # (110-10) / (60-10)


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
    assert code == 3, err
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
    assert code == 3
    assert "nobench.json: bundle has no 'bench' part" in err
    assert "failed.json: part 'doctor' failed when collected: killed by signal 9" in err
    assert "broken.json: part 'bench' is malformed (results is not a list)" in err
    assert "newer.json: part 'warp' has schema clockscope.warp/7, newer than" in err
    assert "no diagnosis (killed by signal 9 (Killed))" in out     # failed: doctor missing, bench kept
    assert "| failed |" in out and "3.0x ± 0.4 slower" in out


def test_duplicate_names(capsys, tmp_path, pair):
    again = write(tmp_path, "again.json", json.loads(Path(pair[1]).read_text()))
    code, out, err = report(capsys, *pair, again, "--markdown")
    assert code == 3
    assert "machine name 'slow' is also the name of" in err and "shown as 'slow (again.json)'" in err
    assert "| slow (again.json) |" in out


def test_nothing_readable_and_no_input(capsys, tmp_path):
    e = write(tmp_path, "e.json", "")
    code, out, err = report(capsys, e, tmp_path / "missing.json")
    assert code == 1
    assert "empty file" in err and "missing.json: cannot read" in err and "nothing to report" in err
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    code, out, err = report(capsys, fifo, tmp_path, "/dev/zero")
    assert code == 1
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
    assert "Of 9 machines compared with m0 (clock_gettime(CLOCK_MONOTONIC): 30.0 ns), 5 are " \
           "significantly slower, 0 faster, and 4 show no significant difference" in out
    assert "The reason most of the slower machines share (3 of 5): clocksource-no-vdso" in out
    assert "Machines per verdict: ok 7, slow 3" in out
    assert "Machines per clocksource: tsc 7, hpet 3" in out
    assert "clocksource-no-vdso (title of clocksource-no-vdso): 3" in out
    assert "over 10 machines: min 30.0 ns" in out and "max 2.00 µs" in out
    machines = [l.split(" | ")[0][2:] for l in out.splitlines() if l.startswith("| m") and "| x86_64 |" in l]
    assert set(machines[:3]) == {"m7", "m8", "m9"}          # slowest first
    assert machines[-1] == "m0"
    slow_row = next(l for l in out.splitlines() if l.startswith("| m7 "))
    assert "66.7x ± " in slow_row and "slow, 1 syscall per clock_gettime" in slow_row


def test_real_fixtures(capsys, tmp_path):
    """The real bundles (scripts/make-bundle-fixtures.sh): riscv64 against this machine
    reads "slower" with the reason from riscv64's own doctor."""
    files = [BUNDLES / f"{n}.json" for n in ("host", "riscv64")]
    rv = json.loads(files[1].read_text())
    code, out, err = report(capsys, *files, "--markdown")
    assert code == 0, err
    row = next(l for l in out.splitlines() if l.startswith("| clock_gettime(CLOCK_MONOTONIC)"))
    assert "slower" in row
    assert f"doctor: {rv['parts']['doctor']['verdict']}" in row
    assert f"clocksource {rv['parts']['doctor']['facts']['clocksource']}" in row
    ids = [f["id"] for f in rv["parts"]["doctor"]["findings"]]
    assert any(f"finding {i}" in row for i in ids)
    code, out, err = report(capsys, *[BUNDLES / f"{n}.json" for n in REAL], "--markdown")
    assert code == 0, err
    assert "x86_64-hpet" in out and "clocksource hpet" in out
    # the TCG guests say that their CPU is emulated (their machine's cpu_model says so)
    assert json.loads((BUNDLES / "x86_64-tsc.json").read_text())["machine"]["cpu_model"].startswith("QEMU TCG")
    assert "**x86_64-tsc**: doctor: ok; clock_gettime makes 0 syscalls per call (served by the vDSO); " \
           "clocksource tsc; an emulated CPU (QEMU TCG)" in out


def test_html_and_chart_files(capsys, tmp_path):
    out_html = tmp_path / "r.html"
    charts = tmp_path / "charts"
    code, _, err = report(capsys, *[BUNDLES / f"{n}.json" for n in REAL], "-o", out_html,
                          "--charts", charts)
    assert code == 0, err
    html = out_html.read_text()
    names = sorted(p.name for p in charts.iterdir())
    assert names == ["cost.svg", "ratio.svg", "warp.svg"]
    assert html.count("<svg") == 3
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
    file is either reported or named with what is wrong; exit status 0, 1 or 3."""
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
        assert code in (0, 3), (code, out.err)
        assert "## The answer" in out.out
        if code == 3:
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
    assert proc.returncode == 4 and "install Python 3 and matplotlib" in proc.stderr
    env = dict(os.environ, CLOCKSCOPE_REPORT_PATH=str(tmp_path / "none"))
    proc = run([clockscope, "report", *files], env=env, cwd="/")
    assert proc.returncode == 4 and "pip install ./report" in proc.stderr
    proc = run([clockscope, "report", "--bogus"])
    assert proc.returncode == 2


def test_missing_matplotlib_is_named(tmp_path, pair):
    """Without matplotlib, -o says what to install and exits 4; --markdown still works."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "matplotlib").mkdir()
    (blocker / "matplotlib" / "__init__.py").write_text("raise ImportError('blocked for the test')\n")
    env = dict(os.environ, PYTHONPATH=f"{blocker}:{ROOT / 'report'}")
    proc = run([sys.executable, "-m", "clockscope_report", *pair, "-o", tmp_path / "r.html"], env=env)
    assert proc.returncode == 4, proc.stderr
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
    probe.write_text(html.replace("</body>", "<script>console.error('probe-' + "
                                  "document.querySelectorAll('div.chart svg').length + ' width-' + "
                                  "(document.documentElement.scrollWidth <= innerWidth))</script></body>"))
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
    # the console is seen, in the form the check above looks for, and 3 charts were in the DOM
    # and nothing is wider than the window (no sideways scrolling)
    assert any("CONSOLE" in l and "probe-3 width-true" in l for l in proc.stderr.splitlines()), proc.stderr
    dom = proc.stdout
    assert dom.count('<div class="chart"') == 3 and dom.count("<svg") >= 3
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
