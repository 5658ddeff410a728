# SPDX-License-Identifier: MIT
"""One table of bad command lines for every command: each ends with exit status 2, nothing on
stdout, and exactly two lines on stderr, the one wording of src/common/cli.h and the
pointer to --help.  Nothing here measures, boots or reads facts: the parser answers first."""
import os
import re
import subprocess

import pytest

from conftest import ROOT, run

NCPUS = len(os.sched_getaffinity(0))

# (command line after `clockscope`, the first line of stderr after "clockscope CMD: ")
BAD = [
    # bench
    (["bench", "--samples"], "--samples needs a value (N)"),
    (["bench", "--bogus"], "unknown option '--bogus'"),
    (["bench", "--samples", "many"], "--samples: 'many' is not a whole number"),
    (["bench", "--samples", "-5"], "--samples: '-5' is not a whole number"),
    (["bench", "--samples", "2"], "--samples: 2 is out of range (3 to 1000)"),
    (["bench", "--samples", "1001"], "--samples: 1001 is out of range (3 to 1000)"),
    (["bench", "--clock", "sideways"], "--clock: 'sideways' is not one of realtime, monotonic, "
     "monotonic_raw, realtime_coarse, monotonic_coarse, boottime, tai, process_cputime_id, "
     "thread_cputime_id"),
    (["bench", "stray"], "unexpected argument 'stray'"),
    (["bench", "--samples", "5", "--samples", "7"], "--samples given more than once"),
    (["bench", "--json=yes"], "--json takes no value"),
    (["bench", "--threads", "0"], f"--threads: 0 is out of range (1 to {NCPUS}): the CPUs this "
     "process may use"),
    (["bench", "--threads", "100000"], f"--threads: 100000 is out of range (1 to {NCPUS}): the "
     "CPUs this process may use"),
    (["bench", "--threads", "two"], "--threads: 'two' is not a whole number"),
    # warp
    (["warp", "--seconds"], "--seconds needs a value (S)"),
    (["warp", "--bogus"], "unknown option '--bogus'"),
    (["warp", "--seconds", "soon"], "--seconds: 'soon' is not a duration in seconds"),
    (["warp", "--seconds", "0.01"], "--seconds: 0.01 s is out of range (0.05 to 3600)"),
    (["warp", "--seconds", "0"], "--seconds: 0 s is out of range (0.05 to 3600)"),
    (["warp", "--seconds", "99999"], "--seconds: 99999 s is out of range (0.05 to 3600)"),
    (["warp", "--seconds", "-1"], "--seconds: '-1' is not a duration in seconds"),
    (["warp", "--seconds", "1e3"], "--seconds: '1e3' is not a duration in seconds"),
    (["warp", "--cpus", ""], "--cpus needs a value (LIST)"),
    (["warp", "stray"], "unexpected argument 'stray'"),
    (["warp", "--seconds", "1", "--seconds=2"], "--seconds given more than once"),
    # vdso
    (["vdso", "--file"], "--file needs a value (IMAGE)"),
    (["vdso", "--bogus"], "unknown option '--bogus'"),
    (["vdso", "stray"], "unexpected argument 'stray'"),
    (["vdso", "--file", "a", "--dump", "b"], "--file and --dump do not go together"),
    (["vdso", "--dump", "a", "--dump", "b"], "--dump given more than once"),
    # doctor
    (["doctor", "--root"], "--root needs a value (DIR)"),
    (["doctor", "--root", ""], "--root needs a value (DIR)"),
    (["doctor", "--bogus"], "unknown option '--bogus'"),
    (["doctor", "stray"], "unexpected argument 'stray'"),
    (["doctor", "--", "--json"], "unexpected argument '--json'"),
    # facts
    (["facts", "--save"], "--save needs a value (DIR)"),
    (["facts", "--bogus"], "unknown option '--bogus'"),
    (["facts", "stray"], "unexpected argument 'stray'"),
    (["facts", "--force"], "--force goes only with --save"),
    # run
    (["run", "--mode"], "--mode needs a value (MODE)"),
    (["run", "--bogus", "--", "true"], "unknown option '--bogus'"),
    (["run", "--mode", "sideways", "--", "true"],
     "--mode: 'sideways' is not one of auto, fast, coarse[=CLOCKS], count"),
    (["run", "--verbose"], "no command given (clockscope run [options] -- COMMAND [ARG...])"),
    (["run", "--mode", "fast", "--mode", "count", "--", "true"], "--mode given more than once"),
    # vm
    (["vm", "--arch", "x86_64", "--append"], "--append needs a value (ARGS)"),
    (["vm", "--arch", "x86_64", "--bogus", "--", "bench"], "unknown option '--bogus'"),
    (["vm", "--arch", "x86_64", "--vcpus", "two", "--", "bench"], "--vcpus: 'two' is not a whole number"),
    (["vm", "--arch", "x86_64", "--vcpus", "65", "--", "bench"], "--vcpus: 65 is out of range (1 to 64)"),
    (["vm", "--arch", "x86_64", "--memory", "64", "--", "bench"],
     "--memory: 64 is out of range (128 to 1048576)"),
    (["vm", "--arch", "x86_64", "--timeout", "0.5", "--", "bench"],
     "--timeout: 0.5 s is out of range (1 to 86400)"),
    (["vm", "--arch", "mips", "--", "bench"], "--arch: 'mips' is not one of x86_64, aarch64, riscv64"),
    (["vm", "--", "bench"], "--arch or --scenario is required"),
    (["vm", "--arch", "x86_64"], "no command given (clockscope vm [options] -- COMMAND [ARGS...])"),
    (["vm", "--scenario", "nope", "--", "bench"], "--scenario: 'nope' is not one of {scenarios}"),
    (["vm", "--scenario", "x86_64-hpet", "--arch", "x86_64", "--", "bench"],
     "--arch and --scenario do not go together"),
    (["vm", "--arch", "x86_64", "--machine", "virt", "--", "bench"],
     "--machine: 'virt' is not one of pc, q35 (the x86_64 machine models)"),
    (["vm", "--list-scenarios", "--", "bench"], "--list-scenarios does not go with a command"),
    (["vm", "--arch", "x86_64", "--kernel", "a", "--kernel", "b", "--", "bench"],
     "--kernel given more than once"),
    (["vm", "--arch", "x86_64", "--env", "A=1", "--env", "A=2", "--", "bench"], "--env: A given twice"),
    # collect
    (["collect", "--bogus"], "unknown option '--bogus'"),
    (["collect", "-o"], "--output needs a value (FILE)"),
    (["collect", "--output", ""], "--output needs a value (FILE)"),
    (["collect", "extra"], "unexpected argument 'extra'"),
    (["collect", "--parts", "bench,nope"], "--parts: unknown part 'nope' (parts: facts, doctor, bench, warp, ladder, runtimes, profile)"),
    (["collect", "--warp-seconds", "0"], "--warp-seconds: 0 s is out of range (0.1 to 60)"),
    (["collect", "--timeout", "abc"], "--timeout: 'abc' is not a duration in seconds"),
    (["collect", "--quick", "--quick"], "--quick given more than once"),
    # doctor over many roots
    (["doctor", "--roots"], "--roots needs a value (DIR)"),
    (["doctor", "--roots", "a", "--roots", "b"], "--roots given more than once"),
    (["doctor", "--root"], "--root needs a value (DIR)"),
    # metrics
    (["metrics", "--bogus"], "unknown option '--bogus'"),
    (["metrics", "--textfile-dir"], "--textfile-dir needs a value (DIR)"),
    (["metrics", "--root"], "--root needs a value (DIR)"),
    (["metrics", "--quick", "--quick"], "--quick given more than once"),
    (["metrics", "extra"], "unexpected argument 'extra'"),
    (["metrics", "--textfile-dir", "/nonexistent-clockscope"],
     "--textfile-dir '/nonexistent-clockscope': No such file or directory"),
    (["metrics", "--textfile-dir", "/dev/null"], "--textfile-dir '/dev/null' is not a directory"),
    # ladder
    (["ladder", "--bogus"], "unknown option '--bogus'"),
    (["ladder", "--timeout"], "--timeout needs a value (S)"),
    (["ladder", "--timeout", "soon"], "--timeout: 'soon' is not a duration in seconds"),
    (["ladder", "--timeout", "0.01"], "--timeout: 0.01 s is out of range (0.1 to 600)"),
    (["ladder", "--timeout", "-1"], "--timeout: '-1' is not a duration in seconds"),
    (["ladder", "--cpus", ""], "--cpus needs a value (LIST)"),
    (["ladder", "--cpus", "1-0"], "--cpus: bad CPU list '1-0' (expected e.g. 0,2-3)"),
    (["ladder", "--only", "nothing.like.this"], "no rung matches --only (the ids are in docs/ladder.md)"),
    (["ladder", "--quick", "--quick"], "--quick given more than once"),
    (["ladder", "--json=1"], "--json takes no value"),
    (["ladder", "stray"], "unexpected argument 'stray'"),
    # profile
    (["profile", "--bogus"], "unknown option '--bogus'"),
    (["profile", "--perf-script"], "--perf-script needs a value (FILE)"),
    (["profile", "--pid", "0"], "--pid: 0 is out of range (1 to 2147483647)"),
    (["profile", "--frequency", "fast", "--", "true"], "--frequency: 'fast' is not a whole number"),
    (["profile", "--seconds", "0.01", "-a"], "--seconds: 0.01 s is out of range (0.1 to 86400)"),
    (["profile", "--top", "0", "-a"], "--top: 0 is out of range (1 to 48)"),
    (["profile", "--json", "--json", "-a"], "--json given more than once"),
    (["profile"], "nothing to profile: give -- COMMAND, --pid PID, --all-cpus, --clock-loop, "
     "--perf-script FILE, --perf-report FILE or --perf-data FILE"),
    (["profile", "-a", "-p", "1"], "give one of -- COMMAND, --pid, --all-cpus, --clock-loop, "
     "--perf-script, --perf-report, --perf-data"),
    (["profile", "--perf-script", "a", "--", "true"], "give one of -- COMMAND, --pid, "
     "--all-cpus, --clock-loop, --perf-script, --perf-report, --perf-data"),
    (["profile", "--seconds", "1", "--", "true"], "--seconds goes only with --pid, --all-cpus "
     "or --clock-loop (a COMMAND runs until it exits)"),
    (["profile", "--event", "cycles", "--perf-script", "x"], "--event goes only with a live profile"),
    (["profile", "--count", "-a"], "--count goes only with -- COMMAND"),
    # runtimes
    (["runtimes", "--bogus"], "unknown option '--bogus'"),
    (["runtimes", "--only"], "--only needs a value (RUNTIMES)"),
    (["runtimes", "--only", "python,cobol"], "--only: 'cobol' is not one of c, python, go, java, node, rust"),
    (["runtimes", "--python"], "--python needs a value (PATH)"),
    (["runtimes", "--go-probe", ""], "--go-probe needs a value (PATH)"),
    (["runtimes", "--samples", "2"], "--samples: 2 is out of range (3 to 200)"),
    (["runtimes", "--timeout", "0"], "--timeout: 0 s is out of range (1 to 3600)"),
    (["runtimes", "--json", "--json"], "--json given more than once"),
    (["runtimes", "python"], "unexpected argument 'python'"),
    # report (its Python package speaks the same wording)
    (["report", "--bogus"], "unknown option '--bogus'"),
    (["report", "-o"], "--output needs a value (OUT.html)"),
    (["report", "--baseline"], "--baseline needs a value (NAME)"),
    (["report", "--markdown", "--csv"], "--markdown and --csv do not go together"),
]


