# SPDX-License-Identifier: MIT
"""The language runtimes section (clockscope.runtimes/2, docs/json.md): each runtime API's
clock cost net of its harness, per machine, with the path underneath (libc or the vDSO
directly) and whether it entered the kernel there; a chart of the same.  Its PART is listed
in registry.py.  Each measured API also joins the comparison table (Machine.runtimes)."""

from dataclasses import dataclass
from html import escape
from typing import Any, Dict, List, Optional, Tuple

from .analysis import Report
from .checks import Malformed, boolean, cost, lst, num, obj, string
from .model import Machine, Measure, Stat
from .part import Canvas, Chart, Part
from .textwidth import wrap
from .units import fmt_ns

RUNTIME_ORDER = ["c", "python", "go", "java", "node", "rust"]
PATHS = ("libc", "vdso-direct", "ffi-libc", "syscall")
# net, the harness, net + the harness: (the /2 key of the cost, the /1 key of its median)
FIGURES = (("ns_per_call", "ns_per_call"), ("harness_ns_per_call", "harness_ns"),
           ("timed_ns_per_call", "timed_ns"))


@dataclass
class RuntimeRow:
    runtime: str
    api: Optional[str]                 # None: the runtime's absent or failed row
    status: str                        # measured, absent, failed
    why: Optional[str]
    version: Optional[str]
    ns_per_call: Optional[float]       # net of the harness
    harness_ns: Optional[float]
    timed_ns: Optional[float]
    path: Optional[str]
    clock: Optional[str]
    harness_bound: bool
    enters_kernel: Optional[bool]
    syscalls_per_call: Optional[float]
    # issue 29: the range over the probe's processes, the ratio to the reference timed
    # beside the figure, and whether the reference (the machine's speed) moved
    proc_min: Optional[float] = None
    proc_max: Optional[float] = None
    nproc: Optional[int] = None
    relative: Optional[float] = None
    speed_changed: bool = False


def of(m: Machine) -> List[RuntimeRow]:
    """The machine's runtime rows (measured, absent and failed), [] without the part."""
    return m.data.get("runtimes", [])


def _figure(r: dict, keys: Tuple[str, str], what: str) -> Optional[float]:
    """A figure's median, from its /2 cost or its /1 number."""
    key = keys[0] if keys[0] in r else keys[1]
    return cost(r.get(key), f"{what}.{key}")


def _net_quantile(r: dict, q: str, what: str) -> Optional[float]:
    """The net figure's p10 or p90: a field of the /2 cost, the /1 row's "p10_ns"/"p90_ns"."""
    if isinstance(r.get("ns_per_call"), dict):
        return cost(r["ns_per_call"], what + ".ns_per_call", q)
    return num(r.get(q + "_ns"), f"{what}.{q}_ns")


def _figures(r: dict, what: str) -> Tuple[float, float, float]:
    """A measured row's net, harness and as-timed figures: each there, and adding up."""
    net, harness, timed = (_figure(r, k, what) for k in FIGURES)
    if net is None or harness is None or timed is None:
        raise Malformed(f"{what}: a measured row without its ns_per_call, harness or timed figure")
    if min(harness, timed) < 0 or abs(timed - harness - net) > 1e-6 * max(timed, 1) + 1e-6:
        raise Malformed(f"{what}: the figure as timed is not ns_per_call + the harness")
    return net, harness, timed


