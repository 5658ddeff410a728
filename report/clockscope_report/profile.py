# SPDX-License-Identifier: MIT
"""The `profile` part (clockscope.profile/2): where each machine's sampled time goes when it
reads the time, shown side by side: the share of all samples per path (vDSO, libc, runtime,
time syscalls, the kernel's clocksource read, named), as a table (terminal, Markdown, HTML)
and a stacked-bar chart.  Its PART is listed in registry.py."""

from dataclasses import dataclass, field
from html import escape
from typing import Dict, List, Optional, Tuple

from .analysis import Report
from .checks import lst, num, obj, string
from .model import Machine
from .part import Canvas, Chart, Part

# The categories of reading the time, in the order the profile command lists them, with
# the labels and colours shown here; "other" is the rest of the samples.
CATEGORIES = [
    ("vdso", "vDSO", "#1f77b4"),
    ("libc", "libc wrappers", "#aec7e8"),
    ("fastclock", "libfastclock", "#2ca02c"),
    ("runtime", "runtime clock functions", "#98df8a"),
    ("syscall", "time syscalls", "#ff7f0e"),
    ("clocksource", "kernel clocksource read", "#d62728"),
]
TIME_IDS = [c[0] for c in CATEGORIES]


@dataclass
class Profile:
    time_share: float                       # percent of all samples reading the time
    percents: Dict[str, float]              # category id -> percent of all samples
    clocksources: List[Tuple[str, float]]   # (name, percent), largest first
    samples: Optional[int]
    event: str
    source: str                             # live, perf-script, perf-report, perf-data
    target: Optional[str]                   # command, pid, all, clock-loop (live)
    notes: List[str] = field(default_factory=list)


def of(m: Machine) -> Optional[Profile]:
    """The machine's profile part, or None."""
    return m.data.get("profile")


def read(doc: dict, m: Machine) -> None:
    """The machine's data["profile"] from a clockscope.profile/2 document (raises
    checks.Malformed naming the field)."""
    percents = {}
    for i, c in enumerate(lst(doc.get("categories"), "categories")):
        c = obj(c, f"categories[{i}]")
        cid = string(c.get("id"), f"categories[{i}].id", optional=False)
        percents[cid] = num(c.get("percent"), f"categories[{i}].percent", optional=False)
    clocksources = []
    for i, c in enumerate(lst(doc.get("clocksources", []), "clocksources")):
        c = obj(c, f"clocksources[{i}]")
        clocksources.append((string(c.get("name"), f"clocksources[{i}].name", optional=False),
                             num(c.get("percent"), f"clocksources[{i}].percent", optional=False)))
    samples = num(doc.get("samples"), "samples")
    target = doc.get("target")
    kind = None
    if target is not None:
        kind = string(obj(target, "target").get("kind"), "target.kind")
    notes = [string(n, f"notes[{i}]", optional=False) for i, n in enumerate(lst(doc.get("notes", []), "notes"))]
    m.data["profile"] = Profile(num(doc.get("time_share_percent"), "time_share_percent", optional=False),
                        percents, clocksources, int(samples) if samples is not None else None,
                        string(doc.get("event"), "event") or "?", string(doc.get("source"), "source") or "?",
                        kind, notes)


def _machines(rep: Report) -> List[Machine]:
    return [m for m in rep.machines if of(m) is not None]


def _shown(m: Machine) -> Profile:
    """The profile of a machine _machines() chose: it has one."""
    return m.data["profile"]


def _fmt(p: float) -> str:
    return f"{p:.2f}%"


def _clocksource_cell(p: Profile) -> str:
    return ", ".join(f"{n} {_fmt(v)}" for n, v in p.clocksources) if p.clocksources else "—"


