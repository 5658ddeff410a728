# SPDX-License-Identifier: MIT
"""What the report says: the comparison rows (per API, each machine against the baseline),
the explanation of each machine from its own doctor, the one-paragraph answer, and the
fleet summary.  Renderers (text.py, html.py) only lay these out."""

import statistics
from collections import Counter
from dataclasses import dataclass, field
from typing import Counter as TCounter
from typing import Dict, List, Optional, Tuple

from .compare import Ratio, compare, fmt_x
from .model import SEVERITY_ORDER, Machine, Measure, Problem, Stat
from .units import fmt_ns

# The rows of the comparison, in the spirit of the RISC-V clock_gettime report: what programs call, then what
# that costs underneath.  "counter" is the CPU counter read plain (rdtsc, cntvct, rdtime).
HEADLINE = [
    "libc.clock_gettime.monotonic",
    "libc.clock_gettime.realtime",
    "libc.clock_gettime.monotonic_coarse",
    "libc.gettimeofday",
    "libc.time",
    "syscall.clock_gettime.monotonic",
    "counter",
    "fastclock.monotonic",
]
KEY_ROW = "libc.clock_gettime.monotonic"
# With more machines than this, the report leads with the fleet summary and its
# per-machine table has one row per machine.
FLEET_THRESHOLD = 6
# A runtime figure whose harness takes at least this share measures the harness.
HARNESS_BOUND_SHARE = 0.8
# A plain counter read this slow (ns) is trapped and emulated, not read by the CPU.
TRAPPED_COUNTER_NS = 1000
# The cause phrase that leads a machine's answer line fits in this many characters.
CAUSE_MAX = 60


@dataclass
class Cell:
    measure: Optional[Measure]
    ratio: Optional[Ratio] = None
    note: str = ""               # e.g. "harness 75 ns of 80 ns: measures the harness"
    net: Optional[Stat] = None   # runtime rows: the figure less the harness


@dataclass
class Row:
    key: str
    label: str
    cells: List[Cell]            # one per machine, in report order
    runtime: bool = False


@dataclass
class Explanation:
    short: str                   # one sentence: verdict, proof, clocksource, top finding, fix
    details: List[str]           # the doctor's evidence and fix
    brief: str = ""              # a few words beside a table row
    cause: str = ""              # the cause in a few words (cause_phrase): answer lines, why cells


@dataclass
class AnswerLine:
    """One machine's line of the answer (or a line about several), and the full paragraph
    behind it: a footnote in text and Markdown, a <details> in HTML."""
    text: str
    machine: str = ""            # the machine whose note (Report.notes) the line refers to


@dataclass
class FleetCost:
    """clock_gettime(CLOCK_MONOTONIC)'s per-call cost over the machines that measured it."""
    n: int
    min: float
    p10: float
    median: float
    p90: float
    max: float
    values: List[float]                  # every machine's median, ascending


@dataclass
class Fleet:
    """The fleet summary: machines per verdict, per clocksource and per finding (notice and
    worse), and the distribution of clock_gettime's cost."""
    verdicts: TCounter[str]
    clocksources: TCounter[str]
    findings: TCounter[str]              # finding id -> machines
    finding_titles: Dict[str, str]       # finding id -> its title
    cost: Optional[FleetCost]


@dataclass
class Report:
    machines: List[Machine]
    baseline: Machine
    rows: List[Row]
    explanations: Dict[str, Explanation]
    answer: List[AnswerLine]
    notes: Dict[str, str] = field(default_factory=dict)   # machine -> its paragraph, footnote order
    fleet: Optional[Fleet] = None                 # many machines (is_fleet): _fleet()
    problems: List[Problem] = field(default_factory=list)

    @property
    def is_fleet(self) -> bool:
        return len(self.machines) > FLEET_THRESHOLD

    def note_number(self, machine: str) -> int:
        """The footnote number of a machine's paragraph (1, 2, ...), 0 when it has none."""
        return list(self.notes).index(machine) + 1 if machine in self.notes else 0