def read(doc: dict, m: Machine) -> None:
    """Reads a clockscope.runtimes/1 or /2 document into m (raises checks.Malformed)."""
    rows = m.data.setdefault("runtimes", [])
    for i, r in enumerate(lst(doc.get("results"), "results")):
        what = f"results[{i}]"
        r = obj(r, what)
        runtime = string(r.get("runtime"), what + ".runtime", optional=False)
        available = boolean(r.get("available"), what + ".available")
        status = string(r.get("status"), what + ".status") or ("measured" if available else "failed")
        if status not in ("measured", "absent", "failed") or available != (status == "measured"):
            raise Malformed(f"{what}.status: '{status}' does not match available={available}")
        api = string(r.get("api"), what + ".api", optional=not available)
        figures: Tuple[Optional[float], ...]
        if available:
            net, harness, timed = _figures(r, what)
            figures = (net, harness, timed)
        else:
            figures = tuple(_figure(r, k, what) for k in FIGURES)
        path = string(r.get("path"), what + ".path")
        if available and path not in PATHS:
            raise Malformed(f"{what}.path: '{path}' is not one of {', '.join(PATHS)}")
        enters = r.get("enters_kernel")
        if enters is not None and not isinstance(enters, bool):
            raise Malformed(f"{what}.enters_kernel is not true, false or null")
        row = RuntimeRow(runtime, api, status, string(r.get("why_unavailable"), what + ".why_unavailable"),
                         string(r.get("version"), what + ".version"), figures[0], figures[1], figures[2], path,
                         string(r.get("clock"), what + ".clock"),
                         boolean(r.get("harness_bound"), what + ".harness_bound"), enters,
                         num(r.get("syscalls_per_call"), what + ".syscalls_per_call"))
        rows.append(row)
        if not available:
            continue
        procs = r.get("processes")
        if procs is not None:
            each = [cost(obj(p, f"{what}.processes[{k}]").get("ns_per_call"),
                         f"{what}.processes[{k}].ns_per_call")
                    for k, p in enumerate(lst(procs, what + ".processes"))]
            figs = [v for v in each if v is not None]
            if len(figs) != len(each):
                raise Malformed(f"{what}.processes: a process without its ns_per_call")
            if figs:
                row.proc_min, row.proc_max, row.nproc = min(figs), max(figs), len(figs)
        ref = r.get("reference")
        if ref is not None:
            ref = obj(ref, what + ".reference")
            row.relative = num(ref.get("relative"), what + ".reference.relative")
            row.speed_changed = boolean(ref.get("machine_speed_changed"),
                                        what + ".reference.machine_speed_changed")
        # For the comparison table: the figure as timed, with its harness (analysis._net
        # subtracts it again and refuses a harness-bound figure).
        p10 = _net_quantile(r, "p10", what)
        p90 = _net_quantile(r, "p90", what)
        stat = Stat(timed, harness + (p10 if p10 is not None else net),
                    harness + (p90 if p90 is not None else net))
        stat.p10, stat.p90 = min(stat.p10, stat.median), max(stat.p90, stat.median)
        m.runtimes.append(Measure(f"{runtime}:{api}", f"{runtime} {api}", stat,
                                  num(r.get("calls_per_sec"), what + ".calls_per_sec"),
                                  boolean(r.get("noisy"), what + ".noisy"), None,
                                  Stat(harness, harness, harness)))


def _keys(rep):
    """(runtime, api) in runtime order, then first appearance."""
    keys = []
    for m in rep.machines:
        for r in of(m):
            if r.api is not None and (r.runtime, r.api) not in keys:
                keys.append((r.runtime, r.api))
    rank = {n: i for i, n in enumerate(RUNTIME_ORDER)}
    return sorted(keys, key=lambda k: (rank.get(k[0], len(rank)), keys.index(k)))


def _row(m, key) -> Optional[RuntimeRow]:
    return next((r for r in of(m) if (r.runtime, r.api) == key), None)


def _cell(r: Optional[RuntimeRow]) -> str:
    if r is None:
        return "—"
    kernel = {True: ", syscall", False: "", None: ""}[r.enters_kernel]
    if r.harness_bound:
        return f"{fmt_ns(r.ns_per_call)}? (harness {fmt_ns(r.harness_ns)}){kernel}{_across(r)}"
    return f"{fmt_ns(r.ns_per_call)} (+{fmt_ns(r.harness_ns)}){kernel}{_across(r)}"


def _across(r: RuntimeRow) -> str:
    """Issue 29: the range over the processes where they disagree by 10% or more, the
    ratio to the reference, and "unstable" where the reference moved: a figure from a
    run whose machine changed speed is not a level to compare."""
    out = []
    if r.nproc and r.nproc > 1 and r.proc_min and r.proc_max is not None and r.proc_max >= 1.1 * r.proc_min:
        lo, hi = fmt_ns(r.proc_min), fmt_ns(r.proc_max)
        if lo.endswith(" ns") and hi.endswith(" ns"):
            lo = lo[:-3]
        out.append(f"{lo}–{hi} over {r.nproc} processes")
    if r.relative is not None:
        out.append(f"{r.relative:.2f}x the reference")
    if r.speed_changed:
        out.append("unstable: the machine's speed changed")
    return f" [{'; '.join(out)}]" if out else ""


def _missing(rep) -> List[str]:
    """One line per machine: its absent runtimes by name (how to install one is advice for
    the machine's owner, not for the report, and cannot work in an initramfs guest), then
    each failed one with why."""
    out = []
    for m in rep.machines:
        absent = [r.runtime for r in of(m) if r.api is None and r.status == "absent"]
        if absent:
            out.append(f"{m.name}: not installed: {', '.join(absent)}")
        out += [f"{m.name}: {r.runtime} failed: {r.why or '?'}" for r in of(m)
                if r.api is None and r.status != "absent"]
    return out


def _vs(rep, key, i) -> str:
    """Machine i against the baseline on this runtime API, net of both harnesses (the
    comparison analysis.py made; none for a harness-bound figure)."""
    row = next((r for r in rep.rows if r.runtime and r.key == f"{key[0]}:{key[1]}"), None)
    ratio = row.cells[i].ratio if row else None
    return f", {ratio.words()}" if ratio else ""


def table(rep):
    """(header, rows): one row per runtime API, one column per machine, each cell with its
    comparison against the baseline."""
    header = ["runtime", "API", "path"] + [m.name for m in rep.machines]
    rows = []
    for key in _keys(rep):
        cells = [_row(m, key) for m in rep.machines]
        path = next((c.path for c in cells if c and c.path), "?")
        rows.append([key[0], key[1], path] + [_cell(c) + (_vs(rep, key, i) if c else "")
                                              for i, c in enumerate(cells)])
    return header, rows


