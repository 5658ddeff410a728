#!/bin/sh
# SPDX-License-Identifier: MIT
# Strips every ELF file and static library under DIR with the strip of its own arch (a
# release holds the guests of all three): what a release or a Debian package ships.
#   sh scripts/strip-tree.sh DIR
set -eu
[ $# = 1 ] && [ -d "$1" ] || { echo "usage: $0 DIR" >&2; exit 2; }
strip_for() {
    case $(file -b "$1") in
        *x86-64*) echo x86_64-linux-gnu-strip ;;
        *aarch64*) echo aarch64-linux-gnu-strip ;;
        *RISC-V*) echo riscv64-linux-gnu-strip ;;
        *) echo strip ;;
    esac
}
find "$1" -type f | while read -r f; do
    case $(file -b "$f") in
        *ELF*executable*|*ELF*pie*)
            "$(strip_for "$f")" --remove-section=.comment --remove-section=.note "$f" ;;
        *ELF*shared*)
            "$(strip_for "$f")" --remove-section=.comment --remove-section=.note --strip-unneeded "$f" ;;
        *"ar archive"*)
            # An archive's arch is its members': look at the first one.
            member=$(mktemp)
            ar p "$f" "$(ar t "$f" | head -n 1)" > "$member"
            s=$(strip_for "$member")
            rm -f "$member"
            "$s" --strip-debug --remove-section=.comment --enable-deterministic-archives "$f" ;;
    esac
done
