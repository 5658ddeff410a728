# SPDX-License-Identifier: MIT
"""clockscope vm: real kernels of all three arches under qemu-system, with clockscope as
the guest's only program.  Bad input first (no guest boots), then the guests.

The default kernels come from Debian's archive into ~/.cache/clockscope (fetched once; the
first run downloads about 250 MB).  No test changes this machine: other clocksources exist
only inside the guests.  After every guest, no qemu of ours may be left running."""
import gzip
import json
import os
import platform
import random
import signal
import subprocess
import time
from pathlib import Path

import pytest

from conftest import ROOT, make, need_tool, run, until_fair, flat

QEMU = {"x86_64": "qemu-system-x86_64", "aarch64": "qemu-system-aarch64",
        "riscv64": "qemu-system-riscv64"}
CROSS_CC = {"x86_64": "x86_64-linux-gnu-gcc", "aarch64": "aarch64-linux-gnu-gcc",
            "riscv64": "riscv64-linux-gnu-gcc"}
# Seconds: a whole guest under TCG takes 5 to 20 s here.  vm's own --timeout is shorter
# than the test's, so that a stuck guest is reported by vm, with its console tail.
VM_TIMEOUT = 150
GUEST_TIMEOUT = VM_TIMEOUT + 60


@pytest.fixture(scope="session")
def guest_binaries(clockscope):
    """The static clockscope of every arch, where `clockscope vm` looks for them."""
    need_tool(*QEMU.values(), *CROSS_CC.values())
    for arch, cc in CROSS_CC.items():
        make(f"O=build/{arch}", f"CC={cc}", "STATIC=1", f"build/{arch}/clockscope")
    return clockscope


def our_qemus(tmp):
    """qemu processes started for this test: their command line names our TMPDIR."""
    found = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if "qemu-system" in cmd and str(tmp) in cmd:
            found.append((d.name, cmd))
    return found


@pytest.fixture
def vm(guest_binaries, tmp_path):
    """vm(arch, *command, append=..., extra=[...]) -> CompletedProcess; checks that no
    qemu survives the run."""
    env = dict(os.environ, TMPDIR=str(tmp_path))

    def boot(arch, *command, append=None, extra=(), timeout=GUEST_TIMEOUT, **kw):
        if "--timeout" not in extra:
            extra = ["--timeout", str(VM_TIMEOUT), *extra]
        args = [guest_binaries, "vm", "--arch", arch, *extra]
        if append:
            args += ["--append", append]
        proc = run([*args, "--", *command], timeout=timeout, env=env, **kw)
        assert our_qemus(tmp_path) == [], "qemu left running"
        assert not list(tmp_path.glob("clockscope-vm-*")), "temporary files left behind"
        return proc

    boot.tmp = tmp_path
    boot.env = env
    return boot


def bench_json(proc):
    assert proc.returncode == 0, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "clockscope.bench/2"
    return doc, {r["id"]: r for r in doc["results"]}


def assert_complete(doc, results):
    """Every available method measured, every unavailable one saying why."""
    assert doc["machine"]["kernel"] and doc["machine"]["clocksource"]
    for r in results.values():
        if r["available"]:
            # Net of the empty loop's cost, clamped at 0: under TCG an emulated counter read
            # can be indistinguishable from the empty loop.
            assert "error" not in r and r["ns_per_call"]["median"] >= 0, r
            # At least one sample: the engine stops at four times its budget of guest time
            # with what it has, and a busy host can stretch a few samples past that.
            assert r["samples"] >= 1 and r["calls_per_sample"] >= 8, r
        else:
            assert r["why_unavailable"], r


# ---- bad input: clear errors in seconds, nothing booted ------------------------------

