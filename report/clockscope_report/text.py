# SPDX-License-Identifier: MIT
"""The report as text: the terminal table, Markdown, CSV."""

import csv
import io
import re
from typing import List, Sequence, Set

from .analysis import KEY_ROW, AnswerLine, Fleet, Report, Row
from .part import Part
from .textwidth import aligned, fit, wrap
from .units import fmt_ns, fmt_rate

NOISY = " (noisy)"
RATIO_NOTE = ("Ratios: the medians' ratio with its 95% bootstrap interval where both bundles hold "
              "their samples, else the range both p10-p90 allow (\"range\"); \"no significant "
              "difference\" when that interval contains 1.")


def part_sections(rep: Report, form: str, parts: Sequence[Part]) -> List[str]:
    """Every part's section in one form ("text", "markdown", "html"), in the parts' order
    (registry.PARTS)."""
    out = []
    for part in parts:
        hook = part.section(form)
        if hook is not None:
            out += hook(rep)
    return out


def _cost(cell) -> str:
    if cell.measure is None:
        return "—"
    if cell.measure.stat is None:
        return "n/a"
    return fmt_ns(cell.measure.stat.median) + (NOISY if cell.measure.noisy else "")


def _rate(cell) -> str:
    return fmt_rate(cell.measure.calls_per_sec) if cell.measure and cell.measure.stat else "—"


# A footnote mark: " [N]" at the end of an answer line or a why cell (Markdown: [^N]; HTML:
# a link to the note).
NOTE_MARK = re.compile(r" \[(\d+)\]$")


def note_mark(rep: Report, machine: str) -> str:
    n = rep.note_number(machine)
    return f" [{n}]" if n else ""


def answer_line(rep: Report, a: AnswerLine) -> str:
    return a.text + note_mark(rep, a.machine)


def _why_cell(rep: Report, row: Row, i: int, explained: set) -> str:
    """The reason beside machine i on this row: a runtime figure's harness note, or, when
    the machine is much slower than the baseline, its cause in a few words and the number
    of the note that explains it: once, on the first such row (it is the machine's, the
    same for every row)."""
    m, cell = rep.machines[i], row.cells[i]
    if cell.note:
        return cell.note
    if not (cell.ratio and cell.ratio.much_slower) or m.name in explained:
        return ""
    explained.add(m.name)
    return rep.explanations[m.name].cause + note_mark(rep, m.name)


def _table_rows(rep: Report):
    """The table's rows: the bench APIs.  Runtime APIs have their own section (runtimes.py),
    with their harness and path and the same comparison: shown once, there."""
    return [r for r in rep.rows if not r.runtime]


def comparison_table(rep: Report):
    """(header, rows, right-aligned column indexes).  Two machines: the wide form of the RISC-V
    clock_gettime report,
    one row per API with both machines side by side.  Otherwise one row per API and
    machine.  The last column is the reason beside each much slower machine."""
    explained: Set[str] = set()
    base_i = rep.machines.index(rep.baseline)
    if len(rep.machines) == 2:
        other_i = 1 - base_i
        o = rep.machines[other_i]
        header = ["API", f"{rep.baseline.name} ns/call", f"{rep.baseline.name} calls/s",
                  f"{o.name} ns/call", f"{o.name} calls/s", f"{o.name} vs {rep.baseline.name}", "why"]
        rows = []
        for r in _table_rows(rep):
            b, c = r.cells[base_i], r.cells[other_i]
            rows.append([r.label, _cost(b), _rate(b), _cost(c), _rate(c),
                         c.ratio.words() if c.ratio else "—",
                         "; ".join(x for x in (b.note and f"{rep.baseline.name}: {b.note}",
                                               _why_cell(rep, r, other_i, explained)) if x)])
        return header, rows, {1, 2, 3, 4, 5}
    header = ["API", "machine", "ns/call", "calls/s", f"vs {rep.baseline.name}", "why"]
    rows = []
    for r in _table_rows(rep):
        first = True
        for i, m in enumerate(rep.machines):
            c = r.cells[i]
            if c.measure is None:       # not measured there (a runtime absent in a guest): no "—" line
                continue
            vs = "baseline" if m is rep.baseline else (c.ratio.words() if c.ratio else "—")
            rows.append([r.label if first else "", m.name, _cost(c), _rate(c), vs,
                         _why_cell(rep, r, i, explained)])
            first = False
    return header, rows, {2, 3, 4}


