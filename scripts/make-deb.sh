#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds this machine's Debian packages from a native build with dpkg-deb, and checks them
# with lintian (fails on any error or warning).  Called by `make deb` / `make dist`:
#   sh scripts/make-deb.sh BUILD_DIR VERSION OUT_DIR
# Three packages, split as Debian's policy for shared libraries asks (docs/install.md):
#   libfastclock1      /usr/lib/MULTIARCH/libfastclock.so.1 (the package is named after the
#                      SONAME), its shlibs file and the ldconfig trigger
#   libfastclock-dev   the .so link, the .a, fastclock.h, fastclock.pc in MULTIARCH/pkgconfig
#   clockscope         the rest of `make install PREFIX=/usr`: the tool, the shim in
#                      /usr/lib/clockscope, the static vm guests of all three arches in
#                      /usr/libexec/clockscope/ARCH, man pages, completion, docs
# Install them with `apt install ./clockscope_*.deb ./libfastclock1_*.deb`.
set -eu
[ $# = 3 ] || { echo "usage: $0 BUILD_DIR VERSION OUT_DIR" >&2; exit 2; }
build=$1 version=$2 out=$3
cd "$(dirname "$0")/.."
for tool in dpkg-deb dpkg-architecture dpkg-shlibdeps lintian objdump; do
    command -v $tool >/dev/null || { echo "make-deb: needs $tool (scripts/install-deps.sh)" >&2; exit 1; }
done
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
libdir=usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
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

# Laid out as debhelper does: debian/control names the packages, debian/PACKAGE is each
# one's tree, so dpkg-shlibdeps finds libfastclock1's shlibs for whatever links it.
case $build in /*) top=$build/deb ;; *) top=$(pwd)/$build/deb ;; esac
rm -rf "$top" && mkdir -p "$top/debian" "$out"
all=$top/debian/clockscope
make -s O="$build" PREFIX=/usr LIBDIR="/$libdir" DESTDIR="$all" install >/dev/null

# What Debian's policy asks of installed files: stripped ELF files (each with its own arch's
# strip: the guests are foreign), compressed man pages, a copyright file and a changelog.
sh scripts/strip-tree.sh "$all/usr"
gzip -9n "$all"/usr/share/man/man1/*.1
rm -f "$all/usr/share/doc/clockscope/LICENSE"   # in copyright; a second copy: extra-license-file
gzip -9n "$all"/usr/share/doc/clockscope/*.md
install -D -m 644 packaging/lintian-overrides "$all/usr/share/lintian/overrides/clockscope"

# The library's package is named after its SONAME (policy 8.1): libfastclock.so.1 is
# libfastclock1 (libfoo2.so.1 would be libfoo2-1), and the file it ships is that name.
soname=$(objdump -p "$all/$libdir/libfastclock.so" | sed -n 's/^ *SONAME *//p')
[ -f "$all/$libdir/$soname" ] && [ ! -L "$all/$libdir/$soname" ] ||
    { echo "make-deb: $libdir/$soname (libfastclock's SONAME) is not the library's file" >&2; exit 1; }
lib=${soname%%.so.*}
case $lib in *[0-9]) lib=$lib-${soname##*.so.} ;; *) lib=$lib${soname##*.so.} ;; esac
dev=libfastclock-dev

# move PACKAGE PATH...: installed files (relative to the tree) into PACKAGE's tree.
move() {
    pkg=$1 && shift
    for path in "$@"; do
        mkdir -p "$top/debian/$pkg/$(dirname "$path")"
        mv "$all/$path" "$top/debian/$pkg/$path"
    done
}
move "$lib" "$libdir/$soname"
move "$dev" "$libdir/libfastclock.so" "$libdir/libfastclock.a" "$libdir/pkgconfig" usr/include
rmdir "$all/$libdir"
left=$(cd "$all" && find . -name 'libfastclock*' -o -name '*.pc' -o -name '*.h')
[ -z "$left" ] || { echo "make-deb: libfastclock's files left in clockscope: $left" >&2; exit 1; }

changelog=$top/changelog.gz
{
    printf 'clockscope (%s) unstable; urgency=medium\n\n' "$version"
    printf '  * Built from %s.\n\n' "$(git describe --tags --always --dirty 2>/dev/null || echo 'a tree without git')"
    printf ' -- %s  %s\n' "$maintainer" \
        "$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct 2>/dev/null || date +%s)}")"
} | gzip -9n > "$changelog"
printf 'Source: clockscope\n' > "$top/debian/control"
for pkg in clockscope "$lib" "$dev"; do
    install -D -m 644 packaging/copyright "$top/debian/$pkg/usr/share/doc/$pkg/copyright"
    install -m 644 "$changelog" "$top/debian/$pkg/usr/share/doc/$pkg/changelog.gz"
    printf '\nPackage: %s\nArchitecture: any\n' "$pkg" >> "$top/debian/control"
    mkdir -p "$top/debian/$pkg/DEBIAN"
