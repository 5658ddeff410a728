#!/bin/sh
# SPDX-License-Identifier: MIT
# A fake perf for tests/test_profile.py, put on PATH as `perf`.  record: writes its
# arguments to $FAKE_PERF_ARGS, says "$FAKE_PERF_SAYS" on stderr as the profiled program
# would, then perf's own progress lines, and a non-empty -o file; the command is not run.
# script: prints the saved perf script text $FAKE_PERF_SCRIPT.
set -eu
case ${1:-} in
record)
    printf '%s\n' "$@" > "$FAKE_PERF_ARGS"
    out=
    while [ $# -gt 0 ]; do
        [ "$1" = -o ] && out=$2
        [ "$1" = -- ] && break
        shift
    done
    printf '%s\n' "${FAKE_PERF_SAYS:-}" >&2
    echo "[ perf record: Woken up 1 times to write data ]" >&2
    echo "[ perf record: Captured and wrote 0.012 MB $out (40 samples) ]" >&2
    echo data > "$out"
    ;;
script)
    cat "$FAKE_PERF_SCRIPT"
    ;;
*)
    echo "fake perf: $*" >&2
    exit 1
    ;;
esac
