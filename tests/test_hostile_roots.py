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


# ---- item 8: directory names as doctor --roots prints them; item 9: empty roots ----

def test_roots_names_cannot_forge_lines_or_drive_the_terminal(clockscope, tmp_path):
    roots = tmp_path / "roots"
    write_root(roots / "good")
    hostile = "evil\nforged: ok: reading the time does not enter the kernel\x1b]2;owned\x07\x1b[31m\u0085"
    write_root(roots / hostile)
    proc = subprocess.run([str(clockscope), "doctor", "--roots", str(roots)], capture_output=True,
                          text=True, timeout=120)
    lines = proc.stdout.splitlines()
    assert len(lines) == 3, lines                           # two roots and the summary
    assert not any(c in proc.stdout for c in "\x1b\x07\u0085"), repr(proc.stdout)
    assert not any(l.startswith("forged") for l in lines)
    assert "evil?forged: ok: " in proc.stdout                # shown, made harmless
    # The JSON lines keep the name exactly (JSON escapes it).
    proc = subprocess.run([str(clockscope), "doctor", "--roots", str(roots), "--json"],
                          capture_output=True, timeout=120)
    docs = [json.loads(l) for l in proc.stdout.splitlines()]
    # (common/json.c writes each byte above 0x7e as \u00XX, so U+0085 is not compared here.)
    assert docs[0]["root"].startswith(str(roots / hostile[:-1])), docs[0]["root"]


def test_an_error_line_is_escaped_too(clockscope, tmp_path):
    roots = tmp_path / "roots"
    roots.mkdir()
    (roots / "bad\nx: ok: forged.tar").write_bytes(b"not an archive")
    proc = subprocess.run([str(clockscope), "doctor", "--roots", str(roots)], capture_output=True,
                          text=True, timeout=120)
    lines = proc.stdout.splitlines()
    assert len(lines) == 2 and ": error: " in lines[0], lines
    assert "\n" not in lines[0]


def test_empty_directory_holds_no_facts(clockscope, tmp_path):
    """An empty directory was counted as a root of verdict unknown, exit 0.  It holds no
    facts: an error line, counted as could not be read, exit 6 (docs/fleet.md)."""
    roots = tmp_path / "roots"
    write_root(roots / "good")
    (roots / "empty").mkdir()
    proc = subprocess.run([str(clockscope), "doctor", "--roots", str(roots)], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 6, proc
    assert f"{roots}/empty: error: holds no facts" in proc.stdout
    assert "2 roots: 1 ok, 0 slow, 0 broken, 0 unknown, 1 could not be read" in proc.stdout
    proc = subprocess.run([str(clockscope), "doctor", "--roots", str(roots), "--json"],
                          capture_output=True, text=True, timeout=120)
    docs = [json.loads(l) for l in proc.stdout.splitlines()]
    assert docs[0]["schema"] == "clockscope.doctor.error/1" and "holds no facts" in docs[0]["error"]
    assert docs[-1]["errors"] == 1
