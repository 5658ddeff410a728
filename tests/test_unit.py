# SPDX-License-Identifier: MIT
"""The C unit tests, in every build: native, under ASan/UBSan, and cross-built for
aarch64 and riscv64 under qemu-user.

Every TEST() in tests/unit/*.c must be registered and run, and none may fail.  A test that
cannot run on a machine says SKIP("why"); under CLOCKSCOPE_REQUIRE_ALL=1 a skip fails
unless docs/testing.md ("Skips that CI allows") lists that test for that kind of run."""
import os
import re

from conftest import ROOT, allowed_skip, run

SUMMARY = re.compile(r"^unit: (\d+) registered, (\d+) selected, (\d+) ran, (\d+) passed, "
                     r"(\d+) failed, (\d+) skipped$", re.M)


def declared_tests():
    """Names of every TEST(name) in the sources: what the runner must have registered."""
    names = []
    for src in sorted((ROOT / "tests" / "unit").glob("*.c")):
        names += re.findall(r"^TEST\((\w+)\)", src.read_text(), re.M)
    return names


def check_unit_run(proc, where):
    out = proc.stdout + proc.stderr
    m = SUMMARY.search(proc.stdout)
    assert m, out
    registered, selected, ran, passed, failed, skipped = map(int, m.groups())
    declared = declared_tests()
    assert len(declared) == len(set(declared)), "two tests share a name"
    assert registered == selected == ran == len(declared), (registered, ran, len(declared), out)
    assert failed == 0 and proc.returncode == 0, out
    assert passed + skipped == ran, out
    skips = dict(re.findall(r"^SKIP (\w+): (.*)$", proc.stdout, re.M))
    assert len(skips) == skipped, out
    for name, reason in skips.items():
        allowed_skip(f"unit:{name}", where, reason)


def test_unit_runner_counts_every_test(native_build):
    """The runner's listing is exactly the declared tests, and a filter that matches no
    test is an error rather than an empty pass."""
    listed = run([native_build / "unit_tests", "--list"]).stdout.split()
    assert sorted(listed) == sorted(declared_tests())
    proc = run([native_build / "unit_tests", "no_such_test_name"])
    assert proc.returncode == 2 and "no test name contains" in proc.stderr
    proc = run([native_build / "unit_tests", "warp_pair"])
    m = SUMMARY.search(proc.stdout)
    assert m and int(m.group(2)) == int(m.group(3)) > 0 and int(m.group(2)) < len(listed)


def test_unit_native(native_build):
    check_unit_run(run([native_build / "unit_tests"]), "native")


def test_unit_sanitized(san_build):
    check_unit_run(run([san_build / "unit_tests"], timeout=300), "sanitized")


def test_unit_cross_under_qemu(cross_builds):
    """CLOCKSCOPE_TEST_EMULATED tells the tests that every duration is emulated time, which
    moves with the host's load: a deadline that only bounds a hang is longer there (a
    spinner waits for its partner to be scheduled), and fastclock's bounds are an emulated
    counter's (tests/unit/test_fastclock.c, emulated()).  The skips stay those
    docs/testing.md allows for qemu-aarch64 and qemu-riscv64."""
    for arch, (build, qemu) in cross_builds.items():
        env = dict(os.environ, CLOCKSCOPE_TEST_EMULATED=f"qemu-user {arch}")
        check_unit_run(run([qemu, build / "unit_tests"], env=env, timeout=300), f"qemu-{arch}")
