# SPDX-License-Identifier: MIT
"""An installed clockscope is complete: `make install` (PREFIX, DESTDIR) brings the vm guests,
the shim, libfastclock, man pages and completion, and the installed binary finds them;
`make dist` builds three arches' tarballs and a lintian-clean .deb whose checksums verify;
`--version` names the commit.  Guests boot from an installed prefix (aarch64 under TCG)."""
import hashlib
import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import tarfile

import pytest

from conftest import ROOT, make, need_tool, run

ARCHES = ("x86_64", "aarch64", "riscv64")
ELF_MACHINE = {"x86_64": 62, "aarch64": 183, "riscv64": 243}
COMMANDS = ("bench", "warp", "vdso", "doctor", "facts", "run", "vm", "metrics", "ladder", "profile",
            "runtimes", "collect", "report")
DOCTOR_VERDICTS = {0, 3, 4, 5}  # ok, slow, broken, unknown (docs/doctor.md)


def elf(path):
    """(e_machine, has PT_INTERP) of a 64-bit little-endian ELF file."""
    data = path.read_bytes()
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1, path
    machine = struct.unpack_from("<H", data, 18)[0]
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    interp = any(struct.unpack_from("<I", data, phoff + i * phentsize)[0] == 3
                 for i in range(phnum))
    return machine, interp


@pytest.fixture(scope="module")
def guests():
    need_tool(*(f"{a}-linux-gnu-gcc" for a in ARCHES))
    make("vm-binaries")


@pytest.fixture(scope="module")
def prefix(guests, tmp_path_factory):
    """make install PREFIX=DIR, as a user does it."""
    need_tool("help2man")
    d = tmp_path_factory.mktemp("prefix")
    make(f"PREFIX={d}", "install")
    return d


def test_install_puts_everything_under_the_prefix(prefix):
    must = ["bin/clockscope", "lib/libfastclock.so.1", "lib/libfastclock.so", "lib/libfastclock.a",
            "lib/pkgconfig/fastclock.pc", "include/fastclock.h",
            "lib/clockscope/libclockscope-shim.so",
            "share/bash-completion/completions/clockscope", "share/zsh/site-functions/_clockscope",
            "share/fish/vendor_completions.d/clockscope.fish", "share/doc/clockscope/run.md",
            "share/clockscope/probes/probe.py", "share/clockscope/probes/probe.go",
            "share/man/man1/clockscope.1", *(f"share/man/man1/clockscope-{c}.1" for c in COMMANDS)]
    missing = [m for m in must if not (prefix / m).exists()]
    assert not missing, missing
    for arch in ARCHES:
        machine, interp = elf(prefix / "libexec/clockscope" / arch / "clockscope")
        assert machine == ELF_MACHINE[arch] and not interp, arch
        # The shim `run` needs inside that arch's guest, beside it.
        assert elf(prefix / "libexec/clockscope" / arch / "libclockscope-shim.so")[0] == \
            ELF_MACHINE[arch], arch


def test_destdir_stages_without_changing_the_prefix(guests, tmp_path):
    need_tool("help2man")
    make(f"DESTDIR={tmp_path}", "PREFIX=/opt/cs", "install")
    assert (tmp_path / "opt/cs/libexec/clockscope/riscv64/clockscope").is_file()
    pc = (tmp_path / "opt/cs/lib/pkgconfig/fastclock.pc").read_text()
    assert "prefix=/opt/cs\n" in pc, pc  # the final prefix, not the staging directory


def test_installed_vm_finds_its_guests(prefix, tmp_path):
    """Past the guest lookup, vm stops at the kernel check (exit 2), before any boot."""
    need_tool("qemu-system-aarch64", "qemu-system-riscv64")
    cs = prefix / "bin/clockscope"
    for arch in ("aarch64", "riscv64"):
        proc = run([cs, "vm", "--arch", arch, "--kernel", tmp_path / "none", "--", "doctor"],
                   timeout=20)
        assert proc.returncode == 2 and "no static" not in proc.stderr, proc.stderr
        assert str(tmp_path / "none") in proc.stderr, proc.stderr


