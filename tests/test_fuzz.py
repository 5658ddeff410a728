"""Coverage-guided fuzzing of the vDSO ELF parser with libFuzzer, seeded with the live
image: a short, bounded run in the suite (longer runs: see tests/fuzz/)."""
import pytest

from conftest import ROOT, make, need_tool, run


def test_fuzz_vdso_parser_briefly(clockscope, tmp_path):
    need_tool("clang")
    make("fuzz")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    if run([clockscope, "vdso", "--dump", corpus / "live.so"]).returncode != 0:
        (corpus / "seed").write_bytes(b"\x7fELF\x02\x01\x01" + bytes(57))
    proc = run([ROOT / "build/fuzz/fuzz_vdso_elf", "-max_total_time=20", "-rss_limit_mb=2048",
                corpus], timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done" in proc.stderr


def test_fuzz_kernel_log_parser_briefly(tmp_path):
    need_tool("clang")
    make("fuzz")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "refined").write_bytes(b"tsc: Refined TSC clocksource calibration: 2445.406 MHz")
    (corpus / "kmsg").write_bytes(b"6,17,28,-;tsc: Detected 1996.250 MHz processor\n")
    proc = run([ROOT / "build/fuzz/fuzz_kernel_log", "-max_total_time=10", "-rss_limit_mb=2048",
                corpus], timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done" in proc.stderr


def test_fuzz_facts_text_parsers_briefly(tmp_path):
    """Kernel-log, cpuinfo, command-line and version parsers of the doctor, seeded with the corpus."""
    need_tool("clang")
    make("fuzz")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    cases = ROOT.parent / "shared" / "corpus" / "cases"
    seeds = list(cases.glob("*/dmesg")) if cases.is_dir() else []
    for i, seed in enumerate(seeds):
        (corpus / f"seed{i}").write_bytes(seed.read_bytes())
    (corpus / "cpuinfo").write_bytes(b"processor\t: 0\nflags\t\t: tsc constant_tsc\n")
    (corpus / "cmdline").write_bytes(b"ro clocksource=hpet tsc=reliable notsc\n")
    proc = run([ROOT / "build/fuzz/fuzz_facts_text", "-max_total_time=20", "-rss_limit_mb=2048",
                corpus], timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done" in proc.stderr


def test_fuzz_vm_frame_decoder_briefly(tmp_path):
    """The console frame decoder of clockscope vm, seeded with a real frame."""
    need_tool("clang")
    make("fuzz")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "frame").write_bytes(b"[ 1.0] x@CSVM1 o 0 5 4f9f2cab aGVsbG8=\r\n")
    proc = run([ROOT / "build/fuzz/fuzz_vm_frame", "-max_total_time=10", "-rss_limit_mb=2048",
                f"-artifact_prefix={tmp_path}/", corpus], timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done" in proc.stderr