# Values that only the command can judge, once parsed (a CPU list against this machine, a
# selection that matches no method): the same two lines; the first starts with this.
JUDGED = [
    (["bench", "--cpus", "99999"], "--cpus: CPU 99999 does not exist"),
    (["bench", "--cpus", "0-"], "--cpus: bad CPU list '0-'"),
    (["bench", "--only", "nothing.*"], "no method matches --only/--clock"),
    (["warp", "--cpus", "9999"], "--cpus: CPU 9999 does not exist"),
    (["warp", "--cpus", "0-"], "--cpus: bad CPU list '0-'"),
    (["warp", "--cpus", "1,"], "--cpus: bad CPU list '1,'"),
    (["warp", "--cpus", "x"], "--cpus: bad CPU list 'x'"),
    (["warp", "--only", "ref.*"], "no method matches --only"),
    (["warp", "--only", "libc.time"], "no method matches --only"),
    (["run", "--output", "x", "--", "true"], "--output is for --mode count"),
]


@pytest.mark.parametrize("args,message", BAD, ids=[" ".join(a) or "-" for a, _ in BAD])
def test_bad_usage_has_one_wording(clockscope, tmp_path, args, message):
    if "{scenarios}" in message:   # the lab's names, as `vm --list-scenarios` gives them
        listed = run([clockscope, "vm", "--list-scenarios"]).stdout
        names = re.findall(r"^(\S+)  \(doctor: ", listed, re.M)
        assert len(names) >= 7, listed
        message = message.format(scenarios=", ".join(names))
    # In an empty directory: a parser that let a bad line through must not write here.
    proc = run([clockscope, *args], timeout=10, cwd=tmp_path)
    cmd = args[0]
    assert proc.returncode == 2, (args, proc.returncode, proc.stderr)
    assert proc.stdout == "", (args, proc.stdout)
    assert proc.stderr == f"clockscope {cmd}: {message}\nTry 'clockscope {cmd} --help'.\n"


