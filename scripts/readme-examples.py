#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the example outputs of README.md and docs/*.md from the commands themselves, and
holds the rules tests/test_readme_examples.py compares them by (their shape, not their figures).

An example is a block between two markers in a Markdown file:

    <!-- example: clockscope doctor; head=12; optional=^note:; same=arch,clocksource -->

        ...the command's output, indented four spaces (written by this script)...

    <!-- end example; taken on {"arch": "x86_64", ...} -->

After `example:` comes the command (`clockscope` is build/clockscope), then options, each
`; key=value`:
  head=N        keep the first N lines (an excerpt; the text around it says "trimmed")
  optional=RE   lines (with their deeper-indented continuation lines) matching the regular
                expression RE at their start may come and go between runs (a note on a loaded
                machine, a noisy-row mark): dropped on both sides before comparing
  same=FIELDS   the machine facts (arch, clocksource, virtualization) the output's shape
                depends on: the test skips the example on a machine where one differs
The end marker records the facts of the machine the example was taken on (from
the "machine" of `clockscope bench --json`), so that the test can mask them (kernel release,
CPU model, clocksource, virtualization, arch).

Regenerate every example (quick variants: a few seconds in all), after `make`:

    python3 scripts/readme-examples.py

Running it twice changes only the figures.  `--check` compares instead of writing (what the
test does); FILE arguments limit it to those files.
"""
import argparse
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START = re.compile(r"^<!-- example: (.*?) -->$")
END = re.compile(r"^<!-- end example(?:; taken on (.*?))? -->$")
WRAPPED = 70
MACHINE_FIELDS = ("cpu_model", "kernel", "clocksource", "virtualization", "arch")
# A figure, with its unit or mark when it has one: 22.5, 1,234, 4.2%*, 184~, 9.81x, 3.28 µs,
# 45.1 M/s (a row's mark comes and goes with the machine's steadiness, as its figures do).
NUMBER = re.compile(r"[-+]?\d[\d,]*(?:\.\d+)?(?: ?(?:ns|µs|us|ms|s|[kMG](?:/s)?|%|x))?[!*~]?(?!\w)")


def doc_files():
    return [ROOT / "README.md"] + sorted((ROOT / "docs").glob("*.md"))


class Example:
    def __init__(self, path, start, end, header, taken):
        self.path, self.start, self.end = path, start, end
        parts = [p.strip() for p in header.split(";")]
        self.command = parts[0]
        self.options = dict(p.split("=", 1) for p in parts[1:] if "=" in p)
        self.taken = json.loads(taken) if taken else {}

    @property
    def name(self):
        where = self.path.relative_to(ROOT) if self.path.is_relative_to(ROOT) else self.path
        return f"{where}: {self.command}"

    def argv(self, binary):
        words = shlex.split(self.command)
        assert words[0] == "clockscope", f"{self.name}: an example runs clockscope"
        return [str(binary)] + words[1:]

    def same(self):
        return [f for f in self.options.get("same", "arch").split(",") if f]


def find_examples(path):
    lines = path.read_text().splitlines()
    found, open_at = [], None
    for n, line in enumerate(lines):
        if START.match(line):
            assert open_at is None, f"{path}:{n + 1}: an example inside an example"
            open_at = n
        elif END.match(line):
            assert open_at is not None, f"{path}:{n + 1}: an end without its example"
            found.append(Example(path, open_at, n, START.match(lines[open_at]).group(1),
                                 END.match(line).group(1)))
            open_at = None
    assert open_at is None, f"{path}:{open_at + 1}: an example without its end marker"
    return found


def all_examples(paths=None):
    return [e for p in (paths or doc_files()) for e in find_examples(p)]


def machine(binary):
    argv = [str(binary), "bench", "--quick", "--only", "ref.empty_call", "--json"]
    facts = json.loads(subprocess.run(argv, capture_output=True, text=True, timeout=60,
                                      check=True).stdout)["machine"]
    return {k: facts[k] for k in MACHINE_FIELDS if isinstance(facts.get(k), str) and facts[k]}


def run_example(example, binary):
    """The command's output as a user reads it: stdout, then what it said on stderr."""
    proc = subprocess.run(example.argv(binary), cwd=ROOT, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=300)
    lines = (proc.stdout + proc.stderr).rstrip("\n").splitlines()
    head = int(example.options.get("head", 0))
    return lines[:head] if head else lines


