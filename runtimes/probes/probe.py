# SPDX-License-Identifier: MIT
"""clockscope runtimes probe for Python: times each clock API in Python's own loop.

Run by `clockscope runtimes` (never by hand, but it can be):
    python3 probe.py time SAMPLES SAMPLE_US   timed loops: each API, then its harness, then
                                             the reference (abs(-1)), sample by sample
    python3 probe.py count CALLS             "mark API" lines, each followed by CALLS calls

Output: the line protocol of docs/runtimes.md ("clockscope-probe 1 ..."), integers only.
Each API is timed with the statement a user writes (`time.time()`) in the loop timeit uses
(the module bound to a local name); its harness is the same loop with `pass` in place of the
call: the loop's own cost, so that the difference is what the call costs a Python program
(what timeit reports, less its loop), interpreter call included.
The ctypes row is the RISC-V clock_gettime report's trap: clock_gettime through ctypes, its harness the same
ctypes call of a libc function that returns at once (strnlen(buf, 0)), so that its
difference is the clock alone and can be set beside the C row.
"""
import os
import resource
import sys
import time

# (api, clock, path, setup, statement) + (harness label, harness setup, harness statement)
_PLAIN = ("pass", "pass", "pass")
_CTYPES_SETUP = (
    "import ctypes\n"
    # this process's own symbols (libc's among them): no find_library, which runs ldconfig
    # in a subprocess on every setup, after the count run's mark
    "    libc = ctypes.CDLL(None, use_errno=True)\n"
    "    class timespec(ctypes.Structure):\n"
    "        _fields_ = [('tv_sec', ctypes.c_long), ('tv_nsec', ctypes.c_long)]\n"
    "    ts = timespec()\n"
    "    p = ctypes.byref(ts)\n"
    "    cg = libc.clock_gettime\n"
    "    cg.argtypes = [ctypes.c_int, ctypes.c_void_p]\n"
    "    cg.restype = ctypes.c_int\n"
    "    sn = libc.strnlen\n"
    "    sn.argtypes = [ctypes.c_void_p, ctypes.c_size_t]\n"
    "    sn.restype = ctypes.c_size_t")
APIS = [
    ("time.time", "realtime", "libc", "import time", "time.time()") + _PLAIN,
    ("time.time_ns", "realtime", "libc", "import time", "time.time_ns()") + _PLAIN,
    ("time.monotonic", "monotonic", "libc", "import time", "time.monotonic()") + _PLAIN,
    ("time.monotonic_ns", "monotonic", "libc", "import time", "time.monotonic_ns()") + _PLAIN,
    ("time.perf_counter", "monotonic", "libc", "import time", "time.perf_counter()") + _PLAIN,
    ("time.perf_counter_ns", "monotonic", "libc", "import time", "time.perf_counter_ns()") + _PLAIN,
    ("time.process_time", "process_cputime", "libc", "import time", "time.process_time()") + _PLAIN,
    ("datetime.now", "realtime", "libc", "from datetime import datetime",
     "datetime.now()") + _PLAIN,
    ("ctypes.clock_gettime", "monotonic", "ffi-libc", _CTYPES_SETUP, "cg(1, p)",
     "ctypes.strnlen(p,0)", _CTYPES_SETUP, "sn(p, 0)"),
]

_TEMPLATE = """
def loop(_it, _timer):
    {setup}
    _t0 = _timer()
    for _i in _it:
        {stmt}
    _t1 = _timer()
    return _t1 - _t0
"""


def make_loop(setup, stmt):
    ns = {}
    exec(_TEMPLATE.format(setup=setup, stmt=stmt), ns)
    return ns["loop"]


def run(loop, n):
    from itertools import repeat
    return loop(repeat(None, n), time.perf_counter_ns)


def calibrate(loop, target_ns):
    run(loop, 64)               # first calls (ctypes prepares its call) are not the cost
    n = 64
    while True:
        t = min(run(loop, n) for _ in range(3))   # one preempted run does not shrink n
        if t >= target_ns / 4 or n >= 1 << 28:
            return max(1, int(n * target_ns / max(t, 1)))
        n *= 4


def header():
    v = sys.version_info
    impl = sys.implementation.name
    print(f"clockscope-probe 1 python {impl}-{v.major}.{v.minor}.{v.micro}")


