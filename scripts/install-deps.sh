#!/bin/sh
# Installs what the test suite needs, only when something is missing: Debian packages
# (compilers, cross compilers, qemu, clang, opensbi) and Python packages (requirements-test.txt).
# Without root or apt it only reports what is missing; the suite then skips those parts
# (CI sets CLOCKSCOPE_REQUIRE_ALL=1, which turns every such skip into a failure).
set -eu
cd "$(dirname "$0")/.."

PACKAGES="make gcc libc6-dev python3 python3-pip
gcc-aarch64-linux-gnu libc6-dev-arm64-cross
gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
qemu-user-static clang
qemu-system-x86 qemu-system-arm qemu-system-misc opensbi
cpio zstd xz-utils gnupg debian-archive-keyring file
pkg-config binutils
util-linux libcap2-bin chromium"

missing=""
for p in $PACKAGES; do
    dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
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
    python3 -m pip install -q -r requirements-test.txt || \
        echo "install-deps: could not install Python test requirements"
fi

# clockscope report (report/, a Python package): its declared dependencies (matplotlib).
if ! python3 -c 'import matplotlib' >/dev/null 2>&1; then
    python3 -m pip install -q -r report/requirements.txt || \
        echo "install-deps: could not install the report's requirements (report/requirements.txt)"
fi
