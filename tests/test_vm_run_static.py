# SPDX-License-Identifier: MIT
"""`clockscope run --mode fast` serving static and Go programs through their patched vDSO in
real aarch64 and riscv64 kernels (`clockscope vm`, their `virt` guests under TCG): the static
C program (tests/progs/static_clock.c, cross-built -static) and the Go probe
(tests/progs/go_clock, GOARCH=arm64/riscv64 CGO_ENABLED=0).

One boot per arch runs every check (a boot under TCG is slow): tests/progs/guest_suite.c
runs each command in turn inside the guest and frames its output.  Checked, as on x86_64
(tests/test_run_static.py): every served value between kernel reads taken before and after
it; threads and goroutines see no backward step with SIGPROF at 1 kHz (and Go's GC
preemption); the served calls make no syscall (the reader's own count, and a seccomp filter
that fails every clock syscall); count mode counts exactly; and where the counter is not
usable (a clocksource the kernel marked unstable, shown to fastclock through a sysfs of the
test's own) run says so and the program runs unserved."""
import os
import re
import shutil

import pytest

from conftest import ROOT, make, need_tool, run, until_fair
from test_vm import CROSS_CC, QEMU, our_qemus

pytestmark = [pytest.mark.vm, pytest.mark.qemu, pytest.mark.cross]

GOARCH = {"aarch64": "arm64", "riscv64": "riscv64"}
VM_TIMEOUT = 900
SERVED = "served by fastclock's line"
FAKE_SYSFS = "/fakesys"
CS_DIR = "sys/devices/system/clocksource/clocksource0"

# The commands of the one boot, by name.  /init is the guest's static clockscope.  The
# settle times let fastclock's first lines (2, 4, 8 ms ...) give way to its steady ones
# before the "no syscall" counts (as tests/test_run_static.py's SETTLED).
RUN = "/init run --mode fast --verbose --"
# Served calls answered by a syscall all the same, at most (a share of them): a line gone
# stale while the refresher was kept off a vCPU, which TCG on a busy host does for tens of
# ms (up to a tenth of riscv64's pairs, whose raw syscalls slow the guest).  Correct,
# slower.  How many is the host's doing, so a step over its share is booted again alone
# (fair_step) before it fails: a reader that does not serve is over it on every try.
STALE_SHARE = 10
STEPS = {
    "pairs": f"STATIC_CLOCK_SETTLE_MS=1500 {RUN} static_clock pairs 500",
    "nosyscall": f"STATIC_CLOCK_SETTLE_MS=1500 {RUN} static_clock nosyscall 20000",
    "threads": f"{RUN} static_clock threads 4 2",
    "fork": f"STATIC_CLOCK_SETTLE_MS=1500 {RUN} static_clock fork 200",
    "count": "/init run --mode count -- static_clock pairs 100",
    "go_count": "/init run --mode count -- go_clock bounds 100",
    "go_bounds": f"GO_CLOCK_SETTLE_MS=1500 {RUN} go_clock bounds 3000",
    "go_goroutines": f"{RUN} go_clock goroutines 4 3",
    "unusable": f"FASTCLOCK_SYSFS_ROOT={FAKE_SYSFS} {RUN} static_clock pairs 100",
}