@pytest.mark.parametrize("args,start", JUDGED, ids=[" ".join(a) for a, _ in JUDGED])
def test_values_judged_after_parsing(clockscope, tmp_path, args, start):
    proc = run([clockscope, *args], timeout=10, cwd=tmp_path)
    cmd = args[0]
    assert proc.returncode == 2 and proc.stdout == "", (args, proc.returncode, proc.stderr)
    first, hint = proc.stderr.splitlines()
    assert first.startswith(f"clockscope {cmd}: {start}"), (args, first)
    assert hint == f"Try 'clockscope {cmd} --help'."


def test_every_command_is_in_the_table(clockscope):
    """Each command has at least an unknown option and a missing value in the table."""
    proc = run([clockscope, "--help"])
    commands = [line.split()[0] for line in proc.stdout.split("commands:\n")[1].splitlines()
                if line.startswith("  ")]
    assert len(commands) >= 7, proc.stdout
    for cmd in commands:
        messages = [m for a, m in BAD if a[0] == cmd]
        assert any(m.startswith("unknown option") for m in messages), cmd
        assert any(" needs a value " in m for m in messages), cmd


@pytest.mark.parametrize("args,first_line", [
    (["--bogus"], "clockscope: unknown option '--bogus'"),
    (["frobnicate"], "clockscope: unknown command 'frobnicate'"),
    (["--version", "--version"], "clockscope: --version given more than once"),
])
def test_global_bad_usage(clockscope, args, first_line):
    proc = run([clockscope, *args], timeout=10)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.splitlines()[0] == first_line
    assert "usage: clockscope <command>" in proc.stderr