def counter_measure(m: Machine) -> Optional[Measure]:
    """The plain (unordered, first listed) CPU counter read bench measured."""
    for mid, meas in m.measures.items():
        if mid.startswith("counter.") and meas.stat is not None:
            return meas
    return None


def measure_for(m: Machine, key: str) -> Optional[Measure]:
    return counter_measure(m) if key == "counter" else m.measures.get(key)


def _label(machines: List[Machine], key: str) -> str:
    if key == "counter":
        measured = (measure_for(m, key) for m in machines)
        names = sorted({meas.id.split(".", 1)[1] for meas in measured if meas})
        return f"CPU counter read ({' / '.join(names)})" if names else "CPU counter read"
    for m in machines:
        if key in m.measures:
            return m.measures[key].label
    return key


def _bench_rows(machines, baseline, keys) -> List[Row]:
    rows = []
    for key in keys:
        cells = []
        base = measure_for(baseline, key)
        for m in machines:
            meas = measure_for(m, key)
            cell = Cell(meas)
            if m is not baseline and meas and base:
                cell.ratio = compare(meas.stat, base.stat)
            cells.append(cell)
        if any(c.measure and c.measure.stat for c in cells):
            rows.append(Row(key, _label(machines, key), cells))
    return rows


def _net(meas: Measure) -> Tuple[Optional[Stat], str]:
    """A runtime figure less its harness: (net stat or None, note)."""
    s, h = meas.stat, meas.harness
    if s is None or h is None:
        return s, ""
    share = h.median / s.median if s.median > 0 else 1.0
    if share >= HARNESS_BOUND_SHARE:
        return None, (f"harness {fmt_ns(h.median)} of {fmt_ns(s.median)} ({share:.0%}): "
                      "this figure measures the harness, not the clock")
    net = Stat(s.median - h.median, max(s.p10 - h.p90, 0.0), s.p90 - h.p10)
    net.p10 = min(net.p10, net.median)
    return net, f"harness {fmt_ns(h.median)} ({share:.0%}); clock alone ≈ {fmt_ns(net.median)}"


def _runtime_rows(machines, baseline) -> List[Row]:
    keys = []
    for m in machines:
        for r in m.runtimes:
            if r.id not in keys:
                keys.append(r.id)
    rows = []
    for key in keys:
        cells = []
        for m in machines:
            meas = next((r for r in m.runtimes if r.id == key), None)
            cell = Cell(meas)
            if meas:
                cell.net, cell.note = _net(meas)
            cells.append(cell)
        base_cell = cells[machines.index(baseline)]
        for m, cell in zip(machines, cells):
            # Compared net of the harness; a harness-bound figure is not compared at all.
            if m is not baseline and cell.net and base_cell.net:
                cell.ratio = compare(cell.net, base_cell.net)
        label = next(c.measure.label for c in cells if c.measure)
        rows.append(Row(key, label, cells, runtime=True))
    return rows


def emulation_evidence(m: Machine) -> Optional[Tuple[str, str]]:
    """(kind, what gave it away) when the machine's CPU is emulated, else None: recorded by
    clockscope (machine.emulation), or, in bundles older than that field, told by TCG's own
    CPU model name or CPUID signature (virtualization "qemu" comes only from TCG's)."""
    d = m.description
    kind = d.get("emulation")
    if isinstance(kind, str) and kind:
        return kind, str(d.get("emulation_evidence") or "recorded by clockscope")
    if "QEMU TCG" in str(d.get("cpu_model", "")):
        return "qemu-tcg", f"CPU model {d['cpu_model']}"
    if d.get("virtualization") == "qemu" and str(d.get("virtualization_source", "")).startswith("CPUID"):
        return "qemu-tcg", "CPUID hypervisor signature TCGTCGTCGTCG"
    return None


def emulation(m: Machine) -> Optional[str]:
    """The emulator's name ("qemu-tcg") when the machine's CPU is emulated, else None."""
    e = emulation_evidence(m)
    return e[0] if e else None


def _syscalls(n: float) -> str:
    return f"{n:g} syscall{'' if n == 1 else 's'}"


