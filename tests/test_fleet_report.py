# SPDX-License-Identifier: MIT
"""`clockscope report` reads `doctor --roots DIR --json` (JSON lines) as one machine per root:
its fleet summary counts their verdicts, clocksources and findings; error lines, a missing
summary and broken lines are named, the rest reported."""
import json

from conftest import ROOT, run

CORPUS = ROOT.parent / "shared" / "corpus" / "cases"


def doctor_lines(clockscope, tmp_path, *extra):
    proc = run([clockscope, "doctor", "--roots", CORPUS, *extra, "--json"])
    out = tmp_path / "fleet.jsonl"
    out.write_text(proc.stdout)
    return out, [json.loads(x) for x in proc.stdout.splitlines()]


def test_report_counts_every_root(clockscope, tmp_path):
    path, docs = doctor_lines(clockscope, tmp_path)
    proc = run([clockscope, "report", path, "--markdown"])
    assert proc.returncode == 0, proc.stderr
    roots = docs[:-1]
    assert f"# clockscope report: {len(roots)} machines" in proc.stdout
    verdicts = docs[-1]["verdicts"]
    line = next(l for l in proc.stdout.splitlines() if l.startswith("Machines per verdict: "))
    said = dict(x.rsplit(" ", 1) for x in line.split(": ", 1)[1].split(", "))
    assert {k: int(v) for k, v in said.items()} == {k: v for k, v in verdicts.items() if v}
    for d in roots:
        name = d["root"].rsplit("/", 1)[-1]
        row = next(l for l in proc.stdout.splitlines() if l.startswith(f"| {name} |"))
        assert f"| {d['verdict']} |" in row, row


def test_error_lines_and_truncation_are_named(clockscope, tmp_path):
    path, docs = doctor_lines(clockscope, tmp_path, "--root", tmp_path / "gone")
    proc = run([clockscope, "report", path, "--markdown"])
    assert proc.returncode == 6, proc.stderr  # produced, but an input was incomplete
    assert f"root '{tmp_path / 'gone'}' could not be read: facts root" in proc.stderr
    assert f"# clockscope report: {len(docs) - 2} machines" in proc.stdout
    # Cut short: no summary line, and a line broken in the middle.
    lines = path.read_text().splitlines()
    path.write_text("\n".join(lines[:3] + [lines[3][:50]]) + "\n")
    proc = run([clockscope, "report", path, "--markdown"])
    assert proc.returncode == 6
    assert f"{path}:4: not a JSON document" in proc.stderr
    assert "no summary line (clockscope.doctor.fleet/1)" in proc.stderr
    assert "# clockscope report: 2 machines" in proc.stdout
