"""clockscope vdso: the live image, saved images, and malformed images (exit 2)."""
import json
import random

import pytest

from conftest import run


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


def test_malformed_images_exit_2(clockscope, live_image, tmp_path):
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
        assert proc.returncode in (0, 2), (name, proc.returncode, proc.stderr)
        if proc.returncode == 2:
            assert "not a usable vDSO image" in proc.stderr, name
    for name in ("empty", "short", "half-header", "text", "elf32"):
        assert run([clockscope, "vdso", "--file", tmp_path / name]).returncode == 2


def test_missing_file_and_bad_options(clockscope, tmp_path):
    proc = run([clockscope, "vdso", "--file", tmp_path / "nope"])
    assert proc.returncode == 2 and "cannot open" in proc.stderr
    assert run([clockscope, "vdso", "--file"]).returncode == 2
    assert run([clockscope, "vdso", "--file", "a", "--dump", "b"]).returncode == 2