def test_missing_guest_names_its_package_and_make_target(prefix, tmp_path):
    need_tool("qemu-system-aarch64")
    copy = tmp_path / "p"
    shutil.copytree(prefix, copy, symlinks=True)
    shutil.rmtree(copy / "libexec/clockscope/aarch64")
    proc = run([copy / "bin/clockscope", "vm", "--arch", "aarch64", "--", "doctor"], timeout=20)
    assert proc.returncode == 125, proc.stderr
    for words in ("no static aarch64 clockscope", "libexec/clockscope/aarch64/clockscope",
                  "gcc-aarch64-linux-gnu libc6-dev-arm64-cross", "make vm-binaries",
                  "make install"):
        assert words in proc.stderr, (words, proc.stderr)


@pytest.mark.vm
@pytest.mark.qemu
def test_installed_vm_boots_an_aarch64_guest(prefix):
    """The acceptance test: `DIR/bin/clockscope vm --arch aarch64 -- doctor`, no flags."""
    need_tool("qemu-system-aarch64")
    proc = run([prefix / "bin/clockscope", "vm", "--arch", "aarch64", "--timeout", "240", "--",
                "doctor"], timeout=400)
    assert proc.returncode in DOCTOR_VERDICTS, proc.stderr
    assert proc.stdout.startswith("clockscope doctor: "), proc.stdout
    assert "machine: aarch64" in proc.stdout, proc.stdout


def test_installed_vm_runs_run_in_a_riscv64_guest(prefix, tmp_path):
    """`DIR/bin/clockscope vm --arch riscv64 --add PROG -- run --mode count -- PROG`: the
    riscv64 shim comes from DIR/libexec, the program's loader and libc from Debian's cross
    libc package; the program's calls are counted exactly (1 + N + 2000, tests/progs/clockloop.c)."""
    need_tool("qemu-system-riscv64", "riscv64-linux-gnu-gcc")
    prog = tmp_path / "clockloop"
    proc = run(["riscv64-linux-gnu-gcc", "-O1", "-o", prog, ROOT / "tests/progs/clockloop.c"])
    assert proc.returncode == 0, proc.stderr
    proc = run([prefix / "bin/clockscope", "vm", "--arch", "riscv64", "--vcpus", "1", "--timeout",
                "240", "--add", prog, "--", "run", "--mode", "count", "--", "clockloop", "1000"],
               timeout=400)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert re.search(r"^\s+3001\s+[\d.]+ [kMGTPE]?/s\s+clock_gettime\(CLOCK_MONOTONIC\)$", proc.stderr, re.M), \
        proc.stderr[-3000:]


def test_installed_run_finds_its_shim(prefix):
    proc = run([prefix / "bin/clockscope", "run", "--mode", "count", "--", "true"])
    assert proc.returncode == 0 and "clockscope run --mode count: pid" in proc.stderr, proc.stderr


def test_version_names_the_commit(clockscope):
    need_tool("git")
    described = run(["git", "-C", ROOT, "describe", "--tags", "--always", "--dirty"])
    number = (ROOT / "VERSION").read_text().strip()
    # make rebuilds version.o when the description changes (a commit, a dirty tree).
    make("O=build", "build/clockscope")
    out = run([clockscope, "--version"]).stdout.strip()
    assert out == f"clockscope {number} (git {described.stdout.strip()})", out


def test_version_says_where_it_comes_from(clockscope):
    """Whatever tree it was built in, --version names its git description or says there was
    none: never a bare number that could be any build."""
    out = run([clockscope, "--version"]).stdout.strip()
    assert re.fullmatch(r"clockscope \d+\.\d+\.\d+ \((git \S+|no git)\)", out), out


