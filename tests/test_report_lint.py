# SPDX-License-Identifier: MIT
"""The report package (report/clockscope_report/) passes ruff and mypy with the settings of
report/pyproject.toml, as `make check` runs them: so that `make test` holds them too."""
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REPORT = ROOT / "report"


def _tool(name):
    probe = subprocess.run([sys.executable, "-m", name, "--version"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"{name} is not installed (scripts/install-deps.sh installs it from PyPI)")


@pytest.mark.parametrize("command", [["ruff", "check", "--no-cache", "clockscope_report"],
                                     ["mypy", "--cache-dir", "/dev/null", "clockscope_report"]],
                         ids=["ruff", "mypy"])
def test_report_package_is_clean(command):
    _tool(command[0])
    proc = subprocess.run([sys.executable, "-m", *command], cwd=REPORT, capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
