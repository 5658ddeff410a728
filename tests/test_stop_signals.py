# SPDX-License-Identifier: MIT
"""No process and no temporary file outlives a clockscope command that is stopped
(issue 30, items 4, 5 and 9): SIGTERM, SIGINT and SIGKILL of `collect`, `runtimes` and
`profile`, each started in a session of its own so that everything it started can be found
by its process group (and, for children that make groups of their own, by walking /proc).

No timed assertion: each wait polls with a deadline that only bounds a hang, and the
processes that must go would otherwise live far beyond it (a 60 s warp, a 1000 s sleep)."""

import os
import random
import signal
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from conftest import ROOT

FAKE = ROOT / "tests/progs/fake_runtime.sh"


def proc_table():
    """Every process: pid -> (state, ppid, session), from /proc."""
    procs = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2:].split()
        procs[int(d.name)] = (fields[0], int(fields[1]), int(fields[3]))
    return procs


def descendants(pid):
    """Every live process below pid (walking /proc's parent links), and every process left
    in pid's session (the command leads it: orphans keep the session when reparented)."""
    procs = {p: (ppid, sid) for p, (state, ppid, sid) in proc_table().items() if state != "Z"}
    found = {p for p, (_, sid) in procs.items() if sid == pid and p != pid}
    todo = [pid]
    while todo:
        parent = todo.pop()
        for p, (ppid, _) in procs.items():
            if ppid == parent and p not in found:
                found.add(p)
                todo.append(p)
    found.discard(pid)
    return found


def cmdline(pid):
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return ""


def wait_for(pred, deadline_s, what, proc):
    end = time.monotonic() + deadline_s
    while time.monotonic() < end:
        got = pred()
        if got:
            return got
        time.sleep(0.1)
    kill_all(proc)
    pytest.fail(f"{what}: not within {deadline_s} s")


def start(cmd, cwd, env=None):
    """The command in a session of its own; its stderr goes to a file (proc.err_text()), not
    a pipe, which a survivor holding it open would keep from ever ending."""
    e = dict(os.environ)
    e.update(env or {})
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen([str(c) for c in cmd], cwd=cwd, env=e, start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=err)

    def err_text():
        err.seek(0)
        return err.read().decode(errors="replace")
    proc.err_text = err_text
    return proc


def kill_all(proc):
    """The command and everything it left: the failing paths leave nothing running."""
    for p in descendants(proc.pid) | {proc.pid}:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()


def stop_and_check(proc, sig, tmpdir, workdir):
    """Sends sig to proc, waits for it, then for every process it started to be gone (20 s:
    a hang bound; the ones that must go would live 60 s or more), and checks the files."""
    proc.send_signal(sig)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        kill_all(proc)
        pytest.fail(f"the command did not end within 60 s of signal {sig}")
    err = proc.err_text()
    left = lambda: descendants(proc.pid)
    end = time.monotonic() + 20
    while left() and time.monotonic() < end:
        time.sleep(0.2)
    survivors = {p: cmdline(p) for p in left()}
    for p in survivors:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not survivors, f"processes outlived the command: {survivors}\n{err}"
    assert proc.returncode == -sig, (proc.returncode, err)
    assert sorted(os.listdir(tmpdir)) == [], "temporary files left in TMPDIR"
    assert sorted(os.listdir(workdir)) == [], "files left where the output would go"
    return err


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_collect_stopped_leaves_no_process_and_no_file(clockscope, tmp_path, sig):
    tmpdir, workdir = tmp_path / "tmp", tmp_path / "work"
    tmpdir.mkdir()
    workdir.mkdir()
    proc = start([clockscope, "collect", "--warp-seconds", "60", "--parts", "facts,warp",
                  "-o", "out.json"], workdir, {"TMPDIR": str(tmpdir)})
    # The warp part running (left behind, it would spin both CPUs):
    wait_for(lambda: [p for p in descendants(proc.pid) if " warp " in cmdline(p)], 120,
             "the warp part did not start", proc)
    err = stop_and_check(proc, sig, tmpdir, workdir)
    if sig != signal.SIGKILL:
        assert "stopped by signal" in err, err


@pytest.mark.parametrize("how,sig", [("exec", signal.SIGTERM), ("exec", signal.SIGKILL),
                                     ("exec", signal.SIGINT), ("child", signal.SIGTERM),
                                     ("deaf", signal.SIGTERM)])
def test_runtimes_stopped_leaves_no_probe(clockscope, tmp_path, sig, how):
    """The probe as runtimes' own child (exec sleep) and as a grandchild (a shell's sleep):
    the latter goes on SIGTERM with the probe's process group.  On SIGKILL of runtimes only
    its direct child has a death signal (a foreign program's own children get none from
    us: docs/runtimes.md), so the grandchild case is SIGTERM's.  "deaf": a probe that
    closes its output and ignores SIGTERM is killed when the grace has passed, not waited
    for (the pipes' end of file is not the probe's end)."""
    tmpdir, workdir = tmp_path / "tmp", tmp_path / "work"
    tmpdir.mkdir()
    workdir.mkdir()
    probe = tmp_path / "probe.sh"
    body = {"exec": "exec sleep 1000", "child": "sleep 1000; echo done",
            "deaf": "exec >/dev/null 2>&1; trap '' TERM; exec sleep 1000"}[how]
    probe.write_text(f"#!/bin/sh\necho 'clockscope-probe 1 python fake-1.0'\n{body}\n")
    probe.chmod(0o755)
    proc = start([clockscope, "runtimes", "--only", "python", "--python", probe, "--no-count",
                  "--timeout", "600"], workdir, {"TMPDIR": str(tmpdir), "HOME": str(tmp_path)})
    wait_for(lambda: [p for p in descendants(proc.pid) if "sleep 1000" in cmdline(p)], 120,
             "the probe did not start", proc)
    stop_and_check(proc, sig, tmpdir, workdir)