def test_usage_errors(clockscope, tmp_path):
    cases = [
        (["vm", "--arch", "mips", "--", "bench"], "--arch: 'mips' is not one of"),
        (["vm", "--", "bench"], "--arch or --scenario is required"),
        (["vm", "--arch", "x86_64"], "no command given"),
        (["vm", "--arch", "x86_64", "--bogus", "--", "bench"], "unknown option"),
        (["vm", "--arch", "x86_64", "--vcpus", "0", "--", "bench"], "--vcpus: 0 is out of range"),
        # bench, warp and ladder's --cpus is a list of host CPUs: vm's count is --vcpus only.
        (["vm", "--arch", "x86_64", "--cpus", "2", "--", "bench"], "unknown option '--cpus'"),
        (["vm", "--arch", "x86_64", "--memory", "lots", "--", "bench"], "--memory"),
        (["vm", "--arch", "x86_64", "--timeout", "-1", "--", "bench"], "--timeout"),
        (["vm", "--arch", "x86_64", "--append"], "--append needs a value"),
    ]
    for args, message in cases:
        t0 = time.monotonic()
        proc = run([clockscope, *args], timeout=10)
        assert proc.returncode == 2, (args, proc.stderr)
        assert message in flat(proc.stderr), (args, proc.stderr)
        assert time.monotonic() - t0 < 5
    assert run([clockscope, "vm", "--help"]).returncode == 0


def fake_image(kind, size=4096):
    rng = random.Random(kind)
    data = bytearray(rng.randbytes(size))
    if kind == "aarch64":
        data[0:0x40] = bytes(0x40)   # code0 = 0: an undefined instruction, forever
        data[0x38:0x3C] = b"ARM\x64"
    if kind == "riscv64":
        data[0:0x40] = bytes(0x40)
        data[0:4] = (0x6F).to_bytes(4, "little")   # code0 = jal x0, 0: a jump to itself, forever
        data[0x30:0x38] = b"RISCV\0\0\0"
        data[0x38:0x3C] = b"RSC\x05"
    return bytes(data)


def test_bad_kernel_files(guest_binaries, tmp_path):
    random_bytes = tmp_path / "random"
    random_bytes.write_bytes(fake_image("random", 1 << 20))
    arm64 = tmp_path / "arm64-Image"
    arm64.write_bytes(fake_image("aarch64"))
    gz_random = tmp_path / "random.gz"
    gz_random.write_bytes(gzip.compress(fake_image("random", 65536)))
    bad_gz = tmp_path / "bad.gz"
    bad_gz.write_bytes(b"\x1f\x8b\x08\x00" + fake_image("x", 2000))
    tiny = tmp_path / "tiny"
    tiny.write_bytes(b"MZ")

    def zboot(name, payload, method=b"gzip", offset=0x400, size=None):
        """An EFI zboot image (drivers/firmware/efi/libstub/zboot-header.S)."""
        head = bytearray(offset)
        head[0:2], head[4:8] = b"MZ", b"zimg"
        head[8:12] = offset.to_bytes(4, "little")
        head[12:16] = (len(payload) if size is None else size).to_bytes(4, "little")
        head[0x18:0x18 + len(method)] = method
        path = tmp_path / name
        path.write_bytes(bytes(head) + payload)
        return path
    cases = [
        (tmp_path / "nope", "cannot open"),
        (random_bytes, "is not a x86_64 kernel image (no bzImage 'HdrS' boot header)"),
        (arm64, "is a aarch64 kernel image, not x86_64"),
        (gz_random, "is not a x86_64 kernel image"),
        (bad_gz, "does not decompress"),
        (tiny, "only 2 bytes"),
        (zboot("zboot-arm64", gzip.compress(fake_image("aarch64"))),
         "is a aarch64 kernel image, not x86_64"),
        (zboot("zboot-outside", b"x" * 100, size=1 << 20), "is not inside the file"),
        (zboot("zboot-lz4", b"x" * 100, method=b"lz4"), "compressed with 'lz4'"),
        (zboot("zboot-corrupt", b"\x1f\x8b" + b"x" * 100), "does not decompress"),
    ]
    env = dict(os.environ, TMPDIR=str(tmp_path))
    for kernel, message in cases:
        t0 = time.monotonic()
        proc = run([guest_binaries, "vm", "--arch", "x86_64", "--kernel", kernel, "--", "bench"],
                   timeout=20, env=env)
        assert proc.returncode == 2, (kernel, proc.stderr)
        assert message in flat(proc.stderr), (kernel, proc.stderr)
        assert time.monotonic() - t0 < 5
    assert not list(tmp_path.glob("clockscope-vm-*")), "temporary files left behind"


