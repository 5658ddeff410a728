#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerates the real bundles in tests/data/bundles/ (test fixtures and the source of
# docs/examples/): this machine, and clockscope vm guests of every arch, one after the
# other (each TCG boot takes tens of seconds; the guests share the machine's CPUs).
#   make && make vm-binaries && sh scripts/make-bundle-fixtures.sh [OUTDIR]
# Then regenerate the example report: sh scripts/make-report-example.sh
set -eu
cd "$(dirname "$0")/.."
out=${1:-tests/data/bundles}
mkdir -p "$out"
cs=./build/clockscope

# collect's exit status 3 means "a part failed": the bundle is still written and records
# why; keep it (a fixture with a failed part is worth having), stop on anything else.
collect() {
    name=$1; shift
    echo "== $name" >&2
    set +e
    "$@" > "$out/$name.json.tmp"
    rc=$?
    set -e
    if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
        echo "$name: exit status $rc" >&2
        rm -f "$out/$name.json.tmp"
        return 1
    fi
    mv "$out/$name.json.tmp" "$out/$name.json"
}

collect host           $cs collect --name host -o -
collect x86_64-hpet    $cs vm --arch x86_64 --append clocksource=hpet -- collect --name x86_64-hpet -o -
collect x86_64-tsc     $cs vm --arch x86_64 --append 'clocksource=tsc tsc=reliable' -- collect --name x86_64-tsc -o -
collect aarch64        $cs vm --arch aarch64 -- collect --name aarch64 -o -
collect riscv64        $cs vm --arch riscv64 -- collect --name riscv64 -o -
