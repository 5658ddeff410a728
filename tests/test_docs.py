# SPDX-License-Identifier: MIT
"""Docs that cannot drift: every source, benchmark, test program and script file says what it
is for in its opening comment (docs/ARCHITECTURE.md is one page and names none of them one by
one), docs/ARCHITECTURE.md's rule about exported names holds for every common/ header, and
commit subjects fit in 72 characters."""
import re
import subprocess

from conftest import ROOT

ARCH_DOC = ROOT / "docs" / "ARCHITECTURE.md"
NAMED_DIRS = ("src", "benchmarks", "report/clockscope_report", "tests/progs", "scripts")


def tracked(*paths):
    out = subprocess.run(["git", "ls-files", "-z", *paths], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return [p for p in out.split("\0") if p]


MIN_HEADER_WORDS = 4


def header_comment(path):
    """The comment a file opens with, after its SPDX line (and a shebang): its text, or ""."""
    text = (ROOT / path).read_text(errors="replace")
    lines = [l for l in text.splitlines()
             if not l.startswith("#!") and "SPDX-License-Identifier" not in l]
    body = "\n".join(lines).lstrip()
    if body.startswith("/*"):
        return body[2:body.find("*/")] if "*/" in body else ""
    for quote in ('"""', "'''"):
        if body.startswith(quote):
            end = body.find(quote, 3)
            return body[3:end] if end > 0 else ""
    marker = "//" if body.startswith("//") else "#" if body.startswith("#") else None
    if marker is None:
        return ""
    said = []
    for line in body.splitlines():
        if not line.startswith(marker) or line.startswith("#include") or line.startswith("#!"):
            break
        said.append(line[len(marker):])
    return "\n".join(said)


def says_what_it_is(path):
    """A file says what it is for in its opening comment; a x.c beside its x.h may leave
    that to the header (its interface)."""
    if len(header_comment(path).split()) >= MIN_HEADER_WORDS:
        return True
    sibling = path[:-2] + ".h"
    return path.endswith(".c") and bool(tracked(sibling)) and \
        len(header_comment(sibling).split()) >= MIN_HEADER_WORDS


def test_every_file_says_what_it_is_for():
    files = [f for f in tracked(*NAMED_DIRS) if not f.endswith((".json", ".sum", ".map"))]
    assert len(files) > 200, files[:5]
    missing = [f for f in files if not says_what_it_is(f)]
    assert not missing, (
        f"{len(missing)} file(s) without an opening comment saying what they are for (after "
        "the SPDX line; a .c may leave it to its .h):\n  " + "\n  ".join(missing))


def test_a_file_without_its_comment_is_found(tmp_path, monkeypatch):
    assert says_what_it_is("src/common/json_read.h")
    assert says_what_it_is("src/common/json_read.c")
    assert says_what_it_is("tests/mutants/run.py")
    assert header_comment("scripts/install-deps.sh").split()
    monkeypatch.setattr("test_docs.ROOT", tmp_path)
    (tmp_path / "a.c").write_text("/* SPDX-License-Identifier: MIT */\n#include <x.h>\n")
    (tmp_path / "b.py").write_text("# SPDX-License-Identifier: MIT\nimport os\n")
    (tmp_path / "c.sh").write_text("#!/bin/sh\n# SPDX-License-Identifier: MIT\n# Says what.\n")
    assert header_comment("a.c") == "" and header_comment("b.py") == ""
    assert header_comment("c.sh").split() == ["Says", "what."]


# docs/ARCHITECTURE.md, common/: "Exports carry their file's prefix ..., except: cli.h's
# helpers (usage_error, parse_u64, parse_seconds), subprocess.h's run_capture_all, and
# version.h's clockscope_version*".
EXCEPTIONS = {"cli": {"usage_error", "parse_u64", "parse_seconds"},
              "subprocess": {"run_capture_all"},
              "version": {"clockscope_version", "clockscope_version_number",
                          "clockscope_revision"}}


def test_common_exports_carry_their_files_prefix():
    doc = ARCH_DOC.read_text()
    for name in ("usage_error", "parse_u64", "parse_seconds", "run_capture_all",
                 "clockscope_version*"):
        assert name in doc, name
    declared = re.compile(r"^(?!static|typedef|#|\s|/|\*|})[\w \*]*?\b([a-z_][a-z0-9_]*)\s*\(", re.M)
    wrong = []
    for header in tracked("src/common/*.h"):
        stem = header.rsplit("/", 1)[-1][:-2]
        text = re.sub(r"/\*.*?\*/", "", (ROOT / header).read_text(), flags=re.S)
        for name in declared.findall(text):
            prefix = stem.split("_")[0]
            if name.startswith(prefix) or name in EXCEPTIONS.get(stem, set()):
                continue
            if name in ("__attribute__",):
                continue
            wrong.append(f"{header}: {name}")
    assert not wrong, ("exports without their file's prefix (rename them, or list them in "
                       "docs/ARCHITECTURE.md's common/ and here):\n  " + "\n  ".join(wrong))


# The first commit held to the rule: a subject of at most 72 characters (what `git log
# --oneline` and a mail subject show whole), the why in the body.  Earlier history is kept
# as it is.
SUBJECT_RULE_FROM = "005d66392a771ccdbbf21936807e06f8ed9df5b2"
SUBJECT_MAX = 72


def commit_subjects(since):
    known = subprocess.run(["git", "cat-file", "-e", f"{since}^{{commit}}"], cwd=ROOT,
                           capture_output=True).returncode == 0
    rng = [f"{since}^..HEAD"] if known else ["-1", "HEAD"]  # a shallow clone: HEAD alone
    out = subprocess.run(["git", "log", "--no-merges", "--format=%h %s", *rng], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return [line.split(" ", 1) for line in out.splitlines()]


def test_commit_subjects_fit_in_72_characters():
    subjects = commit_subjects(SUBJECT_RULE_FROM)
    assert subjects, "no commits found"
    long = [f"{h} ({len(s)}): {s}" for h, s in subjects if len(s) > SUBJECT_MAX]
    assert not long, (f"commit subjects over {SUBJECT_MAX} characters (say the why in the "
                      "body):\n  " + "\n  ".join(long))


def test_the_subject_check_sees_a_long_subject():
    """From a commit of the earlier history whose subject is long: the check must see it."""
    long_one = "2b35fe4d59d16ca77f8934fde3c1790f4b0e5cb8"
    known = subprocess.run(["git", "cat-file", "-e", long_one], cwd=ROOT).returncode == 0
    subjects = commit_subjects(long_one)
    if known:
        assert [s for h, s in subjects if long_one.startswith(h)][0].startswith("review: ")
        assert any(len(s) > SUBJECT_MAX for _, s in subjects)
