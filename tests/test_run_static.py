# SPDX-License-Identifier: MIT
"""`clockscope run` on programs the shim cannot reach: a `gcc -static` C program and the Go
probe built with CGO_ENABLED=0, served through their patched vDSO (docs/run.md, "Static
and Go programs").  Values are checked against raw syscalls taken before and after inside
the program (tests/progs/static_clock.c); refusals give their message and leave the program
running unserved."""
import os
import re
import shutil
import subprocess

import pytest

from conftest import REQUIRE_ALL, ROOT, need_tool, run

pytestmark = pytest.mark.skipif(os.uname().machine != "x86_64",
                                reason="the vDSO is patched on x86_64 only so far")


@pytest.fixture(scope="module")
def static_prog(tmp_path_factory):
    need_tool("cc")
    d = tmp_path_factory.mktemp("static")
    exe = d / "static_clock"
    proc = run(["cc", "-O2", "-static", "-o", exe, ROOT / "tests/progs/static_clock.c", "-lpthread"])
    if proc.returncode != 0:
        if REQUIRE_ALL:
            pytest.fail("no static libc (libc6-dev provides it): " + proc.stderr)
        pytest.skip("no static libc")
    return exe


@pytest.fixture(scope="module")
def go_probe(tmp_path_factory):
    need_tool("go")
    d = tmp_path_factory.mktemp("goprobe")
    shutil.copy(ROOT / "runtimes/probes/probe.go", d / "probe.go")
    env = dict(os.environ, CGO_ENABLED="0", GOFLAGS="-mod=mod", GO111MODULE="off",
               GOCACHE=os.environ.get("GOCACHE", str(d / "cache")))
    proc = run(["go", "build", "-o", d / "probe", d / "probe.go"], env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return d / "probe"


def served(cs, mode, *cmd, env=None, timeout=120):
    return run([cs, "run", "--mode", mode, "--verbose", "--", *cmd], timeout=timeout,
               env=dict(os.environ, **(env or {})))


def count_table(stderr):
    """{call: calls} from the helper's count table."""
    return {m.group(2): int(m.group(1))
            for m in re.finditer(r"^\s+(\d+)\s+\d+\s+(\S.*)$", stderr, re.M)}


def test_reader_blob_has_no_relocations(cs):
    """The injected reader is copied to an address chosen at run time: any relocation would
    leave a wrong address in it.  scripts/gen-reader-blob.sh refuses one at build time; the
    built object is checked here too."""
    obj = ROOT / "build/gen/reader.o"
    out = run(["readelf", "-rSW", obj]).stdout
    assert "There are no relocations in this file." in out
    assert not re.search(r"\]\s+\.(rodata|data|bss)\S*\s+\S+\s+\S+\s+\S+\s+0*[1-9a-f]", out)


def test_count_mode_counts_a_static_program_through_its_vdso(cs, static_prog):
    proc = served(cs, "count", static_prog, "pairs", "200")
    assert proc.returncode == 0, proc.stderr
    assert "ok parent pairs 200 bad 0" in proc.stdout, proc.stdout
    assert "patched vDSO" in proc.stderr and "__vdso_clock_gettime" in proc.stderr
    t = count_table(proc.stderr)
    # 4 clock_gettime per round for each of 4 clocks... one libc call per clock per round
    assert t["clock_gettime(CLOCK_MONOTONIC)"] == 200
    assert t["clock_gettime(CLOCK_REALTIME)"] == 200
    assert t["clock_gettime(CLOCK_BOOTTIME)"] == 200
    assert t["clock_gettime(CLOCK_MONOTONIC_RAW)"] == 200
    assert t["gettimeofday()"] == 200
    assert t["time()"] == 200


def test_count_mode_answers_every_call_by_the_syscall(cs, static_prog):
    """Count mode changes no value: the reader counts and makes the real syscall (seen as
    syscalls the program's seccomp filter fails)."""
    proc = served(cs, "count", static_prog, "nosyscall", "100")
    assert "nosyscall calls 300 syscalls 300" in proc.stdout, proc.stdout + proc.stderr


def test_count_mode_in_forked_children(cs, static_prog):
    """The data page is a shared mapping: a forked child's calls count in the same table."""
    proc = served(cs, "count", static_prog, "fork", "50")
    assert "ok child pairs 50 bad 0" in proc.stdout and "ok parent pairs 50 bad 0" in proc.stdout
    assert count_table(proc.stderr)["clock_gettime(CLOCK_MONOTONIC)"] == 100


def test_count_mode_counts_the_go_probe(cs, go_probe):
    proc = served(cs, "count", go_probe, "count", "1000")
    assert proc.returncode == 0, proc.stderr
    assert "end 3" in proc.stdout
    t = count_table(proc.stderr)
    # time.Now reads both clocks; time.Since and UnixNano at least one each per call
    assert t.get("clock_gettime(CLOCK_REALTIME)", 0) >= 2000
    assert t.get("clock_gettime(CLOCK_MONOTONIC)", 0) >= 3000


def test_threads_and_sigprof_under_count_mode(cs, static_prog):
    proc = served(cs, "count", static_prog, "threads", "8", "1")
    assert proc.returncode == 0 and re.search(r"^ok threads 8 .* backwards 0$", proc.stdout, re.M), \
        proc.stdout + proc.stderr


def test_refused_when_run_is_already_traced(cs, static_prog):
    need_tool("strace")
    proc = run(["strace", "-o", os.devnull, cs, "run", "--mode", "count", "--", static_prog,
                "pairs", "10"])
    assert proc.returncode == 0 and "ok parent pairs 10 bad 0" in proc.stdout
    assert "its vDSO is not patched: run is itself being traced" in proc.stderr, proc.stderr
    assert "it runs unserved" in proc.stderr and "--mode count" not in proc.stderr


def test_refused_when_ptrace_is_denied(cs, static_prog, tmp_path):
    need_tool("cc")
    np = tmp_path / "no_ptrace"
    assert run(["cc", "-O1", "-o", np, ROOT / "tests/progs/no_ptrace.c"]).returncode == 0
    proc = run([np, cs, "run", "--mode", "count", "--", static_prog, "pairs", "10"])
    if proc.returncode == 77:
        pytest.skip("no seccomp filters here")
    assert proc.returncode == 0 and "ok parent pairs 10 bad 0" in proc.stdout
    assert "ptrace is not permitted here" in proc.stderr and "seccomp" in proc.stderr, proc.stderr


def test_program_that_fails_its_exec(cs, tmp_path, static_prog):
    """A static ELF the kernel refuses (another machine): run says it cannot execute it, the
    helper ends with the traced process (no hang: stderr reaches EOF), exit 126."""
    bad = tmp_path / "other_machine"
    data = bytearray(static_prog.read_bytes())
    data[18:20] = (183).to_bytes(2, "little")  # EM_AARCH64
    bad.write_bytes(bytes(data))
    bad.chmod(0o755)
    proc = run([cs, "run", "--mode", "count", "--", bad], timeout=30)
    assert proc.returncode == 126 and "cannot execute" in proc.stderr, proc.stderr


def test_coarse_mode_is_refused_for_patched_programs(cs, static_prog):
    proc = served(cs, "coarse", static_prog, "pairs", "10")
    assert proc.returncode == 0 and "ok parent pairs 10 bad 0" in proc.stdout
    assert "--mode coarse is not offered through the vDSO" in proc.stderr
