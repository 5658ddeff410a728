# SPDX-License-Identifier: MIT
"""The build products a user relies on: install layout and the static binary."""
import subprocess

from conftest import ROOT, make, run


def test_install_puts_the_binary_under_prefix(native_build, tmp_path):
    make("O=build", f"PREFIX={tmp_path}", "install")
    binary = tmp_path / "bin" / "clockscope"
    proc = run([binary, "--version"])
    assert proc.returncode == 0 and proc.stdout.startswith("clockscope ")


def test_static_build_has_no_dynamic_dependencies(tmp_path):
    make("O=build/static", "STATIC=1", "build/static/clockscope")
    out = subprocess.run(["file", ROOT / "build/static/clockscope"], capture_output=True,
                         text=True).stdout
    assert "statically linked" in out, out
    proc = run([ROOT / "build/static/clockscope", "bench", "--quick", "--only", "libc.time"])
    assert proc.returncode == 0 and "libc.time" in proc.stdout
