#!/bin/sh
# SPDX-License-Identifier: MIT
# Proves the install step on a machine with no history: builds an empty Debian 12 (bookworm)
# root with debootstrap, puts a clean clone of this repository into it (and, beside the clone,
# the shared corpus the doctor tests read), and runs .ci/run inside it under chroot.  Nothing
# the host has installed can help: the root starts from debootstrap's minimal base, and
# .ci/run must install everything else itself (scripts/install-deps.sh).
#
#   sudo scripts/fresh-root-check.sh [--shared DIR] [--keep] [--worktree] [--deb] [ROOT_DIR]
#
#   ROOT_DIR     where to build the root (default: a new directory under /var/tmp)
#   --shared DIR the directory copied beside the clone as shared/ (default: ../shared beside
#                this repository when it exists; without it the corpus tests fail under CI)
#   --keep       leave the root in place afterwards (for a look inside; default: removed)
#   --worktree   copy the work tree with its uncommitted changes instead of cloning HEAD
#   --deb        after .ci/run passes: `make deb`, `apt install` its three packages in the
#                root, then the installed `clockscope --version`, `doctor` and `run`
#   DEBIAN_MIRROR=URL  the archive debootstrap and apt use (default http://deb.debian.org/debian)
#
# Exit status: .ci/run's (0 when the whole suite passed), 2 for bad usage, 3 when the root
# could not be built.  Needs root, debootstrap and network access to the archive.  The host is
# left as it was: the root's mounts (/proc, /sys, /dev) are undone on every exit.
set -eu

usage() { echo "usage: $0 [--shared DIR] [--keep] [--worktree] [--deb] [ROOT_DIR]" >&2; exit 2; }

repo=$(cd "$(dirname "$0")/.." && pwd)
shared=""
[ -d "$repo/../shared" ] && shared=$(cd "$repo/../shared" && pwd)
keep=0 worktree=0 deb=0 root=""
while [ $# -gt 0 ]; do
    case $1 in
        --shared) [ $# -ge 2 ] || usage; shared=$(cd "$2" && pwd) || usage; shift 2 ;;
        --keep) keep=1; shift ;;
        --worktree) worktree=1; shift ;;
        --deb) deb=1; shift ;;
        -h|--help) sed -n '2,22s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) usage ;;
        *) [ -z "$root" ] || usage; root=$1; shift ;;
    esac
done
[ "$(id -u)" = 0 ] || { echo "fresh-root-check: needs root (debootstrap, chroot, mounts)" >&2; exit 2; }
command -v debootstrap >/dev/null || { echo "fresh-root-check: needs debootstrap (apt-get install debootstrap)" >&2; exit 2; }
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
if [ -z "$root" ]; then
    root=$(mktemp -d /var/tmp/clockscope-fresh-root.XXXXXX)
elif [ -e "$root" ] && [ -n "$(ls -A "$root")" ]; then
    echo "fresh-root-check: $root exists and is not empty" >&2; exit 2
fi
mkdir -p "$root"
root=$(cd "$root" && pwd)
[ "$root" != / ] || usage

mounted=""
cleanup() {
    status=$?
    for m in $mounted; do umount -l "$m" 2>/dev/null || true; done
    if [ $keep = 0 ]; then
        # Never recurse into a mount that failed to go away.
        if grep -q " $root/" /proc/mounts; then
            echo "fresh-root-check: mounts remain under $root; not removing it" >&2
        else
            rm -rf "$root"
        fi
    else
        echo "fresh-root-check: root kept at $root"
    fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

say() { echo "fresh-root-check: $(date -u +%H:%M:%S) $*"; }

say "debootstrap bookworm into $root ($mirror)"
debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.debootstrap.log" 2>&1 || {
    echo "fresh-root-check: debootstrap failed; see $root.debootstrap.log" >&2; exit 3; }
rm -f "$root.debootstrap.log"
# The same archive for the suite's apt-get (install-deps) as for debootstrap, plus updates.
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb http://deb.debian.org/debian-security bookworm-security main
EOF
cp /etc/resolv.conf "$root/etc/resolv.conf"

say "copying the repository into /src/clockscope"
mkdir -p "$root/src"
if [ $worktree = 1 ]; then
    # Tracked and untracked-but-not-ignored files: what a commit of the work tree would hold.
    (cd "$repo" && git ls-files -z --cached --others --exclude-standard |
        tar --null -T - -cf -) | tar -C "$root/src" --one-top-level=clockscope -xf -
else
    git clone -q --no-hardlinks "$repo" "$root/src/clockscope"
    # This work tree's commit (a clone of a worktree may check out another branch's HEAD).
    git -C "$root/src/clockscope" checkout -q --detach "$(git -C "$repo" rev-parse HEAD)"
fi
if [ -n "$shared" ]; then
    cp -rL "$shared" "$root/src/shared"
fi

for m in proc sys dev dev/pts; do
    mkdir -p "$root/$m"
    case $m in
        proc) mount -t proc proc "$root/proc" ;;
        sys) mount -t sysfs sys "$root/sys" ;;
        dev) mount --bind /dev "$root/dev" ;;
        dev/pts) mount -t devpts devpts "$root/dev/pts" ;;
    esac
    mounted="$root/$m $mounted"   # unmounted in reverse order
done

say "running .ci/run inside the root"
status=0
chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    sh -c 'cd /src/clockscope && ./.ci/run' || status=$?
say ".ci/run exited with $status"
if [ $status = 0 ] && [ $deb = 1 ]; then
    say "make deb; apt install its three packages; the installed clockscope"
    chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb DEBIAN_FRONTEND=noninteractive \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        sh -exc 'cd /src/clockscope && make -s deb && apt-get install -y -q ./dist/clockscope_*.deb ./dist/libfastclock*.deb &&
                 cd / && command -v clockscope && clockscope --version &&
                 { clockscope doctor; s=$?; [ $s = 0 ] || [ $s = 3 ] || [ $s = 4 ] || [ $s = 5 ]; } &&
                 clockscope run --mode count -- true' ||
        status=$?
    say "the .deb check exited with $status"
fi
exit $status
