# SPDX-License-Identifier: MIT
"""Hostile trees and outputs (issue 9, parts 2-5): every path clockscope reads from a facts
root and every path it writes, with absolute and relative links leading out, a directory
or a FIFO in place of a file; closed stderr, full disks, unreadable roots, set-user-ID
targets.  The root-reading tests run twice: with the kernel's openat2 and with the
user-space fallback (CLOCKSCOPE_TEST_NO_OPENAT2=1)."""
import json
import os
import resource
import shutil
import signal
import stat
import sys
import subprocess
import tempfile
from pathlib import Path

import pytest

from conftest import REQUIRE_ALL, ROOT, make, need_tool, run

SECRET = "HOST-SECRET-9f3c1e"
RESOLVERS = {"openat2": {}, "fallback": {"CLOCKSCOPE_TEST_NO_OPENAT2": "1"}}

# Where an unpacked sosreport keeps a fact (read when the main path is missing), and the
# fact it stands for (src/facts/facts.c, docs/doctor.md).
ALT_PATHS = {
    "sos_commands/kernel/dmesg": "dmesg",
    "var/log/dmesg": "dmesg",
    "var/log/kern.log": "dmesg",
    "sos_commands/kernel/uname_-a": "uname",
    "sos_commands/systemd/systemd-detect-virt": "virt",
}


def env_with(extra):
    env = dict(os.environ)
    env.update(extra)
    return env


@pytest.fixture(scope="module")
def fact_paths(clockscope, tmp_path_factory):
    empty = tmp_path_factory.mktemp("empty-root")
    proc = run([clockscope, "facts", "--root", empty, "--json"])
    assert proc.returncode == 0, proc.stderr
    paths = [f["path"] for f in json.loads(proc.stdout)["facts"]]
    assert "proc/cmdline" in paths and "dmesg" in paths
    return paths


@pytest.fixture
def outside(tmp_path):
    """A host directory beside the root, every fact path in it holding the secret."""
    out = tmp_path / "outside"
    out.mkdir()
    (out / "secret").write_text(SECRET + "\n")
    return out


def plant(outside, path):
    """outside/<path> holds the secret (so a link into outside resolves to it)."""
    p = outside / path
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(SECRET + " clocksource=hpet\n")


def facts_json(clockscope, root, resolver):
    proc = run([clockscope, "facts", "--root", root, "--json"], timeout=30,
               env=env_with(RESOLVERS[resolver]))
    assert proc.returncode == 0, proc.stderr
    assert SECRET not in proc.stdout
    return {f["path"]: f for f in json.loads(proc.stdout)["facts"]}


def link_cases(path):
    """(name, the link's path in the root, its target kind): the file itself and every
    directory on its way, linked out absolutely and relatively."""
    parts = path.split("/")
    for i in range(1, len(parts) + 1):
        at = "/".join(parts[:i])
        for kind in ("absolute", "relative"):
            yield f"{kind}:{at}", at, kind


def make_link(root, outside, at, kind):
    link = root / at
    link.parent.mkdir(parents=True, exist_ok=True)
    target = outside / at
    if kind == "relative":
        target = os.path.relpath(target, link.parent)
    os.symlink(target, link)


@pytest.mark.parametrize("resolver", RESOLVERS)
def test_no_link_leads_a_fact_out_of_the_root(clockscope, fact_paths, outside, tmp_path, resolver):
    """Every fact path (and every sosreport alternative), a link at each of its components,
    absolute and relative: the fact is unreadable with the reason, the secret never shown."""
    n = 0
    for path in list(fact_paths) + list(ALT_PATHS):
        plant(outside, path)
        fact = ALT_PATHS.get(path, path)
        for name, at, kind in link_cases(path):
            root = tmp_path / f"r{n}"
            n += 1
            root.mkdir()
            make_link(root, outside, at, kind)
            facts = facts_json(clockscope, root, resolver)
            f = facts[fact]
            assert f["status"] == "unreadable", (path, name, f)
            assert "leads out of the root" in f["why"], (path, name, f)
    assert n > 60


