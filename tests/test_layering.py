# SPDX-License-Identifier: MIT
"""The layers of src/ (docs/ARCHITECTURE.md, "Layers"), held by the code itself.

- Each directory of src/ includes only from the directories below it (LAYERS): arch and
  common at the bottom, then the libraries (vdso, fastclock, facts, measure, shim), then the
  commands, which never include one another except through the few public interfaces
  named in PUBLIC, then main.c.
- No architecture test (__x86_64__, __aarch64__, __riscv, ...) in a preprocessor line
  outside src/arch/: what differs by arch is behind arch/'s interfaces.
- No file in src/ over 600 lines, no function over 80 (SIZE_EXCEPTIONS says why for each
  one that is).
Each check is also run against a planted violation, so that a check that finds nothing
because it looks at nothing fails here too."""
import re
import subprocess

import pytest

from conftest import ROOT

SRC = ROOT / "src"

LIBRARIES = {
    "common": set(),
    "arch": {"common"},
    "vdso": {"arch", "common"},
    "fastclock": {"arch", "common"},
    "facts": {"arch", "common", "vdso"},
    "measure": {"arch", "common", "vdso", "fastclock", "facts"},
    "shim": {"arch", "common", "fastclock"},
}
COMMANDS = ("bench", "collect", "doctor", "ladder", "metrics", "profile", "run", "runtimes",
            "vm", "warp")
BELOW_COMMANDS = set(LIBRARIES) - {"shim"}  # the shim is a library of its own, not in the CLI
LAYERS = dict(LIBRARIES, **{c: BELOW_COMMANDS for c in COMMANDS})

# A command's header that another command includes, and why it is an interface and not an
# internal: metrics exports the doctor's diagnosis and warp's verdict as Prometheus metrics,
# so it calls them as a library does.
PUBLIC = {
    ("metrics", "doctor/diagnosis.h"): "metrics exports the doctor's diagnosis",
    ("metrics", "doctor/report.h"): "the diagnosis's wording, the same as the doctor prints",
    ("metrics", "warp/warp_run.h"): "metrics runs warp's check and exports its verdict",
}

# libfastclock's insides stay its own: outside src/fastclock/ (and the shim, linked into the
# same library), only these of its headers: the public API, the line's format and read path
# (which run's injected reader shares), and what a process lending its line may know.
FASTCLOCK_INTERFACE = {"fastclock/fastclock.h", "fastclock/fc_line.h", "fastclock/fc_read.h",
                       "fastclock/fc_host.h"}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
ARCH_TEST = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif)\b.*"
                       r"\b(__x86_64__|__amd64__|__i386__|__aarch64__|__arm__|__riscv\w*"
                       r"|__powerpc\w*|__s390x__)\b", re.M)

MAX_FILE_LINES = 600
MAX_FUNCTION_LINES = 80
# Files and functions over the limits, each with why it is better whole (path or
# path:function -> reason).  Anything here that has come within the limits fails the test
# too, so the list only shrinks.
SIZE_EXCEPTIONS = {
}