def test_version_without_git(tmp_path):
    """A tree exported without .git (a source tarball) says so instead of failing."""
    need_tool("git")
    tree = tmp_path / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", ROOT, "archive", "HEAD"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", tree], input=archive, check=True)
    proc = subprocess.run(["make", "-s", "-j2", "build/clockscope"], cwd=tree, capture_output=True,
                          text=True)
    assert proc.returncode == 0, proc.stderr
    out = run([tree / "build/clockscope", "--version"]).stdout.strip()
    assert re.fullmatch(r"clockscope \d+\.\d+\.\d+ \(no git\)", out), out
    # The packages' and tarballs' version: VERSION's number alone.
    assert dist_version(tree) == (ROOT / "VERSION").read_text().strip()


def dist_version(tree):
    """DIST_VERSION as mk/release.mk (this checkout's) defines it for the tree at TREE."""
    proc = run(["make", "-s", "-C", tree, "-f", ROOT / "mk/release.mk", "O=build",
                "--eval", "print-dist-version:; @echo '$(DIST_VERSION)'", "print-dist-version"])
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.strip()


def dpkg_orders(*versions):
    """Whether dpkg (and so apt) sorts VERSIONS in the order given, each strictly above the last."""
    return all(run(["dpkg", "--compare-versions", a, "lt", b]).returncode == 0
               for a, b in zip(versions, versions[1:]))


def test_package_versions_sort_by_history(tmp_path):
    """The packages' version orders two builds of one history as the history does, a dirty
    tree above its commit's clean build, whatever the commits' hashes: commits are made
    until the newer hash sorts below the older one, the case a hash-only version gets wrong."""
    need_tool("git", "dpkg")
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    shutil.copy(ROOT / "VERSION", repo / "VERSION")
    (repo / "work").write_text("committed\n")
    for step in (["init", "-q"], ["add", "VERSION", "work"], ["commit", "-q", "-m", "first"]):
        assert run([*git, *step]).returncode == 0, step
    number = (ROOT / "VERSION").read_text().strip()

    def head(*what):
        return run([*git, *what, "HEAD"]).stdout.strip()
    for _ in range(64):
        short, count = head("rev-parse", "--short"), head("rev-list", "--count")
        clean = dist_version(repo)
        (repo / "work").write_text("changed, not committed\n")
        dirty = dist_version(repo)
        (repo / "work").write_text("committed\n")
        assert run([*git, "commit", "-q", "--allow-empty", "-m", "next"]).returncode == 0
        newer = dist_version(repo)
        assert dpkg_orders(clean, dirty, newer), (clean, dirty, newer)
        assert (clean, dirty) == (f"{number}+git{count}.{short}", f"{number}+git{count}.{short}.dirty")
        if not dpkg_orders(f"{number}+g{short}", f"{number}+g{head('rev-parse', '--short')}"):
            break       # these two commits' hashes alone sort against their history
    else:
        pytest.fail("64 commits and no pair whose hashes sort against their history")


def test_man_pages_come_from_each_commands_help(prefix, clockscope):
    for cmd in COMMANDS:
        page = (prefix / f"share/man/man1/clockscope-{cmd}.1").read_text()
        assert re.search(rf'^\.TH CLOCKSCOPE-{cmd.upper()} "1"', page, re.M), page[:300]
        assert f"clockscope-{cmd} \\- " in page  # NAME: the summary from `clockscope --help`
        assert ".SH SYNOPSIS" in page
        # Every option the command's --help lists is in its page.
        help_text = run([clockscope, cmd, "--help"]).stdout
        for opt in set(re.findall(r"^\s+(--[a-z][a-z0-9-]*)", help_text, re.M)):
            assert opt.replace("-", "\\-") in page, (cmd, opt)
    top = (prefix / "share/man/man1/clockscope.1").read_text()
    assert all(f"clockscope-{c} (1)" in top for c in COMMANDS)


