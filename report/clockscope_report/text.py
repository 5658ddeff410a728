"""The report as text: the terminal table, Markdown, CSV."""

import csv
import io
from typing import List

from .analysis import KEY_ROW, Report, Row
from .compare import fmt_ns, fmt_rate

NOISY = " (noisy)"


def _cost(cell) -> str:
    if cell.measure is None:
        return "—"
    if cell.measure.stat is None:
        return "n/a"
    return fmt_ns(cell.measure.stat.median) + (NOISY if cell.measure.noisy else "")


def _rate(cell) -> str:
    return fmt_rate(cell.measure.calls_per_sec) if cell.measure and cell.measure.stat else "—"


def _vs(rep: Report, row: Row, i: int) -> str:
    m = rep.machines[i]
    cell = row.cells[i]
    if m is rep.baseline:
        return "baseline"
    if cell.ratio is None:
        return "—"
    return cell.ratio.words(rep.baseline.name)


def _why(rep: Report, row: Row) -> List[str]:
    """The reasons beside a row: each machine much slower than the baseline on it, and
    each runtime figure's harness note."""
    out = []
    for m, cell in zip(rep.machines, row.cells):
        if cell.note:
            out.append(f"{m.name}: {cell.note}")
        elif cell.ratio and cell.ratio.much_slower:
            out.append(f"{m.name}: {rep.explanations[m.name].short}")
    return out


def comparison_header(rep: Report) -> List[str]:
    cols = ["API"]
    for m in rep.machines:
        cols += [f"{m.name} ns/call", f"{m.name} calls/s"]
        if m is not rep.baseline:
            cols.append(f"{m.name} vs {rep.baseline.name}")
    return cols


def comparison_cells(rep: Report, row: Row) -> List[str]:
    vals = [row.label]
    for i, m in enumerate(rep.machines):
        vals += [_cost(row.cells[i]), _rate(row.cells[i])]
        if m is not rep.baseline:
            vals.append(_vs(rep, row, i))
    return vals


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
        vs = "baseline" if m is rep.baseline else (cell.ratio.words(rep.baseline.name) if cell and cell.ratio else "—")
        out.append((m, [m.name, str(m.description.get("arch", "?")), str(m.description.get("clocksource") or "?"),
                        d.verdict if d else "—", _cost(cell) if cell else "—", _rate(cell) if cell else "—", vs,
                        rep.explanations[m.name].short if cell and cell.ratio and cell.ratio.much_slower else ""]))
    return out


FLEET_HEADER = ["machine", "arch", "clocksource", "verdict", "clock_gettime(MONOTONIC)", "calls/s",
                f"vs baseline", "why"]


def _md_escape(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _md_table(header: List[str], rows: List[List[str]], right: set) -> List[str]:
    out = ["| " + " | ".join(_md_escape(h) for h in header) + " |",
           "|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(_md_escape(c) for c in r) + " |" for r in rows]
    return out


def markdown(rep: Report) -> str:
    out = [f"# clockscope report: {len(rep.machines)} machine{'s' if len(rep.machines) != 1 else ''}", ""]
    out += [f"Baseline: **{rep.baseline.name}**. Ratios are medians' ratios ± the propagated p10-p90 "
            "half-widths; \"no significant difference\" when the p10-p90 ranges overlap.", ""]
    out += ["## The answer", ""] + [f"- {a}" for a in rep.answer] + [""]
    if rep.fleet:
        out += fleet_markdown(rep)
    if rep.is_fleet:
        out += ["## Machines", ""]
        out += _md_table(FLEET_HEADER, [c for _, c in fleet_rows(rep)], {4, 5})
        out.append("")
    else:
        header = comparison_header(rep) + ["why"]
        right = set(range(1, len(header) - 1))
        rows = [comparison_cells(rep, r) + ["; ".join(_why(rep, r))] for r in rep.rows]
        out += ["## Cost of reading the time", ""] + _md_table(header, rows, right) + [""]
        out += ["## Why, from each machine's doctor", ""]
        for m in rep.machines:
            e = rep.explanations[m.name]
            out.append(f"- **{m.name}**: {e.short}")
            out += [f"  - {d}" for d in e.details]
        out.append("")
    if rep.problems:
        out += ["## Input problems", ""] + [f"- {p}" for p in rep.problems] + [""]
    return "\n".join(out)


def fleet_markdown(rep: Report) -> List[str]:
    f = rep.fleet
    out = ["## Fleet summary", ""]
    out.append("Machines per verdict: " + ", ".join(f"{k} {v}" for k, v in f["verdicts"].most_common()))
    out.append("")
    out.append("Machines per clocksource: " + ", ".join(f"{k} {v}" for k, v in f["clocksources"].most_common()))
    out.append("")
    if f["findings"]:
        out.append("Machines per finding (notice and worse):")
        out += [f"- {k} ({f['finding_titles'][k]}): {v}" for k, v in f["findings"].most_common(10)]
        out.append("")
    c = f["cost"]
    if c:
        out.append(f"clock_gettime(CLOCK_MONOTONIC) over {c['n']} machines: min {fmt_ns(c['min'])}, "
                   f"p10 {fmt_ns(c['p10'])}, median {fmt_ns(c['median'])}, p90 {fmt_ns(c['p90'])}, "
                   f"max {fmt_ns(c['max'])}")
        out.append("")
    return out


def terminal(rep: Report) -> str:
    """An aligned table for a terminal; reasons on indented lines under their row."""
    out = [f"clockscope report: {len(rep.machines)} machines, baseline {rep.baseline.name}", ""]
    out += rep.answer + [""]
    if rep.fleet:
        out += [l for l in fleet_markdown(rep)[2:]]
    if rep.is_fleet:
        rows = fleet_rows(rep)
        header = FLEET_HEADER[:-1]
        table = [c[:-1] for _, c in rows]
        notes = [[c[-1]] if c[-1] else [] for _, c in rows]
    else:
        header = comparison_header(rep)
        table = [comparison_cells(rep, r) for r in rep.rows]
        notes = [_why(rep, r) for r in rep.rows]
    widths = [max(len(h), *(len(r[i]) for r in table)) if table else len(h) for i, h in enumerate(header)]
    out.append("  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths))))
    for r, why in zip(table, notes):
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
        out += [f"    ↳ {w}" for w in why]
    if rep.problems:
        out += ["", "input problems:"] + [f"  {p}" for p in rep.problems]
    return "\n".join(out) + "\n"


def csv_text(rep: Report) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["machine", "row", "measure", "label", "ns_median", "ns_p10", "ns_p90", "calls_per_sec", "noisy",
                "harness_ns_median", "baseline", "ratio", "error", "direction", "significant"])
    for row in rep.rows:
        for m, cell in zip(rep.machines, row.cells):
            meas = cell.measure
            if meas is None:
                continue
            s, r = meas.stat, cell.ratio
            w.writerow([m.name, row.key, meas.id, row.label,
                        s.median if s else "", s.p10 if s else "", s.p90 if s else "",
                        meas.calls_per_sec if meas.calls_per_sec is not None else "", int(meas.noisy),
                        meas.harness.median if meas.harness else "", rep.baseline.name,
                        f"{r.ratio:.4g}" if r else "", f"{r.error:.3g}" if r else "",
                        ("slower" if r.slower else "faster") if r else "", int(r.significant) if r else ""])
    return buf.getvalue()
