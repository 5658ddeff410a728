#!/bin/sh
# Runs the static clockscope doctor as /init of a minimal initramfs in an x86_64 VM with a
# chosen clocksource, and prints what it said.  A manual check (docs/benchmarks/doctor.md),
# not part of the test suite.
#   sh tools/doctor_vm/run.sh acpi_pm|hpet|tsc [tcg|kvm]
# Needs qemu-system-x86_64, cpio, and a Debian cloud kernel (fetched with apt-get download).
set -eu
cs=${1:-acpi_pm}
accel=${2:-tcg}
repo=$(cd "$(dirname "$0")/../.." && pwd)
work=${WORK:-/tmp/clockscope-doctor-vm}
mkdir -p "$work/root/proc" "$work/root/sys" "$work/root/dev" "$work/kernel"
if ! ls "$work"/kernel/boot/vmlinuz-* >/dev/null 2>&1; then
    (cd "$work" && apt-get download linux-image-cloud-amd64 >/dev/null 2>&1 || true)
    dep=$(apt-cache depends linux-image-cloud-amd64 | awk '/Depends: linux-image/ {print $2; exit}')
    (cd "$work" && apt-get download "$dep")
    dpkg-deb -x "$work"/"$dep"_*.deb "$work/kernel"
fi
kernel=$(ls "$work"/kernel/boot/vmlinuz-* | head -1)
make -C "$repo" -s STATIC=1 O=build/static build/static/clockscope
cp "$repo/build/static/clockscope" "$work/root/clockscope"
gcc -static -O2 -o "$work/root/init" "$repo/tools/doctor_vm/init.c"
(cd "$work/root" && find . | cpio -o -H newc 2>/dev/null > "$work/initrd.cpio")
if [ "$accel" = kvm ]; then acc="-enable-kvm -cpu host"; else acc="-accel tcg -cpu max"; fi
# shellcheck disable=SC2086
timeout 600 qemu-system-x86_64 $acc -m 512 -smp 1 -kernel "$kernel" -initrd "$work/initrd.cpio" \
    -append "console=ttyS0 clocksource=$cs" -nographic -no-reboot | tr -d '\r' > "$work/out-$cs.txt"
sed -n '/^clockscope doctor:/,/Exit status/p' "$work/out-$cs.txt"
grep -E '"verdict"|"fast_path"|"clock_gettime_monotonic"|"clock_gettime_realtime"|"control_|"elapsed_s"' "$work/out-$cs.txt"
