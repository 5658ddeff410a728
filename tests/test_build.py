# SPDX-License-Identifier: MIT
"""The build products a user relies on: install layout, the static binary, the licence."""
import re
import subprocess

import pytest

from conftest import ROOT, make, need_tool, run


def test_install_puts_the_binary_under_prefix(native_build, tmp_path):
    make("O=build", f"PREFIX={tmp_path}", "install")
    binary = tmp_path / "bin" / "clockscope"
    proc = run([binary, "--version"])
    assert proc.returncode == 0 and proc.stdout.startswith("clockscope ")
    # The licence travels with every installed copy (and so with every tarball, which is
    # this install under another prefix).
    installed = tmp_path / "share/doc/clockscope/LICENSE"
    assert installed.is_file() and installed.read_bytes() == (ROOT / "LICENSE").read_bytes()


def test_static_build_has_no_dynamic_dependencies(tmp_path):
    make("O=build/static", "STATIC=1", "build/static/clockscope")
    out = subprocess.run(["file", ROOT / "build/static/clockscope"], capture_output=True,
                         text=True).stdout
    assert "statically linked" in out, out
    proc = run([ROOT / "build/static/clockscope", "bench", "--quick", "--only", "libc.time"])
    assert proc.returncode == 0 and "libc.time" in proc.stdout


SOURCE_NAME = re.compile(r"(\.(c|h|py|sh|go|rs|js|java|mk)|(^|/)Makefile)$")


def test_every_source_file_starts_with_its_licence():
    """Every tracked source file's first line (after a shebang) is its SPDX identifier."""
    files = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                           text=True, check=True).stdout.split("\0")
    sources = [f for f in files if f and SOURCE_NAME.search(f)]
    assert len(sources) > 100, sources  # the listing worked
    lacking = []
    for name in sources:
        lines = (ROOT / name).read_text(errors="replace").splitlines()
        if lines and lines[0].startswith("#!"):
            lines = lines[1:]
        if not lines or "SPDX-License-Identifier: MIT" not in lines[0]:
            lacking.append(name)
    assert not lacking, ("these files do not start with an SPDX-License-Identifier: MIT line "
                         "(C: /* SPDX-License-Identifier: MIT */, others: # ... after any "
                         "shebang):\n  " + "\n  ".join(lacking))


def test_make_check_selects_by_marker_not_by_name():
    """make check's tests are chosen by marker (pytest.ini): a test that needs the cross or
    sanitized builds is out whatever its name, one whose name merely contains "cross" or
    "qemu" is in."""
    makefile = (ROOT / "Makefile").read_text()
    tests = re.search(r"^CHECK_TESTS := (.*?)(?<!\\)$", makefile, re.M | re.S).group(1)
    markers = re.search(r"^CHECK_MARKERS := (.*)$", makefile, re.M).group(1).strip()
    assert re.search(r'pytest .*\$\(CHECK_TESTS\) -m "\$\(CHECK_MARKERS\)"', makefile)
    assert " -k " not in makefile.split("check:", 1)[1].split("\n\n", 1)[0]
    files = tests.replace("\\\n", " ").split()
    proc = subprocess.run(["python3", "-m", "pytest", "--co", "-q", *files, "-m", markers],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    chosen = {line.split("[")[0] for line in proc.stdout.splitlines() if "::" in line}
    # Out: they use the cross builds (qemu-user) or the sanitized build.
    for out in ("tests/test_fastclock.py::test_riscv_counter_read_is_fenced",
                "tests/test_vdso_cmd.py::test_saved_kernel_vdso_images",
                "tests/test_warp.py::test_cross_builds_under_qemu_user",
                "tests/test_doctor.py::test_malformed_roots_under_sanitizers"):
        assert out not in chosen, out
    # In: "cross" in the name is about CPUs, not builds.
    assert "tests/test_ladder.py::test_one_cpu_marks_cross_cpu_unavailable" in chosen
    assert len(chosen) > 50


# What the Makefile passes gen-reader-blob.sh per arch: Go's g register (x28 on arm64,
# x27 = s11 on riscv64), which the injected reader must never name (docs/run.md).
G_REGISTER = {"aarch64": ("aarch64-linux-gnu", "x28|w28", "mov x28, %0", "x28"),
              "riscv64": ("riscv64-linux-gnu", "s11|x27", "mv s11, %0", "s11")}


@pytest.mark.cross
def test_reader_blob_refuses_gos_g_register(tmp_path):
    """A reader that saves Go's g register, uses it and restores it (what the C ABI allows
    a callee) fails the build: Go's signal handler reads g from it wherever a signal lands.
    A reader that leaves it alone passes."""
    for arch, (triple, regs, insn, reg) in G_REGISTER.items():
        need_tool(f"{triple}-gcc", f"{triple}-objdump")
        for uses in (True, False):
            src = tmp_path / f"{arch}-{uses}.c"
            body = f'__asm__ volatile("{insn}" : : "r"(a) : "{reg}");' if uses else ""
            src.write_text('__asm__(".text\\nrun_reader_code_start:\\n");\n'
                           f"long run_reader_clock_gettime(long a, long b) {{ {body} return a + b; }}\n"
                           "long run_reader_gettimeofday(long a) { return a; }\n")
            obj = tmp_path / f"{arch}-{uses}.o"
            proc = run([f"{triple}-gcc", "-O2", "-ffreestanding", "-fPIC", "-fno-toplevel-reorder",
                        "-fno-asynchronous-unwind-tables", "-fno-unwind-tables", "-c", "-o", obj, src])
            assert proc.returncode == 0, proc.stderr
            env = {"PATH": "/usr/bin:/bin", "READER_FORBIDDEN_REGS": regs,
                   **{tool.upper(): f"{triple}-{tool}" for tool in ("objcopy", "readelf", "nm", "objdump")}}
            proc = run(["sh", ROOT / "scripts/gen-reader-blob.sh", obj, tmp_path / "blob.h"], env=env)
            if uses:
                assert proc.returncode == 1 and "uses a register it must leave alone" in proc.stderr, \
                    (arch, proc.stderr)
                assert reg in proc.stderr
            else:
                assert proc.returncode == 0, (arch, proc.stderr)