done
# Programs linked against libfastclock.so.1 depend on this version or later; ldconfig runs
# when it is installed or removed.
echo "libfastclock ${soname##*.so.} $lib (>= $version)" > "$top/debian/$lib/DEBIAN/shlibs"
echo "activate-noawait ldconfig" > "$top/debian/$lib/DEBIAN/triggers"

# shlibdeps PACKAGE: the Depends of its native ELF files (the foreign guests are static).
shlibdeps() {
    # shellcheck disable=SC2046
    (cd "$top" && dpkg-shlibdeps -O -x"$1" $(find "debian/$1/usr/bin" "debian/$1/usr/lib" \
        -type f \( -name clockscope -o -name '*.so*' \) 2>/dev/null)) | sed -n 's/^shlibs:Depends=//p'
}
# control PACKAGE SECTION FIELDS...: DEBIAN/control's fields common to all, then FIELDS
# (lines, the description last).
control() {
    pkg=$1 section=$2 && shift 2
    {
        printf 'Package: %s\nSource: clockscope\nVersion: %s\nArchitecture: %s\n' "$pkg" "$version" "$arch"
        printf 'Maintainer: %s\nInstalled-Size: %s\nSection: %s\nPriority: optional\n' "$maintainer" \
            "$(du -sk --exclude=DEBIAN "$top/debian/$pkg" | cut -f1)" "$section"
        printf '%s\n' "$@"
    } > "$top/debian/$pkg/DEBIAN/control"
}

depends=$(shlibdeps clockscope)
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies" >&2; exit 1; }
# Recommended: python3-matplotlib (report's HTML and charts), linux-perf (profile), qemu and
# apt with the archive keyring (vm's machines and their kernels).
control clockscope utils "Depends: $depends" \
    "Recommends: python3-matplotlib, linux-perf, qemu-system-x86, qemu-system-arm, qemu-system-misc, apt, debian-archive-keyring" \
    "Description: measure, diagnose and fix the cost of reading the time on Linux" \
    " clockscope measures what every way of reading the time costs (libc, the" \
    " vDSO, raw syscalls and CPU counters), checks whether time goes backwards" \
    " between CPUs, explains why clock_gettime() is slow on a machine and proves" \
    " it (doctor), runs unmodified programs with cheaper clock reads (run, with" \
    " libfastclock), and runs any of this inside a VM of x86_64, aarch64 or" \
    " riscv64 (vm)."
depends=$(shlibdeps "$lib")
[ -n "$depends" ] || { echo "make-deb: dpkg-shlibdeps found no dependencies of $soname" >&2; exit 1; }
about=" libfastclock gives the cheapest correct timestamp: a calibrated CPU counter
 read in user space, converted into the CLOCK_MONOTONIC domain, falling back to
 clock_gettime() where the counter is not safe to use."
control "$lib" libs "Multi-Arch: same" "Depends: $depends" \
    "Description: cheapest correct timestamp in the CLOCK_MONOTONIC domain" "$about" \
    " ." " This package holds the shared library."
control "$dev" libdevel "Multi-Arch: same" "Depends: $lib (= $version)" \
    "Description: cheapest correct timestamp in the CLOCK_MONOTONIC domain (development)" \
    "$about" " ." " This package holds the header, the static library, the link to the" \
    " shared one and the pkg-config file."

debs=
for pkg in clockscope "$lib" "$dev"; do
    (cd "$top/debian/$pkg" && find usr -type f -print0 | sort -z | xargs -0 md5sum) > "$top/debian/$pkg/DEBIAN/md5sums"
    chmod 644 "$top/debian/$pkg/DEBIAN/"*
    deb=$out/${pkg}_${version}_$arch.deb
    dpkg-deb --root-owner-group -Zxz --build "$top/debian/$pkg" "$deb" >/dev/null
    echo "  DEB $deb"
    debs="$debs $deb"
done
# lintian: an error or a warning fails the build; what is overridden, and why, is in
# packaging/lintian-overrides (installed with clockscope) and docs/install.md.
# shellcheck disable=SC2086
lintian --fail-on error,warning --tag-display-limit 0 $debs