def test_bad_guest_binaries(guest_binaries, tmp_path):
    cases = [
        (tmp_path / "nope", "cannot open"),
        (ROOT / "build" / "aarch64" / "clockscope", "is not a 64-bit little-endian x86_64"),
    ]
    if b"ld-linux" in (ROOT / "build" / "clockscope").read_bytes()[:4096]:
        cases.append((ROOT / "build" / "clockscope", "dynamically linked"))
    for binary, message in cases:
        proc = run([guest_binaries, "vm", "--arch", "x86_64", "--binary", binary, "--", "bench"],
                   timeout=10)
        assert proc.returncode == 2 and message in flat(proc.stderr), (binary, proc.stderr)
    # Without --binary: the message names the make command that builds it.
    env = dict(os.environ, CLOCKSCOPE_VM_BINARY_DIR=str(tmp_path))
    proc = run([guest_binaries, "vm", "--arch", "riscv64", "--", "bench"], timeout=10, env=env)
    assert proc.returncode == 125 and "make vm-binaries" in flat(proc.stderr), proc.stderr


def test_missing_qemu_and_missing_apt(guest_binaries, tmp_path):
    """No qemu: says which package installs it.  No kernel cached and no apt: says what
    to install, or to pass --kernel.  Both at once, without booting or fetching."""
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    proc = run([guest_binaries, "vm", "--arch", "aarch64", "--", "bench"], timeout=10, env=env)
    assert proc.returncode == 125, proc.stderr
    assert "qemu-system-aarch64 is not installed" in flat(proc.stderr)
    assert "apt-get install qemu-system-arm" in flat(proc.stderr)

    only_qemu = tmp_path / "only-qemu"
    only_qemu.mkdir()
    qemu = subprocess.run(["sh", "-c", "command -v qemu-system-riscv64"], capture_output=True,
                          text=True).stdout.strip()
    (only_qemu / "qemu-system-riscv64").symlink_to(qemu)
    env = dict(os.environ, PATH=str(only_qemu), CLOCKSCOPE_CACHE_DIR=str(tmp_path / "cache"))
    proc = run([guest_binaries, "vm", "--arch", "riscv64", "--", "bench"], timeout=10, env=env)
    assert proc.returncode == 125, proc.stderr
    assert "'apt-get' is not installed" in flat(proc.stderr) and "--kernel IMAGE" in flat(proc.stderr)


