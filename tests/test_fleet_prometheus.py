# SPDX-License-Identifier: MIT
"""The files people deploy beside `clockscope metrics`: the alert rules (promtool check and
test rules), the Grafana dashboard (every query parses, every metric exists), the systemd
service and timer (systemd-analyze verify of what `make install` installs), and the real
thing end to end: node_exporter's textfile collector and Prometheus on the loopback, the
alert firing for a machine whose verdict is slow and not for one that is ok."""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from conftest import ROOT, make, need_tool, run

PROM = ROOT / "docs" / "prometheus"
RULES = PROM / "clockscope.rules.yml"
CORPUS = ROOT.parent / "shared" / "corpus" / "cases"
SLOW_ROOT = CORPUS / "x86-arch-6.5.5-hpet-acpi_pm-only"
OK_ROOT = CORPUS / "x86-bm-esprimo-tsc-healthy-baseline"


def test_rules_check():
    need_tool("promtool")
    proc = run(["promtool", "check", "rules", RULES])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "SUCCESS: 8 rules found" in proc.stdout


def test_rules_unit_tests():
    need_tool("promtool")
    proc = run(["promtool", "test", "rules", "clockscope.rules.test.yml"], cwd=PROM)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_rules_unit_tests_catch_a_broken_rule(tmp_path):
    """The unit tests are not vacuous: a rule with the wrong threshold fails them."""
    need_tool("promtool")
    for f in PROM.glob("clockscope.rules*.yml"):
        shutil.copy(f, tmp_path)
    rules = tmp_path / "clockscope.rules.yml"
    rules.write_text(rules.read_text().replace('clockscope_verdict{verdict="slow"} == 1',
                                               'clockscope_verdict{verdict="slow"} == 2'))
    proc = run(["promtool", "test", "rules", "clockscope.rules.test.yml"], cwd=tmp_path)
    assert proc.returncode != 0 and "ClockscopeTimeReadEntersKernel" in proc.stdout + proc.stderr


def emitted_names(clockscope):
    """Every metric name `clockscope metrics` can write: live (with warp) and from a root."""
    names = set()
    for args in (["metrics"], ["metrics", "--root", SLOW_ROOT]):
        proc = run([clockscope, *args], timeout=120)
        assert proc.returncode == 0, proc.stderr
        names |= set(re.findall(r"^# TYPE (\S+) ", proc.stdout, re.M))
    return names


def test_rules_and_dashboard_name_real_metrics(clockscope, tmp_path):
    """Every clockscope_ metric a rule or a panel queries is one the command writes, and
    every panel's query parses (as a recording rule, by promtool)."""
    need_tool("promtool")
    names = emitted_names(clockscope)
    dash = json.loads((PROM / "clockscope-dashboard.json").read_text())
    exprs = [t["expr"] for p in dash["panels"] for t in p["targets"]]
    assert len(exprs) >= 8
    used = set(re.findall(r"\bclockscope_[a-z_]+", "\n".join(exprs) + RULES.read_text()))
    assert used and used <= names, used - names
    rec = tmp_path / "dash.rules.yml"
    rec.write_text("groups:\n  - name: dashboard\n    rules:\n" + "".join(
        f"      - record: panel_{i}\n        expr: {json.dumps(e)}\n" for i, e in enumerate(exprs)))
    proc = run(["promtool", "check", "rules", rec])
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_systemd_units_verify(tmp_path):
    """What `make install` installs verifies (ExecStart's binary exists, man page found)."""
    need_tool("systemd-analyze", "help2man")
    prefix = tmp_path / "prefix"
    make(f"PREFIX={prefix}", "install")
    units = prefix / "lib" / "systemd" / "system"
    service = units / "clockscope-metrics.service"
    assert f"ExecStart={prefix}/bin/clockscope metrics --textfile-dir" in service.read_text()
    env = {**os.environ, "MANPATH": str(prefix / "share" / "man")}
    cmd = ["systemd-analyze", "verify", "clockscope-metrics.service", "clockscope-metrics.timer"]
    proc = subprocess.run(cmd, cwd=units, env=env, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stderr.strip() == "", proc.stderr
    text = service.read_text()
    for line in ("Nice=19", "TimeoutStartSec=60", "IOSchedulingClass=idle"):
        assert line in text
    # And verify is not vacuous here: a typo in a directive is reported.
    service.write_text(text.replace("Nice=19", "Nicce=19"))
    proc = subprocess.run(cmd, cwd=units, env=env, capture_output=True, text=True, timeout=60)
    assert "Nicce" in proc.stderr, proc.stderr


# ---- end to end: node_exporter + Prometheus on 127.0.0.1 -----------------------------------

def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get_json(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return json.loads(r.read())


def wait_http(url, proc, deadline):
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"{proc.args[0]} exited {proc.returncode}")
        try:
            urllib.request.urlopen(url, timeout=1).read()
            return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"{url} did not answer in time")


