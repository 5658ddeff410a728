# SPDX-License-Identifier: MIT
"""clockscope report BUNDLE... [--baseline NAME] [-o OUT.html] [--markdown | --csv | --json]
[--charts DIR] [--all]"""

import argparse
import os
import re
import sys
import tempfile
from typing import List

from . import analysis, exit_status, load, registry, text
from .exit_status import BAD_INPUT, FAILED, MISSING_DEPENDENCY, OK, PARTIAL, USAGE
from .model import Problem

EXITS = [
    (OK, "a report of every input"),
    (FAILED, "the output could not be written"),
    (USAGE, "also when no input can be read (a missing file, a directory)"),
    (PARTIAL, "a report was produced, but some input was skipped or incomplete (each\n"
              "problem on stderr, naming the file)"),
    (MISSING_DEPENDENCY, "matplotlib is missing (needed for -o and --charts); or Python"),
    (BAD_INPUT, "no input is a clockscope document this report reads (the reason is said)"),
]

EPILOG = """\
Inputs: bundles from `clockscope collect`, or plain --json outputs of single commands
(bench, doctor, warp, facts, runtimes); each file is one machine.
docs/report.md has the detail.

""" + exit_status.help_paragraph(EXITS)


# Control characters from a bundle (a kernel log line in the doctor's evidence, a hostile
# machine name) must not reach a terminal as escape sequences, nor the HTML.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    return _CONTROL.sub("?", text)


class Parser(argparse.ArgumentParser):
    """argparse with clockscope's one wording of bad usage (the C commands' common/cli.h):
    "clockscope report: <what>", then "Try 'clockscope report --help'.", exit 2."""

    def error(self, message):
        sys.stderr.write(f"clockscope report: {_one_wording(message)}\n"
                         "Try 'clockscope report --help'.\n")
        sys.exit(USAGE)


_METAVARS = {"--baseline": "NAME", "--output": "OUT.html", "--charts": "DIR"}


def _one_wording(message: str) -> str:
    m = re.match(r"unrecognized arguments: (\S+)", message)
    if m:
        word = m.group(1)
        return f"unknown option '{word}'" if word.startswith("-") else f"unexpected argument '{word}'"
    m = re.match(r"argument (?:-\w/)?(--[\w-]+): expected one argument", message)
    if m:
        return f"{m.group(1)} needs a value ({_METAVARS.get(m.group(1), 'VALUE')})"
    m = re.match(r"argument (--[\w-]+): not allowed with argument (--[\w-]+)", message)
    if m:
        return f"{m.group(2)} and {m.group(1)} do not go together"
    return message


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="clockscope report", allow_abbrev=False, description="What reading the time costs on each machine, "
               "side by side, and why (from each machine's own doctor).", epilog=EPILOG,
               formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("inputs", nargs="*", metavar="BUNDLE", help="bundles or single-command --json files")
    p.add_argument("--baseline", metavar="NAME", help="the machine others are compared with (default: the first)")
    p.add_argument("-o", "--output", metavar="OUT.html", help="write the HTML report (with charts) to this file")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--markdown", action="store_true", help="print the Markdown report on stdout")
    out.add_argument("--csv", action="store_true", help="print every figure as CSV on stdout")
    out.add_argument("--json", action="store_true",
                     help="print the comparison as one JSON document (clockscope.report/1) on stdout")
    p.add_argument("--charts", metavar="DIR", help="also write each chart as an SVG file into DIR")
    p.add_argument("--all", action="store_true", help="every bench method, not only the headline rows")
    return p


