#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/k73.sh: Debian's linux-source-7.3 (trixie-backports), the tree
# kernel/patches/mainline/ is written against, and an opt-in build of it
# with that one patch.
#
# Usage: kernel/k73.sh --source | --build | --run
#
#   --source   fetch linux-source-7.3 when it is not unpacked yet and print
#              the tree's path (kmails.sh runs checkpatch.pl there).  The
#              package comes from the machine's own mirror: a private apt
#              state (tools/apt-sources.sh) whose trixie-backports entry is
#              derived from the machine's Debian entry, apt-get download
#              checking the .deb against the signed index.
#   --build    build that tree, allnoconfig + kernel/hugebuf.config (the
#              harness's 6.1 fragment; lines 7.3's Kconfig drops are
#              listed), with kernel/patches/mainline/'s patch applied, into
#              $KTEST_CACHE/images/bzImage-sendzc-7.3-KEY (printed).  Long
#              (a whole kernel on this machine's cores): run it under the
#              machine's lock for heavy jobs.
#   --run      boot that image and Debian's own 7.3.4 cloud image
#              (linux-binary-7.3.4*-cloud-amd64, fetched the same way) in
#              qemu (TCG), each with an initramfs of static busybox and
#              kernel/static/sendzc-probe ('make static'), which sends over
#              loopback TCP and needs no disk, and print each guest's
#              SENDZC lines (ratio: bytes in flight per byte charged; data:
#              every byte compared).  Heavy too: two guests under TCG.
#
# The guests are not kernel/ktest.sh's: no kernels.tab line builds this
# kernel yet (kernel/patches/README.md).
#
# Environment: KTEST_CACHE [/var/tmp/hugebuf-kernel], KTEST_JOBS [nproc].

set -euo pipefail

KDIR=$(cd "$(dirname "$0")" && pwd)
TOP=$(dirname "$KDIR")
KTEST_CACHE=${KTEST_CACHE:-/var/tmp/hugebuf-kernel}
KTEST_JOBS=${KTEST_JOBS:-$(nproc)}
TOP73=$KTEST_CACHE/src-7.3
SRC73=$TOP73/linux-source-7.3
APT73=$TOP73/apt
BUILD73=$KTEST_CACHE/build-sendzc-7.3
MAINLINE=$KDIR/patches/mainline

die() {
	echo "k73: $*" >&2
	exit 1
}

log() {
	echo "k73: $*" >&2
}

# the private apt state of trixie-backports, its index updated
apt_prepare() {
	local codename
	[ "$(id -u)" = 0 ] || die "fetching from trixie-backports needs root (apt-get update of a private state)"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
	mkdir -p "$TOP73"
	# shellcheck source=tools/apt-sources.sh
	. "$TOP/tools/apt-sources.sh"
	apt_state_binaries "$APT73" "$codename" trixie-backports ||
		die "no enabled apt source of $codename to derive trixie-backports from"
	apt_state_run "$APT73" update >"$TOP73/apt.log" 2>&1 ||
		die "apt-get update of trixie-backports failed, see $TOP73/apt.log"
}

fetch_source() {
	local deb
	[ -f "$SRC73/Makefile" ] && [ -f "$TOP73/.unpacked" ] && return 0
	rm -rf "$TOP73"
	apt_prepare
	(cd "$TOP73" && apt_state_run "$APT73" download linux-source-7.3) \
		>>"$TOP73/apt.log" 2>&1 ||
		die "apt-get download linux-source-7.3 failed, see $TOP73/apt.log"
	deb=$(ls "$TOP73"/linux-source-7.3_*.deb)
	log "unpacking $(basename "$deb")"
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -O --wildcards './usr/src/linux-source-7.3.tar.xz' |
		tar -C "$TOP73" -xJf - ||
		die "unpacking $(basename "$deb") failed"
	[ -f "$SRC73/Makefile" ] || die "$(basename "$deb") held no linux-source-7.3/"
	basename "$deb" >"$TOP73/.unpacked"
	rm -f "$deb"
}

# the mainline patches, in order (not the cover letter)
mainline_patches() {
	local p
	for p in "$MAINLINE"/0[0-9][0-9][0-9]-*.patch; do
		case $p in */0000-cover-letter.patch) ;; *) echo "$p" ;; esac
	done
}