@pytest.fixture
def services():
    """Started processes, stopped (TERM, then KILL) whatever the test does."""
    procs = []
    yield procs
    for p in procs:
        if p.poll() is None:
            p.send_signal(signal.SIGTERM)
    for p in procs:
        try:
            p.wait(timeout=10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def test_end_to_end_alert_fires_for_slow_not_ok(clockscope, services, tmp_path):
    need_tool("prometheus", "prometheus-node-exporter")
    deadline = time.monotonic() + 90
    targets = {}
    for name, root in (("slow", SLOW_ROOT), ("ok", OK_ROOT)):
        tf = tmp_path / f"textfile-{name}"
        tf.mkdir()
        proc = run([clockscope, "metrics", "--root", root, "--textfile-dir", tf])
        assert proc.returncode == 0, proc.stderr
        port = free_port()
        log = open(tmp_path / f"node-{name}.log", "w")
        services.append(subprocess.Popen(
            ["prometheus-node-exporter", f"--web.listen-address=127.0.0.1:{port}",
             "--collector.disable-defaults", "--collector.textfile", "--collector.time",
             f"--collector.textfile.directory={tf}"], stdout=log, stderr=log))
        wait_http(f"http://127.0.0.1:{port}/metrics", services[-1], deadline)
        targets[name] = f"127.0.0.1:{port}"
    # The deployed rules, with their `for:` durations cut to 0 (promtool test rules checks
    # the durations; here the plumbing): scrape and evaluate every second.
    rules = tmp_path / "clockscope.rules.yml"
    rules.write_text(re.sub(r"for: \d+[smh]", "for: 0s", RULES.read_text()))
    config = tmp_path / "prometheus.yml"
    config.write_text(
        "global: {scrape_interval: 1s, evaluation_interval: 1s}\n"
        f"rule_files: ['{rules}']\n"
        "scrape_configs:\n  - job_name: node\n    static_configs:\n"
        f"      - targets: ['{targets['slow']}', '{targets['ok']}']\n")
    pport = free_port()
    log = open(tmp_path / "prometheus.log", "w")
    services.append(subprocess.Popen(
        ["prometheus", f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}",
         f"--web.listen-address=127.0.0.1:{pport}"], stdout=log, stderr=log, cwd=tmp_path))
    api = f"http://127.0.0.1:{pport}/api/v1"
    wait_http(f"{api}/status/buildinfo", services[-1], deadline)

    def query(q):
        return get_json(f"{api}/query?query={urllib.parse.quote(q)}")["data"]["result"]

    firing = []
    while time.monotonic() < deadline:
        alerts = get_json(f"{api}/alerts")["data"]["alerts"]
        firing = [a for a in alerts if a["state"] == "firing"]
        ok_seen = query('clockscope_verdict{verdict="ok"} == 1')
        if any(a["labels"]["alertname"] == "ClockscopeTimeReadEntersKernel" for a in firing) and ok_seen:
            break
        time.sleep(0.5)
    else:
        pytest.fail(f"no alert in time: {firing}; logs: {(tmp_path / 'prometheus.log').read_text()[-2000:]}")
    kernel = [a for a in firing if a["labels"]["alertname"] == "ClockscopeTimeReadEntersKernel"]
    assert [a["labels"]["instance"] for a in kernel] == [targets["slow"]], kernel
    # The ok machine was scraped (its verdict is there) and raises nothing.
    assert [r["metric"]["instance"] for r in ok_seen] == [targets["ok"]]
    assert not [a for a in firing if a["labels"].get("instance") == targets["ok"]], firing
    # node_exporter accepted both files whole.
    errors = query("node_textfile_scrape_error")
    assert sorted(r["value"][1] for r in errors) == ["0", "0"], errors