def explain(m: Machine) -> Explanation:
    """Why reading the time costs what it does on m, from m's own bundle."""
    d = m.diagnosis
    parts = []
    details: List[str] = []
    counter = counter_measure(m)
    trap = _trapped_ns(counter)
    if counter and trap:
        parts.append(f"{counter.id.split('.', 1)[1]} costs {fmt_ns(trap)} per read "
                     "(a counter read this slow is trapped and emulated)")
    if d is None:
        if emulation(m):
            parts.append(f"an emulated CPU ({emulation(m)}): its nanoseconds are the emulator's")
        why = m.part_errors.get("doctor", "no doctor part")
        return Explanation("; ".join(parts + [f"no diagnosis ({why})"]), details, "no diagnosis",
                           cause_phrase(m))
    cs = d.clocksource or m.description.get("clocksource")
    brief = [d.verdict]
    if d.syscalls_per_call is not None:
        brief.append(f"{_syscalls(d.syscalls_per_call)} per clock_gettime")
    if cs:
        brief.append(f"clocksource {cs}")
    if counter and trap:
        brief.append(f"{counter.id.split('.', 1)[1]} {fmt_ns(trap)}")
    proof = ""
    if d.syscalls_per_call is not None:
        proof = (f"clock_gettime makes {_syscalls(d.syscalls_per_call)} per call"
                 + (" (served by the vDSO)" if d.syscalls_per_call == 0 else " (the vDSO falls back to the kernel)"))
    parts.append(f"doctor: {d.verdict}")
    if proof:
        parts.append(proof)
    if cs:
        parts.append(f"clocksource {cs}")
    virt = m.description.get("virtualization")
    evidence = emulation_evidence(m)
    if evidence:
        emu, how = evidence
        parts.append(f"an emulated CPU ({emu}): its nanoseconds are the emulator's, not a CPU's")
        brief.append("emulated CPU")
        details.append(f"emulated CPU ({emu}): {how}")
    elif isinstance(virt, str) and virt not in ("none", ""):
        parts.append(f"virtualization {virt}")
    top = _top_finding(d)
    if top:
        parts.append(f"finding {top.id}: {top.title}")
        if top.fix:
            parts.append(f"fix: {top.fix[0]}")
    details.append(d.summary)
    if top:
        details.extend(top.evidence[:3])
        if top.meaning:
            details.append(top.meaning)
        details.extend(f"fix: {f}" for f in top.fix[:2])
    top_id = f" ({top.id})" if top and top.severity != "info" else ""
    return Explanation("; ".join(parts), [x for x in details if x], ", ".join(brief) + top_id,
                       cause_phrase(m))


def _trapped_ns(counter: Optional[Measure]) -> Optional[float]:
    """A plain counter read's median when it is slow enough to be trapped, else None."""
    if counter is None or counter.stat is None or counter.stat.median < TRAPPED_COUNTER_NS:
        return None
    return counter.stat.median


def _shorten(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1].rstrip() + "…"


def cause_phrase(m: Machine) -> str:
    """Why reading the time costs what it does on m, in a few words (at most CAUSE_MAX
    characters), the first that holds of: the vDSO falls back to a syscall (the doctor's
    proof), the counter read traps (bench's plain counter read), the CPU is emulated, the
    doctor's verdict and top finding.  An emulated CPU is named after any other cause:
    the factor is then the emulator's."""
    d = m.diagnosis
    emu = emulation(m)
    counter = counter_measure(m)
    cs = (d.clocksource if d else None) or m.description.get("clocksource")
    if d and d.syscalls_per_call:
        every = "every read a syscall" if d.syscalls_per_call >= 1 else \
            f"{d.syscalls_per_call:g} syscalls per read"
        cause = f"{every} (clocksource {cs})" if cs else every
    elif counter and _trapped_ns(counter):
        cause = f"the counter read traps ({counter.id.split('.', 1)[1]} {fmt_ns(_trapped_ns(counter) or 0)})"
    elif emu:
        return _shorten(f"emulated ({emu})", CAUSE_MAX)
    elif d is None:
        cause = "no diagnosis"
    elif d.verdict == "ok":
        cause = "no fault found" + (" (the vDSO serves it)" if d.syscalls_per_call == 0 else "")
    else:
        top = _top_finding(d)
        cause = f"doctor: {d.verdict}" + (f" ({top.id})" if top else "")
    if emu:
        cause += f"; emulated ({emu})"
    return _shorten(cause, CAUSE_MAX)


