# SPDX-License-Identifier: MIT
"""The vDSO's bytes in a process, as run -p and --undo leave them: read through a live
thread (a main thread that called pthread_exit is a zombie whose /proc files read empty).
Used by tests/test_run_attach.py and benchmarks/bench_run_attach.py."""
import os


def live_thread(pid):
    """A thread of pid that has not ended (its main thread may have: pthread_exit)."""
    if pid == "self":
        return pid
    for t in sorted(os.listdir(f"/proc/{pid}/task"), key=lambda t: t != str(pid)):
        try:
            if open(f"/proc/{pid}/task/{t}/stat").read().rsplit(")", 1)[1].split()[0] not in "ZX":
                return t
        except (FileNotFoundError, ProcessLookupError):
            pass
    return pid


def vdso_bytes(pid):
    """The [vdso] mapping's bytes of pid (a child of the caller, or "self")."""
    pid = live_thread(pid)
    for line in open(f"/proc/{pid}/maps"):
        if line.rstrip().endswith("[vdso]"):
            a, b = (int(x, 16) for x in line.split()[0].split("-"))
            with open(f"/proc/{pid}/mem", "rb") as f:
                f.seek(a)
                return f.read(b - a)
    return None