def build_go(arch, out):
    need_tool("go")
    d = out.parent
    shutil.copy(ROOT / "tests/progs/go_clock/main.go", d / "main.go")
    env = dict(os.environ, CGO_ENABLED="0", GO111MODULE="off", GOARCH=GOARCH[arch],
               GOCACHE=os.environ.get("GOCACHE", str(d / "cache")))
    proc = run(["go", "build", "-o", out, d / "main.go"], env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr


@pytest.fixture(scope="module", params=["aarch64", "riscv64"])
def suite(request, clockscope, tmp_path_factory):
    """{step: (status, stdout, stderr)} from one boot of the arch's guest."""
    arch = request.param
    cc = CROSS_CC[arch]
    need_tool(QEMU[arch], cc)
    make(f"O=build/{arch}", f"CC={cc}", "STATIC=1", f"build/{arch}/clockscope",
         f"build/{arch}/libclockscope-shim.so")
    d = tmp_path_factory.mktemp(f"static-{arch}")
    progs = {}
    for name, src in (("static_clock", "tests/progs/static_clock.c"),
                      ("guest_suite", "tests/progs/guest_suite.c")):
        progs[name] = d / name
        proc = run([cc, "-O2", "-static", "-o", progs[name], ROOT / src, "-lpthread"])
        assert proc.returncode == 0, proc.stderr
    (d / "go").mkdir()
    progs["go_clock"] = d / "go" / "go_clock"
    build_go(arch, progs["go_clock"])
    # A clocksource the kernel would have marked unstable: the arch's counter not listed.
    fake = d / "fake"
    fake.mkdir()
    (fake / "current").write_text("jiffies\n")
    (fake / "available").write_text("jiffies\n")
    extra = ["--vcpus", "2", "--timeout", str(VM_TIMEOUT), "--quiet"]
    for p in progs.values():
        extra += ["--add", str(p)]
    extra += ["--add", f"{fake / 'current'}:{FAKE_SYSFS}/{CS_DIR}/current_clocksource",
              "--add", f"{fake / 'available'}:{FAKE_SYSFS}/{CS_DIR}/available_clocksource"]
    tmp = d / "tmp"
    tmp.mkdir()
    found = boot(clockscope, arch, extra, tmp, list(STEPS))
    found["arch"] = arch
    found["again"] = lambda name: boot(clockscope, arch, extra, tmp, [name])[name]
    return found


def boot(clockscope, arch, extra, tmp, names):
    """{step: (status, stdout, stderr)} of the steps named, in one boot."""
    # guest_suite itself runs under `run --mode coarse`, which leaves a static program as
    # it is (vm's command is a clockscope command); it removes run's environment.
    proc = run([clockscope, "vm", "--arch", arch, *extra, "--", "run", "--mode", "coarse", "--",
                "guest_suite", *(STEPS[n] for n in names)], timeout=VM_TIMEOUT + 120,
               env=dict(os.environ, TMPDIR=str(tmp)))
    assert our_qemus(tmp) == [], "qemu left running"
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = {}
    for m in re.finditer(r"^=== begin (\d+)\n--- stdout\n(.*?)--- stderr\n(.*?)=== end \1 status (\d+)$",
                         proc.stdout, re.M | re.S):
        found[names[int(m.group(1)) - 1]] = (int(m.group(4)), m.group(2), m.group(3))
    assert list(found) == names, proc.stdout[-3000:] + proc.stderr[-3000:]
    for name, (status, out, err) in found.items():  # shown with pytest -s
        print(arch, name, status, out.strip().replace("\n", " | ")[:300],
              re.findall(r"made \d+ syscalls", err))
    return found


def fair_step(suite, name, within_share):
    """The step's (stdout, stderr), its status 0; booted again alone, up to twice, while
    within_share(stdout, stderr) says its stale share is over STALE_SHARE's (see there)."""
    def fair(result):
        status, out, err = result
        try:
            return status != 0 or within_share(out, err)
        except (AssertionError, AttributeError, ValueError):
            return True   # no figure to judge: the assertions say what went wrong
    tries = iter([lambda: suite[name]] + [lambda: suite["again"](name)] * 2)
    status, out, err = until_fair(lambda: next(tries)(), fair)
    assert status == 0, (name, out, err)
    return out, err


def step(suite, name):
    status, out, err = suite[name]
    assert status == 0, (name, out, err)
    return out, err


def reader_syscalls(err):
    m = re.search(r"its patched vDSO made (\d+) syscalls", err)
    assert m, err
    return int(m.group(1))


def count_table(err):
    return {m.group(2): int(m.group(1))
            for m in re.finditer(r"^\s+(\d+)\s+[\d.]+ [kMGTPE]?/s\s+(\S.*)$", err, re.M)}


PAIRS_MAX = 500 + 3500 // STALE_SHARE   # the 500 unserved, and a share of the 3500 served


def test_static_program_served_within_kernel_reads(suite):
    out, err = fair_step(suite, "pairs", lambda out, err: reader_syscalls(err) < PAIRS_MAX)
    assert "ok parent pairs 500 bad 0" in out, out + err
    assert SERVED in err and "patched vDSO" in err, err
    # the patched entry points are the arch's own; no time() entry exists on these arches
    # (the absolute jump: no direct one is written on these arches yet)
    assert re.search(r"(__kernel|__vdso)_clock_gettime \(absolute jump\) "
                     r"(__kernel|__vdso)_gettimeofday \(absolute jump\)", err), err
    # Not served, so syscalls: CLOCK_MONOTONIC_RAW's 500 calls; the served clocks add
    # (almost) none: MONOTONIC, REALTIME, BOOTTIME, gettimeofday, the two coarse clocks
    # (answered as their fine twins) and time(), which glibc answers with
    # clock_gettime(CLOCK_REALTIME_COARSE) where the vDSO has no time entry
    assert 500 <= reader_syscalls(err) < PAIRS_MAX, err


def test_static_program_served_calls_make_no_syscall(suite):
    """The program's seccomp filter fails every clock syscall: the served calls must not
    fail (a stale line now and then may: under 1%)."""
    def failed(out):
        return int(re.search(r"nosyscall calls \d+ syscalls (\d+)", out).group(1))
    out, err = fair_step(suite, "nosyscall", lambda out, err: failed(out) < 80000 // 100)
    m = re.search(r"nosyscall calls (\d+) syscalls (\d+)", out)
    assert m and int(m.group(1)) == 80000, out + err
    assert int(m.group(2)) < 80000 // 100, out + err
    assert SERVED in err


def test_static_program_threads_with_sigprof_never_step_back(suite):
    out, err = step(suite, "threads")
    m = re.search(r"^ok threads 4 reads (\d+) handler_reads (\d+) backwards 0$", out, re.M)
    assert m and int(m.group(1)) > 0, out + err
    assert SERVED in err


def test_forked_child_stays_served(suite):
    most = 400 + 2 * 1400 // STALE_SHARE
    out, err = fair_step(suite, "fork", lambda out, err: reader_syscalls(err) < most)
    assert "ok child pairs 200 bad 0" in out and "ok parent pairs 200 bad 0" in out, out + err
    # MONOTONIC_RAW in both processes, as above
    assert 400 <= reader_syscalls(err) < most, err


def test_count_mode_counts_through_the_patched_vdso(suite):
    out, err = step(suite, "count")
    assert "ok parent pairs 100 bad 0" in out, out + err
    t = count_table(err)
    for clock in ("MONOTONIC", "BOOTTIME", "MONOTONIC_RAW", "MONOTONIC_COARSE") + (("REALTIME",) if suite["arch"] == "aarch64" else ()):
        assert t.get(f"clock_gettime(CLOCK_{clock})") == 100, (clock, err)
    if suite["arch"] == "aarch64":
        assert t.get("gettimeofday()") == 100, err
    else:  # riscv64's glibc answers gettimeofday() with clock_gettime(CLOCK_REALTIME)
        assert t.get("clock_gettime(CLOCK_REALTIME)") == 200 and "gettimeofday()" not in t, err
    assert t.get("clock_gettime(CLOCK_REALTIME_COARSE)") == 200, err  # glibc's time(), the coarse pair
    assert "time()" not in t, err  # no time entry in these vDSOs
    out, err = step(suite, "go_count")
    assert "ok bounds 100 bad 0" in out, out + err
    # Go's runtime calls the vDSO itself: time.Now and nanotime, each at least once a round
    t = count_table(err)
    assert t.get("clock_gettime(CLOCK_REALTIME)", 0) >= 100, err
    assert t.get("clock_gettime(CLOCK_MONOTONIC)", 0) >= 100, err


def test_go_program_served_within_kernel_reads(suite):
    most = 2 * 3000 // STALE_SHARE
    out, err = fair_step(suite, "go_bounds", lambda out, err: reader_syscalls(err) < most)
    assert "ok bounds 3000 bad 0" in out, out + err
    assert SERVED in err
    assert reader_syscalls(err) < most, err


def test_go_goroutines_with_pprof_and_preemption(suite):
    """4 goroutines read time.Now for 3 s with the CPU profiler at 1 kHz (SIGPROF, which
    Go's handler takes with g from x28 / s11, wherever it lands) and a GC every 10 ms: no
    crash, no hang, no backward step, the served reads (almost) no syscall.  (Seen failing,
    status 139, with a reader that saved x28, set it to 4096 and restored it: Go drops a
    SIGPROF or SIGURG that finds g nil as "not Go code", but follows any other value.)"""
    def reads(out):
        return int(re.search(r"^ok goroutines 4 reads (\d+) backwards 0$", out, re.M).group(1))
    out, err = fair_step(suite, "go_goroutines",
                         lambda out, err: reader_syscalls(err) < reads(out) // 100)
    m = re.search(r"^ok goroutines 4 reads (\d+) backwards 0$", out, re.M)
    assert m and int(m.group(1)) > 0, out + err
    assert reader_syscalls(err) < int(m.group(1)) // 100, err


def test_counter_not_usable_runs_unserved_and_says_why(suite):
    out, err = step(suite, "unusable")
    assert "ok parent pairs 100 bad 0" in out, out + err
    assert "its vDSO is not patched: no safe counter" in err, err
    assert "not registered, or marked unstable" in err, err
    assert "patched vDSO:" not in err
