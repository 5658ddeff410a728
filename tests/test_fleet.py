# SPDX-License-Identifier: MIT
"""`clockscope doctor` over many facts roots: --root A --root B, --roots DIR, JSON lines with
a root field and a summary, a bad root's own error line; sosreport archives unpacked with
tar into a private temporary directory, hostile ones refused without writing outside it."""
import io
import json
import os
import signal
import subprocess
import tarfile
import time
from pathlib import Path

import pytest

from conftest import ROOT, run

CORPUS = ROOT.parent / "shared" / "corpus" / "cases"
SLOW_ROOT = CORPUS / "x86-arch-6.5.5-hpet-acpi_pm-only"
OK_ROOT = CORPUS / "x86-bm-esprimo-tsc-healthy-baseline"
# A case whose verdict needs its kernel log: the archive must bring the log along.
LOG_ROOT = CORPUS / "x86-sozu-runtime-tsc-unstable-hpet"


def lines(stdout):
    return [json.loads(line) for line in stdout.splitlines()]


def single_verdict(clockscope, root):
    proc = run([clockscope, "doctor", "--root", root, "--json"])
    return json.loads(proc.stdout)["verdict"]


def test_roots_dir_one_line_per_root(clockscope):
    proc = run([clockscope, "doctor", "--roots", CORPUS, "--json"])
    assert proc.returncode == 0, proc.stderr
    docs = lines(proc.stdout)
    cases = sorted(p for p in CORPUS.iterdir() if p.is_dir())
    assert [d["root"] for d in docs[:-1]] == [str(c) for c in cases]
    assert all(d["schema"] == "clockscope.doctor/2" for d in docs[:-1])
    summary = docs[-1]
    assert summary["schema"] == "clockscope.doctor.fleet/1"
    assert summary["roots"] == len(cases) and summary["errors"] == 0
    for v in ("ok", "slow", "broken", "unknown"):
        assert summary["verdicts"][v] == sum(d["verdict"] == v for d in docs[:-1])
    # Each line says what `doctor --root` alone says.
    for d in docs[:-1]:
        assert d["verdict"] == single_verdict(clockscope, d["root"]), d["root"]


def test_bad_root_gets_its_own_line_and_the_others_run(clockscope, tmp_path):
    afile = tmp_path / "file"
    afile.write_text("x")
    proc = run([clockscope, "doctor", "--root", SLOW_ROOT, "--root", tmp_path / "none",
                "--root", afile, "--root", OK_ROOT, "--json"])
    assert proc.returncode == 6       # partial: the other roots were judged
    docs = lines(proc.stdout)
    assert [d.get("verdict") for d in docs[:4]] == ["slow", None, None, "ok"]
    assert docs[1] == {"schema": "clockscope.doctor.error/1", "root": str(tmp_path / "none"),
                       "error": f"facts root '{tmp_path / 'none'}': No such file or directory"}
    assert docs[2]["error"].endswith("is not a directory")
    assert docs[4]["roots"] == 4 and docs[4]["errors"] == 2


def test_text_lines(clockscope):
    proc = run([clockscope, "doctor", "--root", SLOW_ROOT, "--root", OK_ROOT])
    assert proc.returncode == 0
    out = proc.stdout.splitlines()
    assert out[0].startswith(f"{SLOW_ROOT}: slow: ")
    assert out[1].startswith(f"{OK_ROOT}: ok: ")
    assert out[2].startswith("2 roots: 1 ok, 1 slow, 0 broken, 0 unknown, 0 could not be read")


def test_roots_not_a_directory_is_bad_usage(clockscope, tmp_path):
    for bad, why in ((tmp_path / "none", "No such file or directory"),
                     (Path("/dev/null"), "is not a directory")):
        proc = run([clockscope, "doctor", "--roots", bad, "--json"])
        assert proc.returncode == 2 and proc.stdout == "", proc.stderr
        assert why in proc.stderr.splitlines()[0]


