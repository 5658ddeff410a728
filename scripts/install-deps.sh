#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs what the build, the test suite and the release targets need, only when something
# is missing.  Everything comes from Debian 12 (bookworm) packages, installed with
# --no-install-recommends: so every package a test uses must be named here, never left to a
# recommendation (scripts/fresh-root-check.sh proves the list on an empty Debian root).
# Without root or apt it only reports what is missing; the suite then skips those parts
# (CI sets CLOCKSCOPE_REQUIRE_ALL=1, which turns every such skip into a failure).
set -eu
cd "$(dirname "$0")/.."

# One line per purpose, so a removal is a visible decision.
PACKAGES="
make gcc libc6-dev binutils pkg-config git
python3
qemu-user-static
clang libclang-rt-14-dev
qemu-system-x86 qemu-system-arm qemu-system-misc opensbi
device-tree-compiler
apt dpkg tar cpio gzip zstd xz-utils gnupg debian-archive-keyring
file util-linux libcap2-bin
help2man lintian dpkg-dev
chromium
prometheus prometheus-node-exporter systemd
linux-perf
strace
musl-tools
zsh fish
"
# Why the less obvious ones:
#   git                      `clockscope --version` is `git describe` at build time
#   cross compilers          the static guests of `clockscope vm` (make vm-binaries) and the
#                            cross-built libraries of `make dist`, for the two arches the host is not; their libc6-ARCH-cross
#                            (a dependency) holds the loader and libc that `vm` brings into that
#                            arch's guest for a dynamic program and `run`'s shim
#   libclang-rt-14-dev       clang's libFuzzer/ASan runtimes (tests/fuzz); clang only recommends it
#   apt dpkg tar             `clockscope vm` fetches a Debian kernel (apt-get download, dpkg-deb)
#   device-tree-compiler     dtc: the lab's aarch64-timer-erratum device tree (docs/lab.md)
#   cpio gzip zstd xz-utils  kernel images and initramfs of `clockscope vm`
#   gnupg debian-archive-keyring  verifying that kernel's archive
#   file                     tests check the static binaries' ELF type
#   util-linux libcap2-bin   taskset (warp's two-CPU test); setpriv, setcap (tests that run
#                            as another user, a target with file capabilities); unshare --time
#                            and nsenter --time (run in a time namespace; run -p refusing one)
#   strace                   a tracer already attached: run's refusal to patch (test_run_static.py);
#                            its fault injection kills run -p at every step (test_run_attach_safety.py)
#   musl-tools               musl-gcc -static: a musl static program served through its patched
#                            vDSO in the x86_64-hpet guest (tests/test_vm_served.py)
#   zsh fish                 the zsh and fish completions, exercised by tests/test_install.py
#   help2man lintian         make man, make deb (man pages from --help; the .deb's check)
#   dpkg-dev                 make deb: dpkg-architecture, dpkg-shlibdeps
#   chromium                 headless rendering in the report tests
#   prometheus prometheus-node-exporter  `clockscope metrics`: promtool check metrics/rules,
#                            promtool test rules, and the end-to-end scrape of the textfile
#   systemd                  systemd-analyze verify of packaging/systemd/
#   linux-perf               perf, which `clockscope profile` runs (its live tests and overhead
#                            benchmark; Debian's /usr/bin/perf picks the perf of the running kernel's
#                            version, or the newest installed), and `perf bench sched pipe`: the
#                            peer of ladder's pipe round trip (benchmarks/ladder_peer.py)

# Cross compilers for the two arches the host is not (the host's own gcc builds the third).
for arch in amd64:x86-64 arm64:aarch64 riscv64:riscv64; do
    [ "${arch%%:*}" = "$(dpkg --print-architecture)" ] ||
        PACKAGES="$PACKAGES gcc-${arch#*:}-linux-gnu libc6-dev-${arch%%:*}-cross"
done
# clockscope runtimes measures every language runtime (tests/test_runtimes.py, no skips in
# CI): where none is found where clockscope looks (PATH, /usr/local/go/bin, ~/.cargo/bin,
# $JAVA_HOME/bin), Debian's: golang-go, default-jdk-headless (javac + java), nodejs, rustc.
command -v go >/dev/null 2>&1 || [ -x /usr/local/go/bin/go ] || PACKAGES="$PACKAGES golang-go"
command -v javac >/dev/null 2>&1 || [ -x "${JAVA_HOME:-/nonexistent}/bin/javac" ] ||
    PACKAGES="$PACKAGES default-jdk-headless"
command -v node >/dev/null 2>&1 || command -v nodejs >/dev/null 2>&1 || PACKAGES="$PACKAGES nodejs"
command -v rustc >/dev/null 2>&1 || [ -x "${HOME:-/nonexistent}/.cargo/bin/rustc" ] ||
    PACKAGES="$PACKAGES rustc"
# The suite's runner: Debian's (its pip refuses system-wide installs, PEP 668), unless a
# pytest is importable already.
python3 -c 'import pytest' >/dev/null 2>&1 || PACKAGES="$PACKAGES python3-pytest"

missing=""
for p in $PACKAGES; do
    # `dpkg -s` answers 0 for a package removed but not purged; ask for the installed state.
    state=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
    [ "$state" = installed ] || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "install-deps: installing$missing"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -q >/dev/null
        # shellcheck disable=SC2086
        apt-get install -y -q --no-install-recommends $missing >/dev/null
    else
        echo "install-deps: missing Debian packages:$missing (run as root to install; tests needing them will skip)"
    fi
fi

if ! python3 -c 'import pytest' >/dev/null 2>&1; then
    # Not root and no python3-pytest: a user-level pip install is the one remaining way.
    python3 -m pip install -q --user -r requirements-test.txt || \
        echo "install-deps: could not install Python test requirements (install python3-pytest)"
fi

# clockscope report (report/, a Python package): its declared dependencies (matplotlib),
# from PyPI; where pip may not install system-wide (Debian's own python3, PEP 668), from
# Debian's python3-matplotlib.
if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
    python3 -m pip install -q -r report/requirements.txt 2>/dev/null ||
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                python3-matplotlib >/dev/null
        fi
    python3 -c 'import matplotlib' >/dev/null 2>&1 ||
        echo "install-deps: could not install the report's requirements (report/requirements.txt)"
fi

# The report's lint (make check, tests/test_report_lint.py): ruff and mypy, from PyPI at the
# versions requirements-test.txt pins (their checks change between versions; Debian 12 has
# no ruff).  Where pip may not install system-wide (PEP 668), into the user's site only.
for tool in ruff mypy; do
    python3 -m "$tool" --version >/dev/null 2>&1 && continue
    spec=$(grep "^$tool==" requirements-test.txt)
    python3 -m pip install -q "$spec" 2>/dev/null ||
        python3 -m pip install -q --user --break-system-packages "$spec" 2>/dev/null ||
        echo "install-deps: could not install $spec (make check and tests/test_report_lint.py need it)"
done

# The metrics tests parse `clockscope metrics` with Prometheus's own Python client (PyPI's
# prometheus-client, else Debian's python3-prometheus-client).
if ! python3 -c 'import prometheus_client' >/dev/null 2>&1; then
    python3 -m pip install -q prometheus-client 2>/dev/null ||
        if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
            DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
                python3-prometheus-client >/dev/null
        fi
    python3 -c 'import prometheus_client' >/dev/null 2>&1 ||
        echo "install-deps: could not install prometheus-client (the metrics tests need it)"
fi
