# SPDX-License-Identifier: MIT
"""Docs that cannot go stale: each example output in README.md and docs/*.md (written by
scripts/readme-examples.py) has the shape a fresh run of its command has; every doc is linked
from README's documentation list; each doc's synopsis names exactly its command's options;
README's two set-up commands leave `clockscope vm` its guests.

The shape compared (scripts/readme-examples.py, `shape`): the same logical lines (a line
over 70 columns joined with the deeper-indented line continuing it: wrapping may move) in the
same order, word for word, with every figure (and its unit or '!' mark) replaced by '#',
runs of spaces made one, and the facts of the machine the example was taken on (kernel release, CPU model,
clocksource, virtualization, arch, recorded in the end marker) masked on both sides.  Lines
an example marks optional (a note on a loaded machine) are dropped on both sides.  An example
whose output depends on a fact (`same=arch,clocksource`) is skipped on a machine where that
fact differs: other rows, other findings.  Regenerate: `python3 scripts/readme-examples.py`."""
import importlib.util
import re
import subprocess

import pytest

from conftest import ROOT, run

spec = importlib.util.spec_from_file_location("readme_examples",
                                              ROOT / "scripts" / "readme-examples.py")
ex = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ex)

EXAMPLES = ex.all_examples()


@pytest.fixture(scope="module")
def facts(clockscope):
    return ex.machine(clockscope)


def test_the_docs_hold_examples():
    names = {e.name.split(":")[0] for e in EXAMPLES}
    assert {"README.md", "docs/runtimes.md", "docs/ladder.md"} <= names, names
    assert all(e.taken for e in EXAMPLES), "an example never written: run the script"


def example_id(example):
    """README.md:doctor, docs/ladder.md:ladder: the doc and the command (the ids
    docs/testing.md's allowed skips name)."""
    return f"{example.name.split(':')[0]}:{example.command.split()[1]}"


@pytest.mark.parametrize("example", EXAMPLES, ids=example_id)
def test_example_has_the_shape_of_a_fresh_run(clockscope, facts, example):
    differ = [f for f in example.same() if example.taken.get(f) != facts.get(f)]
    if differ:
        pytest.skip(f"{example.name}: taken where {differ[0]} was "
                    f"{example.taken.get(differ[0])}, here {facts.get(differ[0])}")
    diff = ex.differences(example, ex.run_example(example, clockscope), facts)
    assert not diff, ("an example's shape is stale (regenerate: python3 "
                      "scripts/readme-examples.py):\n" + "\n".join(diff))


TAKEN = {"kernel": "6.1.0-9-amd64", "cpu_model": "AMD EPYC", "arch": "x86_64"}
STORED = ["clockscope bench: x86_64, AMD EPYC, Linux 6.1.0-9-amd64",
          "id        ns/call   calls/s  spread",
          "libc.x       22.1    45.1 M/s   4.2%",
          "note: load average 6 on 2 CPUs: other work shares",
          "      these cores",
          "why: proven: 1000 calls of clock_gettime(MONOTONIC) made 0 syscalls, 22.1 ns per",
          "    call",
          "  machine: x86_64"]


def test_the_shape_masks_figures_machine_and_wrapping():
    here = {"kernel": "6.18.44-fc-v669", "cpu_model": "Intel(R) Xeon(R) Processor",
            "arch": "x86_64"}
    fresh = ["clockscope bench: x86_64, Intel(R) Xeon(R) Processor, Linux 6.18.44-fc-v669",
             "id    ns/call   calls/s  spread",
             "libc.x   3.28 µs   305 k/s   13.0%!",
             "why: proven: 1000 calls of clock_gettime(MONOTONIC) made 0 syscalls, 3.28 µs",
             "    per call",
             "  machine: x86_64"]
    assert ex.shape(STORED, TAKEN, "^note:") == ex.shape(fresh, here, "^note:")
    assert ex.shape(STORED, TAKEN, "^note:")[2] == "libc.x # # #"
    assert len(ex.shape(STORED, TAKEN, "^note:")) == 5  # the wrapped line joined, not "machine"


WHY = STORED[5:]  # wrapped as stored, then "  machine: x86_64"


@pytest.mark.parametrize("fresh", [
    ["clockscope bench: x86_64, AMD EPYC, Linux 6.1.0-9-amd64", "id ns/call calls/s spread",
     "libc.y 22.1 45.1 M/s 4.2%", *WHY],                                     # another id
    ["clockscope bench: x86_64, AMD EPYC, Linux 6.1.0-9-amd64", "id ns/call calls/s spread",
     "libc.x 22.1 45.1 M/s 4.2%", *WHY[:2]],                                 # a line less
    ["clockscope bench: x86_64, AMD EPYC, Linux 6.1.0-9-amd64", "id ns/call calls/s spread",
     "libc.x 22.1 45.1 M/s 4.2%", WHY[0].replace("made", "took"), *WHY[1:]],  # a word
])
def test_the_shape_sees_a_changed_line(fresh):
    assert ex.shape(STORED, TAKEN, "^note:") == \
        ex.shape(fresh[:2] + ["libc.x 22.1 45.1 M/s 4.2%", *WHY], TAKEN, "^note:")
    assert ex.shape(STORED, TAKEN, "^note:") != ex.shape(fresh, TAKEN, "^note:")


