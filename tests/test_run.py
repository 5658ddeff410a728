# SPDX-License-Identifier: MIT
"""`clockscope run`: a C program and Python under every mode, values checked against the
kernel's clock (raw syscalls), errors and bad pointers exactly as without the shim, fork,
exec and threads, and the command's own bad input."""
import os
import re
import subprocess
import sys

import pytest

from conftest import REQUIRE_ALL, ROOT, make, need_tool, run

# Bounds from the physics: every bracket is two raw syscalls (a few hundred ns apart here),
# and a value the shim serves from fastclock is inside it up to fastclock's offset from the
# kernel (tens of ns: docs/fastclock.md).  1 us beyond the bracket fails: a served clock 1 us
# off is wrong, not noise.
SHIM_BOUND_NS = 1000
COARSE_LAG_NS = 50_000_000  # a tick at HZ=100 is 10 ms; generous for a loaded machine


@pytest.fixture(scope="module")
def pairs(tmp_path_factory):
    need_tool("cc")
    d = tmp_path_factory.mktemp("progs")
    exe = d / "clockpairs"
    # -rdynamic: count mode can then name the program's own functions.
    proc = run(["cc", "-O1", "-rdynamic", "-o", exe, ROOT / "tests/progs/clockpairs.c", "-lpthread"])
    assert proc.returncode == 0, proc.stderr
    return exe


TWO_WORD_KEYS = ("pair", "backwards", "invalid", "badptr", "forkpair", "execpair", "getres")


def facts(out):
    d = {}
    for line in out.splitlines():
        parts = line.split()
        if parts:
            two = parts[0] in TWO_WORD_KEYS
            d[" ".join(parts[:2]) if two else parts[0]] = parts[2:] if two else parts[1:]
    return d


def counter_expected():
    """Whether fastclock must use the counter here: the kernel's clocksource is this arch's
    counter and (x86) the CPU reports an invariant TSC.  Where it must, a test may not accept
    'serving nothing' (issue 19)."""
    if os.environ.get("FASTCLOCK_DISABLE"):
        return False
    names = {"x86_64": "tsc", "aarch64": "arch_sys_counter", "riscv64": "riscv_clocksource"}
    try:
        cur = open("/sys/devices/system/clocksource/clocksource0/current_clocksource").read().strip()
    except OSError:
        return False
    if cur != names.get(os.uname().machine):
        return False
    if os.uname().machine == "x86_64":
        flags = open("/proc/cpuinfo").read()
        return " constant_tsc" in flags and " nonstop_tsc" in flags
    return True


def check_all_pairs(f, prefix, coarse=()):
    for clock in ("realtime", "monotonic", "boottime", "gettimeofday"):
        below, above = map(int, f[f"{prefix} {clock}"])
        assert above <= SHIM_BOUND_NS, (prefix, clock, f)
        assert below <= (COARSE_LAG_NS if clock in coarse else SHIM_BOUND_NS), (prefix, clock, f)


@pytest.fixture(scope="module")
def plain(pairs):
    proc = run([pairs])
    assert proc.returncode == 0, proc.stderr
    return facts(proc.stdout)


MODES = [
    ("auto", {}),
    ("auto", {"CLOCKSCOPE_RUN_SLOW": "1"}),  # as on a machine whose vDSO falls back
    ("fast", {}),
    ("coarse", {}),
    ("coarse=monotonic", {}),
    ("count", {}),
]


