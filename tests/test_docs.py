# SPDX-License-Identifier: MIT
"""Docs that cannot drift: docs/ARCHITECTURE.md names every source, benchmark, test program
and script file, and its rule about exported names holds for every common/ header."""
import re
import subprocess

from conftest import ROOT

ARCH_DOC = ROOT / "docs" / "ARCHITECTURE.md"
NAMED_DIRS = ("src", "benchmarks", "report/clockscope_report", "tests/progs", "scripts")


def tracked(*paths):
    out = subprocess.run(["git", "ls-files", "-z", *paths], cwd=ROOT, capture_output=True,
                         text=True, check=True).stdout
    return [p for p in out.split("\0") if p]


def named(doc, path):
    """A file is named by its path or its file name as a word of its own ("x.c", "x.c/.h",
    "x.c:"); a header x.h also by the x.c beside it (its interface: the doc says so)."""
    def word(name):
        return re.search(r"(?<![\w.-])" + re.escape(name) + r"(?![\w-])", doc) is not None
    base = path.rsplit("/", 1)[-1]
    if path in doc or word(base):
        return True
    sibling = path[:-2] + ".c"
    return path.endswith(".h") and sibling in tracked(sibling) and word(sibling.rsplit("/", 1)[-1])


def test_every_file_is_named_in_the_architecture():
    doc = ARCH_DOC.read_text()
    files = tracked(*NAMED_DIRS)
    assert len(files) > 200, files[:5]
    missing = [f for f in files if not named(doc, f)]
    assert not missing, (
        f"{len(missing)} file(s) not named in docs/ARCHITECTURE.md (add each, with one line "
        "saying what it is for, under its directory):\n  " + "\n  ".join(missing))


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
