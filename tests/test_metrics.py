# SPDX-License-Identifier: MIT
"""`clockscope metrics`: the text is what node_exporter's textfile collector accepts, checked
by Prometheus's own promtool and by its Python client's parser; the file is written
atomically and never through a link; bad directories and a full disk give clear errors."""
import os
import re
import resource
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import REQUIRE_ALL, ROOT, need_tool, run

CORPUS = ROOT.parent / "shared" / "corpus" / "cases"
SLOW_ROOT = CORPUS / "x86-arch-6.5.5-hpet-acpi_pm-only"
OK_ROOT = CORPUS / "x86-bm-esprimo-tsc-healthy-baseline"


def parse(text):
    """Families by name, through prometheus_client's own parser."""
    try:
        from prometheus_client.parser import text_string_to_metric_families
    except ImportError:
        if REQUIRE_ALL:
            pytest.fail("needs prometheus_client (scripts/install-deps.sh)")
        pytest.skip("needs prometheus_client (scripts/install-deps.sh)")
    return {f.name: f for f in text_string_to_metric_families(text)}


def promtool_check(text):
    need_tool("promtool")
    proc = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True,
                          text=True, timeout=30)
    # promtool prints lint problems and exits 1 (3 for a parse error).
    assert proc.returncode == 0, (proc.stdout, proc.stderr)
    assert proc.stdout.strip() == "" and proc.stderr.strip() == "", (proc.stdout, proc.stderr)


def textfile_rules(text):
    """What the textfile collector itself refuses (a whole file): types other than gauge,
    counter, untyped, summary, histogram (info, stateset), sample timestamps; and the
    conventions: one prefix, _total only on counters."""
    types = dict(re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M))
    assert types and set(types.values()) <= {"gauge", "counter"}, types
    for name, kind in types.items():
        assert name.startswith("clockscope_"), name
        assert name.endswith("_total") == (kind == "counter"), (name, kind)
    assert "# UNIT" not in text and "# EOF" not in text
    for line in text.splitlines():
        if line.startswith("#"):
            continue
        # name{labels} value, and nothing after the value (a timestamp)
        m = re.fullmatch(r'([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (\S+)', line)
        assert m, line
        assert m.group(1) in types, line


@pytest.fixture(scope="module")
def live_quick(clockscope):
    proc = run([clockscope, "metrics", "--quick"], timeout=60)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_quick_output_is_valid(live_quick):
    promtool_check(live_quick)
    textfile_rules(live_quick)
    fams = parse(live_quick)
    verdict = {s.labels["verdict"]: s.value for s in fams["clockscope_verdict"].samples}
    assert sorted(verdict) == ["broken", "ok", "slow", "unknown"]
    assert sum(verdict.values()) == 1
    # The proof ran: each timing in seconds, tens of ns to tens of us on a real machine.
    cost = {s.labels["method"]: s.value for s in fams["clockscope_read_duration_seconds"].samples}
    assert "libc.clock_gettime.monotonic" in cost, cost
    assert all(1e-10 < v < 1e-3 for v in cost.values()), cost
    assert "clockscope_warp_backward_steps" not in fams  # --quick: no warp, and it says so
    assert fams["clockscope_warp_measured"].samples[0].value == 0
    assert fams["clockscope_run_success"].samples[0].value == 1
    ts = fams["clockscope_run_timestamp_seconds"].samples[0].value
    assert abs(ts - time.time()) < 60, ts  # full precision, not rounded to 10 s


def test_one_label_names_a_method_in_every_family(live_quick):
    """A method's cost and its syscalls join in PromQL: both families label it `method` with
    bench's ids, and the controls say they are controls."""
    fams = parse(live_quick)
    if "clockscope_syscalls_per_call" not in fams:
        pytest.skip("the proof's syscall count is not valid here (no seccomp)")
    per_call = {s.labels["method"]: s for s in fams["clockscope_syscalls_per_call"].samples}
    cost = {s.labels["method"] for s in fams["clockscope_read_duration_seconds"].samples}
    assert {"libc.clock_gettime.monotonic", "libc.clock_gettime.realtime",
            "syscall.clock_gettime.monotonic"} <= set(per_call) & cost, (sorted(per_call), cost)
    assert all(set(s.labels) == {"method", "control"} for s in per_call.values())
    controls = {m for m, s in per_call.items() if s.labels["control"] == "true"}
    assert controls == {"syscall.clock_gettime.monotonic",
                        "libc.clock_gettime.process_cputime_id"}, controls
    assert all(per_call[m].value >= 1 for m in controls)