def test_roots_dir_skips_other_files(clockscope, tmp_path):
    (tmp_path / "README").write_text("not a root\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "a").symlink_to(SLOW_ROOT)
    proc = run([clockscope, "doctor", "--roots", tmp_path, "--json"])
    docs = lines(proc.stdout)
    assert [d.get("root") for d in docs[:-1]] == [str(tmp_path / "a")]


# ---- archives ----------------------------------------------------------------------------

def sosreport_tree(dst, case=LOG_ROOT, top="sosreport-host1-2026-01-01-abcdef"):
    """A case laid out as a sosreport: under one top directory, the log at
    sos_commands/kernel/dmesg."""
    base = dst / top
    for p in case.rglob("*"):
        if p.is_file() and p.name != "expected.json":
            rel = p.relative_to(case)
            target = base / ("sos_commands/kernel/dmesg" if str(rel) == "dmesg" else rel)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(p.read_bytes())
    return base


@pytest.fixture
def private_tmp(tmp_path):
    """TMPDIR for clockscope: the test checks that nothing is left in it."""
    d = tmp_path / "TMPDIR"
    d.mkdir()
    return d


def run_cs(clockscope, args, tmpdir, **kw):
    env = {**os.environ, "TMPDIR": str(tmpdir)}
    return subprocess.run([str(clockscope), *map(str, args)], capture_output=True, text=True,
                          timeout=120, env=env, **kw)


@pytest.mark.parametrize("mode,suffix", [("w:xz", ".tar.xz"), ("w:gz", ".tar.gz")])
def test_sosreport_archive(clockscope, tmp_path, private_tmp, mode, suffix):
    tree = sosreport_tree(tmp_path / "src")
    archive = tmp_path / f"sosreport{suffix}"
    with tarfile.open(archive, mode) as t:
        t.add(tree, arcname=tree.name)
    proc = run_cs(clockscope, ["doctor", "--root", archive, "--json"], private_tmp)
    assert proc.returncode == 3, proc.stderr  # slow, as the unpacked case
    doc = json.loads(proc.stdout)
    direct = json.loads(run([clockscope, "doctor", "--root", LOG_ROOT, "--json"]).stdout)
    assert doc["verdict"] == direct["verdict"] == "slow"
    assert [f["id"] for f in doc["findings"]] == [f["id"] for f in direct["findings"]]
    assert doc["facts"]["kernel_log"]["source"].endswith("sos_commands/kernel/dmesg")
    assert list(private_tmp.iterdir()) == []
    # Among other roots, as one more line.
    proc = run_cs(clockscope, ["doctor", "--root", archive, "--root", OK_ROOT, "--json"], private_tmp)
    docs = lines(proc.stdout)
    assert [d["root"] for d in docs[:2]] == [str(archive), str(OK_ROOT)]
    assert [d["verdict"] for d in docs[:2]] == ["slow", "ok"]
    assert list(private_tmp.iterdir()) == []


def add(t, name, data=b"", **kw):
    info = tarfile.TarInfo(name)
    for k, v in kw.items():
        setattr(info, k, v)
    if info.type == tarfile.REGTYPE:
        info.size = len(data)
        t.addfile(info, io.BytesIO(data))
    else:
        t.addfile(info)


@pytest.fixture
def outside(tmp_path):
    """A directory outside the unpacking, with a secret a hostile archive aims at."""
    d = tmp_path / "outside"
    d.mkdir()
    (d / "secret").write_text("SECRET-do-not-read\n")
    return d


def hostile(tmp_path, outside, build):
    archive = tmp_path / "hostile.tar.gz"
    with tarfile.open(archive, "w:gz") as t:
        add(t, "top/sys/devices/system/clocksource/clocksource0/current_clocksource", b"hpet\n")
        build(t)
    return archive


def check_contained(proc, outside, private_tmp):
    assert "SECRET" not in proc.stdout + proc.stderr
    assert sorted(p.name for p in outside.iterdir()) == ["secret"]
    assert (outside / "secret").read_text() == "SECRET-do-not-read\n"
    assert list(private_tmp.iterdir()) == []


HOSTILE = {
    "absolute": lambda o: lambda t: add(t, f"{o}/pwned", b"x"),
    "dotdot": lambda o: lambda t: add(t, "top/../../outside/pwned", b"x"),
    "dotdot_fact": lambda o: lambda t: add(t, "../proc/cpuinfo", b"x"),
    "link_out_as_fact": lambda o: lambda t: add(t, "top/proc/cmdline", type=tarfile.SYMTYPE,
                                                 linkname=f"{o}/secret"),
    "relative_link_out": lambda o: lambda t: add(t, "top/dmesg", type=tarfile.SYMTYPE,
                                                  linkname="../../../../../../../../" + str(o) + "/secret"),
    "hardlink_out": lambda o: lambda t: add(t, "top/proc/version", type=tarfile.LNKTYPE,
                                             linkname=f"{o}/secret"),
    "write_through_link": lambda o: lambda t: (
        add(t, "top/proc/cpuinfo", type=tarfile.SYMTYPE, linkname=f"{o}/pwned"),
        add(t, "top/proc/cpuinfo", b"written through\n")),
    "dir_link_then_file": lambda o: lambda t: (
        add(t, "top/proc", type=tarfile.SYMTYPE, linkname=str(o)),
        add(t, "top/proc/cmdline", b"quiet\n")),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_archive_stays_inside(clockscope, tmp_path, outside, private_tmp, kind):
    archive = hostile(tmp_path, outside, HOSTILE[kind](outside))
    proc = run_cs(clockscope, ["doctor", "--root", archive, "--root", OK_ROOT, "--json"], private_tmp)
    check_contained(proc, outside, private_tmp)
    docs = lines(proc.stdout)
    # Either judged (the hostile member ignored or unreadable) or its own clear error line;
    # the next root runs regardless.
    first = docs[0]
    assert first["root"] == str(archive)
    if "error" in first:
        assert first["error"].startswith(f"archive '{archive}': "), first
    else:
        assert first["verdict"] in ("slow", "unknown"), first
    assert docs[1]["verdict"] == "ok" and docs[2]["roots"] == 2


def test_huge_member_is_refused(clockscope, tmp_path, outside, private_tmp):
    archive = tmp_path / "huge.tar.gz"
    size = 80 << 20

    class Zeros(io.RawIOBase):
        def __init__(self):
            self.left = size

        def readinto(self, b):
            n = min(len(b), self.left)
            b[:n] = bytes(n)
            self.left -= n
            return n

        def readable(self):
            return True

    with tarfile.open(archive, "w:gz", compresslevel=1) as t:
        info = tarfile.TarInfo("top/dmesg")
        info.size = size
        t.addfile(info, io.BufferedReader(Zeros()))
        add(t, "top/proc/cmdline", b"quiet\n")
    proc = run_cs(clockscope, ["doctor", "--root", archive, "--json"], private_tmp)
    assert proc.returncode == 2, proc.stderr
    assert "a member is larger than 64 MiB (refused)" in proc.stderr, proc.stderr
    check_contained(proc, outside, private_tmp)


def test_not_an_archive_and_no_facts(clockscope, tmp_path, private_tmp):
    junk = tmp_path / "junk.tar.gz"
    junk.write_bytes(b"this is not gzip")
    empty = tmp_path / "nofacts.tar.xz"
    with tarfile.open(empty, "w:xz") as t:
        add(t, "top/README", b"hello\n")
    fifo = tmp_path / "fifo.tar.gz"
    os.mkfifo(fifo)  # would block a reader forever: refused before tar sees it
    proc = run_cs(clockscope, ["doctor", "--root", junk, "--root", empty, "--root", fifo, "--json"],
                  private_tmp)
    docs = lines(proc.stdout)
    assert docs[2]["error"] == f"archive '{fifo}' is not a regular file"
    assert docs[0]["error"].startswith(f"archive '{junk}': tar cannot read it: "), docs[0]
    assert docs[1]["error"] == f"archive '{empty}': no facts in it (no facts-root path such as " \
        "proc/cpuinfo or sos_commands/kernel/dmesg at its top or one directory down)"
    assert list(private_tmp.iterdir()) == []


def test_signal_while_unpacking_removes_the_directory(clockscope, tmp_path, private_tmp):
    """SIGTERM while tar runs: tar is killed, the temporary directory removed, and clockscope
    ends by that signal.  A tar wrapper first on PATH makes the extraction last."""
    tree = sosreport_tree(tmp_path / "src")
    archive = tmp_path / "sos.tar.gz"
    with tarfile.open(archive, "w:gz") as t:
        t.add(tree, arcname=tree.name)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    real_tar = subprocess.run(["sh", "-c", "command -v tar"], capture_output=True, text=True).stdout.strip()
    (bindir / "tar").write_text(
        "#!/bin/sh\n"
        f'case "$1" in -x) "{real_tar}" "$@"; touch "{tmp_path}/extracting"; exec sleep 30;; esac\n'
        f'exec "{real_tar}" "$@"\n')
    (bindir / "tar").chmod(0o755)
    env = {**os.environ, "TMPDIR": str(private_tmp), "PATH": f"{bindir}:{os.environ['PATH']}"}
    p = subprocess.Popen([str(clockscope), "doctor", "--root", str(archive), "--json"],
                         env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while not (tmp_path / "extracting").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert (tmp_path / "extracting").exists()
    assert len(list(private_tmp.iterdir())) == 1  # the unpacked tree is there
    p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=10) == -signal.SIGTERM
    assert list(private_tmp.iterdir()) == []


def test_workers_keep_the_order_and_the_counts(clockscope, tmp_path):
    """With more roots than one worker takes, the roots run in worker processes (one per
    CPU): the lines come out in the same order, with the same content and summary, as in one
    process (taskset to one CPU), bad roots included."""
    import shutil
    cases = sorted(p for p in CORPUS.iterdir() if p.is_dir())
    roots = tmp_path / "roots"
    roots.mkdir()
    for i in range(150):
        if i % 37 == 5:
            (roots / f"m{i:03d}").mkdir()  # readable but empty: holds no facts, an error line
        elif i % 41 == 7:
            (roots / f"m{i:03d}.tar.gz").write_bytes(b"junk")  # an error line
        else:
            shutil.copytree(cases[i % len(cases)], roots / f"m{i:03d}")

    def docs(cmd):
        proc = run(cmd, timeout=120)
        out = [json.loads(x) for x in proc.stdout.splitlines()]
        for d in out:
            d.pop("elapsed_s", None)
        return proc.returncode, out
    ncpu = len(os.sched_getaffinity(0))
    assert ncpu >= 2, "needs two CPUs to run workers"
    rc, many = docs([clockscope, "doctor", "--roots", roots, "--json"])
    rc1, one = docs(["taskset", "-c", str(min(os.sched_getaffinity(0))), clockscope, "doctor",
                     "--roots", roots, "--json"])
    assert rc == rc1 == 6     # partial: some roots could not be read
    assert [d["root"] for d in many[:-1]] == sorted(str(p) for p in roots.iterdir())
    assert many == one
    assert many[-1]["roots"] == 150 and many[-1]["errors"] == 4 + 4   # junk archives, empty dirs


def test_closed_stdout_is_an_error(clockscope):
    """With fd 1 closed the first file opened (a worker's output, tar's pipe) would take its
    place and swallow the lines: refused at once."""
    proc = subprocess.run([str(clockscope), "doctor", "--roots", str(CORPUS), "--json"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                          preexec_fn=lambda: os.close(1), timeout=30)
    assert proc.returncode == 1
    assert proc.stderr == "clockscope: cannot write the output: Bad file descriptor\n"