def test_kernel_fetch_retries_then_says_what_failed(guest_binaries, tmp_path):
    """An archive that cannot be reached: apt-get update is tried three times, then one
    clear error naming the suite and the way out (--kernel); nothing is left half-made."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("qemu-system-riscv64", "apt-cache", "dpkg-deb", "tar"):
        real = subprocess.run(["sh", "-c", f"command -v {tool}"], capture_output=True,
                              text=True).stdout.strip()
        (bindir / tool).symlink_to(real)
    calls = tmp_path / "calls"
    fake = bindir / "apt-get"
    fake.write_text(f"#!/bin/sh\necho \"$*\" >> {calls}\n"
                    "echo 'E: Failed to fetch: Temporary failure resolving deb.debian.org' >&2\n"
                    "exit 100\n")
    fake.chmod(0o755)
    cache = tmp_path / "cache"
    env = dict(os.environ, PATH=str(bindir), CLOCKSCOPE_CACHE_DIR=str(cache))
    proc = run([guest_binaries, "vm", "--arch", "riscv64", "--", "bench"], timeout=60, env=env)
    assert proc.returncode == 125, proc.stderr
    assert "cannot fetch the package lists of Debian trixie (riscv64)" in flat(proc.stderr)
    assert "Temporary failure resolving" in flat(proc.stderr) and "--kernel IMAGE" in flat(proc.stderr)
    attempts = calls.read_text().splitlines()
    assert len(attempts) == 3 and all(a.endswith("update") for a in attempts), attempts
    # A private configuration, never the host's.
    assert "Dir::Etc::SourceList=" + str(cache) in attempts[0]
    assert "APT::Architecture=riscv64" in attempts[0]
    assert not (cache / "kernels" / "riscv64" / "vmlinuz").exists()


def test_guest_that_never_prints_is_killed_in_seconds(vm):
    """An image with a valid arm64 header and nothing behind it: the CPU spins on an
    undefined instruction and the console stays silent."""
    kernel = vm.tmp / "silent-Image"
    kernel.write_bytes(fake_image("aarch64"))
    t0 = time.monotonic()
    proc = vm("aarch64", "bench", extra=["--kernel", kernel, "--timeout", "4"], timeout=30)
    assert proc.returncode == 125, proc.stderr
    assert "printed nothing in 4 s and was killed" in flat(proc.stderr)
    assert time.monotonic() - t0 < 15


def test_tcg_boot_stalled_before_init_is_booted_once_more_within_the_timeout(vm):
    """OpenSBI's banner and then silence, with /init never started: how a qemu stall under
    TCG looks, made here by a riscv Image whose first instruction jumps to itself.  vm boots
    it once more after --init-deadline, and both boots share --timeout: 32 s in all, not
    15 + 32.  The bound sits 8 s above the one and 7 s below the other: qemu's two starts
    and kills on a busy host take seconds, not the 15 s a whole second timeout adds.  (vm
    sets the deadline only when twice its length is left of --timeout: 30 of 32 s.)"""
    kernel = vm.tmp / "stalled-Image"
    kernel.write_bytes(fake_image("riscv64"))
    t0 = time.monotonic()
    proc = vm("riscv64", "bench", extra=["--kernel", kernel, "--timeout", "32",
                                         "--init-deadline", "15"], timeout=120)
    elapsed = time.monotonic() - t0
    assert proc.returncode == 125, proc.stderr
    assert flat(proc.stderr).count("booting it once more") == 1, proc.stderr
    assert ("under TCG the guest did not reach /init in 15 s (its console stopped before the "
            "kernel's /init); booting it once more") in flat(proc.stderr), proc.stderr
    assert "OpenSBI" in flat(proc.stderr)   # the console tail: the firmware ran, the kernel did not
    assert "had not started /init after 32 s" in flat(proc.stderr), proc.stderr
    assert elapsed < 40, elapsed   # 32 s and qemu's starts and kills; a whole second timeout: 47 s


def test_init_deadline_zero_never_boots_twice(vm):
    kernel = vm.tmp / "stalled-Image"
    kernel.write_bytes(fake_image("riscv64"))
    proc = vm("riscv64", "bench", extra=["--kernel", kernel, "--timeout", "10",
                                         "--init-deadline", "0"], timeout=60)
    assert proc.returncode == 125, proc.stderr
    assert "once more" not in flat(proc.stderr) and "had not started /init after 10 s" in flat(proc.stderr)


# ---- guests --------------------------------------------------------------------------

def bench_with_clocksource(vm, clocksource, extra=()):
    """bench --quick inside an x86_64 guest booted with that clocksource: the guest uses it
    and the result is complete.  What it costs is a benchmark (docs/benchmarks/vm.md: with
    hpet/acpi_pm libc costs what the syscall costs, with the TSC a tenth), not a test: on
    a shared machine host load can inflate one method's samples tenfold.  The
    exact proof that every call is a syscall is doctor's (test_doctor_says_slow_with_one_syscall_per_call)."""
    doc, res = bench_json(vm("x86_64", "bench", "--quick", "--json",
                             append=clocksource, extra=extra))
    assert doc["machine"]["clocksource"] == clocksource.split()[0].split("=")[1]
    assert_complete(doc, res)
    return res


def test_x86_64_bench_with_hpet(vm):
    bench_with_clocksource(vm, "clocksource=hpet")


def test_x86_64_bench_with_acpi_pm_from_a_gzipped_kernel_of_our_own(vm):
    """Also --kernel with a gzip-compressed image (decompressed on the host)."""
    default = Path(os.environ.get("CLOCKSCOPE_CACHE_DIR") or
                   Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") /
                   "clockscope") / "kernels" / "x86_64" / "vmlinuz"
    if not default.exists():   # fetch it through the command itself
        assert vm("x86_64", "vdso", "--json").returncode == 0
    gz = vm.tmp / "bzImage.gz"
    gz.write_bytes(gzip.compress(default.read_bytes(), compresslevel=1))
    bench_with_clocksource(vm, "clocksource=acpi_pm", extra=["--kernel", gz])


