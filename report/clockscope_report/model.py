# SPDX-License-Identifier: MIT
"""The report's view of a machine: only the fields it uses, each checked for its type when
a file is read (load.py), so that nothing later can trip over a malformed document."""

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple


@dataclass
class Stat:
    """A per-call cost in ns: the median and the p10-p90 spread of the samples, and the
    samples themselves when the bundle holds them (bench's ns_per_call.samples), which the
    bootstrap interval of a ratio is computed from (compare.py)."""
    median: float
    p10: float
    p90: float
    samples: Optional[Tuple[float, ...]] = None


@dataclass
class Measure:
    """One bench method (or runtime API) on one machine."""
    id: str
    label: str
    stat: Optional[Stat]
    calls_per_sec: Optional[float] = None
    noisy: bool = False
    why_not: Optional[str] = None        # unavailable or failed: why
    harness: Optional[Stat] = None       # runtimes: the harness's own cost per call


@dataclass
class Finding:
    id: str
    severity: str
    title: str
    evidence: List[str]
    meaning: Optional[str]
    fix: List[str]
    gain: Optional[str]


SEVERITY_ORDER = {"critical": 0, "warning": 1, "notice": 2, "info": 3}


@dataclass
class Diagnosis:
    verdict: str
    summary: str
    fast_path: Optional[bool]
    clocksource: Optional[str]
    syscalls_per_call: Optional[float]   # clock_gettime(MONOTONIC), from the proof
    findings: List[Finding]              # analysis._top_finding picks the one that explains most


@dataclass
class WarpPairs:
    """One warp method's CPU-pair matrix: backward steps from cpu a to cpu b."""
    method: str
    cpus: List[int]
    backward: Dict[Tuple[int, int], int]  # (a, b) -> reads on b that went behind a's
    max_backward_ns: Optional[float]
    backward_steps: int
    comparisons: int = 0                 # over every pair


@dataclass
class Machine:
    name: str
    source: str                          # the file it came from
    description: Dict[str, object]       # arch, cpu_model, kernel, clocksource, ...
    started: Optional[str] = None
    version: Optional[str] = None
    measures: Dict[str, Measure] = field(default_factory=dict)     # bench id -> Measure
    runtimes: List[Measure] = field(default_factory=list)          # runtime APIs, for the table
    diagnosis: Optional[Diagnosis] = None
    warp: Optional[WarpPairs] = None
    warp_faults: Optional[int] = None
    part_errors: Dict[str, str] = field(default_factory=dict)      # part -> its error
    parts: List[str] = field(default_factory=list)                 # parts present and read
    every_method: bool = True            # read every bench method, not only the table's
    # A part's own model (ladder.Ladder, profile.Profile, runtimes' rows), by part name:
    # written by its reader, read back through its module's typed of(machine).
    data: Dict[str, Any] = field(default_factory=dict)

    def stat(self, measure_id: str) -> Optional[Stat]:
        m = self.measures.get(measure_id)
        return m.stat if m else None


@dataclass
class Problem:
    """Something wrong with an input file: shown on stderr and in the report."""
    source: str
    message: str
    unreadable: bool = False             # the file itself could not be read (not its content)
    note: bool = False                   # worth saying, but nothing was skipped (exit 0)

    def __str__(self) -> str:
        return f"{self.source}: {self.message}"