@pytest.mark.parametrize("resolver", RESOLVERS)
def test_directory_or_fifo_in_place_of_a_fact(clockscope, fact_paths, tmp_path, resolver):
    for kind in ("dir", "fifo"):
        root = tmp_path / kind
        for path in list(fact_paths) + list(ALT_PATHS):
            p = root / path
            p.parent.mkdir(parents=True, exist_ok=True)
            if p.exists():
                continue
            if kind == "dir":
                p.mkdir()
            else:
                os.mkfifo(p)
        facts = facts_json(clockscope, root, resolver)
        for path in fact_paths:
            f = facts[path]
            assert f["status"] == "unreadable", (kind, path, f)
            assert ("directory" if kind == "dir" else "FIFO") in f["why"], (kind, path, f)


@pytest.mark.parametrize("resolver", RESOLVERS)
def test_links_that_stay_inside_are_followed(clockscope, tmp_path, resolver):
    """The sosreport layout: relative links that stay in the root are read through."""
    root = tmp_path / "sos"
    (root / "sos_commands/kernel").mkdir(parents=True)
    (root / "sos_commands/kernel/dmesg").write_text("[    0.000000] Linux version 6.1.0\n")
    (root / "sos_commands/kernel/uname_-a").write_text("Linux h 6.1.0 #1 SMP x86_64 GNU/Linux\n")
    os.symlink("sos_commands/kernel/dmesg", root / "dmesg")
    (root / "real/sys").mkdir(parents=True)
    os.symlink("real/sys", root / "sys")
    cs = root / "real/sys/devices/system/clocksource/clocksource0"
    cs.mkdir(parents=True)
    (cs / "current_clocksource").write_text("tsc\n")
    (root / "proc").mkdir()
    os.symlink("../real/../sos_commands/kernel/uname_-a", root / "proc/version")
    facts = facts_json(clockscope, root, resolver)
    assert facts["dmesg"]["status"] == "ok"
    assert facts["uname"]["status"] == "ok"
    assert facts["proc/version"]["status"] == "ok"
    assert facts["sys/devices/system/clocksource/clocksource0/current_clocksource"]["status"] == "ok"


@pytest.mark.parametrize("how", ["absolute", "relative"])
@pytest.mark.parametrize("resolver", RESOLVERS)
def test_doctor_never_shows_a_host_file(clockscope, tmp_path, how, resolver):
    """The issue's case: ROOT/proc/cmdline -> a mode-0600 host file."""
    secret = tmp_path / "shadow"
    secret.write_text(SECRET + " clocksource=hpet tsc=unstable\n")
    secret.chmod(0o600)
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    target = secret if how == "absolute" else Path("../..") / secret.name
    os.symlink(target, root / "proc/cmdline")
    os.symlink(target, root / "dmesg")
    env = env_with(RESOLVERS[resolver])
    proc = run([clockscope, "doctor", "--root", root, "--json"], env=env)
    assert SECRET not in proc.stdout and SECRET not in proc.stderr
    doc = json.loads(proc.stdout)
    assert doc["facts"]["files"]["proc/cmdline"].startswith("unreadable: a symbolic link leads out")
    assert doc["facts"]["files"]["dmesg"].startswith("unreadable")
    text = run([clockscope, "doctor", "--root", root, "--verbose"], env=env)
    assert SECRET not in text.stdout
    assert "unreadable: proc/cmdline (a symbolic link leads out of the root" in text.stdout


# ---- unreadable roots and files (as an unprivileged user: root reads everything) ---------

@pytest.fixture
def world_dir():
    """A directory `nobody` can reach (pytest's tmp_path is private to root)."""
    d = Path(tempfile.mkdtemp(prefix="clockscope-reliab-"))
    d.chmod(0o755)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def need_root():
    """Changing to another user, chown and setuid files need root (the suite runs as root in
    CI); elsewhere these tests skip, or fail under CLOCKSCOPE_REQUIRE_ALL."""
    if os.geteuid() != 0:
        if REQUIRE_ALL:
            pytest.fail("needs root (to act as nobody, chown, setuid)")
        pytest.skip("needs root (to act as nobody, chown, setuid)")


