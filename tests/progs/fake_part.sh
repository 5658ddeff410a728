#!/bin/sh
# SPDX-License-Identifier: MIT
# Stands in for the clockscope binary that `collect` runs for each part
# (CLOCKSCOPE_COLLECT_SELF): a part named in FAKE_<PART> misbehaves as told, every other
# part runs the real binary ($REAL_CLOCKSCOPE).  Modes:
#   garbage   prints text that is not JSON, exits 0
#   file:PATH prints the file PATH as the part's output, exits 0
#   exit      prints a message on stderr and nothing on stdout, exits 1
#   kill      kills itself with SIGKILL
#   sleep     sleeps for a minute (collect's deadline must kill it)
#   plain     prints a JSON document without a clockscope schema
part=$1
eval "mode=\${FAKE_$(echo "$part" | tr a-z A-Z):-}"
case "$mode" in
    garbage) echo "this is not { JSON"; exit 0 ;;
    file:*) cat "${mode#file:}"; exit 0 ;;
    exit) echo "fake $part: something broke" >&2; exit 1 ;;
    kill) kill -9 $$ ;;
    sleep) exec sleep 60 ;;
    plain) echo '{"hello": "world"}'; exit 0 ;;
    "") exec "$REAL_CLOCKSCOPE" "$@" ;;
    *) echo "fake_part.sh: unknown mode $mode" >&2; exit 99 ;;
esac
