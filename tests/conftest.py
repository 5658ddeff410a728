# SPDX-License-Identifier: MIT
"""Shared fixtures: every build configuration is made once per test session.

Tooling that a developer's machine may lack (cross compilers, qemu-user, clang) makes the
tests that need it skip locally; with CLOCKSCOPE_REQUIRE_ALL=1 (set by .ci/run) a missing
tool fails the run instead, so that CI can never pass by skipping.

Under CLOCKSCOPE_REQUIRE_ALL=1 every skip is a failure (pytest_runtest_makereport below),
unless docs/testing.md lists the test under "Skips that CI allows" with the reason the CI
machine cannot run it; the same list governs the C unit tests' SKIPs (allowed_skip)."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
REQUIRE_ALL = os.environ.get("CLOCKSCOPE_REQUIRE_ALL") == "1"

CROSS = {
    "aarch64": ("aarch64-linux-gnu-gcc", "qemu-aarch64-static"),
    "riscv64": ("riscv64-linux-gnu-gcc", "qemu-riscv64-static"),
}


def allowed_skips():
    """{(test id, where)} from docs/testing.md's table "Skips that CI allows": rows
    "| `TEST ID` | WHERE | WHY |"; test ids are pytest node ids or unit:NAME."""
    text = (ROOT / "docs" / "testing.md").read_text()
    section = text.split("## Skips that CI allows", 1)[-1].split("\n## ", 1)[0]
    return {(m.group(1), m.group(2).strip())
            for m in re.finditer(r"^\| `([^`]+)` \| ([^|]+?) \|", section, re.M)}


def skip_is_allowed(test_id, where="any"):
    allowed = allowed_skips()
    return (test_id, where) in allowed or (test_id, "any") in allowed


def allowed_skip(test_id, where, reason):
    """A skip reported from inside a test (a C unit test's SKIP): fails under
    CLOCKSCOPE_REQUIRE_ALL unless docs/testing.md lists it for `where`."""
    if REQUIRE_ALL and not skip_is_allowed(test_id, where):
        pytest.fail(f"{test_id} skipped ({where}): {reason}; under CLOCKSCOPE_REQUIRE_ALL=1 "
                    f"a skip must be listed in docs/testing.md")


# Where the suite's time goes (docs/testing.md, "CI's time budget"): each test's setup, call
# and teardown, by the first of these markers it carries ("native" for none), and the tests
# over SLOW_TEST_S, said at the end of every run.
TIME_KINDS = ("vm", "qemu", "sanitized", "cross")
SLOW_TEST_S = 60
_test_seconds = {}
_test_kind = {}


def pytest_terminal_summary(terminalreporter):
    if not _test_seconds:
        return
    by_kind = {}
    for nodeid, secs in _test_seconds.items():
        kind = _test_kind[nodeid]
        total, count = by_kind.get(kind, (0.0, 0))
        by_kind[kind] = (total + secs, count + 1)
    said = ", ".join(f"{k} {t:.0f} s ({n} tests)" for k, (t, n) in
                     sorted(by_kind.items(), key=lambda kv: -kv[1][0]))
    slow = sorted(((s, n) for n, s in _test_seconds.items() if s > SLOW_TEST_S), reverse=True)
    terminalreporter.write_line(f"time by kind: {said}")
    listed = "".join(f"\n  {secs:.0f} s {nodeid}" for secs, nodeid in slow)
    terminalreporter.write_line(f"{len(slow)} tests over {SLOW_TEST_S} s, "
                                f"{sum(secs for secs, _ in slow):.0f} s in all{listed}")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under CLOCKSCOPE_REQUIRE_ALL=1 a skipped test fails, unless docs/testing.md lists it."""
    outcome = yield
    rep = outcome.get_result()
    _test_seconds[item.nodeid] = _test_seconds.get(item.nodeid, 0.0) + rep.duration
    _test_kind[item.nodeid] = next((k for k in TIME_KINDS if item.get_closest_marker(k)), "native")
    if REQUIRE_ALL and rep.skipped and not hasattr(rep, "wasxfail"):
        if not skip_is_allowed(item.nodeid):
            reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
            rep.outcome = "failed"
            rep.longrepr = (f"skipped under CLOCKSCOPE_REQUIRE_ALL=1: {reason} (not listed in "
                            f"docs/testing.md, 'Skips that CI allows')")


# The markers (pytest.ini) that follow from a fixture: a test that uses the cross builds is
# `cross` whatever its name, so a selection by marker (make check) cannot let one through.
FIXTURE_MARKERS = {
    "cross_builds": ("cross", "qemu"),        # static aarch64/riscv64 builds under qemu-user
    "san_build": ("sanitized",),
    "guest_binaries": ("vm", "qemu", "cross"),  # test_vm.py's: the vm guests, then a boot
    "guests": ("cross",),                     # test_install.py's: make vm-binaries
    "dist": ("cross",),                       # test_install.py's: make dist, three arches
}


def pytest_collection_modifyitems(items):
    for item in items:
        names = getattr(item, "fixturenames", ())
        for fixture, marks in FIXTURE_MARKERS.items():
            if fixture in names:
                for mark in marks:
                    item.add_marker(mark)


def need_tool(*names):
    """Skips (or, under CLOCKSCOPE_REQUIRE_ALL, fails) when a tool is missing."""
    missing = [n for n in names if shutil.which(n) is None]
    if missing:
        msg = f"needs {', '.join(missing)} (installed by .ci/run)"
        if REQUIRE_ALL:
            pytest.fail(msg)
        pytest.skip(msg)


def make(*args):
    proc = subprocess.run(["make", "-j2", "-s", *args], cwd=ROOT, capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.fail(f"make {' '.join(args)} failed:\n{proc.stdout}\n{proc.stderr}")


@pytest.fixture(scope="session")
def native_build():
    make("O=build", "build/clockscope", "build/unit_tests")
    return ROOT / "build"


@pytest.fixture(scope="session")
def clockscope(native_build):
    return native_build / "clockscope"


@pytest.fixture(scope="session")
def cs(clockscope):
    """clockscope with the run shim and libfastclock built beside it (what `run` needs)."""
    make("O=build", "fastclock-libs")
    return clockscope


@pytest.fixture(scope="session")
def san_build():
    make("SAN=1", "O=build/san", "build/san/clockscope", "build/san/unit_tests")
    return ROOT / "build" / "san"


@pytest.fixture(scope="session")
def cross_builds():
    """{arch: (build dir, qemu runner)} for the static cross builds."""
    out = {}
    for arch, (cc, qemu) in CROSS.items():
        need_tool(cc, qemu)
        make(f"O=build/{arch}", f"CC={cc}", "STATIC=1", f"build/{arch}/clockscope",
             f"build/{arch}/unit_tests")
        out[arch] = (ROOT / "build" / arch, qemu)
    return out


def until_fair(attempt, fair, tries=3):
    """attempt() again while fair(result) is false, at most `tries` times in all; returns the
    last result.  For a figure that emulated time or a busy host can move (docs/testing.md,
    "Timings under an emulator"): a fair try passes at once, and code that is wrong gives an
    unfair figure on every try, so the assertions made on the result still fail."""
    for i in range(tries):
        result = attempt()
        if fair(result):
            break
        if i + 1 < tries:
            print(f"until_fair: try {i + 1} of {tries} was not fair; trying again")
    return result


def flat(text):
    """text with every run of white space one space: a message as said, however a command
    wrapped it within 100 columns."""
    return " ".join(text.split())


def run(cmd, timeout=120, **kw):
    """Runs a command and returns the CompletedProcess (text mode, output captured)."""
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=timeout, **kw)
