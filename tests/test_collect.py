# SPDX-License-Identifier: MIT
"""clockscope collect: the bundle's structure from a real run, every way a part can fail
(recorded, the others still run), the atomic write (never through a link), output errors,
bad usage, and a differential fuzz of collect's JSON check against Python's parser."""
import json
import os
import random
import re
import subprocess
import time

import pytest

from conftest import ROOT, run

FAKE = ROOT / "tests" / "progs" / "fake_part.sh"
PARTS = ["facts", "doctor", "bench", "warp", "ladder", "runtimes"]
# The parts whose schema is past /1 (docs/json.md: each one's "Changes from /1").
SCHEMA_VERSIONS = {"bench": 2, "doctor": 2, "ladder": 2, "runtimes": 2, "profile": 2}


def collect(clockscope, *args, env=None, timeout=180, **kw):
    e = dict(os.environ)
    e.update(env or {})
    return run([clockscope, "collect", *args], timeout=timeout, env=e, **kw)


def faked(clockscope, **modes):
    env = {"CLOCKSCOPE_COLLECT_SELF": str(FAKE), "REAL_CLOCKSCOPE": str(clockscope)}
    env.update({f"FAKE_{k.upper()}": v for k, v in modes.items()})
    return env


def test_bundle_structure(clockscope, tmp_path):
    out = tmp_path / "b.json"
    t0 = time.monotonic()
    proc = collect(clockscope, "--quick", "--name", "testbox", "-o", out)
    took = time.monotonic() - t0
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""                      # the bundle went to the file
    b = json.loads(out.read_text())
    assert b["schema"] == "clockscope.bundle/1"
    assert b["machine"]["name"] == "testbox"
    for key in ("hostname", "arch", "cpu_model", "kernel", "clocksource", "virtualization",
                "emulation", "emulation_evidence", "cpus_online"):
        assert key in b["machine"], key
    assert re.fullmatch(r"\d\d\d\d-\d\d-\d\dT\d\d:\d\d:\d\dZ", b["started"])
    assert b["clockscope"]["version"]
    assert 0 < b["duration_s"] <= took
    assert b["config"] == {"quick": True, "warp_seconds": 1}
    assert list(b["parts"]) == PARTS
    for name in PARTS:
        schema = f"clockscope.{name}/{SCHEMA_VERSIONS.get(name, 1)}"
        assert b["parts"][name]["schema"] == schema
        r = b["runs"][name]
        assert r["ok"] and r["schema"] == schema and not r["timed_out"]
        assert r["argv"][:3] == ["clockscope", name, "--json"]
        assert r["exit_status"] is not None and r["signal"] is None
    assert "--quick" in b["runs"]["bench"]["argv"]
    assert b["runs"]["warp"]["argv"][-2:] == ["--seconds", "1"]
    assert any(r["id"] == "libc.clock_gettime.monotonic" for r in b["parts"]["bench"]["results"])
    # progress on stderr: one line per part and a closing line
    for i, name in enumerate(PARTS, 1):
        assert f"[{i}/{len(PARTS)}] {name}" in proc.stderr
    assert f"{len(PARTS)} of {len(PARTS)} parts recorded" in proc.stderr


def test_stdout_and_parts_subset(clockscope):
    proc = collect(clockscope, "--parts", "doctor,facts")
    assert proc.returncode == 0, proc.stderr
    b = json.loads(proc.stdout)
    assert list(b["parts"]) == ["facts", "doctor"]       # table order, not the option's
    assert b["machine"]["name"]


