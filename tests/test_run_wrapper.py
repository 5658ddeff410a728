# SPDX-License-Identifier: MIT
"""`clockscope run -- WRAPPER`: when the command is a script (or `env`) that execs the real program (pyenv
and conda shims, distributions' `python3` wrappers, `#!/usr/bin/env python3`), the shim
follows it into that program, and only into it: not into the helpers the wrapper starts, nor
into the program's own children.  Real wrapper scripts around a real python3."""
import os
import re
import sys

import pytest

from conftest import make, run

# The interpreter binary itself (an ELF file, dynamically linked), never a wrapper.
PYTHON = os.path.realpath(sys.executable)
CALLS = 1000
# 1000 calls of time.time(): CLOCK_REALTIME through libc.
LOOP = f"import time\nfor _ in range({CALLS}): time.time()\n"
REPORT = re.compile(r"^clockscope run --mode count: pid (\d+) \(([^)]*)\)", re.M)
REALTIME = re.compile(r"^\s+(\d+)\s+[\d.]+ [kMGTPE]?/s\s+clock_gettime\(CLOCK_REALTIME\)", re.M)


def script(path, text):
    path.write_text(text)
    path.chmod(0o755)
    return path


def reports(stderr):
    """[(pid, exe, realtime calls)] for every count table printed."""
    out = []
    starts = [m.start() for m in REPORT.finditer(stderr)] + [len(stderr)]
    for a, b in zip(starts, starts[1:]):
        block = stderr[a:b]
        head = REPORT.match(block)
        rt = REALTIME.search(block)
        out.append((int(head.group(1)), head.group(2), int(rt.group(1)) if rt else 0))
    return out


@pytest.fixture
def wrapper(tmp_path):
    """A pyenv-style wrapper: bash, helper programs, subshells that exit without exec (bash
    forks for $(builtin)), then exec of python3."""
    return script(tmp_path / "python3", f"""#!/bin/bash
here=$(dirname "$0")
name=$(echo "${{0##*/}}")
kernel=$(uname -s)
[ -n "$here" ] && [ "$name" = python3 ] && [ -n "$kernel" ] || exit 99
exec {PYTHON} "$@"
""")


def test_count_reaches_the_interpreter_a_wrapper_execs(cs, wrapper):
    proc = run([cs, "run", "--mode", "count", "--", wrapper, "-c", LOOP])
    assert proc.returncode == 0, proc.stderr
    tables = reports(proc.stderr)
    # One table: python's (the wrapper's subshells and helpers print none), with its calls.
    assert len(tables) == 1, proc.stderr
    pid, exe, realtime = tables[0]
    assert "python" in exe and realtime >= CALLS, proc.stderr


def test_no_follow_serves_only_the_script_interpreter(cs, wrapper):
    proc = run([cs, "run", "--mode", "count", "--no-follow", "--", wrapper, "-c", LOOP])
    assert proc.returncode == 0, proc.stderr
    # The shell execs python without the shim: python's calls are not counted anywhere.
    assert all(realtime == 0 for _, _, realtime in reports(proc.stderr)), proc.stderr


def test_verbose_says_it_follows_the_script(cs, wrapper):
    proc = run([cs, "run", "--verbose", "--mode", "count", "--", wrapper, "-c", "pass"])
    assert proc.returncode == 0, proc.stderr
    assert "is a script: the shim also serves the program it execs" in proc.stderr, proc.stderr
    proc = run([cs, "run", "--verbose", "--no-follow", "--", wrapper, "-c", "pass"])
    assert "serves only its interpreter (--no-follow)" in proc.stderr, proc.stderr
    # Quiet without --verbose.
    proc = run([cs, "run", "--", wrapper, "-c", "pass"])
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr


def test_nested_wrappers_and_env_shebang(cs, tmp_path, wrapper):
    """pyenv's chain: a wrapper execs another wrapper, which execs python running a script
    whose shebang goes through env."""
    outer = script(tmp_path / "outer", f"#!/bin/sh\nexec {wrapper} \"$@\"\n")
    app = script(tmp_path / "app.py", f"#!/usr/bin/env {PYTHON}\n{LOOP}")
    for cmd in ([outer, "-c", LOOP], [app]):
        proc = run([cs, "run", "--mode", "count", "--", *cmd])
        assert proc.returncode == 0, proc.stderr
        tables = reports(proc.stderr)
        assert len(tables) == 1 and tables[0][2] >= CALLS, (cmd, proc.stderr)


