#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds dist/clockscope_VERSION_ARCH.deb from a native build with dpkg-deb, and checks it
# with lintian (fails on any lintian error).  Called by `make deb` / `make dist`:
#   sh scripts/make-deb.sh BUILD_DIR VERSION OUT_DIR
# The package: /usr/bin/clockscope, libfastclock (shared, static, header, pkg-config), the
# shim in /usr/lib/clockscope, the static vm guests of all three arches in
# /usr/libexec/clockscope/ARCH, man pages, bash completion, docs.  Install it with
# `apt install ./clockscope_VERSION_ARCH.deb`.
set -eu
[ $# = 3 ] || { echo "usage: $0 BUILD_DIR VERSION OUT_DIR" >&2; exit 2; }
build=$1 version=$2 out=$3
cd "$(dirname "$0")/.."
for tool in dpkg-deb dpkg-architecture dpkg-shlibdeps lintian; do
    command -v $tool >/dev/null || { echo "make-deb: needs $tool (scripts/install-deps.sh)" >&2; exit 1; }
done
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
# The maintainer: whoever builds it, as dch finds them (DEBFULLNAME/DEBEMAIL, else git's
# user), else the author of the commit being packaged (a fresh clone has no git identity),
# else the project's own line in packaging/maintainer (a tree without its git: an unpacked
# source tarball, the mutant runner's scratch copy).
project=$(sed -n 's/^\(.*\) <\(.*\)>$/\1\t\2/p' packaging/maintainer 2>/dev/null | head -n 1)
name=${DEBFULLNAME:-$(git config user.name 2>/dev/null || git log -1 --format=%an 2>/dev/null || true)}
email=${DEBEMAIL:-$(git config user.email 2>/dev/null || git log -1 --format=%ae 2>/dev/null || true)}
[ -n "$name" ] || name=$(printf '%s' "$project" | cut -f1)
[ -n "$email" ] || email=$(printf '%s' "$project" | cut -f2)
[ -n "$name" ] && [ -n "$email" ] ||
    { echo "make-deb: set DEBFULLNAME and DEBEMAIL (the package's maintainer)" >&2; exit 2; }
maintainer="$name <$email>"
stage=$build/deb/clockscope_${version}_$arch
rm -rf "$build/deb" && mkdir -p "$stage/DEBIAN" "$out"

make -s O="$build" PREFIX=/usr DESTDIR="$(pwd)/$stage" install >/dev/null

# What Debian's policy asks of installed files: stripped ELF files (each with its own arch's
# strip: the guests are foreign), compressed man pages, a copyright file and a changelog.
sh scripts/strip-tree.sh "$stage/usr"
gzip -9n "$stage"/usr/share/man/man1/*.1
doc=$stage/usr/share/doc/clockscope
cp packaging/copyright "$doc/copyright"
# The MIT text is in copyright (Debian's place for it); a second copy is lintian's
# extra-license-file.
rm -f "$doc/LICENSE"
gzip -9n "$doc"/*.md
{
    printf 'clockscope (%s) unstable; urgency=medium\n\n' "$version"
    printf '  * Built from %s.\n\n' "$(git describe --tags --always --dirty 2>/dev/null || echo 'a tree without git')"
    printf ' -- %s  %s\n' "$maintainer" \
        "$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n > "$doc/changelog.gz"
install -D -m 644 packaging/lintian-overrides "$stage/usr/share/lintian/overrides/clockscope"

# Dependencies from the ELF files of this arch (the foreign guests are static: none).
# Recommended: python3-matplotlib (report's HTML and charts), linux-perf (profile), qemu and
# apt with the archive keyring (vm's machines and their kernels).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/debian"
printf 'Source: clockscope\n\nPackage: clockscope\nArchitecture: any\n' > "$tmp/debian/control"
native=$(find "$(pwd)/$stage/usr/bin" "$(pwd)/$stage/usr/lib" -type f \( -name clockscope -o -name '*.so*' \))
# shellcheck disable=SC2086
depends=$(cd "$tmp" && dpkg-shlibdeps -O $native | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
cat > "$stage/DEBIAN/control" <<EOF
Package: clockscope
Version: $version
Architecture: $arch
Maintainer: $maintainer
Installed-Size: $size
Depends: $depends
Recommends: python3-matplotlib, linux-perf, qemu-system-x86, qemu-system-arm, qemu-system-misc, apt, debian-archive-keyring
Section: utils
Priority: optional
Description: measure, diagnose and fix the cost of reading the time on Linux
 clockscope measures what every way of reading the time costs (libc, the
 vDSO, raw syscalls and CPU counters), checks whether time goes backwards
 between CPUs, explains why clock_gettime() is slow on a machine and proves
 it (doctor), runs unmodified programs with cheaper clock reads (run, with
 libfastclock), and runs any of this inside a VM of x86_64, aarch64 or
 riscv64 (vm).
EOF
# libfastclock.so.1 for programs linked against it; ldconfig runs when it is installed.
echo "libfastclock 1 clockscope (>= $version)" > "$stage/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$stage/DEBIAN/triggers"
(cd "$stage" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$stage/DEBIAN/md5sums"
chmod 644 "$stage/DEBIAN/"*

deb=$out/clockscope_${version}_$arch.deb
dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
echo "  DEB $deb"
# lintian: errors fail the build; the warnings accepted are listed in docs/install.md.
lintian --fail-on error --tag-display-limit 0 "$deb"