def _top_finding(d):
    """The finding that explains most: the most severe, preferring one with a fix, and
    never the purely informative ones when something worse exists."""
    if not d.findings:
        return None
    return sorted(d.findings, key=lambda f: (SEVERITY_ORDER.get(f.severity, 9), not f.fix))[0]


def _answer(machines, baseline, rows, explanations) -> Tuple[List[AnswerLine], Dict[str, str]]:
    """The answer's lines, one per machine, each led by the cause in a few words, and the
    full paragraph behind each line by machine (the footnotes, in the lines' order)."""
    key = next((r for r in rows if r.key == KEY_ROW), rows[0] if rows else None)
    if key is None:
        return [AnswerLine("No machine has a clock read measurement (no bench part): nothing to compare.")], {}
    base_cell = key.cells[machines.index(baseline)]
    base_txt = fmt_ns(base_cell.measure.stat.median) if base_cell.measure and base_cell.measure.stat else "not measured"
    if len(machines) == 1:
        e = explanations[baseline.name]
        return ([AnswerLine(f"{baseline.name}: {key.label} costs {base_txt} per call: {e.cause}", baseline.name)],
                {baseline.name: f"{baseline.name}: {e.short}."})
    ranked = []
    for m, c in zip(machines, key.cells):
        if m is not baseline and c.ratio:
            ranked.append((c.ratio.ratio if c.ratio.slower else 1 / c.ratio.ratio, m, c))
    ranked.sort(key=lambda t: -t[0])
    if len(machines) > FLEET_THRESHOLD:
        return _fleet_answer(baseline, key, base_txt, ranked, explanations, machines)
    lines, notes = [], {}
    for _, m, c in ranked[:5]:
        cost = fmt_ns(c.measure.stat.median)
        factor = f"{fmt_x(c.ratio.ratio)} {'slower' if c.ratio.slower else 'faster'} than {baseline.name}"
        if c.ratio.significant and c.ratio.slower:
            lines.append(AnswerLine(f"{m.name}: {factor}: {explanations[m.name].cause}", m.name))
            notes[m.name] = (f"{m.name} is {c.ratio.words(baseline.name)} at reading the time: "
                             f"{key.label} costs {cost} per call against {base_txt}. "
                             f"Why: {explanations[m.name].short}." + _no_fault(m))
        elif c.ratio.significant:
            lines.append(AnswerLine(f"{m.name}: {factor} ({key.label}: {cost} against {base_txt})"))
        else:
            lines.append(AnswerLine(f"{m.name} against {baseline.name}: {c.ratio.words()} "
                                    f"({key.label}: median {cost} against {base_txt})"))
    if len(ranked) > 5:
        lines.append(AnswerLine(f"... and {len(ranked) - 5} more machines (the tables below)."))
    missing = [m.name for m, c in zip(machines, key.cells) if m is not baseline and not c.ratio]
    if missing:
        lines.append(AnswerLine(f"Not compared (no {key.label} figure): {', '.join(missing[:10])}"
                                + (" ..." if len(missing) > 10 else "") + "."))
    return lines, notes


def _no_fault(m: Machine) -> str:
    """When the doctor found a slower machine healthy, say where the gap lies instead: in
    the CPU, or, for an emulated one, in the emulator (nothing about hardware follows)."""
    d = m.diagnosis
    healthy = d and d.verdict == "ok" and d.syscalls_per_call == 0
    if emulation(m):
        kind = emulation(m)
        if healthy:
            return (f" Its CPU is emulated ({kind}) and its doctor finds nothing wrong: the gap is the "
                    "emulator's, and says nothing about the hardware it imitates.")
        return (f" Its CPU is emulated ({kind}): the cause above holds, but the factor is the "
                "emulator's and does not carry over to hardware.")
    if healthy:
        return (" Its doctor finds nothing wrong: the vDSO serves the call without a syscall, so the "
                "gap lies in reading the counter and in the CPU itself.")
    return ""