# The ctypes row's clock (~30 ns) is a small difference of two ~1.3 us figures that vary
# by +-100 ns from one 2 ms sample to the next: the median of 15 pairs wanders by +-30 ns,
# that of 200 pairs (the protocol's most, ~1 s) by about +-5.
# `clockscope runtimes` takes its figures across several runs of this probe and gives each
# its share of the 200 (CLOCKSCOPE_PROBE_FFI_PAIRS).
FFI_PAIRS = 200
try:
    FFI_PAIRS = max(1, min(200, int(os.environ.get("CLOCKSCOPE_PROBE_FFI_PAIRS", "200"))))
except ValueError:
    pass


# The reference (issue 29, docs/benchmarks/across_processes.md): a call of a builtin that
# does next to nothing, in the same loop, timed around each pair.  On a shared machine
# the interpreter's speed moves by 50-70% in spells (the host, a neighbour), and a C loop
# measured beside it moves by 3%: only work of the interpreter's own kind moves with it, so
# that the ratio of a clock API to this holds when the level does not.
REF_LABEL, REF_SETUP, REF_STMT = "abs(-1)", "_abs = abs", "_abs(-1)"


# A triple (API, harness, reference) during which this process was switched out is taken
# again, as the C engine retakes a preempted sample: on a shared machine most 2 ms samples
# are (60% at a load of 10 on 2 CPUs), and their figure is the other work's, several times
# the clock's.  At most RETAKE times the triples asked; short of clean ones, the last
# switched ones fill the rest.  getrusage's context-switch counts (two syscalls a triple)
# are what sees it: Python has no view of the scheduler's steal.
RETAKE = 3


def switches():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_nvcsw + r.ru_nivcsw


def triples(loop, n, hloop, rloop, rn, pairs):
    clean, switched = [], []
    for _ in range(pairs * RETAKE):
        if len(clean) == pairs:
            break
        s0 = switches()
        # interleaved: a slow spell of the machine hits all three alike.  The reference is
        # a quarter sample before the pair and one after, the faster kept: a spell lasts
        # far longer than the pair and slows both, a preemption or an interrupt seldom
        # hits both
        r0 = run(rloop, rn)
        t = (run(loop, n), run(hloop, n), min(r0, run(rloop, rn)))
        (clean if switches() == s0 else switched).append(t)
    return clean + switched[len(switched) - (pairs - len(clean)):] if len(clean) < pairs \
        else clean


def timed(samples, sample_us):
    header()
    rows = 0
    rloop = make_loop(REF_SETUP, REF_STMT)
    rn = calibrate(rloop, sample_us * 250)   # a quarter sample: it only has to be in the spell
    for api, clock, path, setup, stmt, hlabel, hsetup, hstmt in APIS:
        loop = make_loop(setup, stmt)
        hloop = make_loop(hsetup, hstmt)
        n = calibrate(loop, sample_us * 1000)
        run(loop, n)            # warm both before the samples
        run(hloop, n)
        run(rloop, rn)
        pairs = max(samples, FFI_PAIRS) if path == "ffi-libc" else samples
        got = triples(loop, n, hloop, rloop, rn, pairs)
        ts, hs, rs = ([x[i] for x in got] for i in range(3))
        print(f"row {api} {clock} {path} {hlabel} {n} "
              f"{','.join(map(str, ts))} {','.join(map(str, hs))}", flush=True)
        print(f"ref {api} {REF_LABEL} {rn} {','.join(map(str, rs))}", flush=True)
        rows += 1
    print(f"end {rows}")


def count(calls):
    header()
    sys.stdout.flush()
    rows = 0
    for api, clock, path, setup, stmt, *_ in APIS:
        loop = make_loop(setup, stmt)
        run(loop, 1)            # the setup's own calls (imports) happen before the mark
        print(f"mark {api}", flush=True)
        # no clock around the calls: the timer's own reads would be counted against the API
        from itertools import repeat
        loop(repeat(None, calls), int)
        rows += 1
    print(f"end {rows}", flush=True)


def main(argv):
    try:
        if len(argv) == 4 and argv[1] == "time":
            timed(int(argv[2]), int(argv[3]))
        elif len(argv) == 3 and argv[1] == "count":
            count(int(argv[2]))
        else:
            print("usage: probe.py time SAMPLES SAMPLE_US | count CALLS", file=sys.stderr)
            return 2
    except ValueError as e:
        print(f"probe.py: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