@pytest.mark.parametrize("mode,env", MODES, ids=[m + ("-slow" if e else "") for m, e in MODES])
def test_c_program_under_each_mode(cs, pairs, plain, mode, env):
    proc = run([cs, "run", "--mode", mode, "--verbose", "--", pairs],
               env=dict(os.environ, **env))
    assert proc.returncode == 0, proc.stderr
    f = facts(proc.stdout)
    coarse = set()
    if mode.startswith("coarse"):
        coarse = {"realtime", "monotonic", "gettimeofday"} if mode == "coarse" else {"monotonic"}
    for clock in ("realtime", "monotonic", "boottime", "gettimeofday"):
        below, above = map(int, f[f"pair {clock}"])
        assert above <= SHIM_BOUND_NS, (clock, f)  # never ahead of the kernel by more
        limit = COARSE_LAG_NS if clock in coarse else SHIM_BOUND_NS
        assert below <= limit, (clock, below, f)
        if clock != "gettimeofday":
            assert f[f"backwards {clock}"] == ["0"]
    # Errors and bad pointers exactly as without the shim.
    for key, value in plain.items():
        if key.startswith(("invalid", "badptr")):
            assert f[key] == value, (key, f[key], value)
    assert all(v[1] == "22" for k, v in f.items() if k.startswith("invalid")), f  # EINVAL
    assert f["threads"] == ["0"] and f["time"] == ["1"]
    # A clock answered coarse steps by its twin's tick, and clock_getres says so; every other
    # clock keeps the kernel's own resolution.
    for clock in ("realtime", "monotonic", "boottime"):
        want = plain[f"getres {clock}_coarse"] if clock in coarse else plain[f"getres {clock}"]
        assert f[f"getres {clock}"] == want, (clock, f[f"getres {clock}"], want)
    below, above = map(int, f["fork"])
    assert above <= SHIM_BOUND_NS and below <= (COARSE_LAG_NS if "monotonic" in coarse else SHIM_BOUND_NS)
    check_all_pairs(f, "forkpair", coarse)
    # exec in the forked child (not the process run started): the shim there removed itself
    # from LD_PRELOAD and the follow mark; the exec'd child's clocks pass through (execpair).
    assert f["exec"][0] == "-"
    check_all_pairs(f, "execpair")
    err = proc.stderr
    nothing_ok = not counter_expected()  # where the counter is usable, it must be served
    if mode == "fast":
        assert err.count("fastclock (mode fast)") == 3 or (nothing_ok and "serving nothing" in err), err
    if mode == "auto" and env:
        assert err.count("fastclock (CLOCKSCOPE_RUN_SLOW=1)") == 3 or (nothing_ok and "serving nothing" in err), err
    if mode == "auto" and not env:
        assert len(re.findall(r"^clockscope-shim: \w+: (fastclock|passed through)", err, re.M)) == 3 \
            or (nothing_ok and "serving nothing" in err), err
    if mode == "coarse":
        assert "realtime: from its _COARSE twin" in err and "monotonic: from its _COARSE twin" in err
    if mode == "count":
        assert "clockscope run --mode count: pid" in err
        m = re.search(r"^\s+(\d+)\s+[\d.]+ [kMGTPE]?/s\s+clock_gettime\(CLOCK_MONOTONIC\)$", err, re.M)
        assert m and int(m.group(1)) >= 202000, err  # 2000 pairs + 200000 + threads
        assert re.search(r"lib_ns \(clockpairs\)", err), err


def test_no_follow_leaves_execd_programs_without_the_shim(cs, pairs):
    proc = run([cs, "run", "--mode", "fast", "--no-follow", "--", pairs])
    assert proc.returncode == 0, proc.stderr
    assert facts(proc.stdout)["exec"] == ["-", "0"]  # not even mapped


def test_inherit_keeps_the_shim_for_exec(cs, pairs):
    proc = run([cs, "run", "--mode", "fast", "--inherit", "--", pairs])
    f = facts(proc.stdout)
    exec_line = f["exec"]
    assert exec_line[1] == "1" and "libclockscope-shim.so" in exec_line[0]
    check_all_pairs(f, "execpair")  # served by the exec'd child's own shim, within bounds
    check_all_pairs(f, "forkpair")