def _rows(machines: List[Machine]) -> Tuple[List[str], List[List[str]]]:
    header = ["path"] + [m.name for m in machines]
    rows = [["reading the time, in all"] + [_fmt(_shown(m).time_share) for m in machines]]
    for cid, label, _ in CATEGORIES:
        if any(_shown(m).percents.get(cid, 0) > 0 for m in machines):
            rows.append([f"  {label}"] + [_fmt(_shown(m).percents.get(cid, 0)) for m in machines])
    rows.append(["clocksource read by the kernel"] + [_clocksource_cell(_shown(m)) for m in machines])
    rows.append(["samples (event)"] + [f"{_shown(m).samples if _shown(m).samples else '?'} "
                                       f"({_shown(m).event})" for m in machines])
    rows.append(["from"] + [_shown(m).target or _shown(m).source for m in machines])
    return header, rows


def text_section(rep: Report) -> List[str]:
    """The terminal's section: one column per machine with a profile ([] when none has)."""
    machines = _machines(rep)
    if not machines:
        return []
    header, rows = _rows(machines)
    widths = [max(len(r[i]) for r in [header] + rows) for i in range(len(header))]
    out = ["", "where the sampled time goes (clockscope profile), percent of all samples:"]
    for r in [header] + rows:
        out.append("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))))
    return out


def markdown_section(rep: Report) -> List[str]:
    machines = _machines(rep)
    if not machines:
        return []
    header, rows = _rows(machines)
    out = ["## Where the sampled time goes (clockscope profile)", "",
           "| " + " | ".join(header) + " |", "|---" + "|---:" * (len(header) - 1) + "|"]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    return out + [""]


def html_section(rep: Report) -> List[str]:
    machines = _machines(rep)
    if not machines:
        return []
    header, rows = _rows(machines)
    out = ["<h2>Where the sampled time goes (clockscope profile)</h2>",
           '<p class="muted">Percent of all perf samples, by the path that read the time: the '
           "innermost time frame of each sample's call chain.</p>", "<table><tr>"]
    out += [f"<th>{escape(h)}</th>" for h in header] + ["</tr>"]
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{escape(c)}</td>" if i == 0 else f'<td class="num">{escape(c)}</td>'
                                    for i, c in enumerate(r)) + "</tr>")
    out.append("</table>")
    for m in machines:
        for n in _shown(m).notes:
            out.append(f'<p class="muted"><b>{escape(m.name)}</b>: {escape(n)}</p>')
    return out


def chart(rep: Report, canvas: Canvas) -> List[Chart]:
    """One stacked horizontal bar per machine: each path's share of all samples."""
    machines = _machines(rep)
    if not machines:
        return []
    fig, ax = canvas.subplots(figsize=(10, 1.2 + 0.6 * len(machines)))
    names = [f"{m.name}\n({_shown(m).target or _shown(m).source})" for m in machines][::-1]
    profs = [_shown(m) for m in machines][::-1]
    left = [0.0] * len(profs)
    for cid, label, color in CATEGORIES:
        vals = [p.percents.get(cid, 0.0) for p in profs]
        if not any(v > 0 for v in vals):
            continue
        if cid == "clocksource":
            named = {n for p in profs for n, _ in p.clocksources}
            label = f"{label} ({', '.join(sorted(named))})" if named else label
        ax.barh(names, vals, left=left, color=color, label=label)
        for y, (v, x) in enumerate(zip(vals, left)):
            if v >= 7:
                ax.text(x + v / 2, y, f"{v:.1f}%", ha="center", va="center", fontsize=9,
                        color="white" if cid in ("vdso", "syscall", "clocksource") else "black")
        left = [a + b for a, b in zip(left, vals)]
    for y, p in enumerate(profs):
        ax.text(left[y] + 1.5, y, f"{p.time_share:.1f}% reading the time", va="center", fontsize=9)
    ax.set_xlim(0, min(135.0, max(left) + 30))   # room for the total's label
    ax.set_xticks([t for t in range(0, 101, 20) if t <= max(left) + 30])
    ax.set_xlabel("percent of all samples (the rest, to 100%, is everything else)")
    ax.set_title("Where the sampled time goes when reading the time (clockscope profile)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.35 if len(profs) < 3 else -0.2), ncol=3,
              fontsize=8, frameon=False)
    ax.grid(axis="x", alpha=0.3)
    return [("profile.svg", "Profile: share of samples per path", canvas.svg(fig))]


PART = Part("profile", 2, read, text=text_section, markdown=markdown_section, html=html_section,
            charts=(chart,))