def test_build_info_labels_as_node_exporter_does(clockscope, live_quick):
    """node_exporter_build_info{version="1.7.0",revision="7333465...",goarch=...}: the release
    in version, the commit in revision (both cut from --version, so they agree with it)."""
    m = re.search(r'^clockscope_build_info\{version="([^"]*)",revision="([^"]*)",arch="([^"]*)"\} 1$',
                  live_quick, re.M)
    assert m, live_quick[:600]
    version, revision, arch = m.groups()
    said = run([clockscope, "--version"]).stdout.strip()
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    assert said.startswith(f"clockscope {version} ("), said
    if "(git " in said:
        assert said.endswith(f"(git {revision})"), (said, revision)
    else:
        assert revision == "unknown", (said, revision)
    assert arch == os.uname().machine


def test_full_run_has_warp_and_is_valid(clockscope):
    proc = run([clockscope, "metrics"], timeout=120)
    assert proc.returncode == 0, proc.stderr
    promtool_check(proc.stdout)
    textfile_rules(proc.stdout)
    fams = parse(proc.stdout)
    assert fams["clockscope_warp_measured"].samples[0].value == 1
    steps = fams["clockscope_warp_backward_steps"].samples
    assert any(s.labels["method"] == "libc.clock_gettime.monotonic" for s in steps), steps
    assert fams["clockscope_warp_monotonic_violations"].samples[0].value == 0


def test_clocksources_join_node_exporter_labels(live_quick):
    """The labels of node_time_clocksource_{current,available}_info: clocksource, device."""
    fams = parse(live_quick)
    cur = Path("/sys/devices/system/clocksource/clocksource0/current_clocksource").read_text().strip()
    s = fams["clockscope_clocksource_current_info"].samples
    assert [(x.labels, x.value) for x in s] == [({"clocksource": cur, "device": "0"}, 1)]


def test_root_slow_and_ok(clockscope):
    """From facts roots: the verdict and findings, nothing measured."""
    out = {}
    for name, root in (("slow", SLOW_ROOT), ("ok", OK_ROOT)):
        proc = run([clockscope, "metrics", "--root", root])
        assert proc.returncode == 0, proc.stderr
        promtool_check(proc.stdout)
        out[name] = parse(proc.stdout)
        assert "clockscope_read_duration_seconds" not in out[name]
    v = {s.labels["verdict"]: s.value for s in out["slow"]["clockscope_verdict"].samples}
    assert v["slow"] == 1 and v["ok"] == 0
    assert out["slow"]["clockscope_fast_path"].samples[0].value == 0
    ids = {s.labels["id"] for s in out["slow"]["clockscope_finding_info"].samples}
    assert ids, "the hpet case has findings"
    v = {s.labels["verdict"]: s.value for s in out["ok"]["clockscope_verdict"].samples}
    assert v["ok"] == 1


@pytest.mark.parametrize("case", sorted(p.name for p in CORPUS.iterdir()) if CORPUS.is_dir() else [])
def test_every_corpus_case_gives_valid_metrics(clockscope, case):
    """Real machines' findings (several of one id, odd clocksource lists) stay valid text."""
    proc = run([clockscope, "metrics", "--root", CORPUS / case])
    assert proc.returncode == 0, proc.stderr
    promtool_check(proc.stdout)
    textfile_rules(proc.stdout)
    fams = parse(proc.stdout)
    doc = run([clockscope, "doctor", "--root", CORPUS / case, "--json"]).stdout
    import json
    d = json.loads(doc)
    verdict = {s.labels["verdict"]: s.value for s in fams["clockscope_verdict"].samples}
    assert verdict[d["verdict"]] == 1
    ids = {(s.labels["id"], s.labels["severity"]) for s in fams["clockscope_finding_info"].samples}
    assert ids == {(f["id"], f["severity"]) for f in d["findings"]}


