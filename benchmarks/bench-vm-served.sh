#!/bin/sh
# SPDX-License-Identifier: MIT
# Issue 25's "at least 10x cheaper with 0 syscalls per call" where the vDSO falls back to the
# syscall: one boot of `clockscope vm --scenario x86_64-hpet` (1 vCPU, TCG here) in which
# tests/progs/serve_compare.c runs the static Go probe (runtimes/probes/probe.go,
# CGO_ENABLED=0), a `gcc -static` and a `musl-gcc -static` C program
# (tests/progs/clock_probe.c), each unserved and under `clockscope run --mode auto`: ns per
# call (best of SAMPLES samples minus the best sample of the empty loop) and syscalls per call
# (counted as `runtimes` counts them).  Prints one table; the raw lines stay in OUTDIR.
# The correctness side of the same boot is tests/test_vm_served.py.  Figures:
# docs/benchmarks/run.md.
#
#     make && make vm-binaries && benchmarks/bench-vm-served.sh [OUTDIR] [SAMPLES]
#
# Needs go, musl-gcc (musl-tools) and what `clockscope vm` needs.  Under TCG the CPU cannot
# advertise an invariant TSC: the guest gets the test-only FASTCLOCK_UNSAFE_ASSUME_INVARIANT_TSC=1.
set -eu
cd "$(dirname "$0")/.."
out=${1:-build/bench-vm-served}
samples=${2:-15}
mkdir -p "$out"
out=$(cd "$out" && pwd)
go=$(command -v go || echo /usr/local/go/bin/go)
cc -O2 -static -o "$out/serve_compare" tests/progs/serve_compare.c
cc -O2 -static -o "$out/clock_probe_glibc" tests/progs/clock_probe.c
musl-gcc -O2 -static -o "$out/clock_probe_musl" tests/progs/clock_probe.c
(cd "$out" && CGO_ENABLED=0 GO111MODULE=off "$go" build -o "$out/go_probe" "$OLDPWD/runtimes/probes/probe.go")
./build/clockscope vm --scenario x86_64-hpet --timeout 1800 \
    --env FASTCLOCK_UNSAFE_ASSUME_INVARIANT_TSC=1 \
    --add "$out/serve_compare" --add "$out/clock_probe_glibc" --add "$out/clock_probe_musl" \
    --add "$out/go_probe" \
    -- run --mode count -- serve_compare auto 5000 "$samples" \
    go:go:/bin/go_probe c:glibc:/bin/clock_probe_glibc c:musl:/bin/clock_probe_musl \
    > "$out/lines.txt" 2> "$out/stderr.txt" || { echo "the guest failed: see $out/stderr.txt"; exit 1; }
python3 - "$out/lines.txt" <<'PY'
import sys
ns, sc = {}, {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 6 and f[0] in ("time", "count"):
        (ns if f[0] == "time" else sc)[(f[1], f[3], f[2])] = float(f[5])
print(f"{'program':7} {'call':32} {'unserved ns':>11} {'served ns':>9} {'ratio':>6} "
      f"{'syscalls/call unserved':>22} {'served':>7}")
for (prog, api, how) in ns:
    if how != "unserved":
        continue
    u, s = ns[(prog, api, "unserved")], ns.get((prog, api, "served"))
    print(f"{prog:7} {api:32} {u:11.1f} {s if s is not None else float('nan'):9.1f} "
          f"{u / s if s else float('nan'):5.1f}x {sc.get((prog, api, 'unserved'), float('nan')):22.4f} "
          f"{sc.get((prog, api, 'served'), float('nan')):7.4f}")
PY
echo "served runs (--verbose: patched vDSO, served by fastclock's line): $(grep -c "^how .*served by fastclock's line" "$out/lines.txt")," \
     "runs left unserved: $(grep -c '^how .*not patched' "$out/lines.txt"), failures: $(grep -c '^FAIL' "$out/lines.txt")"
