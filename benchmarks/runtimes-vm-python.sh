#!/bin/sh
# SPDX-License-Identifier: MIT
# Python in the hpet guest, without and with `clockscope run --mode auto`
# (docs/benchmarks/runtimes.md).  Brings Debian's /usr/bin/python3.11 and the few files of
# its standard library the probe imports (found by importing them here) into an x86_64
# guest with clocksource=hpet (tsc=reliable), then boots it twice:
#   A: clockscope runtimes --only c,python --python /usr/bin/python3.11   (the count too)
#   B: clockscope run --mode auto -- python3.11 -E probe.py time 5 2000  (the shim serves libc)
# and prints B's rows (A prints its own table).
#
#     make && make vm-binaries && benchmarks/runtimes-vm-python.sh
set -eu
cd "$(dirname "$0")/.."
py=/usr/bin/python3.11
[ -x $py ] || { echo "needs Debian's $py (apt install python3.11)"; exit 2; }
files=$($py -E - <<'PY'
import sys
sys.argv = ["probe.py", "count", "3"]
src = open("runtimes/probes/probe.py").read().replace(
    'if __name__ == "__main__":\n    sys.exit(main(sys.argv))', "main(sys.argv)")
import contextlib, io
with contextlib.redirect_stdout(io.StringIO()):
    exec(src)
names = {getattr(m, "__file__", None) for m in list(sys.modules.values())}
print(" ".join(sorted(n for n in names if n and n.startswith(sys.prefix + "/lib/python3"))))
PY
)
adds="--add $py:$py --add runtimes/probes/probe.py:/probes/probe.py"
for f in $files; do adds="$adds --add $f:$f"; done
vm="./build/clockscope vm --arch x86_64 --vcpus 1 --timeout 900"
append="clocksource=hpet tsc=reliable"   # tsc=reliable: the TSC stays listed, for the shim
echo "== A: runtimes, no shim"
# shellcheck disable=SC2086
$vm --append "$append" $adds --env CLOCKSCOPE_PROBES=/probes -- runtimes --only c,python --python $py --samples 5
echo "== B: run --mode auto"
out=$(mktemp)
# shellcheck disable=SC2086
$vm --append "$append" $adds --add build/libclockscope-shim.so:/lib/clockscope/libclockscope-shim.so \
    --env CLOCKSCOPE_SHIM=/lib/clockscope/libclockscope-shim.so \
    --env FASTCLOCK_UNSAFE_ASSUME_INVARIANT_TSC=1 \
    -- run --mode auto --verbose -- $py -E /probes/probe.py time 5 2000 > "$out"
python3 - "$out" <<'PY'
import statistics as st, sys
for line in open(sys.argv[1]):
    f = line.split()
    if f and f[0] == "row":
        n = int(f[5])
        t = st.median(int(x) / n for x in f[6].split(","))
        h = st.median(int(x) / n for x in f[7].split(","))
        print(f"python  {f[1]:24s} {t - h:9.1f} ns/call net (harness {h:7.1f}, as timed {t:8.1f})")
PY
rm -f "$out"