def test_root_may_be_a_sosreport_archive(clockscope, tmp_path):
    import tarfile
    archive = tmp_path / "sosreport-x.tar.xz"
    with tarfile.open(archive, "w:xz") as t:
        t.add(SLOW_ROOT, arcname="sosreport-x")
    proc = run([clockscope, "metrics", "--root", archive], env={**os.environ, "TMPDIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stderr
    direct = run([clockscope, "metrics", "--root", SLOW_ROOT]).stdout
    strip = lambda t: [l for l in t.splitlines() if not l.startswith(("clockscope_run_", "clockscope_build"))]
    assert strip(proc.stdout) == strip(direct)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["sosreport-x.tar.xz"]


def test_bad_root_is_bad_usage(clockscope, tmp_path):
    proc = run([clockscope, "metrics", "--root", tmp_path / "none"])
    assert proc.returncode == 2 and proc.stdout == ""
    assert "No such file or directory" in proc.stderr


# ---- the textfile ------------------------------------------------------------------------

def test_textfile_written_whole(clockscope, tmp_path):
    proc = run([clockscope, "metrics", "--quick", "--textfile-dir", tmp_path])
    assert proc.returncode == 0 and proc.stdout == "", proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clockscope.prom"]
    text = (tmp_path / "clockscope.prom").read_text()
    promtool_check(text)
    assert oct((tmp_path / "clockscope.prom").stat().st_mode & 0o777) == "0o644"


def test_textfile_replaces_a_link_never_writes_through_it(clockscope, tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("precious\n")
    d = tmp_path / "textfile"
    d.mkdir()
    (d / "clockscope.prom").symlink_to(outside)
    proc = run([clockscope, "metrics", "--root", OK_ROOT, "--textfile-dir", d])
    assert proc.returncode == 0, proc.stderr
    assert outside.read_text() == "precious\n"
    assert not (d / "clockscope.prom").is_symlink()
    assert "clockscope_verdict" in (d / "clockscope.prom").read_text()


def test_reader_never_sees_a_partial_file(clockscope, tmp_path):
    """A reader polling the file while runs replace it sees only whole files."""
    (tmp_path / "clockscope.prom").write_text("# old\n")
    procs = [subprocess.Popen([str(clockscope), "metrics", "--root", str(SLOW_ROOT),
                               "--textfile-dir", str(tmp_path)]) for _ in range(20)]
    seen = 0
    while any(p.poll() is None for p in procs):
        text = (tmp_path / "clockscope.prom").read_text()
        assert text == "# old\n" or text.endswith("\n") and "clockscope_run_timestamp_seconds " in text.splitlines()[-1], text[-200:]
        seen += 1
    assert all(p.wait() == 0 for p in procs)
    assert [p.name for p in tmp_path.iterdir()] == ["clockscope.prom"]


def test_textfile_dir_not_writable(clockscope, tmp_path):
    """Refused before anything is measured: exit 2, nothing written."""
    if os.geteuid() != 0:
        d = tmp_path / "ro"
        d.mkdir(mode=0o555)
        cmd = [clockscope, "metrics", "--quick", "--textfile-dir", d]
        proc = run(cmd)
    else:
        need_tool("setpriv")
        d = Path("/tmp") / f"clockscope-ro-{os.getpid()}"
        d.mkdir(mode=0o555, exist_ok=True)
        try:
            proc = run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups",
                        clockscope, "metrics", "--quick", "--textfile-dir", d])
        finally:
            d.rmdir()
    assert proc.returncode == 2 and proc.stdout == "", proc.stderr
    assert "is not writable: Permission denied" in proc.stderr


def _limit_file_size():
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, 1000))


