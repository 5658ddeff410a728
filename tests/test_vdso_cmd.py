# SPDX-License-Identifier: MIT
"""clockscope vdso: the live image, saved images, and images that are not a vDSO (exit 8)."""
import json
import random
import subprocess

import pytest

from conftest import ROOT, run


@pytest.fixture(scope="module")
def live_image(clockscope, tmp_path_factory):
    path = tmp_path_factory.mktemp("vdso") / "vdso.so"
    proc = run([clockscope, "vdso", "--dump", path])
    if proc.returncode == 1:
        pytest.skip("this machine gives processes no vDSO")
    assert proc.returncode == 0, proc.stderr
    return path


def test_saved_image_lists_time_entry_points(clockscope, live_image):
    proc = run([clockscope, "vdso", "--file", live_image, "--json"])
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["time_entry_points"]["clock_gettime"]
    names = {s["name"] for s in doc["symbols"]}
    assert doc["time_entry_points"]["clock_gettime"] in names


def test_malformed_images_exit_8(clockscope, live_image, tmp_path):
    data = live_image.read_bytes()
    rng = random.Random(7)
    cases = {"empty": b"", "short": data[:40], "half-header": data[:63], "text": b"hello\n" * 50,
             "elf32": b"\x7fELF\x01\x01\x01" + bytes(57)}
    for i in range(60):
        buf = bytearray(data[: rng.randrange(64, len(data))])
        for _ in range(rng.randrange(1, 16)):
            buf[rng.randrange(0, min(len(buf), 512))] = rng.randrange(256)
        cases[f"mut{i}"] = bytes(buf)
    for name, blob in cases.items():
        path = tmp_path / name
        path.write_bytes(blob)
        proc = run([clockscope, "vdso", "--file", path])
        assert proc.returncode in (0, 8), (name, proc.returncode, proc.stderr)
        if proc.returncode == 8:
            assert f"{path} is not a vDSO image: " in proc.stderr, name
    for name in ("empty", "short", "half-header", "text", "elf32"):
        assert run([clockscope, "vdso", "--file", tmp_path / name]).returncode == 8


def test_missing_file_and_bad_options(clockscope, tmp_path):
    proc = run([clockscope, "vdso", "--file", tmp_path / "nope"])
    assert proc.returncode == 2 and "cannot open" in proc.stderr
    assert run([clockscope, "vdso", "--file"]).returncode == 2
    assert run([clockscope, "vdso", "--file", "a", "--dump", "b"]).returncode == 2


# vDSO images saved from real kernels booted with `clockscope vm` (tests/data/vdso/, named
# <arch>-<kernel release>.so; docs/vm.md says how to add one).  Every arch's image names
# its own entry points, whatever arch this binary is built for.
VECTORS = sorted((ROOT / "tests" / "data" / "vdso").glob("*.so"))
ENTRY_POINTS = {
    "x86_64": {"clock_gettime": "__vdso_clock_gettime", "gettimeofday": "__vdso_gettimeofday",
               "time": "__vdso_time", "clock_getres": "__vdso_clock_getres",
               "getcpu": "__vdso_getcpu"},
    "aarch64": {"clock_gettime": "__kernel_clock_gettime",
                "gettimeofday": "__kernel_gettimeofday", "time": None,
                "clock_getres": "__kernel_clock_getres", "getcpu": None},
    "riscv64": {"clock_gettime": "__vdso_clock_gettime", "gettimeofday": "__vdso_gettimeofday",
                "time": None, "clock_getres": "__vdso_clock_getres",
                "getcpu": "__vdso_getcpu"},
}


def test_vectors_cover_every_arch():
    assert {p.name.split("-")[0] for p in VECTORS} == set(ENTRY_POINTS)


@pytest.mark.parametrize("image", VECTORS, ids=lambda p: p.name)
def test_saved_kernel_vdso_images(clockscope, san_build, image):
    arch = image.name.split("-")[0]
    for binary in (clockscope, san_build / "clockscope"):
        proc = run([binary, "vdso", "--file", image, "--json"])
        assert proc.returncode == 0, proc.stderr
        doc = json.loads(proc.stdout)
        assert doc["machine"] == arch and doc["size"] == image.stat().st_size
        assert doc["time_entry_points"] == ENTRY_POINTS[arch]
        names = {s["name"] for s in doc["symbols"]}
        assert {n for n in ENTRY_POINTS[arch].values() if n} <= names
    text = run([clockscope, "vdso", "--file", image]).stdout
    assert f"time entry points of {arch}:" in text and "MISSING" not in text


def test_dump_to_stdout_is_the_image_alone(clockscope, live_image):
    proc = subprocess.run([str(clockscope), "vdso", "--dump", "-"], capture_output=True)
    assert proc.returncode == 0
    assert proc.stdout == live_image.read_bytes()
    assert b"wrote" in proc.stderr


def test_default_text_within_100_columns(clockscope, live_image):
    """Issue 35: every line of the default text at most 100 columns, no trailing space
    (a function's row once ended in the space left for "(object)")."""
    proc = run([clockscope, "vdso", "--file", live_image])
    assert proc.returncode == 0, proc.stderr
    for line in (proc.stdout + proc.stderr).splitlines():
        assert len(line) <= 100 and "\t" not in line, line
        assert line == line.rstrip(), repr(line)