build_image() {
	local key img p l dropped=0
	key=$( { cat "$TOP73/.unpacked" "$KDIR/hugebuf.config"
		 gcc --version | head -1
		 for p in $(mainline_patches); do
			 sed -n '/^diff --git /,$p' "$p"; done; } |
	       sha256sum | cut -c1-16)
	img=$KTEST_CACHE/images/bzImage-sendzc-7.3-$key
	if [ -f "$img" ]; then
		echo "$img"
		return 0
	fi
	# the tree stays pristine: the patch goes into a copy of what it touches
	rm -rf "$BUILD73"
	mkdir -p "$BUILD73/src"
	cp -a "$SRC73/." "$BUILD73/src/"
	for p in $(mainline_patches); do
		patch -d "$BUILD73/src" -p1 -s --forward --batch -F0 <"$p" ||
			die "$(basename "$p") does not apply to linux-source-7.3"
	done
	make -C "$BUILD73/src" O="$BUILD73/obj" ARCH=x86_64 allnoconfig \
		KCONFIG_ALLCONFIG="$KDIR/hugebuf.config" \
		>"$BUILD73/config.log" 2>&1 ||
		die "configuration failed, see $BUILD73/config.log"
	for l in $(grep '^CONFIG_[A-Z0-9_]*=' "$KDIR/hugebuf.config"); do
		grep -qxF "$l" "$BUILD73/obj/.config" && continue
		log "7.3's Kconfig dropped $l"
		dropped=$((dropped + 1))
	done
	log "building (make -j$KTEST_JOBS, log $BUILD73/build.log); $dropped fragment line(s) dropped"
	make -C "$BUILD73/src" O="$BUILD73/obj" ARCH=x86_64 -j"$KTEST_JOBS" \
		bzImage >"$BUILD73/build.log" 2>&1 ||
		{ tail -30 "$BUILD73/build.log" >&2; die "build failed"; }
	mkdir -p "$(dirname "$img")"
	cp "$BUILD73/obj/arch/x86/boot/bzImage" "$img.tmp" && mv "$img.tmp" "$img"
	echo "$img"
}

# Debian's own 7.3.4 cloud image's vmlinuz, fetched like the source: the
# newest linux-binary-7.3.4*-cloud-amd64 of the index
debian_image() {
	local d=$TOP73/deb pkg f
	if [ -f "$d/vmlinuz" ]; then
		echo "$d/vmlinuz"
		return 0
	fi
	apt_prepare
	for f in "$APT73"/lists/*_dists_trixie-backports_main_binary-amd64_Packages*; do
		[ -f "$f" ] || continue
		pkg=$(/usr/lib/apt/apt-helper cat-file "$f" |
			sed -n 's/^Package: \(linux-binary-7\.3\.4[^ ]*-cloud-amd64\)$/\1/p' |
			sort -V | tail -n 1)
	done
	[ -n "${pkg:-}" ] || die "trixie-backports serves no linux-binary-7.3.4*-cloud-amd64"
	rm -rf "$d"
	mkdir -p "$d"
	(cd "$d" && apt_state_run "$APT73" download "$pkg") >>"$TOP73/apt.log" 2>&1 ||
		die "apt-get download $pkg failed, see $TOP73/apt.log"
	dpkg-deb -x "$d"/*.deb "$d/root"
	mv "$d"/root/usr/lib/modules/*/vmlinuz "$d/vmlinuz" ||
		die "$pkg holds no vmlinuz"
	rm -rf "$d/root" "$d"/*.deb
	echo "$d/vmlinuz"
}

# an initramfs of static busybox and sendzc-probe; /init brings up the
# loopback, runs the probe and powers off (the 2 MiB hugepages come from
# the command line: a kernel built here may have no /proc/sys)
make_initramfs() {	# $1 = output
	local r
	r=$(mktemp -d "$KTEST_CACHE/k73-initramfs.XXXXXX")
	mkdir -p "$r/bin" "$r/proc" "$r/sys" "$r/dev" "$r/tmp"
	cp /bin/busybox "$r/bin/busybox"
	cp "$TOP/kernel/static/sendzc-probe" "$r/bin/sendzc-probe"
	cat >"$r/init" <<-'EOF'
	#!/bin/busybox sh
	/bin/busybox --install -s /bin
	mount -t proc proc /proc
	mount -t sysfs sys /sys
	mount -t devtmpfs dev /dev 2>/dev/null
	mount -t tmpfs tmp /tmp
	ip link set lo up
	echo always >/sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null
	echo "@@K73 release $(uname -r)"
	/bin/sendzc-probe </dev/null 2>&1
	echo "@@K73 exit $?"
	poweroff -f
	EOF
	chmod +x "$r/init"
	(cd "$r" && find . | cpio -o -H newc --quiet) >"$1"
	rm -rf "$r"
}

boot_one() {	# $1 = label, $2 = kernel image, $3 = initramfs
	local log=$KTEST_CACHE/k73-console-$1.log
	timeout 900 qemu-system-x86_64 -m 2048 -smp 2 -nographic -no-reboot \
		-kernel "$2" -initrd "$3" \
		-append "console=ttyS0 quiet panic=-1 hugepages=64" >"$log" 2>&1 ||
		log "$1: qemu ended with $? (console: $log)"
	grep -a '^@@K73 \|^SENDZC ' "$log" | sed "s/^/$1: /"
}

run_guests() {
	local img deb cpio=$KTEST_CACHE/k73-initramfs.cpio
	[ -x "$TOP/kernel/static/sendzc-probe" ] ||
		die "no kernel/static/sendzc-probe: run 'make static' first"
	command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64: apt-get install qemu-system-x86"
	img=$(build_image)
	deb=$(debian_image)
	make_initramfs "$cpio"
	boot_one debian-7.3.4 "$deb" "$cpio"
	boot_one sendzc-fix-7.3.4 "$img" "$cpio"
}

case ${1:-} in
--run)
	fetch_source
	run_guests ;;
--source)
	fetch_source
	echo "$SRC73" ;;
--build)
	fetch_source
	build_image ;;
-h | --help)
	sed -n '3,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//' ;;
*)
	die "usage: kernel/k73.sh --source | --build | --run (see --help)" ;;
esac