def _fleet_answer(baseline, key, base_txt, ranked, explanations, machines) -> Tuple[List[AnswerLine], Dict[str, str]]:
    """Many machines: counts, the slowest, and the reason most of the slow ones share."""
    slower = [(m, c) for _, m, c in ranked if c.ratio.significant and c.ratio.slower]
    faster = [(m, c) for _, m, c in ranked if c.ratio.significant and not c.ratio.slower]
    same = len(ranked) - len(slower) - len(faster)
    notes: Dict[str, str] = {}
    lines = [f"Of {len(ranked)} machines compared with {baseline.name} ({key.label}: {base_txt}): "
             f"{len(slower)} significantly slower, {len(faster)} faster, {same} no significant difference."]
    if ranked:
        _, m, c = ranked[0]
        lines.append(f"Slowest: {m.name}, {fmt_ns(c.measure.stat.median)} per call, "
                     f"{fmt_x(c.ratio.ratio)} {'slower' if c.ratio.slower else 'faster'} than "
                     f"{baseline.name}: {explanations[m.name].cause}")
        notes[m.name] = f"{m.name} is {c.ratio.words(baseline.name)}. Why: {explanations[m.name].short}."
    reasons: TCounter[str] = Counter()
    for m, _ in slower:
        top = _top_finding(m.diagnosis) if m.diagnosis else None
        if top:
            reasons[f"{top.id}: {top.title}"] += 1
    if reasons:
        reason, n = reasons.most_common(1)[0]
        lines.append(f"The reason most of the slower machines share ({n} of {len(slower)}): {reason}.")
    missing = len(machines) - 1 - len(ranked)
    if missing:
        lines.append(f"{missing} machines have no {key.label} figure to compare.")
    return [AnswerLine(x, next(iter(notes)) if x.startswith("Slowest: ") else "") for x in lines], notes


def _fleet(machines: List[Machine]) -> Fleet:
    verdicts = Counter(m.diagnosis.verdict if m.diagnosis else "no diagnosis" for m in machines)
    sources = Counter(str(m.description.get("clocksource") or "unknown") for m in machines)
    findings: TCounter[str] = Counter()
    titles: Dict[str, str] = {}
    for m in machines:
        if m.diagnosis:
            for f in m.diagnosis.findings:
                if f.severity != "info":
                    findings[f.id] += 1
                    titles.setdefault(f.id, f.title)
    costs = sorted(s.median for s in (m.stat(KEY_ROW) for m in machines) if s and s.median > 0)
    dist = None
    if costs:
        q = statistics.quantiles(costs, n=10, method="inclusive") if len(costs) > 1 else [costs[0]] * 9
        dist = FleetCost(len(costs), costs[0], q[0], statistics.median(costs), q[8], costs[-1], costs)
    return Fleet(verdicts, sources, findings, titles, dist)


def _much_slower(cell: Cell) -> bool:
    return bool(cell.ratio and cell.ratio.much_slower)


def build(machines: List[Machine], baseline_name: Optional[str], all_rows: bool = False) -> Report:
    baseline = machines[0]
    if baseline_name is not None:
        baseline = next(m for m in machines if m.name == baseline_name)
    keys = list(HEADLINE)
    if all_rows:
        for m in machines:
            keys += [k for k in m.measures if k not in keys and not k.startswith("counter.")]
    rows = _bench_rows(machines, baseline, keys) + _runtime_rows(machines, baseline)
    explanations = {m.name: explain(m) for m in machines}
    answer, notes = _answer(machines, baseline, rows, explanations)
    # every machine much slower on some row gets its note too: its why cell refers to it
    for m in machines if len(machines) <= FLEET_THRESHOLD else []:
        if m.name not in notes and any(_much_slower(r.cells[machines.index(m)]) for r in rows):
            notes[m.name] = f"{m.name}: {explanations[m.name].short}." + _no_fault(m)
    rep = Report(machines, baseline, rows, explanations, answer, notes)
    if rep.is_fleet:
        rep.fleet = _fleet(machines)
    return rep