def test_the_check_sees_a_stale_example(tmp_path, clockscope, facts):
    doc = tmp_path / "x.md"
    doc.write_text("<!-- example: clockscope doctor --no-proof -->\n\n    clockscope doctor: "
                   "OK: a line the doctor never says\n\n"
                   f"<!-- end example; taken on {ex.json.dumps(facts)} -->\n")
    example = ex.find_examples(doc)[0]
    assert ex.differences(example, ex.run_example(example, clockscope), facts)
    ex.rewrite(doc, clockscope, facts)
    example = ex.find_examples(doc)[0]
    assert not ex.differences(example, ex.run_example(example, clockscope), facts)


# ---- the documentation list ---------------------------------------------------------------

def test_every_doc_is_linked_from_the_documentation_list():
    text = (ROOT / "README.md").read_text()
    listed = text.split("## Documentation\n", 1)[1].split("\n## ", 1)[0]
    linked = set(re.findall(r"\]\((docs/[\w.-]+\.md)\)", listed))
    docs = {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    assert len(docs) > 10
    assert docs - linked == set(), f"docs not in README's documentation list: {docs - linked}"
    assert linked - docs == set(), f"README links docs that do not exist: {linked - docs}"


# ---- each doc's synopsis against its command's --help --------------------------------------

SYNOPSIS_START = re.compile(r"^    clockscope (\w+) .*\[")
OPTION = re.compile(r"(?<![\w-])(--?[a-zA-Z][\w-]*)")


def synopses(path):
    """{command: its synopsis lines}: a block of indented `clockscope CMD [...]` lines (and
    their continuations) up to a blank line."""
    found, current = {}, None
    for line in path.read_text().splitlines():
        start = SYNOPSIS_START.match(line)
        if current is None and start:
            current = found.setdefault(start.group(1), [])
        if current is not None:
            if not line.startswith("    "):
                current = None
                continue
            current.append(line)
    return found


def synopsis_options(lines):
    """The options a synopsis names (not the wrapped command's, after ' -- ')."""
    return {o for line in lines for o in OPTION.findall(line.split(" -- ")[0])}


def help_options(clockscope, command):
    """Each option of `clockscope COMMAND --help` with its other spelling: [{-p, --pid}, ...]."""
    proc = run([clockscope, command, "--help"], timeout=30)
    groups = []
    for line in (proc.stdout + proc.stderr).splitlines():
        spec = re.split(r"\s{2,}", line.strip())[0]
        if not re.match(r"^\s+-", line) or line.strip().startswith("--- "):
            continue
        names = set(re.findall(r"(?<![\w-])--?[a-zA-Z][\w-]*", spec))
        names |= set(re.findall(r"\(or (-\w) ", line))
        if names and not names & {"--help", "-h"}:
            groups.append(names)
    return groups


def synopsis_mismatch(named, groups):
    known = set().union(*groups) if groups else set()
    return (sorted(named - known),
            sorted(sorted(g)[-1] for g in groups if not g & named))


SYNOPSIS_DOCS = {"ladder.md", "metrics.md", "report.md", "run.md", "runtimes.md", "vm.md",
                 "warp.md"}


def test_every_synopsis_names_exactly_the_options_of_its_help(clockscope):
    seen, wrong = set(), []
    for path in sorted((ROOT / "docs").glob("*.md")):
        for command, lines in synopses(path).items():
            seen.add(path.name)
            extra, missing = synopsis_mismatch(synopsis_options(lines),
                                               help_options(clockscope, command))
            if extra or missing:
                wrong.append(f"docs/{path.name} ({command}): not in --help {extra}, "
                             f"not in the synopsis {missing}")
    assert SYNOPSIS_DOCS <= seen, SYNOPSIS_DOCS - seen
    assert not wrong, "synopses behind their --help:\n  " + "\n  ".join(wrong)


def test_the_synopsis_check_sees_a_missing_option():
    groups = [{"--quick"}, {"-o", "--output"}, {"--progress"}]
    assert synopsis_mismatch({"--quick", "-o", "--progress"}, groups) == ([], [])
    assert synopsis_mismatch({"--quick", "-o"}, groups) == ([], ["--progress"])
    assert synopsis_mismatch({"--quick", "-o", "--progress", "--gone"}, groups) == \
        (["--gone"], [])


# ---- set-up ---------------------------------------------------------------------------------

def test_the_two_set_up_commands_leave_vm_its_guests():
    """README's set-up: exactly two commands, one builds and runs the doctor, one runs the
    whole suite; `make test` builds vm's guests (the Makefile's recipe), so `vm` works after."""
    text = (ROOT / "README.md").read_text()
    setup = text.split("## Set-up: the two commands\n", 1)[1].split("\n## ", 1)[0]
    commands = [l.strip() for l in setup.splitlines() if l.startswith("    ")]
    assert commands == ["make && ./build/clockscope doctor", "make test"], commands
    assert "make vm-binaries" in setup
    recipe = re.search(r"^test:.*?\n((?:\t.*\n)+)", (ROOT / "Makefile").read_text(), re.M)
    assert recipe and "vm-binaries" in recipe.group(1), "make test does not build vm's guests"