def test_x86_64_bench_with_the_tsc(vm):
    """tsc=reliable: under TCG the kernel's watchdog otherwise distrusts the emulated TSC."""
    res = bench_with_clocksource(vm, "clocksource=tsc tsc=reliable")
    assert res["vdso.clock_gettime.monotonic"]["available"]


ARCH_FACTS = {
    "aarch64": ("arch_sys_counter", "__kernel_clock_gettime"),
    "riscv64": ("riscv_clocksource", "__vdso_clock_gettime"),
}


@pytest.mark.parametrize("arch", sorted(ARCH_FACTS))
def test_bench_inside_other_arches(vm, arch):
    clocksource, _ = ARCH_FACTS[arch]
    proc = vm(arch, "bench", "--quick", "--json")
    doc, res = bench_json(proc)
    assert doc["machine"]["arch"] == arch
    assert doc["machine"]["clocksource"] == clocksource
    assert_complete(doc, res)
    if arch != platform.machine():   # emulated: and vm says what that means
        assert "TCG" in flat(proc.stderr) and "not hardware timings" in flat(proc.stderr)
    # vm's own lines (and their continuations) fit 100 columns, as every command's text.
    ours, in_note = [], False
    for l in proc.stderr.splitlines():
        in_note = l.startswith("clockscope vm: ") or (in_note and l.startswith("  "))
        if in_note:
            ours.append(l)
    assert any(l.startswith("clockscope vm: ") for l in ours), proc.stderr
    assert all(len(l) <= 100 and l == l.rstrip() for l in ours), proc.stderr
    assert res["vdso.clock_gettime.monotonic"]["available"]   # the real vDSO
    if arch == "riscv64":
        # Debian's kernel denies user-mode rdcycle (perf_user_access=1): SIGILL.
        rdcycle = res["counter.rdcycle"]
        assert not rdcycle["available"] and "Illegal instruction" in rdcycle["why_unavailable"]
        assert res["counter.rdtime"]["available"]


@pytest.mark.parametrize("arch", sorted(ARCH_FACTS))
def test_vdso_inside_other_arches(vm, arch):
    _, entry = ARCH_FACTS[arch]
    proc = vm(arch, "vdso", "--json")
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["origin"] == "live" and doc["machine"] == arch
    assert doc["time_entry_points"]["clock_gettime"] == entry


def test_unknown_command_inside_exits_2(vm):
    proc = vm("aarch64", "no-such-command", "--x")
    assert proc.returncode == 2, proc.stderr
    assert "unknown command 'no-such-command'" in flat(proc.stderr)
    assert proc.stdout == ""


def test_kernel_panic_is_reported(vm):
    """No /init: the kernel panics at once (panic=-1 and -no-reboot end qemu)."""
    t0 = time.monotonic()
    proc = vm("aarch64", "bench", append="rdinit=/no-such-init")
    assert proc.returncode == 125, proc.stderr
    assert "the guest kernel panicked: Kernel panic - not syncing" in flat(proc.stderr)
    assert "--- console (last lines) ---" in flat(proc.stderr)
    assert time.monotonic() - t0 < 120


def test_guest_still_busy_at_the_timeout_is_killed_with_its_console_shown(vm):
    """loglevel=8 (after our "quiet") fills the console; 5 s is less than the boot plus a
    1000-sample bench takes here (about 6 s + 6 s under TCG)."""
    t0 = time.monotonic()
    proc = vm("aarch64", "bench", "--samples", "1000", append="loglevel=8",
              extra=["--timeout", "5"])
    assert proc.returncode == 125, proc.stderr
    assert "after 5 s and was killed" in flat(proc.stderr)
    assert "--- console (last lines) ---" in flat(proc.stderr)
    assert time.monotonic() - t0 < 20


