# SPDX-License-Identifier: MIT
"""`clockscope run -p PID` and `run --undo PID` (docs/run.md, "A running process") when
things go wrong around them: run killed at any step, signals queued without pause, a
process that must be refused, two runs at once, the coarse clocks.  Whatever happens to
`run`, the program it works on must be left whole: alive, not stopped, traced by nobody,
its vDSO either pristine or served at every entry point run patches (then `--undo` puts
it back), every clock read it made correct.  tests/test_run_attach.py tests the attach and
undo when nothing interferes.

Killing run at a given step uses strace's fault injection: `strace -f -e
inject=NAME:signal=KILL:when=N clockscope run ...` sends SIGKILL to the process making its
N-th NAME call, before the call is made.  strace counts per traced thread, not globally:
every thread and every forked process counts its own calls from 1, and calls made by the
others do not advance its count (a program whose parent, a thread and a forked child each
made 3 `getppid` calls under `inject=getppid:error=ENOSYS:when=2` saw the second call of
each of the three fail, and of none other).  So `when=N` kills every process of run that
reaches its own N-th call, and the sweep goes from 1 to the most calls one process of an
undisturbed attach (or undo) made, counted first with strace on the same target.  With
`-D` strace runs as a detached grandchild, so the process the test starts is run itself and
its exit is seen at once; a helper that was not killed (its count never reached N) stays
traced as the refresher until the vDSO is undone, and strace ends with it.

The targets are static programs built here from tests/progs/ (live_target.c,
sigqueue_target.c, refusal_target.c, coarse_target.c).  They are meant to pass with one CPU kept
busy: no figure is timed; every wait has a deadline of tens of seconds, met in milliseconds
when things are right."""
import os
import random
import re
import select
import signal
import struct
import subprocess
import time

import pytest

from conftest import ROOT, need_tool, run
from proc_vdso import live_thread, vdso_bytes
from test_run_static import need_counter

pytestmark = pytest.mark.skipif(os.uname().machine != "x86_64",
                                reason="the vDSO is patched on x86_64 only so far")

PROGS = ("live_target", "sigqueue_target", "refusal_target", "coarse_target", "blocking_target")

# The entry points run patches on x86_64 (docs/run.md, "Static and Go programs") and the
# jumps it may write there: `jmp rel32`, or `movabs $reader, %r11; jmp *%r11`.
ENTRIES = ("__vdso_clock_gettime", "__vdso_gettimeofday", "__vdso_time")
JUMP_MAX = 13
DEADLINE = 60  # seconds: for what takes milliseconds when things are right


@pytest.fixture(scope="module")
def progs(tmp_path_factory):
    need_tool("cc")
    d = tmp_path_factory.mktemp("safety")
    out = {}
    for name in PROGS:
        exe = d / name
        proc = run(["cc", "-O2", "-static", "-Wall", "-Wextra", "-Werror", "-o", exe,
                    ROOT / f"tests/progs/{name}.c", "-lpthread"])
        assert proc.returncode == 0, proc.stderr
        out[name] = exe
    return out


