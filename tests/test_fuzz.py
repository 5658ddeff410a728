# SPDX-License-Identifier: MIT
"""Coverage-guided fuzzing of the parsers with libFuzzer (tests/fuzz/, `make fuzz`): a short,
bounded run of each harness in the suite, seeded by hand or with real input (longer runs:
see tests/fuzz/)."""
import pytest

from conftest import ROOT, make, need_tool, run


def seed_vdso_elf(corpus, clockscope):
    """The live vDSO image; a bare ELF header where it cannot be dumped."""
    if run([clockscope, "vdso", "--dump", corpus / "live.so"]).returncode != 0:
        (corpus / "seed").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(57))


def seed_kernel_log(corpus, clockscope):
    (corpus / "refined").write_bytes(b"tsc: Refined TSC clocksource calibration: 2445.406 MHz")
    (corpus / "kmsg").write_bytes(b"6,17,28,-;tsc: Detected 1996.250 MHz processor\n")


def seed_facts_text(corpus, clockscope):
    """Kernel-log, cpuinfo, command-line and version parsers of the doctor, seeded with the corpus."""
    cases = ROOT.parent / "shared" / "corpus" / "cases"
    seeds = list(cases.glob("*/dmesg")) if cases.is_dir() else []
    for i, seed in enumerate(seeds):
        (corpus / f"seed{i}").write_bytes(seed.read_bytes())
    (corpus / "cpuinfo").write_bytes(b"processor\t: 0\nflags\t\t: tsc constant_tsc\n")
    (corpus / "cmdline").write_bytes(b"ro clocksource=hpet tsc=reliable notsc\n")


def seed_vm_frame(corpus, clockscope):
    """The console frame decoder of clockscope vm, seeded with a real frame."""
    (corpus / "frame").write_bytes(b"[ 1.0] x@CSVM1 o 0 5 4f9f2cab aGVsbG8=\r\n")


def seed_gap_list(corpus, clockscope):
    """bench --gap LIST."""
    (corpus / "list").write_bytes(b"0,1ms,20ms,150ms,1s:30")
    (corpus / "decimals").write_bytes(b"1.5ms:200,250us,60s:1")


def seed_ladder_fault(corpus, clockscope):
    """CLOCKSCOPE_LADDER_FAULT (ladder's fault injection)."""
    (corpus / "faults").write_bytes(b"hang:futex.*,crash:pipe.threads.same_cpu,hang:sweep.poll.4")


def seed_cli(corpus, clockscope):
    """The option parser, seeded with good and bad command lines (first byte: spec)."""
    (corpus / "args").write_bytes(b"\0--json\n--count=5\n--only\na,b\n--\nfile")
    (corpus / "command").write_bytes(b"\1-n\n3\n--mode\nfast\n--\nls\n-l")
    (corpus / "bad").write_bytes(b"\0--root\nr\n--save\ns\n--seconds\n1e3")


def seed_json_check(corpus, clockscope):
    """collect's JSON check, seeded with a real document."""
    (corpus / "facts").write_bytes(run([clockscope, "facts", "--json"]).stdout.encode())
    (corpus / "small").write_bytes(b'{"schema": "clockscope.x/1", "a": [1, -2.5e3, "\\u00e9", null]}')


def seed_dts_edit(corpus, clockscope):
    """The lab's device-tree edit, seeded with the shape dtc prints for QEMU's virt timer."""
    (corpus / "virt").write_bytes(b'/dts-v1/;\n\n/ {\n\ttimer {\n\t\talways-on;\n'
                                  b'\t\tcompatible = "arm,armv8-timer\\0arm,armv7-timer";\n\t};\n};\n')
    (corpus / "list").write_bytes(b'/ {\n\tt {\n\t\tcompatible = "x", "arm,armv8-timer";\n\t};\n};\n')
def seed_perf_text(corpus, clockscope):
    """clockscope profile's parsers: perf script (first byte 0 mod 3), perf report (1) and
    run --mode count's table (2), seeded with the fixtures: the RISC-V clock_gettime report's report and this
    machine's recordings."""
    data = ROOT / "tests" / "data" / "perf"
    for i, path in enumerate(sorted(data.iterdir())):
        kind = b"\0" if path.suffix == ".script" else b"\1"
        (corpus / f"seed{i}").write_bytes(kind + path.read_bytes()[:20000])
    (corpus / "count").write_bytes(b"\2clockscope run --mode count: pid 12923 (/bin/x), 0.307 s\n"
                                   b"         calls       calls/s  call\n"
                                   b"       1843200      6.01 M/s  clock_gettime(CLOCK_MONOTONIC)\n")


def seed_probe_parse(corpus, clockscope):
    """clockscope runtimes' probe output: the C probe's real output (timed and count)."""
    import os
    env = dict(os.environ, CLOCKSCOPE_RUNTIMES_PROBE="c")
    (corpus / "timed").write_bytes(b"\0" + run([clockscope, "runtimes", "time", "3", "100"], env=env).stdout.encode())
    (corpus / "count").write_bytes(b"\1" + run([clockscope, "runtimes", "count", "10"], env=env).stdout.encode())


def seed_sysfs_readback(corpus, clockscope):
    """vm --apply-fix's read-back of a sysfs write: path, written, read back, available."""
    cs = b"/sys/devices/system/clocksource/clocksource0/current_clocksource\0"
    (corpus / "pending").write_bytes(cs + b"tsc\0tsc-early\0tsc-early hpet acpi_pm\n")
    (corpus / "refused").write_bytes(cs + b"no_such_clock\0tsc\0tsc hpet\n")


def seed_timens_offsets(corpus, clockscope):
    """/proc/self/timens_offsets as the kernel prints it, and this process's own."""
    (corpus / "day").write_bytes(b"monotonic      86400         0\nboottime      172800         0\n")
    (corpus / "negative").write_bytes(b"monotonic         -1 800000000\nboottime          -4         0\n")
    (corpus / "ids").write_bytes(b"1 5 0\n7 6 0\n")
    try:
        (corpus / "self").write_bytes(open("/proc/self/timens_offsets", "rb").read())
    except OSError:
        pass


# harness, seconds, seeding
HARNESSES = [
    ("fuzz_vdso_elf", 20, seed_vdso_elf),
    ("fuzz_kernel_log", 10, seed_kernel_log),
    ("fuzz_facts_text", 20, seed_facts_text),
    ("fuzz_vm_frame", 10, seed_vm_frame),
    ("fuzz_gap_list", 10, seed_gap_list),
    ("fuzz_ladder_fault", 10, seed_ladder_fault),
    ("fuzz_cli", 10, seed_cli),
    ("fuzz_json_check", 10, seed_json_check),
    ("fuzz_dts_edit", 10, seed_dts_edit),
    ("fuzz_perf_text", 20, seed_perf_text),
    ("fuzz_probe_parse", 10, seed_probe_parse),
    ("fuzz_sysfs_readback", 10, seed_sysfs_readback),
    ("fuzz_timens_offsets", 10, seed_timens_offsets),
]


@pytest.mark.parametrize("harness,seconds,seed", HARNESSES, ids=[h[0] for h in HARNESSES])
def test_fuzz_harness_briefly(clockscope, tmp_path, harness, seconds, seed):
    need_tool("clang")
    make("fuzz")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    seed(corpus, clockscope)
    proc = run([ROOT / "build/fuzz" / harness, f"-max_total_time={seconds}", "-rss_limit_mb=2048",
                f"-artifact_prefix={tmp_path}/", corpus], timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done" in proc.stderr