def test_pyenv_shaped_chain_is_followed_to_the_interpreter(cs, tmp_path):
    """pyenv's own chain: the shim `python3` is `#!/usr/bin/env bash` (env, then bash, whose
    AT_EXECFN names bash itself, not the script), which execs a second bash script (pyenv's
    libexec), which runs helpers, starts a python of its own, and finally execs the
    interpreter.  Only the interpreter the chain becomes is served, with every call."""
    bindir = tmp_path / "bin"
    bindir.mkdir()
    libexec = script(tmp_path / "pyenv-exec", f"""#!/usr/bin/env bash
set -e
root=$(dirname "$0")
[ -d "$root" ] && [ "$(uname -s)" = Linux ]
{PYTHON} -c '{LOOP}'
exec {PYTHON} "$@"
""")
    script(bindir / "python3", f"""#!/usr/bin/env bash
set -e
program="${{0##*/}}"
export PYENV_VERSION=system
exec "{libexec}" "$@"
""")
    code = "import time; [time.time() for _ in range(2000)]"
    env = dict(os.environ, PATH=f"{bindir}:{os.environ.get('PATH', '')}")
    proc = run([cs, "run", "--mode", "count", "--", "python3", "-c", code], env=env)
    assert proc.returncode == 0, proc.stderr
    tables = reports(proc.stderr)
    # One table, the interpreter's: the helper python the chain starts is not served.
    assert len(tables) == 1, proc.stderr
    pid, exe, realtime = tables[0]
    assert "python" in exe and realtime >= 2000, proc.stderr


def test_whatever_python3_the_path_gives(cs):
    """The machine's own `python3`, and every other one on PATH (a pyenv shim on some
    machines, a link or a binary on others; under pytest started by pyenv, the version's
    own directory comes first and the shims directory later)."""
    code = "import time; [time.time() for _ in range(2000)]"
    found, seen = ["python3"], set()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        p = os.path.join(d, "python3")
        if d and os.access(p, os.X_OK) and os.path.realpath(p) not in seen and len(found) < 4:
            seen.add(os.path.realpath(p))
            found.append(p)
    for python in found:
        proc = run([cs, "run", "--mode", "count", "--", python, "-c", code])
        assert proc.returncode == 0, (python, proc.stderr)
        tables = [t for t in reports(proc.stderr) if t[2]]
        assert len(tables) == 1 and tables[0][2] >= 2000, (python, proc.stderr)


def test_env_as_the_command_is_followed(cs):
    """`env` is a program, not a script: the process still becomes python by exec."""
    proc = run([cs, "run", "--mode", "count", "--", "env", "PYTHONHASHSEED=0", PYTHON, "-c", LOOP])
    assert proc.returncode == 0, proc.stderr
    tables = reports(proc.stderr)
    assert len(tables) == 1 and tables[0][2] >= CALLS, proc.stderr


def test_programs_the_wrapper_starts_without_exec_are_not_served(cs, tmp_path):
    """Only the process the wrapper becomes is the program: a python3 it merely starts
    (a helper) runs without the shim."""
    starter = script(tmp_path / "starter", f"#!/bin/sh\n{PYTHON} -c '{LOOP}'\nexec true\n")
    proc = run([cs, "run", "--mode", "count", "--", starter])
    assert proc.returncode == 0, proc.stderr
    assert all(realtime == 0 for _, _, realtime in reports(proc.stderr)), proc.stderr


def test_the_programs_own_children_run_without_the_shim(cs, wrapper):
    child = f"import os; print('child', os.environ.get('LD_PRELOAD', ''), " \
            f"os.environ.get('CLOCKSCOPE_RUN_FOLLOW_PID', ''))"
    parent = f"import subprocess, sys; subprocess.run([sys.executable, '-c', {child!r}])"
    proc = run([cs, "run", "--mode", "count", "--", wrapper, "-c", parent])
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["child"], proc.stdout


def test_inherit_still_keeps_the_shim_everywhere(cs, tmp_path):
    starter = script(tmp_path / "starter", f"#!/bin/sh\n{PYTHON} -c '{LOOP}'\nexec true\n")
    proc = run([cs, "run", "--mode", "count", "--inherit", "--", starter])
    assert proc.returncode == 0, proc.stderr
    assert any(realtime >= CALLS for _, _, realtime in reports(proc.stderr)), proc.stderr