class Target:
    """A test program started here: stdin, stdout and stderr piped; stderr is read as it
    comes (live_target reports a read outside its bounds at once)."""

    def __init__(self, *cmd):
        self.cmd = [str(c) for c in cmd]
        self.p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)
        self.pid = self.p.pid
        os.set_blocking(self.p.stderr.fileno(), False)
        self.out = b""
        self.err = b""

    def readline(self):
        """The next line of its stdout (its "ready ..." line)."""
        deadline = time.monotonic() + DEADLINE
        while b"\n" not in self.out:
            left = deadline - time.monotonic()
            ready = left > 0 and select.select([self.p.stdout], [], [], min(left, 1))[0]
            chunk = os.read(self.p.stdout.fileno(), 4096) if ready else b""
            if left <= 0 or ready and not chunk:
                pytest.fail(f"{self.cmd}: no line on stdout ({self.status()}): {self.out!r} "
                            f"{self.stderr_now()}")
            self.out += chunk
        line, self.out = self.out.split(b"\n", 1)
        return line.decode()

    def ready(self):
        line = self.readline()
        assert line.startswith("ready pid"), line
        return line

    def stderr_now(self):
        """What it wrote to stderr so far."""
        try:
            while True:
                chunk = os.read(self.p.stderr.fileno(), 65536)
                if not chunk:
                    break
                self.err += chunk
        except BlockingIOError:
            pass
        return self.err.decode(errors="replace")

    def alive(self):
        return self.p.poll() is None and state_of(self.pid) not in ("Z", "X", None)

    def status(self):
        """How it ended, in words (a process whose threads are still ending is waited for)."""
        rc = self.p.poll()
        if rc is None and state_of(self.pid) in ("Z", "X", None):
            try:
                rc = self.p.wait(timeout=DEADLINE)
            except subprocess.TimeoutExpired:
                return f"ending, yet not reaped within {DEADLINE} s"
        if rc is None:
            return "running"
        return f"killed by {signal.Signals(-rc).name}" if rc < 0 else f"exited {rc}"

    def finish(self, text=b""):
        """Writes text to its stdin, closes it, and returns (status, stdout, stderr)."""
        try:
            self.p.stdin.write(text)
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        os.set_blocking(self.p.stderr.fileno(), True)
        deadline = time.monotonic() + DEADLINE * 2
        fds = [self.p.stdout, self.p.stderr]
        while fds and time.monotonic() < deadline:
            for f in select.select(fds, [], [], 1)[0]:
                chunk = os.read(f.fileno(), 65536)
                if not chunk:
                    fds.remove(f)
                elif f is self.p.stdout:
                    self.out += chunk
                else:
                    self.err += chunk
        try:
            rc = self.p.wait(timeout=max(1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
            self.err += b"\n(test: it did not end within its deadline: killed)"
        return rc, self.out.decode(errors="replace"), self.err.decode(errors="replace")

    def kill(self):
        if self.p.poll() is None:
            self.p.kill()
        self.p.wait()
        for f in (self.p.stdin, self.p.stdout, self.p.stderr):
            try:
                f.close()
            except OSError:
                pass


def live_target_ended_ok(t, where):
    """Ends a `live_target 3` (its stdin closed); [] when it exits 0 with every read inside
    its bounds, else what it said."""
    rc, out, err = t.finish()
    if rc != 0 or not re.search(r"^ok live_target threads 3 .* outside 0$", out, re.M):
        return [f"{where}: status {rc}: {out.strip()} {err.strip()[-600:]}"]
    return []


def state_of(pid, tid=None):
    try:
        path = f"/proc/{pid}/task/{tid}/stat" if tid else f"/proc/{pid}/stat"
        return open(path).read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def per_thread(pid, name):
    """{tid: text of /proc/PID/task/TID/NAME} of every thread of pid still there."""
    out = {}
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except (FileNotFoundError, ProcessLookupError):
        return out
    for t in tids:
        try:
            out[int(t)] = open(f"/proc/{pid}/task/{t}/{name}").read()
        except (FileNotFoundError, ProcessLookupError):
            continue
    return out


def tasks(pid):
    """{tid: (state, TracerPid)} of every thread of pid."""
    return {t: (re.search(r"^State:\s*(\S)", status, re.M).group(1),
                int(re.search(r"^TracerPid:\s*(\d+)", status, re.M).group(1)))
            for t, status in per_thread(pid, "status").items()}


def released(t):
    """Waits until no thread of t is traced or stopped (a tracer killed mid-attach is gone
    once its exit has detached them); None, or what is wrong."""
    deadline = time.monotonic() + DEADLINE
    while True:
        if not t.alive():
            return f"the program ended: {t.status()}"
        held = {tid: st for tid, st in tasks(t.pid).items() if st[0] in "tT" or st[1] != 0}
        if not held:
            return None
        if time.monotonic() > deadline:
            return (f"threads still stopped or traced {DEADLINE} s after run ended "
                    f"(tid: (state, TracerPid)): {held}")
        time.sleep(0.01)


def runtime_ns(pid):
    """{tid: ns spent on a CPU} (schedstat's first field) of every thread of pid."""
    return {t: int(text.split()[0]) for t, text in per_thread(pid, "schedstat").items()
            if text.split() and text.split()[0].isdigit()}


def ran_on(t, ms=2):
    """Waits until every thread of t but the main one (blocked in its read of stdin) has run
    another `ms` ms on a CPU: reads made through whatever is in its vDSO now.  None, or what
    is wrong."""
    start = runtime_ns(t.pid)
    deadline = time.monotonic() + DEADLINE
    while True:
        if not t.alive():
            return f"the program ended: {t.status()}"
        now = runtime_ns(t.pid)
        behind = [tid for tid, ns in start.items()
                  if tid != t.pid and tid in now and now[tid] - ns < ms * 1000000]
        if not behind:
            return None
        if time.monotonic() > deadline:
            return f"threads {behind} did not run {ms} ms within {DEADLINE} s: {tasks(t.pid)}"
        time.sleep(0.002)


def vdso_layout(image):
    """(end of the ELF content, {entry name: offset}) of a vDSO image: the content ends
    with the section header table, the furthest of the headers, sections and segments;
    the rest of the last page may be used as scratch and is not compared."""
    e_phoff, e_shoff = struct.unpack_from("<QQ", image, 0x20)
    e_phentsize, e_phnum, e_shentsize, e_shnum = struct.unpack_from("<HHHH", image, 0x36)
    end = max(e_phoff + e_phnum * e_phentsize, e_shoff + e_shnum * e_shentsize)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, e_shoff + i * e_shentsize)
                for i in range(e_shnum)]
    for s in sections:
        if s[1] != 8:  # SHT_NOBITS
            end = max(end, s[4] + s[5])
    bias = None
    for i in range(e_phnum):
        p_type, _, p_offset, p_vaddr, _, p_filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", image, e_phoff + i * e_phentsize)
        end = max(end, p_offset + p_filesz)
        if p_type == 1 and bias is None:  # PT_LOAD
            bias = p_vaddr - p_offset
    dynsym = next(s for s in sections if s[1] == 11)  # SHT_DYNSYM
    strtab = sections[dynsym[6]][4]
    entries = {}
    for i in range(dynsym[5] // 24):
        st_name, _, _, st_shndx, st_value, _ = struct.unpack_from("<IBBHQQ", image, dynsym[4] + 24 * i)
        name = image[strtab + st_name:image.index(b"\0", strtab + st_name)].decode()
        if name in ENTRIES and st_shndx:
            entries[name] = st_value - (bias or 0)
    assert set(entries) == set(ENTRIES), f"this vDSO lacks some of {ENTRIES}: {entries}"
    return end, entries


def mappings(pid):
    """[(start, end, perms, name)] of pid's address space."""
    out = []
    for line in open(f"/proc/{live_thread(pid)}/maps"):
        f = line.split()
        a, b = (int(x, 16) for x in f[0].split("-"))
        out.append((a, b, f[1], f[5] if len(f) > 5 else ""))
    return out


def jump_at(code, at):
    """(destination, length) of the jump run writes, if code (at address `at`) starts with
    one; else None."""
    if len(code) >= 5 and code[0] == 0xE9:
        return at + 5 + struct.unpack_from("<i", code, 1)[0], 5
    if len(code) >= 13 and code[:2] == b"\x49\xbb" and code[10:13] == b"\x41\xff\xe3":
        return struct.unpack_from("<Q", code, 2)[0], 13
    return None


def vdso_check(pid, pristine):
    """("pristine" | "served", None), or (None, what is wrong) for pid's vDSO against this
    process's pristine image, compared over the ELF content only: served means every byte
    that differs lies in the jump written at an entry point run patches, each jump whole
    and leading into an executable mapping (the reader)."""
    image = vdso_bytes(pid)
    if image is None:
        return None, "it has no [vdso] mapping any more"
    if len(image) != len(pristine):
        return None, f"its vDSO is {len(image)} bytes, this process's {len(pristine)}"
    end, entries = vdso_layout(pristine)
    if image[:end] == pristine[:end]:
        return "pristine", None
    maps = mappings(pid)
    base = next(a for a, _, _, name in maps if name == "[vdso]")
    covered = set()
    for name, off in sorted(entries.items(), key=lambda e: e[1]):
        code = image[off:off + JUMP_MAX]
        if code == pristine[off:off + JUMP_MAX]:
            continue
        jump = jump_at(code, base + off)
        if jump is None:
            return None, (f"{name} holds neither its own bytes nor a jump: {code.hex()} "
                          f"(its own: {pristine[off:off + JUMP_MAX].hex()})")
        dest, length = jump
        if not any(a <= dest < b and "x" in perms for a, b, perms, _ in maps):
            return None, f"{name} jumps to {dest:#x}, which is not in an executable mapping"
        covered.update(range(off, off + length))
    stray = [i for i in range(end) if image[i] != pristine[i] and i not in covered]
    if stray:
        return None, (f"{len(stray)} bytes differ beyond the entry points' jumps, the first at "
                      f"offset {stray[0]:#x}: {image[stray[0]:stray[0] + 16].hex()} (its own: "
                      f"{pristine[stray[0]:stray[0] + 16].hex()})")
    return "served", None


def whole(cs, t, pristine):
    """What is wrong with target t after a run that was killed (empty: nothing): it lives,
    no thread stopped or traced; its vDSO pristine, or served (every entry point that
    differs holds a whole jump into the reader), and then put back by a plain --undo; it
    runs on through whatever its vDSO holds with no read outside its bounds (live_target
    says so on stderr at once)."""
    why = released(t) or ran_on(t)
    if why:
        return [why]
    problems = []
    verdict, why = vdso_check(t.pid, pristine)
    if why:
        return [why]
    if verdict == "served":
        u = run([cs, "run", "--undo", t.pid], timeout=120)
        if u.returncode != 0:
            problems.append(f"served whole, but --undo failed (status {u.returncode}): "
                            f"{u.stderr.strip()}")
        elif t.alive():
            verdict, why = vdso_check(t.pid, pristine)
            if verdict != "pristine":
                problems.append(f"--undo succeeded, but the vDSO is not pristine: {why or verdict}")
        why = released(t) or ran_on(t)
        if why:
            problems.append(why)
    if "outside" in t.stderr_now():
        problems.append("reads outside their bounds: " + t.stderr_now().strip()[-600:])
    if not t.alive() and not any(p.startswith("the program ended") for p in problems):
        problems.append(f"the program ended: {t.status()}")
    return problems


def attach(cs, t, *extra):
    a = run([cs, "run", "--mode", "fast", *extra, "-p", t.pid], timeout=120)
    assert a.returncode == 0, f"attach: status {a.returncode}: {a.stderr}"
    return a


def undo(cs, t):
    u = run([cs, "run", "--undo", t.pid], timeout=120)
    assert u.returncode == 0, f"--undo: status {u.returncode}: {u.stderr}"
    return u


def count_calls(cs, t, args, out):
    """{syscall name: the most calls one process of `clockscope run ARGS` made} for the
    attach or undo of target t, undisturbed, under strace (its output in `out`).  A served
    target is undone then, which ends the refresher and with it strace."""
    names = "ptrace,pwrite64,process_vm_writev,wait4,waitid"
    attaching = args[0] != "--undo"
    with open(out.with_suffix(".err"), "w") as err:
        p = subprocess.Popen(["strace", "-f", "-qq", "-o", out, "-e", f"trace={names}", cs, "run",
                              *args], stdout=subprocess.DEVNULL, stderr=err)
    try:
        deadline = time.monotonic() + DEADLINE
        while attaching and p.poll() is None and time.monotonic() < deadline:
            # The attach's refresher stays under strace: undo once the target is served.
            if released(t) is None and vdso_check(t.pid, vdso_bytes("self"))[0] == "served":
                undo(cs, t)
                break
            time.sleep(0.02)
        rc = p.wait(timeout=DEADLINE)  # strace's status is run's
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
    assert rc == 0, f"run {args} under strace: status {rc}: {out.with_suffix('.err').read_text()}"
    per = {}
    for line in open(out):
        m = re.match(r"(?:(\d+) +)?(\w+)\(", line)  # no pid while one process is traced
        if m:
            per.setdefault(m.group(2), {}).setdefault(m.group(1), 0)
            per[m.group(2)][m.group(1)] += 1
    return {name: max(counts.values()) for name, counts in per.items()}


def killed_run(cs, args, name, n, log):
    """`clockscope run ARGS` with every process of it killed at its n-th `name` call; its
    exit status (run itself, with strace -D a grandchild)."""
    with open(log, "w") as err:
        p = subprocess.Popen(["strace", "-D", "-f", "-qq", "-o", os.devnull, "-e",
                              f"inject={name}:signal=KILL:when={n}", cs, "run", *args],
                             stdout=subprocess.DEVNULL, stderr=err)
        return p.wait(timeout=120)


def sweep(cs, live, tmp_path, what):
    """For each of ptrace and pwrite64 and each N from 1 to the count of an undisturbed
    run: run killed at its N-th call, then the target checked whole (a target found broken is
    noted and replaced by a fresh one).  what: "attach" or "undo"."""
    need_tool("strace")
    need_counter()
    pristine = vdso_bytes("self")
    args = (lambda pid: ["--mode", "fast", "-p", pid]) if what == "attach" else \
        (lambda pid: ["--undo", pid])

    def fresh():
        t = Target(live, "3")
        t.ready()
        assert ran_on(t) is None
        return t

    t = fresh()
    problems = []
    try:
        if what == "undo":
            attach(cs, t)
        counts = count_calls(cs, t, [str(a) for a in args(t.pid)], tmp_path / "count.strace")
        if what == "undo":
            assert vdso_check(t.pid, pristine)[0] == "pristine"
        assert counts.get("ptrace", 0) > 0, f"no ptrace call counted: {counts}"
        print(f"{what}: calls of the busiest process: {counts}")
        for name in ("ptrace", "pwrite64"):
            for n in range(1, counts.get(name, 0) + 1):
                where = f"{what} killed at its {name} call {n} of {counts[name]}"
                if what == "undo":
                    a = run([cs, "run", "--mode", "fast", "-p", t.pid], timeout=120)
                    if a.returncode != 0:
                        problems.append(f"{where}: the attach before it failed: {a.stderr.strip()}")
                        t.kill()
                        t = fresh()
                        continue
                rc = killed_run(cs, args(str(t.pid)), name, n, tmp_path / "run.err")
                found = whole(cs, t, pristine)
                if found:
                    said = (tmp_path / "run.err").read_text().strip()
                    t.kill()
                    problems.append(f"{where} (run's status {rc}{': ' + said if said else ''}): "
                                    + "; ".join(found))
                    t = fresh()
        problems += live_target_ended_ok(t, "at the end")
    finally:
        t.kill()
    assert not problems, f"{len(problems)} steps left the target broken:\n" + "\n".join(problems)


def test_killing_run_at_any_step_of_the_attach_leaves_the_target_whole(cs, progs, tmp_path):
    """run -p is killed (SIGKILL, which it cannot catch: the OOM killer, a `kill -9`, a
    container stopped) at each of its ptrace and pwrite64 calls in turn, every step of an
    attach: stopping the threads, each injected syscall and single step, writing the
    reader, each jump, each detach.  The kernel then detaches the target's threads
    wherever they stand, so no step may leave anything a thread can trip on: a syscall
    instruction over an entry point, a thread at injected registers, half the jumps without
    the reader.  After each, the target (3 threads checking every clock read against the
    kernel's) must run on correct, untraced and not stopped, with its vDSO pristine or
    served at every patched entry point (then a plain --undo succeeds and leaves it
    pristine)."""
    sweep(cs, progs["live_target"], tmp_path, "attach")


def test_killing_run_at_any_step_of_the_undo_leaves_the_target_whole(cs, progs, tmp_path):
    """The same for run --undo of a served target, killed at each of its ptrace and pwrite64
    calls: the target runs on correct, its vDSO pristine or still served at every entry point
    (a plain --undo then succeeds)."""
    sweep(cs, progs["live_target"], tmp_path, "undo")


def test_killing_runs_process_group_at_a_random_moment_leaves_the_target_whole(cs, progs):
    """run -p started in a process group of its own and the whole group (run, its helper,
    the refresher if it got that far) killed with SIGKILL 0 to 40 ms later, 30 times: not
    only at syscall boundaries, and with the refresher gone too.  After each, the same checks
    as the step-by-step sweep."""
    need_counter()
    pristine = vdso_bytes("self")
    seed = int.from_bytes(os.urandom(4), "little")
    rng = random.Random(seed)
    problems = []

    def fresh():
        t = Target(progs["live_target"], "3")
        t.ready()
        assert ran_on(t) is None
        return t

    t = fresh()
    try:
        for i in range(30):
            delay = rng.uniform(0, 0.040)
            p = subprocess.Popen([str(cs), "run", "--mode", "fast", "-p", str(t.pid)],
                                 start_new_session=True, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
            time.sleep(delay)
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait(timeout=120)
            found = whole(cs, t, pristine)
            if found:
                t.kill()
                problems.append(f"try {i}, killed after {delay * 1000:.1f} ms: " + "; ".join(found))
                t = fresh()
        problems += live_target_ended_ok(t, "at the end")
    finally:
        t.kill()
    assert not problems, (f"random seed {seed}: {len(problems)} of 30 kills left the target "
                          "broken:\n" + "\n".join(problems))


@pytest.mark.parametrize("mode", ["spin", "read"])
def test_signals_are_neither_lost_nor_reordered_across_attach_and_undo(cs, progs, mode):
    """A sender process queues SIGRTMIN to the target with payloads 0, 1, 2 ... without
    pause (at least 200000, until the cycles are over), while the test makes 50 cycles of
    attach, a refused second attach ("served already") and --undo.  The one thread taking
    the signal either reads the clock without pause (spin) or is the main thread, blocked in
    read(2) (read), which is where run injects its syscalls: signals it takes during those
    steps are held by run and must be handed back.  Real-time signals of one number queue
    and are delivered in order, so the receiver must get every payload exactly once, in
    order, each from the sender (si_pid) as sigqueue (si_code SI_QUEUE), and its read must
    never fail with EINTR (SA_RESTART)."""
    need_counter()
    exe = progs["sigqueue_target"]
    t = Target(exe, "recv", mode)
    sender = None
    problems = []
    try:
        t.ready()
        sender = subprocess.Popen([str(exe), "send", str(t.pid), "200000"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for i in range(50):
            a = run([cs, "run", "--mode", "fast", "-p", t.pid], timeout=120)
            if a.returncode != 0:
                problems.append(f"cycle {i}: attach: status {a.returncode}: {a.stderr.strip()}")
                break
            again = run([cs, "run", "--mode", "fast", "-p", t.pid], timeout=120)
            if again.returncode != 1 or "served already" not in again.stderr:
                problems.append(f"cycle {i}: second attach: status {again.returncode}: "
                                f"{again.stderr.strip()}")
                break
            u = run([cs, "run", "--undo", t.pid], timeout=120)
            if u.returncode != 0:
                problems.append(f"cycle {i}: --undo: status {u.returncode}: {u.stderr.strip()}")
                break
            if not t.alive():
                problems.append(f"cycle {i}: the target ended: {t.status()}")
                break
        if sender.poll() is not None:
            problems.append(f"the sender ended before the cycles did: {sender.communicate()}")
        sent_out, sent_err = sender.communicate(input="", timeout=DEADLINE * 2)
        m = re.search(r"^sent (\d+)$", sent_out, re.M)
        assert sender.returncode == 0 and m, sent_out + sent_err
        sent = int(m.group(1))
        assert sent >= 200000
        rc, out, err = t.finish(f"expect {sent}\n".encode())
    finally:
        if sender is not None and sender.poll() is None:
            sender.kill()
            sender.wait()
        t.kill()
    m = re.search(r"^(ok|FAIL) sigqueue .*$", out, re.M)
    report = m.group(0) if m else f"no report (status {rc}): {out} {err}"
    counts = dict(re.findall(r"(\w+) (-?\d+)", report))
    assert not problems and rc == 0 and m and m.group(1) == "ok" and \
        int(counts["got"]) == sent and int(counts["sender"]) == sender.pid and \
        all(counts[k] == "0" for k in ("missing", "duplicated", "out_of_order", "wrong_pid",
                                       "wrong_code", "eintr", "beyond")), \
        f"sender pid {sender.pid} sent {sent}; " + "; ".join(problems + [report])


def refusal(cs, t, phrase, mode, pid=None):
    """run -p on t (or on pid, another process sharing its memory) is refused with phrase,
    and writes nothing: t's vDSO bytes are the same before and after, and t (and pid) run
    on; t then ends with its "ok" line.  Returns (what is wrong, t's report): everything
    found, so that a failure says what the run did to the program too."""
    problems = []
    before = vdso_bytes(t.pid)
    proc = run([cs, "run", "--mode", "fast", "-p", pid or t.pid], timeout=120)
    if proc.returncode != 1 or phrase not in proc.stderr:
        problems.append(f"status {proc.returncode}, expected 1 and {phrase!r}: {proc.stderr.strip()}")
    why = released(t) or ran_on(t)
    if why:
        problems.append(why)
    if pid and state_of(pid) in (None, "Z", "X"):
        problems.append(f"process {pid} ended")
    if t.alive() and vdso_bytes(t.pid) != before:
        problems.append("the target's vDSO bytes changed")
    rc, out, err = t.finish()
    m = re.search(rf"^(ok|FAIL) refusal {mode} .*$", out, re.M)
    if rc != 0 or not m or m.group(1) != "ok":
        problems.append(f"the program: {t.status()}: {out.strip()} {err.strip()[-600:]}")
    return problems, m.group(0) if m else ""


@pytest.mark.parametrize("prot", ["none", "read"])
def test_refused_a_vdso_that_is_not_executable(cs, progs, prot):
    """The target mprotect()ed its own vDSO PROT_NONE, or PROT_READ: nothing can run there,
    not the syscall instruction run would single-step, not the jumps.  run -p must refuse
    before doing anything ("its vDSO is not mapped r-x"), not fault the target: its SIGSEGV
    handler, which counts, must have run 0 times, and it runs on."""
    need_counter()
    mode = f"vdso-{prot}"
    t = Target(progs["refusal_target"], mode)
    try:
        t.ready()
        assert ran_on(t) is None
        problems, report = refusal(cs, t, "its vDSO is not mapped r-x", mode)
    finally:
        t.kill()
    assert not problems and " sigsegv 0 " in report, "; ".join(problems) or report


@pytest.mark.parametrize("action", ["kill", "trap"])
@pytest.mark.parametrize("syscall", ["mmap", "openat", "mprotect"])
def test_refused_a_seccomp_filter(cs, progs, syscall, action):
    """The target installed, after it started, a seccomp filter on every thread failing
    mmap, openat or mprotect (three of the syscalls run injects) with
    SECCOMP_RET_KILL_PROCESS or SECCOMP_RET_TRAP.  run -p must refuse before injecting
    anything ("seccomp filter"): the target must be alive afterwards and its SIGSYS handler,
    which counts, must have run 0 times."""
    need_counter()
    t = Target(progs["refusal_target"], "seccomp", syscall, action)
    try:
        t.ready()
        assert ran_on(t) is None
        assert re.search(r"^Seccomp:\s*2$", open(f"/proc/{t.pid}/status").read(), re.M)
        problems, report = refusal(cs, t, "seccomp filter", "seccomp")
    finally:
        t.kill()
    assert not problems and " sigsys 0 " in report, "; ".join(problems) or report


@pytest.mark.parametrize("who", ["parent", "clone child"])
def test_refused_a_process_sharing_its_memory(cs, progs, who):
    """The target started a child with clone(CLONE_VM | SIGCHLD): another process, not one
    of its threads, sharing every page, the vDSO included, and reading the time through it
    without pause.  run -p stops only one process's threads: the other would run through
    the bytes being written.  Asked to serve either of the two, run must refuse ("shares its
    memory") with nothing written; both run on, and the child ends by itself with every read
    correct."""
    need_counter()
    t = Target(progs["refusal_target"], "clonevm")
    child = None
    try:
        line = t.ready()
        child = int(re.search(r"clone (\d+)", line).group(1))
        assert ran_on(t) is None
        problems, report = refusal(cs, t, "shares its memory", "clonevm",
                                   pid=t.pid if who == "parent" else child)
    finally:
        t.kill()
        if child and state_of(child) not in (None, "Z", "X"):
            os.kill(child, signal.SIGKILL)  # it dies with the parent anyway (PDEATHSIG)
    assert not problems and " child_status 0 " in report and " child_outside 0" in report, \
        "; ".join(problems) or report


def test_two_attaches_at_once_one_wins(cs, progs):
    """Two `run -p` on one process started at the same moment, 10 times: exactly one serves
    it; the other is refused with "served already" (it came after the first finished) or
    "another clockscope run" (it came while the first held the process), never with the
    message for a ptrace that a seccomp filter or a container forbids (the loser's
    PTRACE_SEIZE fails with EPERM only because the winner traces the threads).  After each
    round a plain --undo leaves the vDSO pristine; the target runs on correct."""
    need_counter()
    pristine = vdso_bytes("self")
    end, _ = vdso_layout(pristine)
    t = Target(progs["live_target"], "3")
    problems = []
    try:
        t.ready()
        for i in range(10):
            cmd = [str(cs), "run", "--mode", "fast", "-p", str(t.pid)]
            ps = [subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                  for _ in range(2)]
            res = [(p.wait(timeout=120), p.stderr.read()) for p in ps]
            for p in ps:
                p.stderr.close()
            won = [r for r in res if r[0] == 0]
            lost = [r for r in res if r[0] != 0]
            if len(won) != 1:
                problems.append(f"round {i}: {len(won)} of 2 succeeded: {res}")
            for rc, err in lost:
                if rc != 1 or not ("served already" in err or "another clockscope run" in err) \
                        or "seccomp filter or a container's policy" in err:
                    problems.append(f"round {i}: the loser said (status {rc}): {err.strip()}")
            why = released(t)
            if why:
                problems.append(f"round {i}: {why}")
                break
            if won:
                u = run([cs, "run", "--undo", t.pid], timeout=120)
                if u.returncode != 0:
                    problems.append(f"round {i}: --undo: status {u.returncode}: {u.stderr.strip()}")
            if vdso_bytes(t.pid)[:end] != pristine[:end]:
                problems.append(f"round {i}: the vDSO is not pristine after the undo")
                break
        problems += live_target_ended_ok(t, "the program")
    finally:
        t.kill()
    assert not problems, "\n".join(problems)


def test_coarse_clocks_never_go_backwards_across_attach_and_undo(cs, progs):
    """Served, CLOCK_MONOTONIC_COARSE and CLOCK_REALTIME_COARSE are answered by the fine
    clock, up to a tick ahead of the kernel's coarse value; unserved again after --undo,
    they are the kernel's.  10 attach/undo cycles on 2 threads reading both without pause,
    the program running reads through each state: no thread may ever read a coarse value
    below one it read before."""
    need_counter()
    t = Target(progs["coarse_target"], "2")
    try:
        t.ready()
        assert ran_on(t) is None
        for i in range(10):
            attach(cs, t)
            assert ran_on(t) is None, f"cycle {i}, served"
            undo(cs, t)
            assert ran_on(t) is None, f"cycle {i}, undone"
        rc, out, err = t.finish()
    finally:
        t.kill()
    assert rc == 0 and re.search(r"^ok coarse_target threads 2 .* decreases 0 ", out, re.M), \
        f"status {rc}: {out} {err}"


class InnerPid:
    """The process unshare forked into the new namespace, for ran_on and tasks."""

    def __init__(self, t, pid):
        self.t, self.pid = t, pid

    def alive(self):
        return self.t.alive() and state_of(self.pid) not in ("Z", "X", None)

    def status(self):
        return self.t.status()


# run/run_reader_abi.h: the region is the reader's code (8 KiB), then the line page, the
# line at its start, its seq the first 64-bit word.
READER_CODE_SIZE = 8192


def line_refreshed_in(pid, region):
    """Whether the line the served process reads (through its own mapping, as it reads it)
    changes within 5 s: the helper's writes reach it (a copy of the line, not shared,
    would stay as it was copied: every read stale, a syscall)."""
    with open(f"/proc/{pid}/mem", "rb", buffering=0) as mem:  # unbuffered: read anew
        at = region + READER_CODE_SIZE
        mem.seek(at)
        first = mem.read(8)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            time.sleep(0.05)
            mem.seek(at)
            if mem.read(8) != first:
                return True
    return False


def serve_and_undo(run_cmd, pid, inner, pristine, line_shared=False):
    """run -p PID by run_cmd (clockscope run, maybe under nsenter), the program's threads
    reading a while (each read checked by the program), then --undo: the vDSO pristine and
    the threads still reading.  line_shared: the helper's refreshes reach the line the
    program reads (line_refreshed_in)."""
    a = run(run_cmd + ["--mode", "fast", "--verbose", "-p", str(pid)], timeout=DEADLINE)
    assert a.returncode == 0 and "patched vDSO" in a.stderr, a.stderr
    if line_shared:
        region = int(re.search(r"reader at 0x([0-9a-f]+)", a.stderr).group(1), 16)
        assert line_refreshed_in(pid, region), "the target's line never changed"
    assert ran_on(inner, 20) is None
    u = run(run_cmd + ["--undo", str(pid)], timeout=DEADLINE)
    assert u.returncode == 0, u.stderr
    assert vdso_bytes(pid) == pristine
    assert ran_on(inner) is None


def finish_clean(t):
    """live_target ends at the end of its stdin: ran correctly to the end, no read outside."""
    rc, out, err = t.finish()
    assert rc == 0 and re.search(r"^ok live_target threads 2 reads \d+ outside 0$", out, re.M), \
        out + err[-2000:]


@pytest.mark.parametrize("monotonic,boottime", [(86400, 172800), (-200, 0)])
def test_a_process_in_another_time_namespace_is_served_its_own_clocks(cs, progs, monotonic, boottime):
    """A program in a time namespace whose offsets differ from run's (positive and
    negative, MONOTONIC and BOOTTIME apart): run's helper reads the clocks of its own
    namespace; the reader adds the difference, learnt at the program's first read after the
    attach (its namespace's inode and /proc/self/timens_offsets against the helper's).
    Served from outside (run -p) and from inside the namespace (nsenter --time), every read
    of every clock lies between the kernel's before and after in the program's own
    namespace (half its reads were a day off, the clock jumping to and fro, when the
    helper's clocks were served as they were), and the undo puts the vDSO back."""
    need_counter()
    if os.geteuid() != 0:
        pytest.skip("needs root to create a time namespace with offsets")
    need_tool("unshare")
    need_tool("nsenter")
    t = Target("unshare", "--time", "--monotonic", monotonic, "--boottime", boottime, "--fork",
               progs["live_target"], "2")
    try:
        line = t.ready()
        pid = int(re.search(r"ready pid (\d+)", line).group(1))
        inner = InnerPid(t, pid)
        pristine = vdso_bytes("self")
        inside = ["nsenter", "--time", "--target", str(pid), str(cs), "run"]
        for where in ([str(cs), "run"], inside):
            serve_and_undo(where, pid, inner, pristine)
        finish_clean(t)
    finally:
        t.kill()


def only_child(pid):
    """The one child of pid (the process unshare --fork started), once it exists."""
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        try:
            kids = open(f"/proc/{pid}/task/{pid}/children").read().split()
        except OSError:
            kids = []
        if kids:
            return int(kids[0])
        time.sleep(0.01)
    pytest.fail(f"pid {pid} started no child")


@pytest.mark.parametrize("where", ["another user", "a PID namespace"])
def test_root_serves_another_users_process_and_one_in_a_pid_namespace(cs, progs, tmp_path, where):
    """Root may ptrace any process, so it may serve any (issue 34.9): one of another user
    (setpriv to nobody), and one in its own PID and mount namespace with its own /proc
    (unshare --pid --mount-proc, as a container's).  Neither could open a memfd of run's
    helper by /proc/HELPER/fd ("Permission denied", "No such file or directory"): the
    memfd is made in the target and run opens it through /proc/TARGET/fd.  Served, every
    read right, undone to a pristine vDSO, twice."""
    need_counter()
    if os.geteuid() != 0:
        pytest.skip("needs root")
    if where == "another user":
        need_tool("setpriv")
        d = tmp_path / "shared"
        d.mkdir(mode=0o755)
        os.chmod(tmp_path, 0o755)
        exe = d / "live_target"
        exe.write_bytes(progs["live_target"].read_bytes())
        exe.chmod(0o755)
        t = Target("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", exe, "2")
    else:
        need_tool("unshare")
        t = Target("unshare", "--pid", "--fork", "--mount-proc", progs["live_target"], "2")
    try:
        line = t.ready()
        pid = t.pid if where == "another user" else only_child(t.pid)
        if where == "another user":
            assert f"ready pid {pid}" in line and os.stat(f"/proc/{pid}").st_uid == 65534
        else:
            assert line.startswith("ready pid 1 "), line  # pid 1 inside its namespace
        inner = InnerPid(t, pid)
        pristine = vdso_bytes("self")
        for _ in range(2):
            serve_and_undo([str(cs), "run"], pid, inner, pristine, line_shared=True)
        finish_clean(t)
    finally:
        t.kill()


def test_attach_names_the_threads_whose_calls_return_eintr(cs, progs):
    """A ptrace stop ends some blocking calls with EINTR (the kernel does so for any attach:
    strace -p, gdb): epoll_wait does, read is restarted.  run -p says which thread's call
    it ended, and only that one; the program sees exactly that: epoll_wait -1 EINTR, the
    read whole (it returns the byte written after the undo)."""
    need_counter()
    t = Target(progs["blocking_target"])
    try:
        m = re.search(r"ready pid \d+ epoll (\d+) read (\d+)", t.readline())
        assert m
        ep, rd = m.group(1), m.group(2)
        a = run([cs, "run", "--mode", "fast", "-p", t.pid], timeout=DEADLINE)
        assert a.returncode == 0, a.stderr
        assert re.search(rf"thread {ep}'s epoll_(p)?wait2? returned EINTR when run stopped it "
                         r"to serve the process", a.stderr), a.stderr
        assert f"thread {rd}'s" not in a.stderr and f"thread {t.pid}'s" not in a.stderr, a.stderr
        u = run([cs, "run", "--undo", t.pid], timeout=DEADLINE)
        assert u.returncode == 0 and "EINTR" not in u.stderr, u.stderr
        rc, out, err = t.finish()
    finally:
        t.kill()
    assert rc == 0 and "done epoll_r -1 epoll_errno 4 read_r 1 read_errno 0" in out, out + err