def _atomic_write(path: str, data: str) -> None:
    """Writes data to path as the C commands' -o does (src/common/out_file.h): a new name, a
    regular file or a symbolic link is replaced atomically (a temporary file renamed over
    it; a link is replaced, its target untouched); a character device or a FIFO is written
    through, never replaced (`-o /dev/null` stays a device); a directory, block device or
    socket is refused (OSError).  The type comes from an O_PATH descriptor, and the write
    reopens that very inode through /proc/self/fd."""
    import errno
    import stat
    try:
        pfd = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
    except FileNotFoundError:
        pfd = None
    if pfd is not None:
        try:
            mode = os.fstat(pfd).st_mode
            if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
                flags = os.O_WRONLY | os.O_NOCTTY | os.O_CLOEXEC
                proc = f"/proc/self/fd/{pfd}"
                try:
                    fd = os.open(proc, flags | os.O_NONBLOCK)
                except OSError as e:
                    if e.errno != errno.ENXIO:
                        raise OSError(e.errno, e.strerror, path) from None
                    sys.stderr.write(f"clockscope report: '{printable(path)}' is a FIFO: "
                                     "waiting for a reader\n")
                    fd = os.open(proc, flags)
                os.set_blocking(fd, True)
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(data)
                return
            if not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
                what = ("a directory" if stat.S_ISDIR(mode) else "a block device"
                        if stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
                        else "a special file")
                raise OSError(errno.EINVAL, f"it is {what}: give a file, a character device "
                              "or a FIFO", path)
        finally:
            os.close(pfd)
    d = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".report-", dir=d)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _charts(rep):
    try:
        from . import charts
        return charts.all_charts(rep, registry.PARTS)
    except ImportError as e:
        sys.stderr.write(f"clockscope report: charts need matplotlib ({e}).\n"
                         "  install it: python3 -m pip install matplotlib   (or: apt install python3-matplotlib)\n"
                         "  or the whole package: python3 -m pip install ./report\n")
        sys.exit(MISSING_DEPENDENCY)


def main(argv=None) -> int:
    args = _parser().parse_args(argv)
    if not args.inputs:
        _parser().error("no input: name one or more bundles (clockscope collect -o FILE makes one)")
    problems: List[Problem] = []
    machines = load.load_all(args.inputs, problems, registry.PARTS, every_method=args.all)
    for p in problems:
        sys.stderr.write(printable(f"clockscope report: {'note: ' if p.note else ''}{p}") + "\n")
    # Notes were said; what the report and the exit status carry are the inputs skipped.
    problems = [p for p in problems if not p.note]
    if not machines:
        # No file read at all is a command line naming the wrong files; files read that
        # are not clockscope documents are bad input.
        read = any(not p.unreadable for p in problems)
        sys.stderr.write("clockscope report: nothing to report: "
                         + ("no input is a clockscope document this report reads\n" if read
                            else "no input could be read\n"))
        return BAD_INPUT if read else USAGE
    if args.baseline is not None and args.baseline not in {m.name for m in machines}:
        _parser().error(f"--baseline '{args.baseline}' is not one of the machines: "
                        + ", ".join(m.name for m in machines[:20]))
    rep = analysis.build(machines, args.baseline, args.all)
    rep.problems = problems
    shown = len(problems)
    charts = _charts(rep) if args.output or args.charts else []
    for p in problems[shown:]:          # a chart that could not be drawn
        sys.stderr.write(printable(f"clockscope report: {p}") + "\n")
    try:
        if args.charts:
            os.makedirs(args.charts, exist_ok=True)
            for name, _, svg in charts:
                _atomic_write(os.path.join(args.charts, name), printable(svg))
        if args.output:
            from . import html
            _atomic_write(args.output, printable(html.render(rep, charts, registry.PARTS)))
    except OSError as e:
        sys.stderr.write(f"clockscope report: cannot write {e.filename or ''}: {e.strerror or e}\n")
        return FAILED
    try:
        if args.markdown:
            sys.stdout.write(printable(text.markdown(rep, registry.PARTS)))
        elif args.csv:
            sys.stdout.write(printable(text.csv_text(rep)))
        elif args.json:
            from . import report_json
            sys.stdout.write(report_json.render(rep))
        elif not args.output:   # with -o the HTML is the report; stdout stays empty
            sys.stdout.write(printable(text.terminal(rep, registry.PARTS)))
        sys.stdout.flush()
    except BrokenPipeError:
        # A reader that stopped early (| head): not an error of ours.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except OSError as e:
        sys.stderr.write(f"clockscope report: cannot write to stdout: {e.strerror or e}\n")
        return FAILED
    if args.output:
        n, k = len(machines), len(charts)
        sys.stderr.write(f"clockscope report: {args.output} written ({n} machine{'s' if n != 1 else ''}, "
                         f"{k} chart{'s' if k != 1 else ''})\n")
    return PARTIAL if problems else OK