def test_write_failure_keeps_the_old_file(clockscope, tmp_path):
    """A write that fails (EFBIG under a file size limit: the full-disk path without a
    mount) says why, exits 1, and leaves the old file and no temporary file."""
    (tmp_path / "clockscope.prom").write_text("# old\n")
    proc = subprocess.run([str(clockscope), "metrics", "--root", str(SLOW_ROOT),
                           "--textfile-dir", str(tmp_path)], capture_output=True, text=True,
                          preexec_fn=_limit_file_size, timeout=30)
    assert proc.returncode == 1, proc.stderr
    assert "cannot write: File too large" in proc.stderr, proc.stderr
    assert (tmp_path / "clockscope.prom").read_text() == "# old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["clockscope.prom"]


@pytest.fixture
def small_tmpfs(tmp_path):
    """A 64 KiB tmpfs (needs root and mount(2))."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    if os.geteuid() != 0:
        if REQUIRE_ALL:
            pytest.fail("needs root to mount a small tmpfs")
        pytest.skip("needs root to mount a small tmpfs")
    proc = run(["mount", "-t", "tmpfs", "-o", "size=64k,mode=755", "tmpfs", mnt])
    if proc.returncode != 0:
        if REQUIRE_ALL:
            pytest.fail(f"cannot mount a tmpfs: {proc.stderr}")
        pytest.skip(f"cannot mount a tmpfs: {proc.stderr}")
    yield mnt
    run(["umount", mnt])


def test_full_disk_keeps_the_old_file(clockscope, small_tmpfs):
    old = "# old\n"
    (small_tmpfs / "clockscope.prom").write_text(old)
    fd = os.open(small_tmpfs / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, b"x" * 512)
    except OSError:
        pass
    finally:
        os.close(fd)
    proc = run([clockscope, "metrics", "--root", SLOW_ROOT, "--textfile-dir", small_tmpfs])
    assert proc.returncode == 1, proc.stderr
    assert "No space left on device" in proc.stderr, proc.stderr
    assert (small_tmpfs / "clockscope.prom").read_text() == old
    assert sorted(p.name for p in small_tmpfs.iterdir()) == ["clockscope.prom", "filler"]
    (small_tmpfs / "filler").unlink()
    proc = run([clockscope, "metrics", "--root", SLOW_ROOT, "--textfile-dir", small_tmpfs])
    assert proc.returncode == 0, proc.stderr
    promtool_check((small_tmpfs / "clockscope.prom").read_text())


def test_signal_mid_run_leaves_no_temporary_file(clockscope, tmp_path):
    (tmp_path / "clockscope.prom").write_text("# old\n")
    p = subprocess.Popen([str(clockscope), "metrics", "--textfile-dir", str(tmp_path)])
    time.sleep(0.5)  # inside the warp
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=30) == -signal.SIGTERM
    assert [x.name for x in tmp_path.iterdir()] == ["clockscope.prom"]
    assert (tmp_path / "clockscope.prom").read_text() == "# old\n"


# ---- inside real kernels of the three arches (clockscope vm, TCG: slow, one boot each) ----

from test_vm import guest_binaries, vm  # noqa: E402,F401  (the suite's vm fixtures)


@pytest.mark.parametrize("arch", ["x86_64", "aarch64", "riscv64"])
def test_metrics_inside_vm_guests(vm, arch):
    """The guest's output passes promtool and the Python parser too: another arch's
    counters, clocksources and methods (labels), a machine where the proof may not count."""
    proc = vm(arch, "metrics", "--quick")
    assert proc.returncode == 0, proc.stderr[-3000:]
    promtool_check(proc.stdout)
    textfile_rules(proc.stdout)
    fams = parse(proc.stdout)
    build = fams["clockscope_build_info"].samples[0].labels
    assert build["arch"] == arch, build
    verdict = {s.labels["verdict"]: s.value for s in fams["clockscope_verdict"].samples}
    assert sum(verdict.values()) == 1, verdict
    assert fams["clockscope_clocksource_current_info"].samples, "the guest's clocksource"
