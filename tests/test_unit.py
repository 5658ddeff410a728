"""The C unit tests, in every build: native, under ASan/UBSan, and cross-built for
aarch64 and riscv64 under qemu-user."""
import re

from conftest import run


def check_unit_run(proc):
    assert proc.returncode == 0, proc.stdout + proc.stderr
    m = re.search(r"^(\d+) passed, (\d+) failed$", proc.stdout, re.M)
    assert m, proc.stdout
    assert int(m.group(1)) >= 5 and m.group(2) == "0"


def test_unit_native(native_build):
    check_unit_run(run([native_build / "unit_tests"]))


def test_unit_sanitized(san_build):
    check_unit_run(run([san_build / "unit_tests"], timeout=300))


def test_unit_cross_under_qemu(cross_builds):
    for arch, (build, qemu) in cross_builds.items():
        check_unit_run(run([qemu, build / "unit_tests"], timeout=300))