LEGEND = ("Clock cost net of the harness, (+ the harness: the same loop calling a function "
          "that does nothing); \"syscall\": it entered the kernel there (counted); \"?\": the "
          "harness is 80% or more of the figure, which then measures the call, not the clock. "
          "Path: libc (`clockscope run --mode auto` can serve it), vdso-direct (Go: only the "
          "clocksource fix helps), ffi-libc (through an FFI). In brackets: the range over the "
          "probe's processes where they disagree, the figure over the reference timed beside "
          "it (Python: a loop of abs(-1)), and \"unstable\" where that reference moved: the "
          "machine's speed changed during the run, and only the ratio holds.")


def has_runtimes(rep) -> bool:
    return any(of(m) for m in rep.machines)


def markdown_section(rep: Report) -> List[str]:
    if not has_runtimes(rep):
        return []
    header, rows = table(rep)
    out = ["## Language runtimes", "", LEGEND, ""]
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows]
    out += [""] + [f"- {x}" for x in _missing(rep)] + ([""] if _missing(rep) else [])
    return out


def text_section(rep: Report) -> List[str]:
    """The terminal's section, within 100 columns: each runtime API on a line of its own,
    under it one line per machine that measured it."""
    if not has_runtimes(rep):
        return []
    header, rows = table(rep)
    names = header[3:]
    width = max(len(n) for n in names)
    out = ["", "language runtimes (ns/call net of the harness, (+harness), syscall: entered the kernel):"]
    for r in rows:
        out.append(f"{r[0]} {r[1]} ({r[2]})")
        for name, cell in zip(names, r[3:]):
            if cell != "—":
                out += wrap(f"{name.rjust(width)}  {cell}", "  ", " " * (width + 2))
    out += [f"  {x}" for x in _missing(rep)]
    return out


def html_section(rep: Report) -> List[str]:
    if not has_runtimes(rep):
        return []
    header, rows = table(rep)
    out = ["<h2>Language runtimes</h2>", f'<p class="muted">{escape(LEGEND)}</p>', "<table><tr>"]
    out.append("".join(f"<th>{escape(h)}</th>" for h in header) + "</tr>")
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>")
    out.append("</table>")
    if _missing(rep):
        out.append("<ul>" + "".join(f"<li>{escape(x)}</li>" for x in _missing(rep)) + "</ul>")
    return out


def chart(rep: Report, canvas: Canvas) -> List[Chart]:
    """Net clock cost per runtime API and machine (log scale), the harness as a thin grey
    bar under each; a harness-bound figure is drawn hollow; "syscall" beside a bar that
    entered the kernel."""
    keys = _keys(rep)
    if not keys:
        return []
    machines = canvas.machines(rep)
    colors = canvas.colors(len(machines))
    n = len(machines)
    height = 0.8 / n
    fig, ax = canvas.subplots(figsize=(10, 1.4 + len(keys) * (0.2 * n + 0.25)))
    for k, (m, color) in enumerate(zip(machines, colors)):
        for y, key in enumerate(keys):
            r = _row(m, key)
            if r is None or r.ns_per_call is None or r.harness_ns is None:
                continue
            yy = y + (k - (n - 1) / 2) * height
            net = max(r.ns_per_call, 0.1)
            named = y == 0 or not ax.get_legend_handles_labels()[1].count(m.name)
            ax.barh(yy, net, height=height * 0.85, color="none" if r.harness_bound else color,
                    edgecolor=color, linewidth=1.2, label=m.name if named else None)
            ax.barh(yy - height * 0.3, max(r.harness_ns, 0.1), height=height * 0.18, color="#999")
            note = fmt_ns(r.ns_per_call) + (" syscall" if r.enters_kernel else "") + \
                (" (harness-bound)" if r.harness_bound else "")
            ax.text(max(net, r.harness_ns or 0) * 1.15, yy, note, va="center", fontsize=7, color="#333")
    ax.set_xscale("log")
    lo_x, hi_x = ax.get_xlim()
    ax.set_xlim(max(lo_x, 0.05), hi_x * 6)
    ax.set_yticks(range(len(keys)))
    ax.set_yticklabels([f"{rt} {api}" for rt, api in keys])
    ax.invert_yaxis()
    ax.set_xlabel("ns per call net of the harness (log scale); grey: the harness alone")
    ax.set_title("Language runtimes: what reading the time costs, per API and machine")
    ax.grid(axis="x", which="both", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    seen: Dict[str, Any] = {}
    for handle, label in zip(handles, labels):
        seen.setdefault(label, handle)
    ax.legend(list(seen.values()), list(seen.keys()), loc="upper left", bbox_to_anchor=(1.01, 1),
              fontsize=9, title="machine")
    return [("runtimes.svg", "Language runtimes: clock cost net of the harness", canvas.svg(fig))]


PART = Part("runtimes", 2, read, text=text_section, markdown=markdown_section, html=html_section,
            charts=(chart,))