def fleet_rows(rep: Report):
    """One row per machine, slowest clock_gettime first: (machine, cells)."""
    idx = {m.name: i for i, m in enumerate(rep.machines)}
    key = next((r for r in rep.rows if r.key == KEY_ROW), None)

    def cost(m):
        s = m.stat(KEY_ROW)
        return -s.median if s else float("inf")
    out = []
    for m in sorted(rep.machines, key=cost):
        cell = key.cells[idx[m.name]] if key else None
        d = m.diagnosis
        vs = "baseline" if m is rep.baseline else (cell.ratio.words() if cell and cell.ratio else "—")
        out.append((m, [m.name, str(m.description.get("arch", "?")), str(m.description.get("clocksource") or "?"),
                        d.verdict if d else "—", _cost(cell) if cell else "—", _rate(cell) if cell else "—", vs,
                        rep.explanations[m.name].brief if cell and cell.ratio and cell.ratio.much_slower else ""]))
    return out


FLEET_HEADER = ["machine", "arch", "clocksource", "verdict", "clock_gettime(MONOTONIC)", "calls/s",
                "vs baseline", "why"]


def _md_escape(s: str) -> str:
    return NOTE_MARK.sub(r" [^\1]", s.replace("|", "\\|").replace("\n", " "))


def _md_table(header: List[str], rows: List[List[str]], right: set) -> List[str]:
    out = ["| " + " | ".join(_md_escape(h) for h in header) + " |",
           "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in rows]
    return out


def markdown(rep: Report, parts: Sequence[Part]) -> str:
    out = [f"# clockscope report: {len(rep.machines)} machine{'s' if len(rep.machines) != 1 else ''}", ""]
    out += [f"Baseline: **{rep.baseline.name}**. {RATIO_NOTE}", ""]
    out += ["## The answer", ""] + [f"- {_md_escape(answer_line(rep, a))}" for a in rep.answer] + [""]
    out += [f"[^{k}]: {note}" for k, note in enumerate(rep.notes.values(), 1)]
    out += [""] if rep.notes else []
    if rep.fleet:
        out += fleet_markdown(rep.fleet)
    if rep.is_fleet:
        out += ["## Machines", ""]
        out += _md_table(FLEET_HEADER, [c for _, c in fleet_rows(rep)], {4, 5})
        out.append("")
    else:
        header, rows, right = comparison_table(rep)
        out += ["## Cost of reading the time", ""] + _md_table(header, rows, right) + [""]
        out += ["## Why, from each machine's doctor", ""]
        for m in rep.machines:
            e = rep.explanations[m.name]
            out.append(f"- **{m.name}**: " + _md_escape(e.cause + note_mark(rep, m.name)))
            out.append(f"  - {e.short}")
            out += [f"  - {d}" for d in e.details]
        out.append("")
    out += part_sections(rep, "markdown", parts)
    if rep.problems:
        out += ["## Input problems", ""] + [f"- {p}" for p in rep.problems] + [""]
    return md_inert("\n".join(out))


def md_inert(text: str) -> str:
    """Markdown renderers pass raw HTML through: every '<' and '&' of the report (names,
    findings, evidence come from bundles) becomes an entity, which a renderer shows as the
    character and a browser never runs (<script>, <img onerror>).  The report's own
    Markdown uses neither."""
    return text.replace("&", "&amp;").replace("<", "&lt;")


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP, "CSV
# Injection"); a plain number (a negative one too) stays a number.
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_PLAIN_NUMBER = re.compile(r"^[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")


def csv_cell(v):
    """A cell a spreadsheet shows as text: a leading formula character gets a single quote
    before it, as OWASP recommends."""
    if isinstance(v, str) and v.startswith(_FORMULA_START) and not _PLAIN_NUMBER.match(v):
        return "'" + v
    return v


def fleet_markdown(f: Fleet) -> List[str]:
    out = ["## Fleet summary", ""]
    out.append("Machines per verdict: " + ", ".join(f"{k} {v}" for k, v in f.verdicts.most_common()))
    out.append("")
    out.append("Machines per clocksource: " + ", ".join(f"{k} {v}" for k, v in f.clocksources.most_common()))
    out.append("")
    if f.findings:
        out.append("Machines per finding (notice and worse):")
        out += [f"- {k} ({f.finding_titles[k]}): {v}" for k, v in f.findings.most_common(10)]
        out.append("")
    c = f.cost
    if c:
        out.append(f"clock_gettime(CLOCK_MONOTONIC) over {c.n} machines: min {fmt_ns(c.min)}, "
                   f"p10 {fmt_ns(c.p10)}, median {fmt_ns(c.median)}, p90 {fmt_ns(c.p90)}, "
                   f"max {fmt_ns(c.max)}")
        out.append("")
    return out


def terminal(rep: Report, parts: Sequence[Part]) -> str:
    """An aligned table for a terminal, within 100 columns; reasons on indented lines under
    their row, each machine's full paragraph a numbered note at the end."""
    n = len(rep.machines)
    out = [f"clockscope report: {n} machine{'s' if n != 1 else ''}, baseline {rep.baseline.name}", ""]
    for a in rep.answer:
        out += wrap(answer_line(rep, a))
    out.append("")
    if rep.fleet:
        out += fleet_markdown(rep.fleet)[2:]
    if rep.is_fleet:
        rows = fleet_rows(rep)
        header = FLEET_HEADER[:-1]
        table = [c[:-1] for _, c in rows]
        notes = [c[-1] for _, c in rows]
    else:
        header, rows, _ = comparison_table(rep)
        header = header[:-1]
        table = [r[:-1] for r in rows]
        notes = [r[-1] for r in rows]
    lines = aligned(header, table, range(1, len(header)))
    out += _with_reasons(lines, header, table, notes)
    out += part_sections(rep, "text", parts)
    if rep.notes:
        out += ["", "notes:"]
        for k, note in enumerate(rep.notes.values(), 1):
            out += wrap(f"[{k}] {note}", "", "    ")
    if rep.problems:
        out += ["", "input problems:"] + [f"  {p}" for p in rep.problems]
    return "\n".join(fit(out)) + "\n"


def _with_reasons(lines: List[str], header: List[str], table: List[List[str]], notes: List[str]) -> List[str]:
    """The table's lines with each row's reason ("↳ ...") under it.  aligned() may have put
    a row's first column on a line of its own: those lines are not rows."""
    out = []
    rows = iter(zip(table, notes))
    split = lines[0] == header[0] and len(lines) > len(table) + 1
    out.append(lines[0])
    rest = lines[1:]
    if split:
        out.append(rest[0])
        rest = rest[1:]
    for line in rest:
        out.append(line)
        if split and not line.startswith("  "):
            continue                    # a label line
        _, why = next(rows)
        if why:
            out += wrap(f"↳ {why}", "    ", "  ")
    return out


def csv_text(rep: Report) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["machine", "row", "measure", "label", "ns_median", "ns_p10", "ns_p90", "calls_per_sec", "noisy",
                "harness_ns_median", "baseline", "ratio", "ratio_low", "ratio_high", "interval", "direction",
                "significant"])
    for row in rep.rows:
        for m, cell in zip(rep.machines, row.cells):
            meas = cell.measure
            if meas is None:
                continue
            s, r = meas.stat, cell.ratio
            w.writerow([csv_cell(c) for c in [m.name, row.key, meas.id, row.label,
                        s.median if s else "", s.p10 if s else "", s.p90 if s else "",
                        meas.calls_per_sec if meas.calls_per_sec is not None else "", int(meas.noisy),
                        meas.harness.median if meas.harness else "", rep.baseline.name,
                        f"{r.ratio:.4g}" if r else "",
                        f"{r.low:.4g}" if r else "", f"{r.high:.4g}" if r else "", r.method if r else "",
                        ("slower" if r.slower else "faster") if r else "", int(r.significant) if r else ""]])
    return buf.getvalue()
