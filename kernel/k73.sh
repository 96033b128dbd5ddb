#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/k73.sh: Debian's linux-source-7.3 (trixie-backports), the tree
# kernel/patches/mainline/ is written against, and an opt-in build of it
# with that one patch.
#
# Usage: kernel/k73.sh --source | --build
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
#
# Not done here yet: booting that image beside Debian's own 7.3.4 image
# and comparing sendzc-probe's ratios (kernel/patches/README.md).
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

fetch_source() {
	local codename deb
	[ -f "$SRC73/Makefile" ] && [ -f "$TOP73/.unpacked" ] && return 0
	[ "$(id -u)" = 0 ] || die "fetching linux-source-7.3 needs root (apt-get update of a private state)"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
	rm -rf "$TOP73"
	mkdir -p "$TOP73"
	# shellcheck source=tools/apt-sources.sh
	. "$TOP/tools/apt-sources.sh"
	apt_state_binaries "$APT73" "$codename" trixie-backports ||
		die "no enabled apt source of $codename to derive trixie-backports from"
	apt_state_run "$APT73" update >"$TOP73/apt.log" 2>&1 ||
		die "apt-get update of trixie-backports failed, see $TOP73/apt.log"
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
	ls "$MAINLINE"/0[0-9][0-9][0-9]-*.patch |
		grep -v '/0000-cover-letter\.patch$'
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

case ${1:-} in
--source)
	fetch_source
	echo "$SRC73" ;;
--build)
	fetch_source
	build_image ;;
-h | --help)
	sed -n '3,27p' "$0" | sed 's/^# \{0,1\}//' ;;
*)
	die "usage: kernel/k73.sh --source | --build (see --help)" ;;
esac