def test_failing_parts_are_recorded(clockscope, tmp_path):
    out = tmp_path / "b.json"
    proc = collect(clockscope, "--parts", "facts,doctor,bench,warp", "-o", out,
                   env=faked(clockscope, bench="garbage", warp="exit", doctor="kill"))
    assert proc.returncode == 6, proc.stderr
    b = json.loads(out.read_text())
    assert b["parts"]["facts"]["schema"] == "clockscope.facts/1"     # the good part survived
    assert b["runs"]["facts"]["ok"]
    assert "not JSON" in b["parts"]["bench"]["error"]
    assert b["runs"]["bench"]["ok"] is False and b["runs"]["bench"]["exit_status"] == 0
    assert "exit status 1" in b["parts"]["warp"]["error"]
    assert b["runs"]["warp"]["exit_status"] == 1
    assert "fake warp: something broke" in b["runs"]["warp"]["stderr_tail"]
    assert "signal 9" in b["parts"]["doctor"]["error"]
    assert b["runs"]["doctor"]["signal"] == 9 and b["runs"]["doctor"]["exit_status"] is None
    assert proc.stderr.count("FAILED") == 3
    assert "1 of 4 parts recorded" in proc.stderr


def test_json_without_schema_is_a_failure(clockscope):
    proc = collect(clockscope, "--parts", "facts", env=faked(clockscope, facts="plain"))
    assert proc.returncode == 6
    b = json.loads(proc.stdout)
    assert "without a clockscope schema" in b["parts"]["facts"]["error"]


def test_part_past_its_deadline_is_killed(clockscope):
    t0 = time.monotonic()
    proc = collect(clockscope, "--parts", "facts,bench", "--timeout", "0.5",
                   env=faked(clockscope, bench="sleep"))
    assert time.monotonic() - t0 < 10
    assert proc.returncode == 6
    b = json.loads(proc.stdout)
    assert "did not finish within 0.5 s" in b["parts"]["bench"]["error"]
    assert b["runs"]["bench"]["timed_out"] is True
    assert b["parts"]["facts"]["schema"] == "clockscope.facts/1"


def test_atomic_write_replaces_a_link_never_follows_it(clockscope, tmp_path):
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    out = tmp_path / "b.json"
    out.symlink_to(victim)
    proc = collect(clockscope, "--parts", "facts", "-o", out)
    assert proc.returncode == 0, proc.stderr
    assert victim.read_text() == "precious\n"
    assert not out.is_symlink()
    assert json.loads(out.read_text())["schema"] == "clockscope.bundle/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.json", "victim"]   # no temp left
    # an existing bundle is replaced whole
    proc = collect(clockscope, "--parts", "doctor", "-o", out)
    assert list(json.loads(out.read_text())["parts"]) == ["doctor"]
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)                        # not mkstemp's mode


@pytest.mark.parametrize("target,message", [
    ("missing/b.json", "does not exist"),
    (".", "is a directory"),
    ("dir/", "names a directory"),
])
def test_unwritable_target_fails_before_running(clockscope, tmp_path, target, message):
    (tmp_path / "dir").mkdir()
    t0 = time.monotonic()
    proc = collect(clockscope, "-o", target, cwd=tmp_path)
    assert time.monotonic() - t0 < 2          # no part ran
    assert proc.returncode == 1
    assert message in proc.stderr and "[1/" not in proc.stderr