@pytest.fixture(scope="module")
def sigalrm(tmp_path_factory):
    need_tool("cc")
    exe = tmp_path_factory.mktemp("progs") / "fc_sigalrm"
    proc = run(["cc", "-O2", "-o", exe, ROOT / "tests/progs/fc_sigalrm.c"])
    assert proc.returncode == 0, proc.stderr
    return exe


@pytest.mark.parametrize("mode,env", [("fast", {}), ("auto", {"CLOCKSCOPE_RUN_SLOW": "1"})],
                         ids=["fast", "auto-slow"])
def test_signal_handler_reads_during_refreshes(cs, sigalrm, mode, env):
    """Issue 9.1 through the shim: a SIGALRM every 50 us whose handler calls clock_gettime
    and gettimeofday while main loops on clock_gettime.  FASTCLOCK_PERIOD_US=100 makes
    fastclock refresh every ~100 us, so that handlers land inside its write sections; a
    reader that waited for the writer its handler interrupted would hang: the timeout fails
    the test instead."""
    e = dict(os.environ, FASTCLOCK_PERIOD_US="100", **env)
    try:
        proc = run([cs, "run", "--mode", mode, "--verbose", "--", sigalrm, "2"], env=e, timeout=30)
    except subprocess.TimeoutExpired:
        pytest.fail("a clock read in a signal handler hung under the shim (issue 9.1)")
    assert proc.returncode == 0, proc.stderr
    if counter_expected():
        assert "serving nothing" not in proc.stderr and proc.stderr.count("fastclock") >= 3, proc.stderr
    f = {}
    for line in proc.stdout.splitlines():
        p = line.split()
        f[" ".join(p[:-1])] = int(p[-1])
    assert f["signals"] > 1000 and f["main_backwards"] == 0 and f["handler_backwards"] == 0, f
    for clock in ("monotonic", "realtime", "boottime", "gettimeofday"):
        assert f[f"below {clock}"] <= SHIM_BOUND_NS and f[f"above {clock}"] <= SHIM_BOUND_NS, (clock, f)


def test_count_output_file(cs, pairs, tmp_path):
    out = tmp_path / "count.txt"
    proc = run([cs, "run", "--mode", "count", "--output", out, "--", pairs])
    assert proc.returncode == 0
    text = out.read_text()
    # One table: the forked children leave through exec or _exit, which run no destructor.
    assert len(re.findall(r"^clockscope run --mode count: pid \d+", text, re.M)) == 1, text
    assert "clock_gettime(CLOCK_REALTIME)" in text
    assert "clockscope run --mode count" not in proc.stderr


def test_count_survives_a_program_that_closes_stderr_at_exit(cs, tmp_path):
    # coreutils' close_stdout() closes stderr in an atexit handler, before the shim's
    # destructor writes the table: the shim keeps its own copy of stderr.
    src = tmp_path / "closer.c"
    src.write_text("#include <stdio.h>\n#include <stdlib.h>\n#include <time.h>\n"
                   "static void shut(void) { fclose(stderr); }\n"
                   "int main(void) { struct timespec ts; atexit(shut);\n"
                   "  for (int i = 0; i < 5; i++) clock_gettime(CLOCK_BOOTTIME, &ts);\n"
                   "  return 0; }\n")
    exe = tmp_path / "closer"
    assert run(["cc", "-o", exe, src]).returncode == 0
    proc = run([cs, "run", "--mode", "count", "--", exe])
    assert proc.returncode == 0
    assert re.search(r"^\s+5\s+[\d.]+ [kMGTPE]?/s\s+clock_gettime\(CLOCK_BOOTTIME\)", proc.stderr, re.M), proc.stderr


def test_script_targets_get_a_note_under_verbose(cs, tmp_path):
    # What run does with scripts: tests/test_run_wrapper.py.
    script = tmp_path / "wrapper"
    script.write_text("#!/bin/sh\nexec true\n")
    script.chmod(0o755)
    proc = run([cs, "run", "--verbose", "--", script])
    assert proc.returncode == 0 and "is a script" in proc.stderr and "--no-follow" in proc.stderr
    proc = run([cs, "run", "--verbose", "--inherit", "--", script])
    assert proc.returncode == 0 and "is a script" not in proc.stderr


