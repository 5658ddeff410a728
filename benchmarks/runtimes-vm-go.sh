#!/bin/sh
# SPDX-License-Identifier: MIT
# The xen clocksource blog post for real (docs/benchmarks/runtimes.md): Go's time.Now where the vDSO falls back
# to a syscall.  Builds the Go probe static for each arch (CGO_ENABLED=0 GOARCH=...), brings
# it into `clockscope vm` guests with --add, and runs `runtimes --only c,go` there:
# x86_64 with clocksource=hpet (every read a syscall) and with the TSC (none), aarch64 and
# riscv64 with their default clocksources.  Prints one line per guest and API.
#
#     make && make vm-binaries && benchmarks/runtimes-vm-go.sh [OUTDIR]
#
# Needs go (PATH or /usr/local/go/bin) and what `clockscope vm` needs (qemu-system-*).
# One vCPU per guest: under TCG a second vCPU only adds cross-CPU wake-ups to every
# counted syscall.
set -eu
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d)}
mkdir -p "$out"
go=$(command -v go || echo /usr/local/go/bin/go)
for a in amd64 arm64 riscv64; do
    (cd "$out" && CGO_ENABLED=0 GOARCH=$a "$go" build -o "$out/probe-go-$a" "$OLDPWD/runtimes/probes/probe.go")
done
guest() { # name arch goarch [vm options]
    name=$1 arch=$2 goarch=$3
    shift 3
    ./build/clockscope vm --arch "$arch" --vcpus 1 --timeout 900 "$@" \
        --add "$out/probe-go-$goarch:/bin/probe-go" \
        -- runtimes --only c,go --go-probe /bin/probe-go --samples 5 --json \
        > "$out/$name.json" 2> "$out/$name.err" || { echo "$name: failed, see $out/$name.err"; return 0; }
    python3 - "$name" "$out/$name.json" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
m = d["machine"]
print(f"{name}: {m['arch']}, Linux {m['kernel']}, clocksource {m['clocksource']}"
      + ("" if d["config"]["counted"] else f" (not counted: {d['config']['count_why']})"))
for r in d["results"]:
    if r["available"]:
        sc = r["syscalls_per_call"]
        print(f"  {r['runtime']:3s} {r['api']:26s} {r['ns_per_call']:9.1f} ns/call "
              f"(harness {r['harness_ns']:6.1f}, spread {r['spread'] * 100:5.1f}%)  "
              f"syscalls/call {'?' if sc is None else f'{sc:.2f}'}")
    else:
        print(f"  {r['runtime']}: {r['status']}: {r['why_unavailable']}")
PY
}
guest x86_64-hpet x86_64 amd64 --append clocksource=hpet
guest x86_64-tsc x86_64 amd64 --append "clocksource=tsc tsc=reliable"
guest aarch64 aarch64 arm64
guest riscv64 riscv64 riscv64
echo "JSON documents in $out"