def test_full_disk_and_closed_stdout(clockscope):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([clockscope, "collect", "--parts", "facts"], stdout=full,
                              stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 1
    assert "cannot write the bundle to stdout" in proc.stderr
    proc = subprocess.run(f"exec {clockscope} collect --parts facts >&-", shell=True,
                          stderr=subprocess.PIPE, text=True, timeout=60)
    assert proc.returncode == 1
    assert "stdout is closed" in proc.stderr


@pytest.mark.parametrize("args,message", [
    (["--bogus"], "unknown option"),
    (["extra"], "unexpected argument"),
    (["--parts", "bench,nope"], "unknown part 'nope'"),
    (["--parts", ""], "--parts"),
    (["--warp-seconds", "0"], "--warp-seconds"),
    (["--warp-seconds", "61"], "--warp-seconds"),
    (["--timeout", "abc"], "--timeout"),
    (["-o", ""], "--output needs a value (FILE)"),
    (["--name", ""], "--name"),
    (["-o"], "-o"),
])
def test_bad_usage(clockscope, args, message):
    proc = collect(clockscope, *args, timeout=10)
    assert proc.returncode == 2, proc.stderr
    assert message in proc.stderr
    assert proc.stdout == ""


def _mutate(text, rng):
    s = list(text)
    for _ in range(rng.randint(1, 3)):
        pos = rng.randrange(len(s))
        op = rng.randrange(4)
        ch = rng.choice('{}[]",:0123456789.eE+-\\ntfu \t\x01\xe9\x7f')
        if op == 0:
            s[pos] = ch
        elif op == 1:
            del s[pos]
        elif op == 2:
            s.insert(pos, ch)
        else:
            s = s[:pos]                      # truncation
    return "".join(s)


def _python_accepts(raw: bytes) -> bool:
    def no_constants(name):
        raise ValueError(name)               # NaN, Infinity: not JSON
    try:
        doc = json.loads(raw.decode("utf-8"), parse_constant=no_constants)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(doc, dict) and isinstance(doc.get("schema"), str) and \
        doc["schema"].startswith("clockscope.")


def test_json_check_agrees_with_python(clockscope, tmp_path):
    """Mutated facts documents through collect's check: the bundle must always parse, and
    a part is kept exactly when Python's strict parser accepts it."""
    seed = run([clockscope, "facts", "--json"]).stdout
    doc = tmp_path / "part.json"
    rng = random.Random(12)
    agreed = {True: 0, False: 0}
    for i in range(150):
        text = _mutate(seed[:600] + seed[-200:] if i % 3 == 0 else seed, rng)
        doc.write_bytes(text.encode("utf-8", "surrogatepass"))
        proc = collect(clockscope, "--parts", "facts", env=faked(clockscope, facts=f"file:{doc}"),
                       timeout=30)
        assert proc.returncode in (0, 6), proc.stderr
        bundle = json.loads(proc.stdout)      # whatever the part printed, the bundle is JSON
        ok = bundle["runs"]["facts"]["ok"]
        assert ok == _python_accepts(doc.read_bytes().rstrip(b" \t\r\n")), (text, bundle["parts"]["facts"])
        agreed[ok] += 1
    assert agreed[True] > 5 and agreed[False] > 50        # both sides were exercised


def test_json_check_refuses_text_after_the_document(clockscope, tmp_path):
    """A part that prints its document and then more (a second document, a stray byte) is a
    failed part: embedding it would make the bundle itself invalid JSON."""
    seed = run([clockscope, "facts", "--json"]).stdout.rstrip()
    doc = tmp_path / "part.json"
    for tail in ("x", "{}", "\n{\"schema\": \"clockscope.facts/1\"}", " ]", "\u0000"):
        doc.write_text(seed + tail)
        proc = collect(clockscope, "--parts", "facts", env=faked(clockscope, facts=f"file:{doc}"),
                       timeout=30)
        assert proc.returncode == 6, (tail, proc.stderr)
        bundle = json.loads(proc.stdout)
        assert bundle["runs"]["facts"]["ok"] is False, tail
        assert "after the document" in json.dumps(bundle["parts"]["facts"]), (tail, bundle["parts"])
    doc.write_text(seed + "\n\t ")                       # trailing white space is fine
    proc = collect(clockscope, "--parts", "facts", env=faked(clockscope, facts=f"file:{doc}"),
                   timeout=30)
    assert proc.returncode == 0 and json.loads(proc.stdout)["runs"]["facts"]["ok"] is True


@pytest.mark.vm
@pytest.mark.qemu
@pytest.mark.cross
def test_collect_inside_a_riscv64_guest(clockscope, tmp_path):
    """The acceptance's first step: a riscv64 bundle from `clockscope vm`, read by report
    beside this machine's (TCG: about a minute)."""
    from conftest import make, need_tool
    need_tool("qemu-system-riscv64", "riscv64-linux-gnu-gcc")
    make("O=build/riscv64", "CC=riscv64-linux-gnu-gcc", "STATIC=1", "build/riscv64/clockscope")
    env = dict(os.environ, TMPDIR=str(tmp_path))
    proc = run([clockscope, "vm", "--arch", "riscv64", "--timeout", "240", "--", "collect",
                "--quick", "--name", "rv", "-o", "-"], timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    b = json.loads(proc.stdout)
    assert b["machine"]["arch"] == "riscv64" and b["machine"]["name"] == "rv"
    assert all(b["runs"][p]["ok"] for p in PARTS), b["runs"]
    (tmp_path / "rv.json").write_text(proc.stdout)
    host = collect(clockscope, "--quick", "--parts", "doctor,bench", "-o", tmp_path / "host.json")
    assert host.returncode == 0
    rep = run([clockscope, "report", tmp_path / "host.json", tmp_path / "rv.json", "--markdown"])
    assert rep.returncode == 6, rep.stderr           # host has no warp part: named, still made
    assert "rv vs " in rep.stdout and "host.json: bundle has no 'warp' part" in rep.stderr


def collect_on_a_terminal(clockscope, cwd, *args):
    """collect with its stdout on a pseudo-terminal (stderr piped): (exit, what reached the
    terminal, stderr)."""
    import pty
    master, slave = pty.openpty()
    try:
        proc = subprocess.run([clockscope, "collect", *args], stdout=slave,
                              stderr=subprocess.PIPE, cwd=cwd, text=True, timeout=120)
        os.close(slave)
        slave = -1
        seen = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other side is closed and drained
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if slave >= 0:
            os.close(slave)
        os.close(master)
    return proc.returncode, seen.decode(errors="replace"), proc.stderr


def test_on_a_terminal_the_bundle_goes_to_a_new_named_file(clockscope, tmp_path):
    """No JSON poured onto a terminal: a file named after the machine and the minute, in the
    current directory, named on stderr; never over an existing file (a second run in the same
    minute adds -2); -o - still means the terminal."""
    code, seen, err = collect_on_a_terminal(clockscope, tmp_path, "--parts", "facts",
                                            "--name", "box/one")
    assert code == 0, err
    assert seen == "", seen[:200]                 # nothing reached the terminal
    [first] = tmp_path.glob("*.json")
    assert re.fullmatch(r"clockscope-box_one-\d{4}-\d\d-\d\dT\d{4}\.json", first.name), first
    assert f"bundle written to {first.name}" in err and "-o -" in err, err
    assert json.loads(first.read_text())["schema"] == "clockscope.bundle/1"
    before = first.read_bytes()
    # The same name taken already (this minute's and, should the minute turn, the next's):
    # a new file beside them, the old ones untouched.
    stamp = time.strftime("%Y-%m-%dT%H%M", time.gmtime(time.time() + 60))
    sentinel = tmp_path / f"clockscope-box_one-{stamp}.json"
    sentinel.write_text("mine")
    code, seen, err = collect_on_a_terminal(clockscope, tmp_path, "--parts", "facts",
                                            "--name", "box/one")
    assert code == 0 and seen == "", err
    new = set(tmp_path.glob("*.json")) - {first, sentinel}
    assert len(new) == 1, new
    [second] = new
    assert re.fullmatch(r"clockscope-box_one-\d{4}-\d\d-\d\dT\d{4}-2\.json", second.name), second
    assert first.read_bytes() == before and sentinel.read_text() == "mine"
    assert f"bundle written to {second.name}" in err
    # -o - asks for the terminal: the bundle is there, no file is made.
    code, seen, err = collect_on_a_terminal(clockscope, tmp_path, "--parts", "facts", "-o", "-")
    assert code == 0 and '"clockscope.bundle/1"' in seen, err
    assert len(list(tmp_path.glob("*.json"))) == 3

