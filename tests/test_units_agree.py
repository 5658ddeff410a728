# SPDX-License-Identifier: MIT
"""The report's units.py and the commands' units.c print the same strings for the same
figure: durations, a table's ns number, rates and counts, over every boundary where a
form changes (a decade, a unit, a prefix) and the values either side of it."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "report"))
from clockscope_report import units  # noqa: E402


def inputs():
    values = [0.0, -0.0, 0.004, 0.5, 1, 2.5, 4.561, 33.54, 245.4, 999.4, 999.5, 12706.2,
              1.2e6, 2.5e9, 3.6e12, -15.25, -2500, 78483, 211000, 45.1e6, 681.7e6,
              18446744073709551615.0, float("nan"), float("inf"), float("-inf")]
    for decade in range(-1, 16):
        edge = 10.0 ** decade
        for f in (0.9994, 0.99949, 0.9995, 0.99951, 0.9996, 0.99994, 0.99995, 0.99996,
                  0.999994, 0.999995, 0.999996, 1, 1.00001, 1.005, 1.0049):
            values += [edge * f, -edge * f]
    return values


def c_table(tmp_path, values):
    exe = tmp_path / "units_table"
    subprocess.run(["cc", "-O2", "-I", str(ROOT / "src"), "-o", str(exe),
                    str(ROOT / "tests/progs/units_table.c"), str(ROOT / "src/common/units.c"),
                    "-lm"], check=True)
    text = "\n".join(repr(v) for v in values) + "\n"
    out = subprocess.run([str(exe)], input=text, capture_output=True, text=True, check=True)
    return [line.split("\t") for line in out.stdout.splitlines()]


def test_c_and_python_print_the_same(tmp_path):
    values = inputs()
    rows = c_table(tmp_path, values)
    assert len(rows) == len(values)
    wrong = []
    for v, c in zip(values, rows):
        py = [units.fmt_ns(v), units.fmt_ns_number(v), units.fmt_rate(v), units.fmt_count(v)]
        if py != c:
            wrong.append((v, c, py))
    assert not wrong, "\n".join(f"{v!r}: C {c} Python {py}" for v, c, py in wrong[:20])


def test_the_table_crosses_every_form():
    """The inputs reach every unit and prefix, so that agreement is not agreement on one form."""
    values = inputs()
    ns = {units.fmt_ns(v).split(" ")[-1] for v in values}
    assert {"ns", "µs", "ms", "s", "-"} <= ns
    rates = {units.fmt_rate(v).split(" ")[-1] for v in values}
    assert {"/s", "k/s", "M/s", "G/s", "T/s", "E/s"} <= rates
    assert "—" == units.fmt_ns(None) == units.fmt_rate(None) == units.fmt_count(None)
