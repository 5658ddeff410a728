# SPDX-License-Identifier: MIT
"""The doctor on roots and archives that fight back (issue 30, items 3, 6, 8 and 9): device
nodes where facts should be (never opened, never extracted), too few file descriptors
(no endless retry, nothing left in TMPDIR), directory names with terminal escapes and
newlines (escaped in `doctor --roots`), empty directories (no facts: said so).

Device nodes are made with mknod in the test's own scratch directory, never the host's /dev
(needs root, as CI runs)."""

import json
import os
import resource
import stat
import subprocess
import tarfile
from pathlib import Path

import pytest

from conftest import REQUIRE_ALL, run

CLOCKSOURCE = "sys/devices/system/clocksource/clocksource0"


def need_root():
    if os.geteuid() != 0:
        if REQUIRE_ALL:
            pytest.fail("needs root for mknod (CI runs as root)")
        pytest.skip("needs root for mknod")


def write_root(base):
    """A facts root whose deepest fact is 7 directories down (the removal's depth)."""
    (base / "proc").mkdir(parents=True)
    (base / "proc/cmdline").write_text("BOOT_IMAGE=/vmlinuz quiet\n")
    (base / "proc/cpuinfo").write_text(Path("/proc/cpuinfo").read_text())
    (base / CLOCKSOURCE).mkdir(parents=True)
    (base / CLOCKSOURCE / "current_clocksource").write_text("tsc\n")
    (base / CLOCKSOURCE / "available_clocksource").write_text("tsc hpet acpi_pm\n")
    (base / "sos_commands/kernel").mkdir(parents=True)
    (base / "sos_commands/kernel/dmesg").write_text("[    0.000000] Linux version 6.1.0\n")


@pytest.fixture
def private_tmp(tmp_path):
    d = tmp_path / "tmp"
    d.mkdir()
    return d


def doctor(clockscope, args, tmpdir, nofile=None, timeout=120):
    def limit():
        if nofile:
            resource.setrlimit(resource.RLIMIT_NOFILE, (nofile, nofile))
    env = dict(os.environ, TMPDIR=str(tmpdir))
    return subprocess.run([str(clockscope), "doctor", *map(str, args)], capture_output=True,
                          text=True, timeout=timeout, env=env, preexec_fn=limit)


# ---- item 6: few file descriptors ----

@pytest.mark.parametrize("nofile", [7, 8, 9, 10])
def test_archive_with_few_descriptors_ends_and_leaves_nothing(clockscope, tmp_path,
                                                              private_tmp, nofile):
    """`(ulimit -n 9; clockscope doctor --root any.tar)` spun forever: the removal of the
    extracted tree retried unlinkat after EMFILE.  It must end (the 60 s only bounds a
    hang) and remove the tree."""
    write_root(tmp_path / "t/top")
    archive = tmp_path / "any.tar"
    with tarfile.open(archive, "w") as t:
        t.add(tmp_path / "t/top", arcname="top")
    try:
        proc = doctor(clockscope, ["--root", archive], private_tmp, nofile=nofile, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"doctor --root ARCHIVE with {nofile} descriptors did not end in 60 s")
    assert proc.returncode in (0, 1, 2, 5), proc
    assert "Traceback" not in proc.stderr and proc.stdout + proc.stderr
    assert os.listdir(private_tmp) == [], os.listdir(private_tmp)
