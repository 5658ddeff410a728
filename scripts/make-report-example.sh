#!/bin/sh
# SPDX-License-Identifier: MIT
# Regenerates docs/examples/ from the real bundles in tests/data/bundles/
# (scripts/make-bundle-fixtures.sh makes those):
#   report.html, report.md and charts/*.svg over the five machines, this machine first
#   (the baseline), and host-vs-riscv64.md, the RISC-V clock_gettime report's two-machine comparison.
set -eu
cd "$(dirname "$0")/.."
b=tests/data/bundles
out=docs/examples
mkdir -p "$out/charts"
rm -f "$out"/charts/*.svg
cs=./build/clockscope
$cs report $b/host.json $b/x86_64-hpet.json $b/x86_64-tsc.json $b/aarch64.json $b/riscv64.json \
    -o "$out/report.html" --charts "$out/charts" > /dev/null
$cs report $b/host.json $b/x86_64-hpet.json $b/x86_64-tsc.json $b/aarch64.json $b/riscv64.json \
    --markdown > "$out/report.md"
$cs report $b/host.json $b/riscv64.json --markdown > "$out/host-vs-riscv64.md"
echo "docs/examples regenerated"