def as_nobody(cmd, **kw):
    need_root()
    need_tool("setpriv")
    return run(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", *cmd], **kw)


def test_unreadable_root_is_bad_usage(clockscope, world_dir):
    root = world_dir / "root"
    (root / "proc").mkdir(parents=True)
    (root / "proc/cmdline").write_text("quiet\n")
    for mode in (0o000, 0o300, 0o400):  # nothing; no read; no search
        root.chmod(mode)
        for cmd in (["doctor", "--root", root, "--json"], ["facts", "--root", root]):
            proc = as_nobody([clockscope, *cmd])
            assert proc.returncode == 2, (oct(mode), cmd, proc.returncode, proc.stdout)
            assert "not a readable directory" in proc.stderr, proc.stderr
    root.chmod(0o755)
    assert as_nobody([clockscope, "facts", "--root", root]).returncode == 0


def test_unreadable_file_is_not_known_never_absent(clockscope, world_dir):
    root = world_dir / "root"
    cs = root / "sys/devices/system/clocksource/clocksource0"
    cs.mkdir(parents=True)
    (cs / "current_clocksource").write_text("tsc\n")
    (cs / "current_clocksource").chmod(0)
    (root / "dmesg").write_text("[    0.000000] Linux version 6.1.0\n")
    (root / "dmesg").chmod(0)
    proc = as_nobody([clockscope, "doctor", "--root", root, "--json"])
    doc = json.loads(proc.stdout)
    files = doc["facts"]["files"]
    assert files["sys/devices/system/clocksource/clocksource0/current_clocksource"] == \
        "unreadable: Permission denied"
    unknown = [f for f in doc["findings"] if f["id"] == "clocksource-unknown"]
    assert unknown, doc["findings"]
    evidence = " ".join(unknown[0]["evidence"])
    assert "current_clocksource unreadable (Permission denied)" in evidence, evidence
    assert "kernel log unreadable (Permission denied)" in evidence, evidence
    assert "no current_clocksource file" not in evidence
    text = as_nobody([clockscope, "doctor", "--root", root, "--verbose"]).stdout
    assert "no current_clocksource file" not in text
    assert "unreadable: dmesg (Permission denied)" in text


# ---- facts --save: never through a link ---------------------------------------------------

@pytest.fixture(scope="module")
def full_root(fact_paths, tmp_path_factory):
    """A facts root with every fact present: what --save writes is then every path."""
    src = tmp_path_factory.mktemp("full-root")
    for path in fact_paths:
        p = src / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(f"saved {path}\n")
    return src


def tree_snapshot(d):
    return sorted((str(p.relative_to(d)), p.read_text() if p.is_file() else None)
                  for p in d.rglob("*"))


def save(clockscope, src, dest, **kw):
    return run([clockscope, "facts", "--root", src, "--save", dest, "--force"], timeout=30, **kw)


def test_save_never_writes_through_a_link(clockscope, fact_paths, full_root, outside, tmp_path):
    """A link at every component of every written path, absolute and relative, to a file or
    a directory outside: the link itself is replaced, nothing outside changes."""
    for path in fact_paths:
        plant(outside, path)
    before = tree_snapshot(outside)
    n = 0
    for path in fact_paths:
        for name, at, kind in link_cases(path):
            dest = tmp_path / f"d{n}"
            n += 1
            dest.mkdir()
            make_link(dest, outside, at, kind)
            proc = save(clockscope, full_root, dest)
            assert proc.returncode == 0, (name, proc.stderr)
            assert not (dest / at).is_symlink(), name
            assert (dest / path).read_text() == f"saved {path}\n", name
            assert tree_snapshot(outside) == before, name
    assert n > 30


def test_save_replaces_a_fifo_and_refuses_a_directory(clockscope, fact_paths, full_root, tmp_path):
    for path in fact_paths:
        dest = tmp_path / ("fifo-" + path.replace("/", "_"))
        (dest / path).parent.mkdir(parents=True)
        os.mkfifo(dest / path)
        proc = save(clockscope, full_root, dest)  # a FIFO is replaced, never opened (no hang)
        assert proc.returncode == 0, (path, proc.stderr)
        assert (dest / path).is_file() and (dest / path).read_text() == f"saved {path}\n"
        dest = tmp_path / ("dir-" + path.replace("/", "_"))
        (dest / path).mkdir(parents=True)
        proc = save(clockscope, full_root, dest)
        assert proc.returncode == 1, (path, proc.stderr)
        assert "a directory of that name is in the way" in proc.stderr
    # A file where a directory must go is refused, not removed.
    dest = tmp_path / "file-for-dir"
    dest.mkdir()
    (dest / "proc").write_text("user data\n")
    proc = save(clockscope, full_root, dest)
    assert proc.returncode == 1 and "a file of that name is in the way" in proc.stderr
    assert (dest / "proc").read_text() == "user data\n"


def no_bigger_files_than(limit):
    def pre():
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    return pre


def test_save_onto_a_full_disk_keeps_the_old_files(clockscope, full_root, tmp_path):
    """Writes that fail (RLIMIT_FSIZE stands in for a full disk: EFBIG, as ENOSPC) are
    said, with the reason; the files of the last good save stay whole, no temporaries."""
    dest = tmp_path / "saved"
    assert save(clockscope, full_root, dest).returncode == 0
    before = tree_snapshot(dest)
    proc = save(clockscope, full_root, dest, preexec_fn=no_bigger_files_than(4))
    assert proc.returncode == 1
    assert "cannot write" in proc.stderr and "File too large" in proc.stderr, proc.stderr
    assert tree_snapshot(dest) == before


# ---- run --mode count: never into someone else's file --------------------------------------

@pytest.fixture(scope="module")
def reuser(tmp_path_factory):
    need_tool("cc")
    exe = tmp_path_factory.mktemp("progs") / "stderr_reuser"
    proc = run(["cc", "-O1", "-o", exe, ROOT / "tests/progs/stderr_reuser.c"])
    assert proc.returncode == 0, proc.stderr
    exe.chmod(0o755)
    return exe


def close_stderr():
    os.close(2)


def test_count_with_stderr_closed_writes_nothing_into_fd_2(cs, reuser, tmp_path):
    data = tmp_path / "data.txt"
    proc = run([cs, "run", "--mode", "count", "--", reuser, data], preexec_fn=close_stderr)
    assert proc.returncode == 0
    assert data.read_text() == "own data on fd 2\n"
    # With --output the table still goes where it was asked.
    out = tmp_path / "table.txt"
    proc = run([cs, "run", "--mode", "count", "--output", out, "--", reuser, data],
               preexec_fn=close_stderr)
    assert data.read_text() == "own data on fd 2\n"
    assert "clock_gettime(CLOCK_MONOTONIC)" in out.read_text()


def test_count_output_is_checked_before_exec(cs, reuser, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    os.symlink(victim, tmp_path / "abs-link")
    os.symlink("victim", tmp_path / "rel-link")
    os.mkfifo(tmp_path / "fifo")
    cases = {
        tmp_path: "is a directory",
        "/nonexistent/x": "No such file or directory",
        "/dev/full": "is a character device",
        tmp_path / "fifo": "is a FIFO",
        tmp_path / "abs-link": "is a symbolic link",
        tmp_path / "rel-link": "is a symbolic link",
    }
    for output, says in cases.items():
        proc = run([cs, "run", "--mode", "count", "--output", output, "--", reuser,
                    tmp_path / "d"], timeout=20)
        assert proc.returncode == 2, (output, proc.returncode, proc.stderr)
        assert says in proc.stderr, (output, proc.stderr)
    assert victim.read_text() == "keep\n"


def test_count_output_write_failure_is_said(cs, reuser, tmp_path):
    out = tmp_path / "table.txt"
    proc = run([cs, "run", "--mode", "count", "--output", out, "--", reuser, tmp_path / "d"],
               preexec_fn=no_bigger_files_than(0))
    assert "cannot write the count table to" in proc.stderr and "File too large" in proc.stderr


def test_count_output_is_the_file_named_even_after_chdir(cs, reuser, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc = run([cs, "run", "--mode", "count", "--output", "table.txt", "--", reuser,
                tmp_path / "d", elsewhere], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "clock_gettime(CLOCK_MONOTONIC)" in (tmp_path / "table.txt").read_text()
    assert not (elsewhere / "table.txt").exists()


def test_setuid_target_is_warned(cs, reuser, world_dir):
    need_root()
    target = world_dir / "suid_reuser"
    shutil.copy(reuser, target)
    os.chown(target, 65534, 65534)
    target.chmod(0o4755)
    data = world_dir / "data.txt"
    data.touch()
    os.chown(data, 65534, 65534)
    proc = run([cs, "run", "--mode", "count", "--", target, data])
    assert proc.returncode == 0, proc.stderr
    assert "set-user-ID" in proc.stderr and "ignores LD_PRELOAD" in proc.stderr, proc.stderr
    # ... and indeed the shim did not run in it.
    assert "clockscope run --mode count" not in proc.stderr


# ---- vdso --dump -----------------------------------------------------------------------------

def test_vdso_dump_refuses_json_and_unsafe_outputs(clockscope, tmp_path):
    proc = run([clockscope, "vdso", "--dump", tmp_path / "img", "--json"])
    assert proc.returncode == 2 and "--dump and --json" in proc.stderr
    assert not (tmp_path / "img").exists()
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    os.symlink(victim, tmp_path / "abs-link")
    os.symlink("victim", tmp_path / "rel-link")
    os.mkfifo(tmp_path / "fifo")
    (tmp_path / "dir").mkdir()
    for out in ("abs-link", "rel-link", "fifo", "dir", "/dev/full"):
        proc = run([clockscope, "vdso", "--dump", tmp_path / out], timeout=20)
        assert proc.returncode == 2, (out, proc.returncode, proc.stderr)
        assert "give a regular file" in proc.stderr
    assert victim.read_text() == "keep\n"
    img = tmp_path / "img"
    img.write_text("old and longer than nothing" * 1000)
    proc = run([clockscope, "vdso", "--dump", img])
    if proc.returncode == 1 and "no vDSO" in proc.stderr:
        return
    assert proc.returncode == 0, proc.stderr
    listed = run([clockscope, "vdso", "--file", img, "--json"])
    assert listed.returncode == 0 and json.loads(listed.stdout)["symbols"]


def test_vdso_dump_to_a_full_disk_is_said(clockscope, tmp_path):
    proc = run([clockscope, "vdso", "--dump", tmp_path / "img"],
               preexec_fn=no_bigger_files_than(100))
    if "no vDSO" in proc.stderr:
        return
    assert proc.returncode == 1 and "cannot write" in proc.stderr, proc.stderr


# ---- the same hostile roots under ASan/UBSan -------------------------------------------------

@pytest.mark.parametrize("resolver", RESOLVERS)
def test_hostile_roots_under_sanitizers(san_build, fact_paths, outside, tmp_path, resolver):
    binary = san_build / "clockscope"
    roots = {}
    for kind in ("absolute", "relative"):
        r = tmp_path / f"links-{kind}"
        for path in fact_paths:
            plant(outside, path)
            make_link(r, outside, path, kind)
        roots[r.name] = r
    r = tmp_path / "dirlinks"
    r.mkdir()
    for top in ("proc", "sys", "clockscope"):
        make_link(r, outside, top, "relative")
    roots[r.name] = r
    r = tmp_path / "fifos"
    for path in fact_paths:
        (r / path).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(r / path)
    roots[r.name] = r
    r = tmp_path / "deep-loop"
    r.mkdir()
    os.symlink("a/b", r / "a")
    os.symlink("../proc", r / "proc")
    roots[r.name] = r
    for name, root in roots.items():
        for cmd in (["doctor", "--root", root, "--json"], ["facts", "--root", root, "--json"]):
            proc = run([binary, *cmd], timeout=120, env=env_with(RESOLVERS[resolver]))
            assert "ERROR: AddressSanitizer" not in proc.stderr, (name, proc.stderr[-2000:])
            assert "runtime error" not in proc.stderr, (name, proc.stderr[-2000:])
            assert SECRET not in proc.stdout, name
            json.loads(proc.stdout)


# ---- other paths read from the command line: a FIFO or directory in place of a file ----------

def test_a_fifo_or_directory_given_as_input_is_refused_not_waited_on(cs, tmp_path):
    # vm checks its guest binary before --add and --kernel: build the x86_64 one (a fresh
    # clone has none until test_vm's fixture runs, which comes later in the suite).
    make("O=build/x86_64", "CC=x86_64-linux-gnu-gcc", "STATIC=1", "build/x86_64/clockscope")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    fifo.chmod(0o755)  # executable, so that `run` gets past its PATH check
    for args, status, says in (
        (["vdso", "--file", fifo], 2, "is not a regular file"),
        (["vdso", "--file", tmp_path], 2, "is not a regular file"),
        (["run", "--", fifo], 126, "not a regular file"),
        (["run", "--", tmp_path], 126, "not a regular file"),
        (["vm", "--arch", "x86_64", "--add", fifo, "--", "true"], 2, "not a regular file"),
        (["vm", "--arch", "x86_64", "--binary", fifo, "--", "true"], 2, "not a regular file"),
        (["vm", "--arch", "x86_64", "--kernel", fifo, "--", "true"], 2, "not a regular file"),
    ):
        proc = run([cs, *args], timeout=20)
        assert proc.returncode == status, (args, proc.returncode, proc.stderr)
        assert says in proc.stderr, (args, proc.stderr)


# ---- stdout that cannot be written: a full disk, a closed stdout ------------------------------

def closed_stdout():
    os.close(1)


@pytest.mark.parametrize("args", [
    ["facts", "--root", "{root}"], ["facts", "--root", "{root}", "--json"],
    ["doctor", "--root", "{root}"], ["doctor", "--root", "{root}", "--json"],
    ["vdso"], ["vdso", "--json"], ["vdso", "--dump", "-"], ["bench", "--list"], ["--help"],
], ids=lambda a: " ".join(a).replace("{root}", "R"))
def test_output_that_cannot_be_written_is_a_failure(clockscope, tmp_path, args):
    root = tmp_path / "root"
    (root / "proc").mkdir(parents=True)
    (root / "proc/cmdline").write_text("quiet\n")
    cmd = [clockscope, *[a.replace("{root}", str(root)) for a in args]]
    with open("/dev/full", "w") as full:
        proc = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 1, (args, proc.returncode, proc.stderr)
    assert "No space left on device" in proc.stderr or "write error" in proc.stderr, proc.stderr
    assert proc.stderr.count("cannot write") == 1, proc.stderr
    proc = subprocess.run(cmd, stderr=subprocess.PIPE, text=True, timeout=60,
                          preexec_fn=closed_stdout)
    assert proc.returncode == 1, (args, proc.returncode, proc.stderr)
    assert "cannot write" in proc.stderr


@pytest.mark.parametrize("swap", ["absolute link", "relative link", "fifo", "directory"])
def test_count_output_swapped_before_exit_is_not_followed(cs, tmp_path, swap):
    """The program itself replaces the --output file before it exits: the shim's own open
    at exit refuses the link (O_NOFOLLOW) and never waits on the FIFO (O_NONBLOCK)."""
    victim = tmp_path / "victim"
    victim.write_text("keep\n")
    table = tmp_path / "table.txt"
    make = {
        "absolute link": f"os.symlink({str(victim)!r}, t)",
        "relative link": "os.symlink('victim', t)",
        "fifo": "os.mkfifo(t)",
        "directory": "os.mkdir(t)",
    }[swap]
    script = f"import os, time; t = {str(table)!r}; time.time(); os.path.lexists(t) and os.remove(t); {make}"
    proc = run([cs, "run", "--mode", "count", "--output", table, "--", sys.executable,
                "-c", script], timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert "cannot write the count table to" in proc.stderr, proc.stderr
    assert victim.read_text() == "keep\n"


def test_capability_target_is_warned(cs, reuser, world_dir):
    need_tool("setcap")
    target = world_dir / "cap_reuser"
    shutil.copy(reuser, target)
    target.chmod(0o755)
    assert run(["setcap", "cap_sys_time+ep", target]).returncode == 0
    world_dir.chmod(0o777)
    proc = as_nobody([cs, "run", "--mode", "count", "--", target, world_dir / "data"])
    assert proc.returncode == 0, proc.stderr
    assert "file capabilities" in proc.stderr and "ignores LD_PRELOAD" in proc.stderr, proc.stderr
    assert "clockscope run --mode count" not in proc.stderr
    # The same program without capabilities is reached (and no warning).
    plain = world_dir / "plain_reuser"
    shutil.copy(reuser, plain)
    plain.chmod(0o755)
    proc = as_nobody([cs, "run", "--mode", "count", "--", plain, world_dir / "data2"])
    assert "clockscope run --mode count" in proc.stderr and "warning" not in proc.stderr


def test_hostile_save_targets_under_sanitizers(san_build, fact_paths, full_root, outside, tmp_path):
    binary = san_build / "clockscope"
    for path in fact_paths:
        plant(outside, path)
    before = tree_snapshot(outside)
    for kind in ("absolute", "relative"):
        dest = tmp_path / f"links-{kind}"
        for path in fact_paths:
            make_link(dest, outside, path, kind)
        for top in ("proc", "sys"):
            os.replace(dest / top, tmp_path / f"moved-{kind}-{top}")
            make_link(dest, outside, top, kind)
        os.mkfifo(dest / "dmesg.fifo")
        proc = run([binary, "facts", "--root", full_root, "--save", dest, "--force"], timeout=120)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert "ERROR: AddressSanitizer" not in proc.stderr and "runtime error" not in proc.stderr
    assert tree_snapshot(outside) == before
