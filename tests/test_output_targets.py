# SPDX-License-Identifier: MIT
"""What `collect -o` and `report -o` do with what is already at the name (issue 30, item 1):
a character device or a FIFO is written through and stays what it was (replaced by a
regular file, `collect -o /dev/null` as root would break the host); a directory,
block device or socket is refused; a symbolic link is replaced (its target untouched; that
case is tests/test_collect.py's).  Nodes are made with mknod in the test's own scratch
directory, never the host's /dev."""

import json
import os
import socket
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import REQUIRE_ALL, ROOT, run

NULL_DEV = os.makedev(1, 3)      # the kernel's null device: writes vanish
# A block device number no kernel gives out by default: were it ever opened, ENXIO.
NO_BLOCK_DEV = os.makedev(259, 999_999)


def need_root():
    if os.geteuid() != 0:
        if REQUIRE_ALL:
            pytest.fail("needs root for mknod (CI runs as root)")
        pytest.skip("needs root for mknod")


def collect_to(clockscope, out, **kw):
    return run([clockscope, "collect", "--parts", "facts", "-o", out], timeout=120, **kw)


def report_to(bundle, out, **kw):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "report"))
    return run([sys.executable, "-m", "clockscope_report", str(bundle), "-o", out],
               timeout=300, env=env, **kw)


@pytest.fixture(scope="module")
def bundle():
    return ROOT / "tests/data/bundles/host.json"   # a whole bundle: report exits 0


def read_fifo(path, got):
    with open(path, "rb") as f:
        got.append(f.read())


def writers(clockscope, bundle):
    return {"collect": lambda out, **kw: collect_to(clockscope, out, **kw),
            "report": lambda out, **kw: report_to(bundle, out, **kw)}


@pytest.mark.parametrize("cmd", ["collect", "report"])
def test_character_device_is_written_through_not_replaced(clockscope, bundle, tmp_path, cmd):
    need_root()
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, NULL_DEV)
    proc = writers(clockscope, bundle)[cmd](node)
    assert proc.returncode == 0, proc.stderr
    st = os.lstat(node)
    assert stat.S_ISCHR(st.st_mode) and st.st_rdev == NULL_DEV, "the device node was replaced"
    assert sorted(os.listdir(tmp_path)) == ["null"], "a temporary file was left"


@pytest.mark.parametrize("cmd", ["collect", "report"])
def test_fifo_is_written_through_to_its_reader(clockscope, bundle, tmp_path, cmd):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=read_fifo, args=(fifo, got), daemon=True)
    reader.start()
    proc = writers(clockscope, bundle)[cmd](fifo)
    reader.join(timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert got, "the reader got nothing"
    if cmd == "collect":
        assert json.loads(got[0])["schema"] == "clockscope.bundle/1"
    else:
        assert b"<html" in got[0][:2000].lower()
    assert sorted(os.listdir(tmp_path)) == ["fifo"]


@pytest.mark.parametrize("cmd", ["collect", "report"])
@pytest.mark.parametrize("kind", ["block", "socket"])
def test_block_device_and_socket_are_refused(clockscope, bundle, tmp_path, cmd, kind):
    node = tmp_path / kind
    if kind == "block":
        need_root()
        os.mknod(node, 0o600 | stat.S_IFBLK, NO_BLOCK_DEV)
    else:
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(node))
        s.close()
    before = os.lstat(node)
    proc = writers(clockscope, bundle)[cmd](node)
    assert proc.returncode == 1, proc.stderr
    assert f"a {'block device' if kind == 'block' else 'socket'}" in proc.stderr, proc.stderr
    after = os.lstat(node)
    assert (after.st_mode, after.st_ino, after.st_rdev) == (before.st_mode, before.st_ino,
                                                             before.st_rdev)
    assert sorted(os.listdir(tmp_path)) == [kind]


def test_collect_refuses_a_block_device_before_running(clockscope, tmp_path):
    need_root()
    node = tmp_path / "blk"
    os.mknod(node, 0o600 | stat.S_IFBLK, NO_BLOCK_DEV)
    proc = run([clockscope, "collect", "--parts", "facts,warp", "-o", node], timeout=60)
    assert proc.returncode == 1
    assert "[1/" not in proc.stderr, "a part ran before the output was checked"


@pytest.mark.parametrize("kind", ["fifo", "chardev"])
def test_metrics_textfile_never_renamed_over_a_node(clockscope, tmp_path, kind):
    """The same class in `metrics --textfile-dir`: a FIFO or device named clockscope.prom is
    in the way (exit 1), never replaced."""
    node = tmp_path / "clockscope.prom"
    if kind == "fifo":
        os.mkfifo(node)
    else:
        need_root()
        os.mknod(node, 0o666 | stat.S_IFCHR, NULL_DEV)
    proc = run([clockscope, "metrics", "--quick", "--textfile-dir", tmp_path], timeout=120)
    assert proc.returncode == 1, proc.stderr
    assert "of that name is in the way" in proc.stderr
    assert stat.S_ISFIFO(os.lstat(node).st_mode) if kind == "fifo" else \
        stat.S_ISCHR(os.lstat(node).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["clockscope.prom"]
