#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 6's last target, measured: an x86_64 guest whose kernel serves clock_gettime by
# syscall (clocksource=hpet) while the TSC stays registered (1 vCPU, tsc=reliable).  Under
# TCG the CPU cannot advertise invariant TSC, so fastclock needs the test-only
# FASTCLOCK_UNSAFE_ASSUME_INVARIANT_TSC=1 (docs/fastclock.md).  Figures: docs/benchmarks/fastclock.md.
# Usage: benchmarks/bench-vm-fallback.sh [OUTDIR]   (after `make && make vm-binaries`)
set -eu
cd "$(dirname "$0")/.."
out=${1:-build/bench-vm-fallback}
mkdir -p "$out"
cc -O1 -o "$out/clockloop" tests/progs/clockloop.c
CS=./build/clockscope
boot() { # NAME ARGS...: one boot, stdout to NAME.out, stderr to NAME.err
    name=$1; shift
    $CS vm --arch x86_64 --vcpus 1 --append "clocksource=hpet tsc=reliable" \
        --add "$out/clockloop" \
        --add build/libclockscope-shim.so:/lib/clockscope/libclockscope-shim.so \
        --env CLOCKSCOPE_SHIM=/lib/clockscope/libclockscope-shim.so "$@" \
        >"$out/$name.out" 2>"$out/$name.err" || echo "$name: exit $?" >>"$out/$name.err"
}
O=--env\ FASTCLOCK_UNSAFE_ASSUME_INVARIANT_TSC=1
boot facts -- facts --json
boot bench-override $O -- bench --quick --json
boot bench-plain -- bench --quick --json
boot doctor -- doctor --json
boot loop-count $O -- run --mode count -- clockloop 100000
boot loop-auto $O -- run --mode auto --verbose -- clockloop 100000
boot loop-fast $O -- run --mode fast --verbose -- clockloop 100000
boot loop-auto-refused -- run --mode auto --verbose -- clockloop 100000
for f in "$out"/*.out; do echo "== $f"; head -c 3000 "$f"; done
