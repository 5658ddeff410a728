# SPDX-License-Identifier: MIT
"""The report as one self-contained HTML file: inline CSS and inline SVG, no script, nothing
fetched at view time.  Order: the answer, the fleet summary (many machines), the tables,
the parts' sections (registry.PARTS), the charts, each machine's doctor findings, each
machine's description."""

import datetime
import re
from html import escape
from typing import List, Sequence

from .analysis import Fleet, Report
from .part import Chart, Part
from .text import FLEET_HEADER, NOTE_MARK, RATIO_NOTE, comparison_table, fleet_rows, part_sections

CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2em auto; max-width: 1300px;
       padding: 0 1em; color: #1a1a1a; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { margin-top: 1.8em; border-bottom: 1px solid #ddd; }
.answer { background: #fff8e1; border-left: 5px solid #f0a500; padding: 0.8em 1.2em; font-size: 1.08em; }
.answer li { margin: 0.3em 0; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.3em 0.6em; vertical-align: top; }
th { background: #f2f2f2; text-align: left; } td.num { text-align: right; white-space: nowrap; }
td.vs { text-align: right; white-space: nowrap; }
td.slower { color: #b00020; font-weight: 600; } td.faster { color: #1b6e20; } td.same { color: #555; }
td.why { font-size: 0.88em; min-width: 14em; }
.answer details { margin: 0.1em 0 0.4em 0; color: #333; font-size: 0.92em; }
th { overflow-wrap: break-word; }
td.name { white-space: nowrap; }
tr.group td { border-top: 2px solid #888; }
table.machines td { overflow-wrap: anywhere; max-width: 14em; font-size: 0.9em; }
.chart { margin: 1.2em 0; } .chart svg { max-width: 100%; height: auto; }
.problems { background: #fdecea; border-left: 5px solid #b00020; padding: 0.6em 1.2em; }
.sev-critical { color: #b00020; font-weight: 700; } .sev-warning { color: #c45500; font-weight: 600; }
.sev-notice { color: #0b5394; } .sev-info { color: #555; }
.muted { color: #666; font-size: 0.9em; } code { background: #f4f4f4; padding: 0 0.2em; }
details { margin: 0.4em 0; } summary { cursor: pointer; }
"""


def _svg_inline(svg: str, prefix: str) -> str:
    """matplotlib's ids are unique within one SVG only: prefix them so that several SVGs
    in one document never resolve each other's clip paths or glyphs."""
    svg = re.sub(r'id="([^"]+)"', lambda mt: f'id="{prefix}{mt.group(1)}"', svg)
    svg = re.sub(r'url\(#([^)]+)\)', lambda mt: f'url(#{prefix}{mt.group(1)})', svg)
    return re.sub(r'href="#([^"]+)"', lambda mt: f'href="#{prefix}{mt.group(1)}"', svg)


def _td(text: str, cls: str = "") -> str:
    return f'<td class="{cls}">{escape(text)}</td>' if cls else f"<td>{escape(text)}</td>"


def _vs_class(text: str) -> str:
    if "slower" in text and "no significant" not in text:
        return "vs slower"
    if "faster" in text and "no significant" not in text:
        return "vs faster"
    return "vs same"


def _why_td(text: str) -> str:
    """A why cell: the cause in a few words, its note number a link to the machine's note."""
    mark = NOTE_MARK.search(text)
    if not mark:
        return _td(text, "why")
    n = mark.group(1)
    return (f'<td class="why">{escape(text[:mark.start()])} '
            f'<a href="#note-{n}">[{n}]</a></td>')


def _comparison(rep: Report) -> List[str]:
    header, rows, right = comparison_table(rep)
    out = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>"]
    for cells in rows:
        tds = []
        for k, c in enumerate(cells):
            if k == len(cells) - 1:
                tds.append(_why_td(c))
            elif header[k].startswith("vs ") or " vs " in header[k]:
                tds.append(_td(c, _vs_class(c)))
            else:
                tds.append(_td(c, "num" if k in right else ("name" if header[k] == "machine" else "")))
        # The first row of each API's group in the long form starts a band.
        style = ' class="group"' if cells[0] else ""
        out.append(f"<tr{style}>" + "".join(tds) + "</tr>")
    out.append("</table>")
    return out


def _fleet_table(rep: Report) -> List[str]:
    out = ["<table><tr>" + "".join(f"<th>{escape(h)}</th>" for h in FLEET_HEADER) + "</tr>"]
    for _, cells in fleet_rows(rep):
        tds = [_td(cells[0]), _td(cells[1]), _td(cells[2]), _td(cells[3]), _td(cells[4], "num"),
               _td(cells[5], "num"), _td(cells[6], _vs_class(cells[6])), _td(cells[7], "why")]
        out.append("<tr>" + "".join(tds) + "</tr>")
    out.append("</table>")
    return out


def _fleet_summary(f: Fleet) -> List[str]:
    out = ["<h2>Fleet summary</h2>", '<table><tr><th>verdict</th><th>machines</th></tr>']
    out += [f"<tr>{_td(k)}{_td(str(v), 'num')}</tr>" for k, v in f.verdicts.most_common()]
    out.append("</table>")
    out.append('<table><tr><th>clocksource</th><th>machines</th></tr>')
    out += [f"<tr>{_td(k)}{_td(str(v), 'num')}</tr>" for k, v in f.clocksources.most_common()]
    out.append("</table>")
    if f.findings:
        out.append('<table><tr><th>finding (notice and worse)</th><th>machines</th></tr>')
        out += [f"<tr><td><code>{escape(k)}</code> {escape(f.finding_titles[k])}</td>{_td(str(v), 'num')}</tr>"
                for k, v in f.findings.most_common(15)]
        out.append("</table>")
    c = f.cost
    if c:
        from .units import fmt_ns
        out.append(f"<p>clock_gettime(CLOCK_MONOTONIC) over {c.n} machines: min {fmt_ns(c.min)}, "
                   f"p10 {fmt_ns(c.p10)}, median {fmt_ns(c.median)}, p90 {fmt_ns(c.p90)}, "
                   f"max {fmt_ns(c.max)}.</p>")
    return out


def _findings(rep: Report) -> List[str]:
    out = ["<h2>Doctor findings, per machine</h2>"]
    fleet = rep.is_fleet
    for m in rep.machines:
        d = m.diagnosis
        head = f"{escape(m.name)}: " + (f"{escape(d.verdict)} — {escape(d.summary)}" if d else
                                        escape("no diagnosis (" + m.part_errors.get("doctor", "no doctor part") + ")"))
        out.append(f"<details{'' if fleet else ' open'}><summary><b>{head}</b></summary>")
        if d:
            out.append("<ul>")
            for f in d.findings:
                out.append(f'<li><span class="sev-{escape(f.severity)}">{escape(f.severity)}</span> '
                           f"<code>{escape(f.id)}</code> {escape(f.title)}")
                if f.evidence:
                    out.append('<div class="muted">' + "<br>".join(escape(e) for e in f.evidence[:6]) + "</div>")
                if f.meaning:
                    out.append(f"<div>{escape(f.meaning)}</div>")
                if f.fix:
                    out.append("<div>fix: " + "<br>".join(f"<code>{escape(x)}</code>" for x in f.fix) + "</div>")
                if f.gain:
                    out.append(f"<div>gain: {escape(f.gain)}</div>")
                out.append("</li>")
            out.append("</ul>")
        out.append("</details>")
    return out


DESCRIBE = ["arch", "cpu_model", "kernel", "clocksource", "available_clocksource", "virtualization",
            "emulation", "cpus_online", "loadavg_1m"]


def _descriptions(rep: Report) -> List[str]:
    cols = ["machine"] + DESCRIBE + ["collected", "clockscope", "file", "parts"]
    out = ["<h2>Machines</h2>",
           # a break opportunity after each "_" of a field name: "available_/clocksource", never
           # inside a word
           '<table class="machines"><tr>' + "".join(f"<th>{escape(c).replace('_', '_<wbr>')}</th>"
                                                    for c in cols) + "</tr>"]
    for m in rep.machines:
        parts = ", ".join(m.parts + [f"{p}: {e}" for p, e in m.part_errors.items()])
        vals = [m.name] + [str(m.description.get(k, "—")) for k in DESCRIBE] + \
               [m.started or "—", m.version or "—", m.source, parts]
        out.append("<tr>" + "".join(_td(v) for v in vals) + "</tr>")
    out.append("</table>")
    return out


def _answer(rep: Report) -> List[str]:
    """One line per machine, its full paragraph folded under it."""
    out = []
    for a in rep.answer:
        note = rep.notes.get(a.machine)
        out.append(f"<li>{escape(a.text)}" + (f"<details><summary>why</summary>{escape(note)}</details>"
                                               if note else "") + "</li>")
    return out


def _why(rep: Report) -> List[str]:
    """Each machine's cause, its doctor's explanation and evidence folded under it; a note's
    number (the why cells link here) on the machines that have one."""
    out = ["<h3>Why, from each machine's doctor</h3>"]
    for m in rep.machines:
        e = rep.explanations[m.name]
        n = rep.note_number(m.name)
        anchor = f' id="note-{n}"' if n else ""
        out.append(f"<details{anchor}><summary>" + (f"[{n}] " if n else "") +
                   f"<b>{escape(m.name)}</b>: {escape(e.cause)}</summary>"
                   f"<p>{escape(rep.notes.get(m.name) or e.short)}</p>" +
                   ("<div class=\"muted\">" + "<br>".join(escape(d) for d in e.details) + "</div>"
                    if e.details else "") + "</details>")
    return out


def render(rep: Report, charts: List[Chart], parts: Sequence[Part]) -> str:
    n = len(rep.machines)
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           f"<title>clockscope report: {n} machine{'s' if n != 1 else ''}</title>",
           f"<style>{CSS}</style></head><body>",
           f"<h1>clockscope report: {n} machine{'s' if n != 1 else ''}</h1>",
           f'<p class="muted">Generated {when}. Baseline: <b>{escape(rep.baseline.name)}</b>. '
           f"{escape(RATIO_NOTE)}</p>",
           '<div class="answer"><b>The answer</b><ul>'] + _answer(rep) + ["</ul></div>"]
    if rep.problems:
        out.append('<div class="problems"><b>Input problems</b> (the rest of the report is complete):<ul>')
        out += [f"<li>{escape(str(p))}</li>" for p in rep.problems]
        out.append("</ul></div>")
    if rep.fleet:
        out += _fleet_summary(rep.fleet)
    out.append("<h2>Cost of reading the time</h2>")
    out += _fleet_table(rep) if rep.is_fleet else _comparison(rep)
    if not rep.is_fleet:
        out += _why(rep)
    out.append('<p class="muted">(noisy): the samples\' spread exceeded bench\'s noise limit, '
               "or the run said its machine's speed changed or its processes split in two "
               'levels; '
               "— not measured on that machine.</p>")
    out += part_sections(rep, "html", parts)
    if charts:
        out.append("<h2>Charts</h2>")
        for k, (name, title, svg) in enumerate(charts):
            out.append(f'<div class="chart" id="chart-{k}" data-file="{escape(name)}">'
                       f"<h3>{escape(title)}</h3>{_svg_inline(svg, f'c{k}-')}</div>")
    out += _findings(rep)
    out += _descriptions(rep)
    out.append("</body></html>")
    return "\n".join(out) + "\n"
