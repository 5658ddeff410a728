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


# ---- item 3: device nodes where facts should be ----

class OpenWatch:
    """inotify IN_OPEN on one path: whether anything opened it (O_PATH does not count)."""
    IN_OPEN = 0x20

    def __init__(self, path):
        import ctypes
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0
        assert self.libc.inotify_add_watch(self.fd, os.fsencode(path), self.IN_OPEN) >= 0

    def opened(self):
        try:
            return len(os.read(self.fd, 4096)) > 0
        except BlockingIOError:
            return False

    def close(self):
        os.close(self.fd)


RESOLVERS = {"openat2": {}, "fallback": {"CLOCKSCOPE_TEST_NO_OPENAT2": "1"}}


@pytest.mark.parametrize("resolver", sorted(RESOLVERS))
@pytest.mark.parametrize("kind", ["chr", "blk"])
def test_device_in_a_root_is_never_opened(clockscope, tmp_path, private_tmp, resolver, kind):
    need_root()
    root = tmp_path / "root"
    write_root(root)
    node = root / "proc/cmdline"
    node.unlink()
    if kind == "chr":
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))       # null: harmless if opened
    else:
        os.mknod(node, 0o600 | stat.S_IFBLK, os.makedev(259, 999_999))  # no such device
    watch = OpenWatch(node)
    try:
        env = dict(os.environ, **RESOLVERS[resolver])
        facts = subprocess.run([str(clockscope), "facts", "--root", str(root), "--json"],
                               capture_output=True, text=True, timeout=120, env=env)
        doc = json.loads(facts.stdout)
        entry = [f for f in doc["facts"] if f["path"] == "proc/cmdline"][0]
        assert entry["status"] == "unreadable", entry
        assert ("character" if kind == "chr" else "block") + " device" in json.dumps(entry)
        proc = subprocess.run([str(clockscope), "doctor", "--root", str(root)],
                              capture_output=True, text=True, timeout=120, env=env)
        assert "proc/cmdline" in proc.stdout + proc.stderr
        assert not watch.opened(), "the device node was opened"
    finally:
        watch.close()


@pytest.mark.parametrize("member", ["chr", "blk", "fifo", "dir"])
def test_archive_device_members_are_never_extracted(clockscope, tmp_path, private_tmp, member):
    """A sosreport whose proc/cmdline is a device node (or a FIFO, or a directory): left out
    of the listing given to tar, so nothing of it is made; the other facts are read."""
    write_root(tmp_path / "t/top")
    (tmp_path / "t/top/proc/cmdline").unlink()
    archive = tmp_path / "hostile.tar"
    with tarfile.open(archive, "w") as t:
        t.add(tmp_path / "t/top", arcname="top")
        info = tarfile.TarInfo("top/proc/cmdline")
        info.type = {"chr": tarfile.CHRTYPE, "blk": tarfile.BLKTYPE, "fifo": tarfile.FIFOTYPE,
                     "dir": tarfile.DIRTYPE}[member]
        info.devmajor, info.devminor = (1, 3) if member == "chr" else (259, 999_999)
        info.mode = 0o666
        t.addfile(info)
    proc = doctor(clockscope, ["--root", archive], private_tmp)
    assert proc.returncode in (0, 1, 5), proc
    out = proc.stdout + proc.stderr
    assert "clocksource 'tsc'" in out, out                      # the other facts were read
    assert "unreadable: proc/cmdline" not in out, out            # never extracted to be seen
    assert os.listdir(private_tmp) == []