def test_interrupted_and_killed_hosts_leave_no_qemu(vm):
    """SIGTERM, SIGINT: we kill qemu and exit 128 + the signal (143, 130: each its own, not
    130 for both).  SIGKILL: qemu dies with us (PDEATHSIG)."""
    cmd = [str(ROOT / "build" / "clockscope"), "vm", "--arch", "aarch64", "--", "bench"]
    for sig, status in ((signal.SIGTERM, 143), (signal.SIGINT, 130),
                        (signal.SIGKILL, -signal.SIGKILL)):
        p = subprocess.Popen(cmd, env=vm.env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while not our_qemus(vm.tmp) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert our_qemus(vm.tmp), "qemu never started"
        p.send_signal(sig)
        p.communicate(timeout=20)
        assert p.returncode == status, (sig, p.returncode)
        deadline = time.monotonic() + 5
        while our_qemus(vm.tmp) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert our_qemus(vm.tmp) == [], f"qemu survived {sig!r}"


# ---- doctor inside guests (schema clockscope.doctor/2, docs/json.md) -----------------

@pytest.fixture(scope="session")
def doctor_available(clockscope):
    proc = run([clockscope, "doctor", "--help"])
    assert proc.returncode == 0, proc.stderr


def decided_by_cost(doc):
    """Whether a doctor's verdict of slow rests on what a call costs, not on a syscall: its
    proof counted none, so only its timings said slow (a call over 1000 ns, or a counter
    read judged a trap by its cost against the machine's cheapest operations).  Under TCG
    those are emulated nanoseconds, which a busy host stretches."""
    count = (doc or {}).get("proof", {}).get("syscall_count", {})
    return (doc or {}).get("verdict") == "slow" and bool(count.get("counted")) and \
        count["syscalls"]["clock_gettime_monotonic"] == 0 and \
        count["syscalls"]["clock_gettime_realtime"] == 0


def doctor_json(proc):
    try:
        return json.loads(proc.stdout)
    except ValueError:
        return None


def doctor(vm, arch, status, append=None):
    """The doctor in a guest.  Where ok is expected, a slow decided by an emulated cost
    alone is a try the host made unfair: booted again (conftest.until_fair), and ok is
    still asserted on the last try."""
    proc = until_fair(lambda: vm(arch, "doctor", "--json", append=append),
                      lambda p: status != 0 or not decided_by_cost(doctor_json(p)))
    assert proc.returncode == status, proc.stderr[-3000:]
    doc = json.loads(proc.stdout)
    assert doc["schema"] == "clockscope.doctor/2" and doc["exit_status"] == status
    assert doc["proof"]["syscall_count"]["counted"], doc["proof"]["syscall_count"]
    return doc


def evidence(doc, finding_id):
    return "\n".join(e for f in doc["findings"] if f["id"] == finding_id for e in f["evidence"])


@pytest.mark.parametrize("clocksource", ["hpet", "acpi_pm"])
def test_doctor_says_slow_with_one_syscall_per_call(vm, doctor_available, clocksource):
    doc = doctor(vm, "x86_64", 3, append=f"clocksource={clocksource}")
    assert doc["verdict"] == "slow" and doc["fast_path"] is False
    assert doc["facts"]["clocksource"] == clocksource
    count = doc["proof"]["syscall_count"]
    assert count["calls"] > 0
    assert count["syscalls"]["clock_gettime_monotonic"] == count["calls"], count


def test_doctor_fast_path_with_the_tsc(vm, doctor_available):
    doc = doctor(vm, "x86_64", 0, append="clocksource=tsc tsc=reliable")
    assert doc["verdict"] == "ok" and doc["fast_path"] is True
    assert doc["proof"]["syscall_count"]["syscalls"]["clock_gettime_monotonic"] == 0


COUNTER_READS = {
    "aarch64": ["user-space read cntvct_el0=permitted"],
    "riscv64": ["user-space read rdtime=permitted",
                "user-space read rdcycle=Illegal instruction: user access denied"],
}


@pytest.mark.parametrize("arch", sorted(ARCH_FACTS))
def test_doctor_inside_other_arches(vm, doctor_available, arch):
    """The real vDSO, the arch's clocksource, and which counter reads user space may do
    (riscv rdcycle denied by Debian's kernel)."""
    clocksource, _ = ARCH_FACTS[arch]
    doc = doctor(vm, arch, 0)
    assert doc["verdict"] == "ok" and doc["fast_path"] is True
    assert doc["facts"]["clocksource"] == clocksource and doc["proof"]["vdso_present"]
    assert doc["proof"]["syscall_count"]["syscalls"]["clock_gettime_monotonic"] == 0
    reads = evidence(doc, "counter-facts")
    for line in COUNTER_READS[arch]:
        assert line in reads, reads