def tracked_sources():
    out = subprocess.run(["git", "ls-files", "-z", "src/*.c", "src/*.h"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout
    return [p for p in out.split("\0") if p]


def room(path):
    """src/<dir>/... -> <dir>; src/main.c and src/commands.h -> "main"."""
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else "main"


def layer_violations(path, text):
    here = room(path)
    if here == "main":
        return []
    allowed = LAYERS.get(here)
    if allowed is None:
        return [f"{path}: src/{here}/ has no place in LAYERS (tests/test_layering.py)"]
    wrong = []
    for inc in INCLUDE.findall(text):
        if "/" not in inc:
            # commands.h (the command table: a command's entry file, which for facts and
            # vdso lives beside its library) or a header generated beside the file
            if inc == "commands.h" and here not in COMMANDS and not path.endswith("_cmd.c"):
                wrong.append(f"{path}: includes commands.h")
            continue
        there = inc.split("/")[0]
        if there == "fastclock" and here not in ("fastclock", "shim") \
                and inc not in FASTCLOCK_INTERFACE:
            wrong.append(f"{path}: includes {inc} (libfastclock's insides: use "
                         f"{', '.join(sorted(FASTCLOCK_INTERFACE))})")
            continue
        if there == here or there in allowed or (here, inc) in PUBLIC:
            continue
        wrong.append(f"{path}: includes {inc} (src/{here}/ may include only "
                     f"{', '.join(sorted(allowed)) or 'itself'})")
    return wrong


def arch_violations(path, text):
    if path.startswith("src/arch/"):
        return []
    return [f"{path}: tests {m.group(1)}" for m in ARCH_TEST.finditer(text)]


def functions(text):
    """(name, lines) of every function defined at file scope: the body's braces sit in
    column 0 (the tree's style), the name is the last identifier before '(' in the lines
    above the opening brace."""
    lines = text.splitlines()
    found = []
    for i, line in enumerate(lines):
        if line != "{":
            continue
        sig, j = "", i - 1
        while j >= 0 and lines[j] and not lines[j].startswith(("}", "#")) \
                and not lines[j].rstrip().endswith((";", "*/")):
            sig = lines[j] + " " + sig
            if re.match(r"[A-Za-z_]", lines[j]):
                break
            j -= 1
        name = re.findall(r"([A-Za-z_]\w*)\s*\(", sig)
        if not name:
            continue  # an initializer or a struct, not a function
        end = i + 1
        while end < len(lines) and lines[end] != "}":
            end += 1
        found.append((name[0], end - i + 1))
    return found


def size_violations(path, text):
    wrong = []
    n = len(text.splitlines())
    if n > MAX_FILE_LINES:
        wrong.append((path, f"{path}: {n} lines (at most {MAX_FILE_LINES})"))
    for name, length in functions(text):
        if length > MAX_FUNCTION_LINES:
            wrong.append((f"{path}:{name}",
                          f"{path}: {name}() is {length} lines (at most {MAX_FUNCTION_LINES})"))
    return wrong


def sources():
    files = tracked_sources()
    assert len(files) > 200, files[:5]
    return [(p, (ROOT / p).read_text(errors="replace")) for p in files]


def test_every_include_goes_down_the_layers():
    wrong = [w for p, t in sources() for w in layer_violations(p, t)]
    assert not wrong, ("includes across the layers (docs/ARCHITECTURE.md, \"Layers\"):\n  "
                       + "\n  ".join(wrong))


def test_public_interfaces_are_still_used():
    used = {(room(p), inc) for p, t in sources() for inc in INCLUDE.findall(t)}
    stale = [f"{who} -> {inc}" for who, inc in PUBLIC if (who, inc) not in used]
    assert not stale, "PUBLIC names includes nobody makes:\n  " + "\n  ".join(stale)


def test_no_arch_test_outside_arch():
    wrong = [w for p, t in sources() for w in arch_violations(p, t)]
    assert not wrong, ("architecture tests outside src/arch/ (put what differs behind an "
                       "arch/ interface):\n  " + "\n  ".join(wrong))


def test_files_and_functions_within_their_size():
    found = {key: msg for p, t in sources() for key, msg in size_violations(p, t)}
    over = [msg for key, msg in found.items() if key not in SIZE_EXCEPTIONS]
    within = [key for key in SIZE_EXCEPTIONS if key not in found]
    assert not over, "over the limits (split them):\n  " + "\n  ".join(over)
    assert not within, ("SIZE_EXCEPTIONS lists what is within the limits (remove it):\n  "
                        + "\n  ".join(within))


@pytest.mark.parametrize("path,text,expect", [
    ("src/common/x.c", '#include "facts/facts.h"\n', "may include only"),
    ("src/runtimes/x.c", '#include "doctor/proof.h"\n', "includes doctor/proof.h"),
    ("src/fastclock/x.h", '#  include "measure/engine.h"\n', "includes measure/engine.h"),
    ("src/newroom/x.c", "", "no place in LAYERS"),
    ("src/arch/x.c", '#include "commands.h"\n', "includes commands.h"),
    ("src/run/x.c", '#include "fastclock/fc_state.h"\n', "libfastclock's insides"),
])
def test_a_planted_layer_violation_is_found(path, text, expect):
    found = layer_violations(path, text)
    assert found and expect in found[0], found


def test_layers_allow_what_they_should():
    assert not layer_violations("src/bench/x.c", '#include "measure/engine.h"\n#include "x.h"\n')
    assert not layer_violations("src/main.c", '#include "vm/guest_init.h"\n')
    assert not layer_violations("src/metrics/x.c", '#include "warp/warp_run.h"\n')


@pytest.mark.parametrize("text", ["#if defined(__x86_64__)\n", "#ifdef __aarch64__\n",
                                  "# elif defined(__riscv) && __riscv_xlen == 64\n",
                                  "#if !defined(__i386__)\n"])
def test_a_planted_arch_test_is_found(text):
    assert arch_violations("src/run/x.c", "int a;\n" + text + "#endif\n")
    assert not arch_violations("src/arch/x.c", text)


def test_an_arch_name_in_a_string_is_not_an_arch_test():
    assert not arch_violations("src/profile/x.c", 'T("__riscv_sys_clock_gettime", 0),\n')


def test_a_planted_long_function_and_file_are_found():
    body = "\n".join(f"    x += {i};" for i in range(MAX_FUNCTION_LINES - 1))
    text = f"static int\nlong_one(int x)\n{{\n{body}\n}}\n\nint short_one(void)\n{{\n}}\n"
    found = [k for k, _ in size_violations("src/a/b.c", text)]
    assert found == ["src/a/b.c:long_one"], found
    assert functions(text) == [("long_one", MAX_FUNCTION_LINES + 1), ("short_one", 2)]
    long_file = "int a;\n" * (MAX_FILE_LINES + 1)
    assert [k for k, _ in size_violations("src/a/c.c", long_file)] == ["src/a/c.c"]
    struct = "static const struct x t[] =\n{\n" + "  {1},\n" * 100 + "}\n;\n"
    assert functions(struct) == [], "an initializer is not a function"


ENV_HEADER = "src/common/environment.h"
ENV_LITERAL = re.compile(r'"(CLOCKSCOPE_[A-Z0-9_]+)"')


def env_violations(path, text):
    if path == ENV_HEADER:
        return []
    return [f"{path}: spells \"{m.group(1)}\"" for m in ENV_LITERAL.finditer(text)]


def test_every_environment_variable_is_in_one_header():
    files = sources()
    wrong = [w for p, t in files for w in env_violations(p, t)]
    assert not wrong, (f"CLOCKSCOPE_* variables outside {ENV_HEADER} (name each there, with "
                       "what it does, and use its ENV_ macro):\n  " + "\n  ".join(wrong))
    header = (ROOT / ENV_HEADER).read_text()
    macros = re.findall(r"#define (ENV_[A-Z0-9_]+) ", header)
    assert len(macros) > 20, macros
    used = "\n".join(t for p, t in files if p != ENV_HEADER)
    unused = [m for m in macros if not re.search(r"\b" + m + r"\b", used)]
    assert not unused, f"{ENV_HEADER} names variables nothing reads or sets: {unused}"


def test_a_planted_environment_literal_is_found():
    assert env_violations("src/run/x.c", 'getenv("CLOCKSCOPE_NEW_HOOK");\n')
    assert not env_violations("src/run/x.c", '"see CLOCKSCOPE_NEW_HOOK in the help"\n')
    assert not env_violations(ENV_HEADER, '#define ENV_X "CLOCKSCOPE_X"\n')


# A buffer that carries a message (a reason, an error, what was said) takes one of
# common/message.h's sizes, each with its reason, not a number chosen where it is declared.
# libfastclock keeps its own: its buffers mirror the public struct fastclock_info, whose
# sizes are the library's ABI; the reader blob has no headers.
MESSAGE_HEADER = "src/common/message.h"
MESSAGE_EXEMPT = ("src/fastclock/", "src/run/reader/")
MESSAGE_BUFFER = re.compile(
    r"^\s*(?:static\s+)?char\s[^;(\n]*?\b(why\w*|\w+_why|err|error|err_tail|\w*said|what|how|msg|"
    r"summary|advice|\w+_unreadable)\[([0-9]+)\]", re.M)


def message_size_violations(path, text):
    if path.startswith(MESSAGE_EXEMPT):
        return []
    return [f"{path}: {m.group(1)}[{m.group(2)}]" for m in MESSAGE_BUFFER.finditer(text)]


def test_every_message_buffer_has_a_named_size():
    wrong = [w for p, t in sources() for w in message_size_violations(p, t)]
    assert not wrong, (f"message buffers sized by a number (use a size from {MESSAGE_HEADER}, "
                       "or name a new one there with its reason):\n  " + "\n  ".join(wrong))
    header = (ROOT / MESSAGE_HEADER).read_text()
    sizes = re.findall(r"#define (MSG_[A-Z_]+) ", header)
    used = "\n".join(t for p, t in sources() if p != MESSAGE_HEADER)
    unused = [s for s in sizes if not re.search(r"\b" + s + r"\b", used)]
    assert sizes and not unused, f"{MESSAGE_HEADER} names sizes nothing uses: {unused}"


def test_a_planted_numbered_message_buffer_is_found():
    assert message_size_violations("src/run/x.c", "    char why[200];\n")
    assert message_size_violations("src/vm/x.h", "    char path[64], err[1024] = \"\";\n")
    assert message_size_violations("src/doctor/x.c", "    static char said[400];\n")
    assert not message_size_violations("src/run/x.c", "    char why[MSG_LINE];\n")
    assert not message_size_violations("src/run/x.c", "    char line[512];\n")
    assert not message_size_violations("src/fastclock/fc_x.c", "    char why[200];\n")