def block(lines):
    return [("    " + l).rstrip() for l in lines]


def shape(lines, facts, optional=None):
    """The lines as the test compares them: the machine's facts masked, every figure '#',
    runs of spaces one (columns widen with figures), optional lines dropped, and a line
    wrapped (over WRAPPED columns, continued by a deeper-indented line) joined with its
    continuation (wrapping moves with a CPU name's length)."""
    kept, skipping_under = [], None
    for line in lines:
        indent = len(line) - len(line.lstrip())
        if skipping_under is not None and line.strip() and indent > skipping_under:
            continue
        skipping_under = None
        if optional and line.strip() and re.match(optional, line):
            skipping_under = indent
            continue
        kept.append(line)
    logical, last_indent, last_len = [], None, 0
    for line in kept:
        indent = len(line) - len(line.lstrip())
        wrapped = last_indent is not None and indent > last_indent and last_len > WRAPPED
        last_len = len(line)
        if logical and line.strip() and wrapped:
            logical[-1] += " " + line.strip()
            continue
        logical.append(line)
        last_indent = indent if line.strip() else None
    # Dropped lines leave their blank neighbours: a run of blank lines counts as one.
    logical = [l for i, l in enumerate(logical) if l.strip() or i == 0 or logical[i - 1].strip()]
    for field in sorted(facts, key=lambda k: -len(facts[k])):
        logical = [l.replace(facts[field], f"<{field}>") for l in logical]
    return [" ".join(NUMBER.sub("#", l).split()) for l in logical]


def differences(example, fresh, facts):
    """What differs between the example's stored text and a fresh run, as a list of lines
    (empty: the same shape)."""
    text = example.path.read_text().splitlines()[example.start + 1:example.end]
    stored = [l[4:] for l in _block_lines(text)]
    optional = example.options.get("optional")
    old = shape(stored, example.taken, optional)
    new = shape(fresh, facts, optional)
    if old == new:
        return []
    out = [f"{example.name}: {len(old)} lines in the doc, {len(new)} now"]
    for i in range(max(len(old), len(new))):
        a = old[i] if i < len(old) else "(none)"
        b = new[i] if i < len(new) else "(none)"
        if a != b:
            out += [f"  line {i + 1} doc: {a}", f"  line {i + 1} now: {b}"]
    return out


def _block_lines(text):
    """The indented block between the markers, without the blank lines around it."""
    while text and not text[0].strip():
        text = text[1:]
    while text and not text[-1].strip():
        text = text[:-1]
    return text


def rewrite(path, binary, facts):
    lines = path.read_text().splitlines()
    for example in reversed(find_examples(path)):
        body = block(run_example(example, binary))
        end = f"<!-- end example; taken on {json.dumps(facts, sort_keys=True)} -->"
        lines[example.start + 1:example.end + 1] = [""] + body + ["", end]
        print(f"{example.name}: {len(body)} lines", file=sys.stderr)
    path.write_text("\n".join(lines) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 epilog="See this script's opening comment for the markers.")
    ap.add_argument("files", nargs="*", type=Path, help="Markdown files (default: README.md "
                    "and docs/*.md)")
    ap.add_argument("--binary", type=Path, default=ROOT / "build" / "clockscope")
    ap.add_argument("--check", action="store_true",
                    help="compare each example's shape with a fresh run; write nothing")
    args = ap.parse_args()
    paths = [p.resolve() for p in args.files] or doc_files()
    facts = machine(args.binary)
    if not args.check:
        for path in paths:
            if find_examples(path):
                rewrite(path, args.binary, facts)
        return 0
    bad = []
    for example in all_examples(paths):
        bad += differences(example, run_example(example, args.binary), facts)
    print("\n".join(bad) or "every example has its shape", file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