def complete(prefix, *words, on_path=True):
    """What bash completion offers after `words` (the last one is being completed); with
    on_path False, PREFIX/bin is not on PATH (words[0] must then name the binary)."""
    need_tool("bash")
    script = (f"source {prefix}/share/bash-completion/completions/clockscope\n"
              f"COMP_WORDS=({' '.join(repr(str(w)) for w in words)}); COMP_CWORD={len(words) - 1}\n"
              "_clockscope; printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    env = dict(os.environ, PATH=f"{prefix}/bin:{os.environ['PATH']}" if on_path else os.environ["PATH"])
    proc = run(["bash", "-c", script], env=env)
    assert proc.returncode == 0, proc.stderr
    return set(proc.stdout.split())


def test_bash_completion(prefix, clockscope):
    assert complete(prefix, "clockscope", "") >= set(COMMANDS)
    assert complete(prefix, "clockscope", "d") == {"doctor"}
    assert complete(prefix, "clockscope", "run", "--") >= {"--mode", "--inherit", "--no-follow"}
    assert complete(prefix, "clockscope", "vm", "--arch", "") == set(ARCHES)
    ids = {l.split()[0] for l in run([clockscope, "bench", "--list"]).stdout.splitlines()}
    assert ids and complete(prefix, "clockscope", "bench", "--only", "") == ids
    assert complete(prefix, "clockscope", "vm", "--arch", "aarch64", "--", "do") == {"doctor"}
    assert complete(prefix, "clockscope", "runtimes", "--only", "") == {"c", "python", "go", "java",
                                                                         "node", "rust"}
    assert complete(prefix, "clockscope", "runtimes", "--only", "c,py") == {"c,python"}
    assert complete(prefix, "clockscope", "run", "--mode", "") == {"auto", "fast", "coarse", "count"}
    parts = {"facts", "doctor", "bench", "warp", "ladder", "runtimes", "profile"}
    assert complete(prefix, "clockscope", "collect", "--parts", "") == parts
    assert complete(prefix, "clockscope", "collect", "--parts", "facts,d") == {"facts,doctor"}


def test_bash_completion_offers_files_where_an_option_takes_one(prefix, tmp_path):
    """-o and --output of report and collect, report's --charts: the files there; an option
    that takes a name (report --baseline) offers none."""
    (tmp_path / "out.html").write_text("")
    where = f"{tmp_path}/o"
    for words in (("report", "-o"), ("report", "--output"), ("collect", "-o"),
                  ("collect", "--output"), ("run", "--output"), ("report", "--charts")):
        assert complete(prefix, "clockscope", *words, where) == {f"{tmp_path}/out.html"}, words
    assert complete(prefix, "clockscope", "report", "--baseline", where) == set()


SHORT_AND_LONG = {"-o", "--output", "-h", "--help", "--markdown"}   # report's argparse help


def test_bash_completion_asks_the_binary_typed_for_every_option_word(prefix):
    """report's argparse lines ("-h, --help", "-o OUT.html, --output OUT.html") give every
    option word, and a binary named by its path (./build/clockscope) is asked itself."""
    got = complete(prefix, prefix / "bin/clockscope", "report", "-", on_path=False)
    assert got >= SHORT_AND_LONG, got
    assert complete(prefix, prefix / "bin/clockscope", "do", on_path=False) == {"doctor"}


def test_fish_completion(prefix):
    need_tool("fish")
    prog = prefix / "bin/clockscope"
    fish = prefix / "share/fish/vendor_completions.d/clockscope.fish"

    def offered(line):
        proc = run(["fish", "--no-config", "-c", f"source {fish}; complete -C{shlex.quote(line)}"])
        assert proc.returncode == 0, proc.stderr
        return {l.split("\t")[0] for l in proc.stdout.splitlines()}
    assert offered(f"{prog} do") == {"doctor"}
    assert offered(f"{prog} report -") >= SHORT_AND_LONG
    assert offered(f"{prog} run --mode ") == {"auto", "fast", "coarse", "count"}
    assert "vdso.clock_gettime.monotonic" in offered(f"{prog} bench --only vdso.")
    assert offered(f"{prog} doctor --root {prefix}/bi") == {f"{prefix}/bin/"}
    assert offered(f"{prog} report --baseline {prefix}/bi") == set()


def test_zsh_completion(prefix, tmp_path):
    """Typed into an interactive zsh (zsh/zpty), as a user's Tab: the commands, then every
    option word of report."""
    need_tool("zsh")
    zcomp = prefix / "share/zsh/site-functions"
    script = tmp_path / "t.zsh"
    script.write_text(f"""zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "fpath=({zcomp} \\$fpath); autoload -Uz compinit; compinit -u -D; setopt nobeep"
sleep 1
zpty -r -t z out '*'
zpty -w -n z $'{prefix}/bin/clockscope report -\\t'
sleep 3
all=""
while zpty -r -t z chunk; do all+=$chunk; done
print -r -- "$all"
zpty -d z
""")
    proc = run(["zsh", "-f", script], timeout=60)
    words = set(re.findall(r"(?<![\w-])(--?[a-z][a-z-]*)", proc.stdout.split("report -", 1)[-1]))
    assert words >= SHORT_AND_LONG, proc.stdout[-2000:]


def test_installed_runtimes_finds_its_probes(prefix):
    """runtimes in PREFIX/bin finds PREFIX/share/clockscope/probes (the only candidate)."""
    need_tool("python3")
    proc = run([prefix / "bin/clockscope", "runtimes", "--only", "python", "--samples", "3",
                "--no-count", "--json"], env=dict(os.environ, CLOCKSCOPE_PROBES=""))
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = json.loads(proc.stdout)["results"]
    assert len(rows) == 9 and all(r["available"] for r in rows), rows


# ---- releases -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """`make -j4 dist` in a fresh clone of this checkout (its uncommitted changes copied over,
    so the version says -dirty as the checkout's does): nothing built yet, so the tarballs'
    shared steps (guests, native binary, man pages) run under -j4 from nothing, where they
    once raced (help2man ran build/clockscope while another sub-make linked it)."""
    need_tool("help2man", "dpkg-deb", "dpkg-shlibdeps", "lintian", "sha256sum",
              *(f"{a}-linux-gnu-gcc" for a in ARCHES))
    clone = tmp_path_factory.mktemp("fresh") / "clockscope"
    if (ROOT / ".git").exists():
        assert run(["git", "clone", "-q", "--no-hardlinks", ROOT, clone]).returncode == 0
        tracked = run(["git", "ls-files", "-z"], cwd=ROOT).stdout.split("\0")
        for name in filter(None, tracked):
            if (ROOT / name).is_file():
                shutil.copy2(ROOT / name, clone / name)
    else:   # a tree without git (the mutant runner's copy): the same, minus what was built
        shutil.copytree(ROOT, clone, symlinks=True,
                        ignore=shutil.ignore_patterns("build", "dist", "__pycache__", ".pytest_cache"))
    # As in a fresh clone: no git identity, no DEBFULLNAME/DEBEMAIL (the package's maintainer
    # then comes from the commit).  make dist fails on any lintian error.
    env = {k: v for k, v in os.environ.items() if k not in ("DEBFULLNAME", "DEBEMAIL", "MAKEFLAGS")}
    env.update(GIT_CONFIG_GLOBAL="/dev/null", GIT_CONFIG_NOSYSTEM="1")
    proc = subprocess.run(["make", "-s", "-j4", "dist"], cwd=clone, env=env, capture_output=True,
                          text=True, timeout=3600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return clone / "dist"


def test_dist_checksums_verify(dist):
    sums = (dist / "SHA256SUMS").read_text().splitlines()
    names = sorted(l.split()[1] for l in sums)
    assert len(names) == 6 and sum(n.endswith(".deb") for n in names) == 3, names
    for line in sums:
        digest, name = line.split()
        assert hashlib.sha256((dist / name).read_bytes()).hexdigest() == digest, name
    assert run(["sha256sum", "-c", "SHA256SUMS"], cwd=dist).returncode == 0


@pytest.mark.parametrize("arch", ARCHES)
def test_dist_tarball_holds_that_arch(dist, arch, tmp_path):
    [tarball] = dist.glob(f"clockscope-*-{arch}.tar.gz")
    with tarfile.open(tarball) as t:
        t.extractall(tmp_path)
    [top] = tmp_path.iterdir()
    machine, interp = elf(top / "bin/clockscope")
    assert machine == ELF_MACHINE[arch] and not interp  # static
    for lib in ("lib/libfastclock.so.1", "lib/clockscope/libclockscope-shim.so"):
        assert elf(top / lib)[0] == ELF_MACHINE[arch], lib
    for f in ("include/fastclock.h", "lib/pkgconfig/fastclock.pc", "lib/libfastclock.a",
              "share/man/man1/clockscope-run.1", "share/doc/clockscope/README.md",
              "share/doc/clockscope/LICENSE", "share/bash-completion/completions/clockscope"):
        assert (top / f).is_file(), f
    for guest in ARCHES:
        assert elf(top / "libexec/clockscope" / guest / "clockscope") == (ELF_MACHINE[guest], False)


def test_x86_64_tarball_works_where_unpacked(dist, tmp_path):
    """Its clockscope runs, its run finds its shim, and pkg-config points a compiler at its
    own header and library wherever it was unpacked."""
    if os.uname().machine != "x86_64":
        pytest.skip("runs the x86_64 tarball's binaries")
    need_tool("pkg-config", "cc", "objdump")
    [tarball] = dist.glob("clockscope-*-x86_64.tar.gz")
    with tarfile.open(tarball) as t:
        t.extractall(tmp_path)
    [top] = [p for p in tmp_path.iterdir() if p.is_dir()]
    cs = top / "bin/clockscope"
    assert run([cs, "--version"]).stdout.startswith("clockscope ")
    assert run([cs, "doctor"]).returncode in DOCTOR_VERDICTS
    proc = run([cs, "run", "--mode", "count", "--", "true"])
    assert proc.returncode == 0 and "count: pid" in proc.stderr, proc.stderr
    env = dict(os.environ, PKG_CONFIG_PATH=str(top / "lib/pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "fastclock"], env=env).stdout.split()
    assert_links_and_runs(tmp_path, flags, top / "lib")


def assert_links_and_runs(tmp_path, flags, libdir):
    """A program built with pkg-config's FLAGS calls libfastclock, found in LIBDIR at run time."""
    src = tmp_path / "t.c"
    src.write_text('#include <fastclock.h>\n#include <stdio.h>\n'
                   'int main(void) { printf("%d\\n", fastclock_monotonic_ns() > 0); return 0; }\n')
    proc = run(["cc", "-o", tmp_path / "t", src, *flags, f"-Wl,-rpath,{libdir}"])
    assert proc.returncode == 0, (flags, proc.stderr)
    assert run([tmp_path / "t"]).stdout == "1\n"
    needed = run(["objdump", "-p", tmp_path / "t"]).stdout
    assert re.search(r"^\s*NEEDED\s+libfastclock\.so\.1$", needed, re.M), needed  # the shared one


PACKAGES = ("clockscope", "libfastclock1", "libfastclock-dev")


def debs(dist):
    """{package: its .deb}, exactly one of each in DIST."""
    found = {}
    for pkg in PACKAGES:
        [found[pkg]] = dist.glob(f"{pkg}_*.deb")
    return found


def deb_fields(deb, *names):
    proc = run(["dpkg-deb", "-f", deb, *names])
    assert proc.returncode == 0, proc.stderr
    return dict(line.split(": ", 1) for line in proc.stdout.splitlines())


def deb_files(deb):
    """The paths a .deb installs (files and links, not directories), without the leading '.'."""
    listing = run(["dpkg-deb", "-c", deb]).stdout.splitlines()
    return {l.split(None, 5)[5].split(" -> ")[0][1:] for l in listing if l[0] in "-l"}


def test_debs_split_as_debian_policy_asks(dist):
    """libfastclock1 holds only the shared library (in the multiarch directory, its file
    named after its SONAME), libfastclock-dev the link, archive, header and .pc (the .pc in
    the multiarch pkgconfig directory), clockscope the rest; one version, from the history."""
    need_tool("dpkg-architecture")
    multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip()
    lib = f"/usr/lib/{multiarch}"
    pkgs = debs(dist)
    files = {pkg: deb_files(deb) for pkg, deb in pkgs.items()}
    fields = {pkg: deb_fields(deb, "Version", "Section", "Multi-Arch", "Depends")
              for pkg, deb in pkgs.items()}
    doc = lambda pkg: {f"/usr/share/doc/{pkg}/copyright", f"/usr/share/doc/{pkg}/changelog.gz"}
    assert files["libfastclock1"] == {f"{lib}/libfastclock.so.1", *doc("libfastclock1")}
    assert files["libfastclock-dev"] == {f"{lib}/libfastclock.so", f"{lib}/libfastclock.a",
                                         f"{lib}/pkgconfig/fastclock.pc", "/usr/include/fastclock.h",
                                         *doc("libfastclock-dev")}
    assert {"/usr/bin/clockscope", "/usr/lib/clockscope/libclockscope-shim.so",
            *doc("clockscope")} <= files["clockscope"]
    strays = [f for f in files["clockscope"]
              if "libfastclock" in f or f.endswith((".pc", ".h")) or f.startswith(lib)]
    assert not strays, strays
    assert {p: (f["Section"], f.get("Multi-Arch")) for p, f in fields.items()} == {
        "clockscope": ("utils", None), "libfastclock1": ("libs", "same"),
        "libfastclock-dev": ("libdevel", "same")}, fields
    [version] = {f["Version"] for f in fields.values()}
    assert fields["libfastclock-dev"]["Depends"] == f"libfastclock1 (= {version})"
    assert all(deb.name == f"{pkg}_{version}_{deb.name.rsplit('_', 1)[1]}"
               for pkg, deb in pkgs.items())
    clone = dist.parent
    if (clone / ".git").exists():   # the fixture's clone, its uncommitted changes copied in
        described = run(["git", "-C", clone, "describe", "--always", "--dirty"]).stdout.strip()
        count = run(["git", "-C", clone, "rev-list", "--count", "HEAD"]).stdout.strip()
        short = run(["git", "-C", clone, "rev-parse", "--short", "HEAD"]).stdout.strip()
        dirty = ".dirty" if described.endswith("-dirty") else ""
        assert version == f"{(ROOT / 'VERSION').read_text().strip()}+git{count}.{short}{dirty}"
    # Programs linked against libfastclock.so.1 depend on libfastclock1; ldconfig runs.
    control = run(["dpkg-deb", "-I", pkgs["libfastclock1"], "shlibs", "triggers"]).stdout
    assert f"libfastclock 1 libfastclock1 (>= {version})" in control, control
    assert "activate-noawait ldconfig" in control, control


def test_debs_are_lintian_clean_at_warning_level(dist):
    proc = run(["lintian", "--fail-on", "error,warning", "--tag-display-limit", "0",
                *debs(dist).values()], timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert not re.search(r"^[EW]: ", proc.stdout, re.M), proc.stdout


def test_deb_installs_into_a_scratch_root(dist, tmp_path):
    """The three packages' files, unpacked into a scratch root: --version, doctor, run's
    shim and the vm guests all found from there; pkg-config's libdir is the multiarch
    directory, and a program built against the -dev package runs with libfastclock1's
    library."""
    pkgs = debs(dist)
    fields = run(["dpkg-deb", "-f", pkgs["clockscope"], "Package", "Version", "Depends",
                  "Recommends"]).stdout
    assert "Package: clockscope" in fields and "libc6" in fields, fields
    recommends = re.search(r"^Recommends: (.*)$", fields, re.M).group(1).split(", ")
    assert {"python3-matplotlib", "linux-perf"} <= set(recommends), fields  # report -o, profile
    for deb in pkgs.values():
        assert run(["dpkg-deb", "-x", deb, tmp_path]).returncode == 0
    cs = tmp_path / "usr/bin/clockscope"
    version = run([cs, "--version"]).stdout
    # The fixture's tree has its git, except in the mutant runner's copy (no git).
    source = "(git " if (dist.parent / ".git").exists() else "(no git)"
    assert version.startswith("clockscope ") and source in version, version
    assert run([cs, "doctor"]).returncode in DOCTOR_VERDICTS
    proc = run([cs, "run", "--mode", "count", "--", "true"])
    assert proc.returncode == 0 and "count: pid" in proc.stderr, proc.stderr
    need_tool("qemu-system-riscv64")
    proc = run([cs, "vm", "--arch", "riscv64", "--kernel", tmp_path / "none", "--", "doctor"],
               timeout=20)
    assert proc.returncode == 2 and "no static" not in proc.stderr, proc.stderr
    assert (tmp_path / "usr/share/man/man1/clockscope-vm.1.gz").is_file()
    # The licence as Debian keeps it: the copyright file, MIT under its Debian name.
    copyright_file = (tmp_path / "usr/share/doc/clockscope/copyright").read_text()
    assert "License: Expat" in copyright_file and "Permission is hereby granted" in copyright_file
    need_tool("pkg-config", "cc", "objdump", "dpkg-architecture")
    multiarch = run(["dpkg-architecture", "-qDEB_HOST_MULTIARCH"]).stdout.strip()
    libdir = tmp_path / "usr/lib" / multiarch
    soname = run(["objdump", "-p", libdir / "libfastclock.so.1"]).stdout
    assert re.search(r"^\s*SONAME\s+libfastclock\.so\.1$", soname, re.M), soname
    # Only the unpacked .pc: PKG_CONFIG_LIBDIR empty leaves the system's directories out.
    env = dict(os.environ, PKG_CONFIG_PATH=str(libdir / "pkgconfig"), PKG_CONFIG_LIBDIR="")
    proc = run(["pkg-config", "--variable=libdir", "fastclock"], env=env)
    assert proc.stdout.strip() == f"/usr/lib/{multiarch}", proc.stdout + proc.stderr
    # Installed under / it would answer /usr; unpacked here, the prefix is the scratch root's.
    flags = run(["pkg-config", f"--define-variable=prefix={tmp_path}/usr", "--cflags", "--libs",
                 "fastclock"], env=env).stdout.split()
    assert_links_and_runs(tmp_path, flags, libdir)


def test_fresh_root_check_refuses_bad_usage(tmp_path):
    """Only its argument handling here: the check itself builds a Debian root (minutes, root
    and network; docs/install.md says how it is run)."""
    script = ROOT / "scripts/fresh-root-check.sh"
    assert run(["sh", script, "--bogus"]).returncode == 2
    assert run(["sh", script, "a", "b"]).returncode == 2
    (tmp_path / "something").write_text("x")
    proc = run(["sh", script, tmp_path])  # never builds into (or removes) a non-empty directory
    assert proc.returncode == 2 and (tmp_path / "something").exists(), proc.stderr


@pytest.mark.vm
@pytest.mark.qemu
def test_a_static_clockscope_is_its_own_guest(guests, tmp_path):
    """A static clockscope alone (copied anywhere) boots its own arch with no libexec."""
    need_tool("qemu-system-x86_64")
    if os.uname().machine != "x86_64":
        pytest.skip("copies the static x86_64 build")
    (tmp_path / "bin").mkdir()
    cs = tmp_path / "bin/clockscope"
    shutil.copy(ROOT / "build/x86_64/clockscope", cs)
    proc = run([cs, "vm", "--arch", "x86_64", "--kernel", tmp_path / "none", "--", "doctor"],
               timeout=20)
    assert proc.returncode == 2 and "no static" not in proc.stderr, proc.stderr
    # ... and only its own: another arch's guest is still missing, and named.
    need_tool("qemu-system-aarch64")
    proc = run([cs, "vm", "--arch", "aarch64", "--", "doctor"], timeout=20)
    assert proc.returncode == 125 and "no static aarch64 clockscope" in proc.stderr, proc.stderr