@pytest.mark.parametrize("cmd", ["bench", "warp", "vdso", "doctor", "facts", "run", "vm", "profile"])
def test_help_of_every_command(clockscope, cmd):
    for flag in ("--help", "-h"):
        proc = run([clockscope, cmd, flag], timeout=10)
        assert proc.returncode == 0 and proc.stdout.startswith(f"usage: clockscope {cmd}")
        assert proc.stderr == ""


def test_options_after_the_command_belong_to_it(clockscope):
    """run and vm stop at the command: its own options are not theirs."""
    proc = run([clockscope, "run", "--", "sh", "-c", "exit 3", "--bogus"], timeout=10)
    assert proc.returncode == 3, proc.stderr
    proc = run([clockscope, "run", "sh", "-c", "exit 4"], timeout=10)
    assert proc.returncode == 4, proc.stderr


@pytest.mark.parametrize("args", [["--help"], ["bench", "--help"], ["vm", "-h"]])
def test_help_that_cannot_be_written_fails(clockscope, args):
    with open("/dev/full", "w") as full:
        proc = subprocess.run([clockscope, *args], stdout=full, stderr=subprocess.PIPE, timeout=10)
    assert proc.returncode == 1, proc.stderr


# Labels only the project's own reading list can decode ("source 003", "paper (BankedIPC /
# FlexIPC on ChCore)"): what a user sees names the thing ("the polling-server experiment
# (FlexIPC, Journal of Software 2025)", "the RISC-V clock_gettime report").
CRYPTIC = re.compile(r"source ?0\d\d|BankedIPC / FlexIPC", re.I)


def commands_of(clockscope):
    out = run([clockscope, "--help"]).stdout
    return [line.split()[0] for line in out.split("commands:\n")[1].splitlines()
            if line.startswith("  ")]


def test_no_label_an_outsider_cannot_decode(clockscope):
    """Every --help (the top one, each command's, ladder's rung list), the README, docs/ and the
    strings and comments of the C sources, the benchmarks and the scripts."""
    found = []
    texts = {"clockscope --help": run([clockscope, "--help"]).stdout,
             "clockscope ladder --list": run([clockscope, "ladder", "--list"], timeout=30).stdout}
    for cmd in commands_of(clockscope):
        proc = run([clockscope, cmd, "--help"], timeout=30)
        texts[f"clockscope {cmd} --help"] = proc.stdout + proc.stderr
    tracked = subprocess.run(["git", "ls-files", "README.md", "docs", "src", "benchmarks",
                              "scripts", "runtimes", "completion", "packaging",
                              "report/clockscope_report"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    for name in tracked:
        path = ROOT / name
        if path.suffix in (".png", ".svg", ".gz") or not path.is_file():
            continue
        texts[name] = path.read_text(errors="replace")
    assert len(texts) > 100
    for where, text in texts.items():
        for n, line in enumerate(text.splitlines(), 1):
            if CRYPTIC.search(line):
                found.append(f"{where}:{n}: {line.strip()}")
    assert not found, "labels an outsider cannot decode:\n" + "\n".join(found)