# ---- profile (item 5): a fake perf on PATH that never ends ----

FAKE_PERF = """#!/bin/sh
# A perf that records nothing and never ends: it ignores SIGTERM, starts its workload (the
# words after --) without ever stopping it, and keeps its data file growing.
out=perf.data
while [ $# -gt 0 ]; do
    case $1 in -o) out=$2; shift 2 ;; --) shift; break ;; *) shift ;; esac
done
trap '' TERM HUP
"$@" &
while :; do echo sample >> "$out"; sleep 0.2; done
"""


@pytest.fixture
def fake_perf(tmp_path):
    bindir = tmp_path / "bin"
    bindir.mkdir()
    perf = bindir / "perf"
    perf.write_text(FAKE_PERF)
    perf.chmod(0o755)
    return {"PATH": f"{bindir}:{os.environ['PATH']}"}


def perf_running(proc):
    return [p for p in descendants(proc.pid) if "/bin/perf" in cmdline(p)]


@pytest.mark.parametrize("how", ["sigterm", "timeout"])
def test_profile_command_stopped_leaves_no_perf_program_or_data(clockscope, tmp_path, fake_perf,
                                                                how):
    tmpdir, workdir = tmp_path / "tmp", tmp_path / "work"
    tmpdir.mkdir()
    workdir.mkdir()
    cmd = [clockscope, "profile", "--", "sleep", "1000"]
    if how == "timeout":
        # timeout(1) sends SIGTERM after 3 s and exits 124; the question is what is left.
        cmd = ["timeout", "3"] + cmd
    proc = start(cmd, workdir, dict(fake_perf, TMPDIR=str(tmpdir)))
    wait_for(lambda: [p for p in descendants(proc.pid) if cmdline(p) == "sleep 1000 "], 120,
             "the profiled program did not start", proc)
    if how == "sigterm":
        stop_and_check(proc, signal.SIGTERM, tmpdir, workdir)
        return
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        kill_all(proc)
        pytest.fail("timeout(1) around profile did not end within 120 s")
    assert proc.returncode == 124
    end = time.monotonic() + 20
    while descendants(proc.pid) and time.monotonic() < end:
        time.sleep(0.2)
    survivors = {p: cmdline(p) for p in descendants(proc.pid)}
    kill_all(proc)
    assert not survivors
    assert os.listdir(tmpdir) == [], os.listdir(tmpdir)


def test_profile_clock_loop_with_a_perf_that_never_ends_has_a_deadline(clockscope, tmp_path,
                                                                       fake_perf):
    """Without a deadline it would spin at 100% CPU for ever: perf is ended 60 s after its
    recording should have (plus 5 s for SIGTERM), and the profile fails saying so (the 240 s
    only bound a hang)."""
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    proc = start([clockscope, "profile", "--clock-loop", "--seconds", "1"], tmp_path,
                 dict(fake_perf, TMPDIR=str(tmpdir)))
    try:
        proc.wait(timeout=240)
    except subprocess.TimeoutExpired:
        kill_all(proc)
        pytest.fail("profile --clock-loop did not end within 240 s of a perf that never ends")
    err = proc.err_text()
    left = descendants(proc.pid)
    kill_all(proc)
    assert proc.returncode == 1, err
    assert "perf did not end" in err, err
    assert not left
    assert os.listdir(tmpdir) == []


# ---- bench (issue 35): its worker processes, stopped at random points ----

def session_members(sid):
    """Every process of session sid but its leader, zombies included (a zombie whose parent
    died waits for init to reap it; in a container whose PID 1 never reaps, for ever)."""
    return {p: state for p, (state, _, s) in proc_table().items() if s == sid and p != sid}


def test_bench_stopped_at_random_points_ends_after_its_workers(clockscope, tmp_path):
    """`bench --quick` stopped by SIGTERM at a random point of its first second, 12 times:
    when bench has ended, nothing it started is left, not even a zombie: it stops and reaps
    its worker before it ends.  Some of the stops must find a worker running, or the test
    proves nothing (the seed is in the message, to replay a failure)."""
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    with_worker, left = 0, []
    for i in range(12):
        proc = start([clockscope, "bench", "--quick"], tmp_path)
        time.sleep(rng.uniform(0.1, 1.0))
        with_worker += bool(descendants(proc.pid))
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            kill_all(proc)
            pytest.fail(f"bench did not end within 60 s of SIGTERM (seed {seed})")
        survivors = session_members(proc.pid)
        kill_all(proc)
        # 0: bench had ended before the signal came
        if survivors or proc.returncode not in (0, -signal.SIGTERM):
            left.append((i, proc.returncode, survivors, proc.err_text()[-300:]))
    assert not left, f"seed {seed}: {left}"
    assert with_worker > 0, f"seed {seed}: no stop came while a worker ran"


def test_bench_killed_leaves_no_worker_running(clockscope, tmp_path):
    """SIGKILL of bench while its worker runs: the worker dies by its death signal (its
    zombie is init's to reap then: nothing can catch SIGKILL)."""
    proc = start([clockscope, "bench", "--quick"], tmp_path)
    wait_for(lambda: descendants(proc.pid), 60, "no worker started", proc)
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=60)
    end = time.monotonic() + 1
    while descendants(proc.pid) and time.monotonic() < end:
        time.sleep(0.05)
    survivors = {p: cmdline(p) for p in descendants(proc.pid)}
    kill_all(proc)
    assert not survivors, survivors