def test_count_in_forked_children(cs, tmp_path):
    py = os.path.realpath(sys.executable)
    code = ("import os, time\nfor _ in range(3):\n    pid = os.fork()\n    if pid == 0:\n"
            "        [time.monotonic() for _ in range(1000)]\n        os._exit(0) if False else exit(0)\n"
            "    os.waitpid(pid, 0)\n")
    proc = run([cs, "run", "--mode", "count", "--", py, "-c", code])
    assert proc.returncode == 0, proc.stderr
    tables = re.findall(r"^clockscope run --mode count: pid (\d+)", proc.stderr, re.M)
    assert len(tables) == 4 and len(set(tables)) == 4, proc.stderr  # parent + 3 children


def test_a_child_in_a_new_time_namespace_reads_its_own_clocks(cs, tmp_path):
    """Issues 30.2 and 34.3: a program whose line is live unshares a time namespace, sets its
    CLOCK_MONOTONIC and CLOCK_BOOTTIME offsets and forks: the child's served clocks are its
    kernel's (inside the raw-syscall bracket, SHIM_BOUND_NS), not its parent's, from its first
    read and through its refreshes, and its CLOCK_REALTIME, which no namespace changes, never
    moves.  Offsets far past fastclock's 250 ms jump bound (-1000 s, +1000 s) and below it
    (-240 ms .. +200 ms, 1 ms each way), BOOTTIME's apart from MONOTONIC's (150 ms:-3 s) and
    alone (0:-3 s): the fork handler compares the parent's look at the kernel's clocks with
    the child's and re-anchors on any namespace change (before, offsets below 250 ms were
    slewed over seconds with REALTIME up to 200 ms ahead meanwhile, and BOOTTIME kept its
    parent's offset until a refresh).  Needs CAP_SYS_ADMIN and a kernel with time namespaces
    (5.6): CI runs as root on such a kernel; elsewhere this skips, saying why."""
    need_tool("cc")
    if not counter_expected():
        pytest.skip("the counter is not used here: the kernel answers (no line to re-anchor)")
    exe = tmp_path / "fc_timens"
    proc = run(["cc", "-O1", "-o", exe, ROOT / "tests/progs/fc_timens.c"])
    assert proc.returncode == 0, proc.stderr
    offsets = ["-1000000", "1000000", "-200", "200", "100", "-240", "-1", "1", "150:-3000", "0:-3000"]
    proc = run([cs, "run", "--mode", "fast", "--", exe, *offsets], timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    skip = re.search(r"^skip (.*)$", proc.stdout, re.M)
    if skip:
        pytest.skip(f"no time namespace here ({skip.group(1)}); CI, as root, has them")
    # The negative offset is clipped above -uptime (the kernel refuses a clock below 0).
    applied = re.findall(r"^applied (\S+) (\d)$", proc.stdout, re.M)
    assert [off for off, _ in applied] == offsets, proc.stdout
    assert all(ok == "1" for _, ok in applied), proc.stdout  # the child's kernel clock moved
    rows = re.findall(r"^ns (\S+) (\w+) (-?\d+) (-?\d+)$", proc.stdout, re.M)
    assert len(rows) == 3 * len(offsets), proc.stdout
    assert {clock for _, clock, _, _ in rows} == {"monotonic", "boottime", "realtime"}, proc.stdout
    for off, clock, below, above in rows:
        assert int(below) <= SHIM_BOUND_NS and int(above) <= SHIM_BOUND_NS, (off, clock, proc.stdout)


def test_safety_hooks_reach_the_shim(cs, pairs, tmp_path):
    proc = run([cs, "run", "--mode", "fast", "--verbose", "--", pairs],
               env=dict(os.environ, FASTCLOCK_DISABLE="1"))
    assert "serving nothing: counter not safe: disabled by FASTCLOCK_DISABLE" in proc.stderr
    d = tmp_path / "sys/devices/system/clocksource/clocksource0"
    d.mkdir(parents=True)
    (d / "current_clocksource").write_text("hpet\n")
    (d / "available_clocksource").write_text("hpet\n")
    proc = run([cs, "run", "--mode", "fast", "--verbose", "--", pairs],
               env=dict(os.environ, FASTCLOCK_SYSFS_ROOT=str(tmp_path)))
    assert "serving nothing" in proc.stderr and "'hpet'" in proc.stderr
    assert facts(proc.stdout)["threads"] == ["0"]


PY_CHECK = r"""
import ctypes, os, sys, time
NR = {"x86_64": 228, "aarch64": 113, "riscv64": 113}[os.uname().machine]
libc = ctypes.CDLL(None, use_errno=True)
class TS(ctypes.Structure):
    _fields_ = [("s", ctypes.c_long), ("n", ctypes.c_long)]
ts = TS()
def kernel(clock):
    libc.syscall(NR, clock, ctypes.byref(ts))
    return ts.s * 1_000_000_000 + ts.n
worst = {"time": [-10**18, -10**18], "monotonic": [-10**18, -10**18]}
for _ in range(3000):
    a = kernel(0); v = time.time_ns(); b = kernel(0)
    worst["time"] = [max(worst["time"][0], a - v), max(worst["time"][1], v - b)]
    a = kernel(1); v = time.monotonic_ns(); b = kernel(1)
    worst["monotonic"] = [max(worst["monotonic"][0], a - v), max(worst["monotonic"][1], v - b)]
f = time.time(); m = time.monotonic()
print("time", *worst["time"]); print("monotonic", *worst["monotonic"])
print("float", abs(f * 1e9 - kernel(0)) < 1e8, abs(m * 1e9 - kernel(1)) < 1e8)
"""


@pytest.mark.parametrize("mode", ["auto", "fast", "coarse", "count"])
def test_python_under_each_mode(cs, mode):
    # The real interpreter binary: a wrapper script (pyenv shims) would get the shim and
    # then exec Python without it (see docs/run.md, --inherit).
    py = os.path.realpath(sys.executable)
    proc = run([cs, "run", "--mode", mode, "--", py, "-c", PY_CHECK],
               env=dict(os.environ, CLOCKSCOPE_RUN_SLOW="1"))
    assert proc.returncode == 0, proc.stderr
    out = {l.split()[0]: l.split()[1:] for l in proc.stdout.splitlines()}
    for clock in ("time", "monotonic"):
        below, above = map(int, out[clock])
        assert above <= SHIM_BOUND_NS, (clock, out)
        assert below <= (COARSE_LAG_NS if mode == "coarse" else SHIM_BOUND_NS), (clock, out)
    assert out["float"] == ["True", "True"]
    if mode == "count":
        assert re.search(r"clock_gettime\(CLOCK_REALTIME\)", proc.stderr)


def test_bad_input(cs, tmp_path):
    cases = [
        (["--mode", "bogus", "--", "true"], 2, "--mode: 'bogus' is not one of"),
        (["--mode", "coarse=boottime", "--", "true"], 2, "no _COARSE twin"),
        (["--mode", "coarse=nosuch", "--", "true"], 2, "unknown clock 'nosuch'"),
        (["--mode"], 2, "--mode needs a value"),
        (["--frobnicate", "--", "true"], 2, "unknown option"),
        (["--output", "x", "--", "true"], 2, "--output is for --mode count"),
        ([], 2, "no command given"),
        (["--"], 2, "no command given"),
        (["--", "no-such-program-xyz"], 127, "no-such-program-xyz: command not found"),
        (["--", str(tmp_path / "missing")], 127, "command not found"),
    ]
    for args, code, msg in cases:
        proc = run([cs, "run", *args])
        assert proc.returncode == code, (args, proc.returncode, proc.stderr)
        assert msg in proc.stderr, (args, proc.stderr)
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\necho hi\n")
    proc = run([cs, "run", "--", script])
    assert proc.returncode == 126 and "not executable" in proc.stderr
    proc = run([cs, "run", "--", "sh", "-c", "exit 7"])
    assert proc.returncode == 7  # the command's own status
    proc = run([cs, "run", "--help"])
    assert proc.returncode == 0 and "--mode" in proc.stdout


def test_missing_shim_is_a_clear_error(cs):
    proc = run([cs, "run", "--", "true"], env=dict(os.environ, CLOCKSCOPE_SHIM="/nonexistent/shim.so"))
    assert proc.returncode == 125     # run's own failure, before the command ran
    assert "cannot find libclockscope-shim.so" in proc.stderr and "/nonexistent/shim.so" in proc.stderr


def test_static_target_warns_and_runs(cs, tmp_path):
    need_tool("cc")
    src = tmp_path / "s.c"
    src.write_text("#include <stdio.h>\nint main(void){puts(\"static ok\");return 0;}\n")
    exe = tmp_path / "s"
    if run(["cc", "-static", "-o", exe, src]).returncode != 0:
        if REQUIRE_ALL:
            pytest.fail("no static libc (libc6-dev provides it: scripts/install-deps.sh)")
        pytest.skip("no static libc")
    proc = run([cs, "run", "--", exe])
    assert proc.returncode == 0 and "static ok" in proc.stdout
    # Served through its patched vDSO where that is worth it (tests/test_run_static.py);
    # here auto says why not, or the program was patched.
    assert ("is statically linked: its vDSO is not patched" in proc.stderr
            or os.uname().machine == "x86_64" and proc.stderr == ""), proc.stderr


def test_static_clockscope_runs_dynamic_targets(pairs, tmp_path):
    """A STATIC=1 clockscope (as copied onto boards) still runs dynamic programs with the shim."""
    make("O=build/static", "STATIC=1", "build/static/clockscope", "build/static/libclockscope-shim.so")
    proc = run([ROOT / "build/static/clockscope", "run", "--mode", "count", "--", pairs])
    assert proc.returncode == 0 and "clockscope run --mode count: pid" in proc.stderr


@pytest.fixture(scope="module")
def sparse_prog(tmp_path_factory):
    need_tool("cc")
    exe = tmp_path_factory.mktemp("progs") / "run_sparse"
    proc = run(["cc", "-O2", "-o", exe, ROOT / "tests/progs/run_sparse.c"])
    assert proc.returncode == 0, proc.stderr
    return exe


# (mode, env, whether fastclock serves here and so runs its automatic ticker)
SPARSE_MODES = [
    ("fast", {}, True),
    ("auto", {"CLOCKSCOPE_RUN_SLOW": "1"}, True),
    ("auto", {"CLOCKSCOPE_RUN_SLOW": "0"}, False),  # every kernel path fast: nothing served
    ("fast", {"FASTCLOCK_TICKER": "0"}, False),     # the opt-out reaches the shim
    ("coarse", {}, False),
    ("count", {}, False),
]


@pytest.mark.parametrize("mode,env,ticks", SPARSE_MODES,
                         ids=["fast", "auto-slow", "auto-fast", "fast-no-ticker", "coarse", "count"])
def test_sparse_reads_under_each_mode(cs, sparse_prog, mode, env, ticks):
    """Issue 18 through the shim: a program that reads CLOCK_MONOTONIC 1 ms, 20 ms and 150 ms
    apart.  Where fastclock serves, its automatic ticker runs in the program (a thread named
    "fastclock", every signal blocked) and in a forked child; where it does not (nothing
    served, FASTCLOCK_TICKER=0, coarse and count modes), no such thread exists.  In every
    mode at most 2% of the reads that were not preempted take over 20 us, none at the
    sparse gaps' few reads (one clean run in five, as for the library: interrupts, and a
    VM's host unseen by the guest, stall a read now and then; a read slow by design is slow
    every time), and every value is inside its raw syscall bracket (1 us; coarse: up to a
    tick below) and never below the one before."""
    expect = ticks and counter_expected()
    runs = []
    for _ in range(5):
        proc = run([cs, "run", "--mode", mode, "--", sparse_prog], env=dict(os.environ, **env),
                   timeout=120)
        assert proc.returncode == 0, proc.stderr
        f = {}
        rows = []
        for line in proc.stdout.splitlines():
            p = line.split()
            if p[0] == "gap":
                rows.append({p[i]: int(p[i + 1]) for i in range(0, len(p), 2)})
            else:
                f[" ".join(p[:2]) if p[0] == "fork" else p[0]] = p[1:] if p[0] != "fork" else p[2:]
        assert len(rows) == 3, proc.stdout
        n, mask = int(f["ticker"][0]), f["ticker"][1]
        assert n == (1 if expect else 0), (mode, env, proc.stdout)
        if expect:
            assert int(mask, 16) & 0xfffffffe7ffbfeff == 0xfffffffe7ffbfeff, mask  # all but SIGKILL/STOP
            assert f["fork ticker"] == ["1"], proc.stdout
        else:
            assert f["fork ticker"] == ["0"], proc.stdout
        for r in rows:
            assert r["back"] == 0 and r["above"] <= SHIM_BOUND_NS, (r, proc.stdout)
            assert r["below"] <= (COARSE_LAG_NS if mode == "coarse" else SHIM_BOUND_NS), r
            assert r["reads"] >= {1000: 200, 20000: 25, 150000: 5}[r["gap"]], r
        runs.append(proc.stdout)
        if all(r["slow"] <= r["reads"] // 50 for r in rows):
            return
    pytest.fail("over 2% of a gap's reads took over 20 us in every run:\n" + "\n".join(runs))


def test_ticker_parks_under_the_shim(cs, sparse_prog):
    """A served program that stops reading: its automatic ticker parks after 2 s (a handful
    of wake-ups a second instead of 20).  The ticker's own sleeps must not count as reads:
    it times them with the kernel's clock, not the clock_gettime the shim serves."""
    proc = run([cs, "run", "--mode", "fast", "--", sparse_prog, "idle"], timeout=60)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    if not counter_expected():  # nothing served from the counter: no ticker at all
        assert lines[0].startswith("ticker 0 "), proc.stdout
        return
    assert lines[0].startswith("ticker 1 "), proc.stdout
    wakeups = int(lines[1].split()[2])
    assert 0 <= wakeups <= 5, proc.stdout


def test_verbose_says_the_kernel_paths_cost_in_ns(cs):
    """auto mode's probe, in nanoseconds (a counter tick is a different length on every
    machine): a libc call costs more than nothing and a syscall less than a second."""
    proc = run([cs, "run", "--verbose", "--", "true"])
    assert proc.returncode == 0, proc.stderr
    cost = r"([\d.]+) (ns|µs|ms|s)"
    found = re.findall(rf"^clockscope-shim: (realtime|monotonic|boottime): .* \(libc {cost}, "
                       rf"syscall {cost}\)$", proc.stderr, re.M)
    assert [f[0] for f in found] == ["realtime", "monotonic", "boottime"], proc.stderr
    scale = {"ns": 1, "µs": 1e3, "ms": 1e6, "s": 1e9}
    for _, libc, lu, sys_, su in found:     # the one duration form of units.c
        assert 0 < float(libc) * scale[lu] and 0 < float(sys_) * scale[su] < 1e9, found
    assert "ticks" not in proc.stderr
