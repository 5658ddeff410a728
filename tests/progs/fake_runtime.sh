#!/bin/sh
# SPDX-License-Identifier: MIT
# A fake language runtime for tests/test_runtimes.py, given as `runtimes --python` (or put
# on PATH as node): it ignores the probe source and behaves as $FAKE_RUNTIME says, in the
# timed run ("... time SAMPLES SAMPLE_US") or the count run ("... count CALLS").
case "$*" in *" count "*) run=count ;; *) run=time ;; esac
rt=${FAKE_RUNTIME_NAME:-python}
good() {
    echo "clockscope-probe 1 $rt fake-1.0"
    if [ $run = time ] && [ "${FAKE_RUNTIME:-}" = spell ]; then
        # a slow spell over pairs 3 and 4 and the last harness sample: paired, the clock
        # is 30 ns in 4 pairs of 5; the medians' difference would say 52 - 60 = -8
        echo "row time.time realtime libc empty() 1000 50000,51000,90000,91000,52000 20000,21000,60000,61000,62000"
    elif [ $run = time ]; then
        echo "row time.time realtime libc empty() 1000 50000,51000,52000 20000,20000,20000"
    else
        echo "mark time.time"
    fi
    echo "end 1"
}
case "${FAKE_RUNTIME:-good}" in
    good|spell) good ;;
    crash) echo "clockscope-probe 1 $rt fake-1.0"; kill -SEGV $$ ;;
    hang) echo "clockscope-probe 1 $rt fake-1.0"; exec sleep 1000 ;;
    garbage) echo "Traceback (most recent call last):"; echo "  oops" ;;
    fail) echo "ModuleNotFoundError: No module named 'time'" >&2; exit 3 ;;
    truncated) good | head -c 60 ;;
    count-garbage) if [ $run = count ]; then echo "hello"; else good; fi ;;
    levels|machine|layout)
        # issue 29: each timed run is one process; odd runs at 40 ns, even runs at 70 ns
        # (net of a 20 ns harness), each run's PYTHONHASHSEED kept in $FAKE_STATE.seeds.
        # machine: a reference (abs(-1), 1000 turns) moves with them, 12.5 and 21.875 ns
        # (the ratio stays 3.2); layout: the reference stays at 12.5 ns
        if [ $run = count ]; then good; exit 0; fi
        n=$(( $(cat "$FAKE_STATE" 2>/dev/null || echo 0) + 1 ))
        echo $n > "$FAKE_STATE"
        echo "${PYTHONHASHSEED:-unset}" >> "$FAKE_STATE.seeds"
        if [ $((n % 2)) = 1 ]; then t=60000; else t=90000; fi
        echo "clockscope-probe 1 $rt fake-1.0"
        echo "row time.time realtime libc empty() 1000 $t,$t,$t 20000,20000,20000"
        if [ "$FAKE_RUNTIME" = machine ]; then r=$(( t == 60000 ? 12500 : 21875 )); fi
        if [ "$FAKE_RUNTIME" = layout ]; then r=12500; fi
        if [ "$FAKE_RUNTIME" != levels ]; then echo "ref time.time abs(-1) 1000 $r,$r,$r"; fi
        echo "end 1" ;;
    machine-spell|machine-spell-long)
        # issue 29: a slow spell of the machine over processes 1-3 (every pair at 70 ns net,
        # the reference 21.875 ns) and the first pair of process 4 (its other two, and
        # process 5's and later ones', at 40 ns and 12.5 ns): the figure at speed is 40 ns,
        # the median of all five processes 70 ns.  machine-spell-long: only process 1 is
        # at speed, every later one in the spell
        if [ $run = count ]; then good; exit 0; fi
        n=$(( $(cat "$FAKE_STATE" 2>/dev/null || echo 0) + 1 ))
        echo $n > "$FAKE_STATE"
        slow=90000,90000,90000; slow_ref=21875,21875,21875
        fast=60000,60000,60000; fast_ref=12500,12500,12500
        case $FAKE_RUNTIME:$n in
            machine-spell-long:1) t=$fast; r=$fast_ref ;;
            machine-spell-long:*) t=$slow; r=$slow_ref ;;
            *:1|*:2|*:3) t=$slow; r=$slow_ref ;;
            *:4) t=90000,60000,60000; r=21875,12500,12500 ;;
            *) t=$fast; r=$fast_ref ;;
        esac
        echo "clockscope-probe 1 $rt fake-1.0"
        echo "row time.time realtime libc empty() 1000 $t 20000,20000,20000"
        echo "ref time.time abs(-1) 1000 $r"
        echo "end 1" ;;
    count-hang) if [ $run = count ]; then exec sleep 1000; else good; fi ;;
    *) echo "fake_runtime.sh: unknown FAKE_RUNTIME" >&2; exit 9 ;;
esac
