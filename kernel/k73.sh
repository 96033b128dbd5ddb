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
#              harness's 6.1 fragment; the lines 7.3's Kconfig drops are
#              listed) + kernel/hugebuf-7.3.config, CONFIG_LOCALVERSION
#              "-hbfix-sendzc", with kernel/patches/mainline/'s patch
#              applied, into $KTEST_CACHE/images/bzImage-sendzc-7.3-KEY
#              (printed; its .config beside it as KEY.config).  Long (a
#              whole kernel on this machine's cores): run it under the
#              machine's lock for heavy jobs.
#   --run      boot that image and Debian's own 7.3.4 cloud image
#              (linux-binary-7.3.4*-cloud-amd64, fetched the same way) in
#              qemu (TCG), each with an initramfs of static busybox and
#              kernel/static/sendzc-probe ('make static'), which sends over
#              loopback TCP and needs no disk, and print each guest's
#              SENDZC lines (ratio: bytes in flight per byte charged; data:
#              every byte compared).  Heavy too: two guests under TCG.
#
# The same image is kernel/ktest.sh's guest of kernels.tab's build:mainline
# line (mainline-sendzc, opt-in): kernel/kbuild.sh sources this file for
# the functions below and builds with them, with ktest's KDIR, TOP,
# KTEST_CACHE, KTEST_JOBS, log and die.  --run is the quick look without
# the harness.
#
# Environment: KTEST_CACHE [/var/tmp/hugebuf-kernel], KTEST_JOBS [nproc].

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	KDIR=$(cd "$(dirname "$0")" && pwd)
	TOP=$(dirname "$KDIR")
	KTEST_CACHE=${KTEST_CACHE:-/var/tmp/hugebuf-kernel}
	KTEST_JOBS=${KTEST_JOBS:-$(nproc)}
	die() {
		echo "k73: $*" >&2
		exit 1
	}
	log() {
		echo "k73: $*" >&2
	}
fi
TOP73=$KTEST_CACHE/src-7.3
SRC73=$TOP73/linux-source-7.3
APT73=$TOP73/apt
BUILD73=$KTEST_CACHE/build-sendzc-7.3
MAINLINE=$KDIR/patches/mainline
FRAGMENT73=$KDIR/hugebuf-7.3.config
# lib's model reads a release ending -hbfix-sendzc as its version with the
# SEND_ZC charge fix (hbi_kmodel_release_fix()); the fragment's own
# "-hugebuf" would read as plain 7.3.4, which over-charges
LOCALVERSION73=-hbfix-sendzc

# the private apt state of trixie-backports, its index updated
k73_apt_prepare() {
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

k73_fetch_source() {
	local deb
	[ -f "$SRC73/Makefile" ] && [ -f "$TOP73/.unpacked" ] && return 0
	rm -rf "$TOP73"
	k73_apt_prepare
	(cd "$TOP73" && apt_state_run "$APT73" download linux-source-7.3) \
		>>"$TOP73/apt.log" 2>&1 ||
		die "apt-get download linux-source-7.3 failed, see $TOP73/apt.log"
	deb=$(ls "$TOP73"/linux-source-7.3_*.deb) ||
		die "apt-get download left no linux-source-7.3 .deb"
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
k73_patches() {
	local p
	for p in "$MAINLINE"/0[0-9][0-9][0-9]-*.patch; do
		case $p in */0000-cover-letter.patch) ;; *) echo "$p" ;; esac
	done
}

# the image's path, keyed by the source package, both fragments, the
# release suffix, the compiler and the patches' diffs (needs the source)
k73_image() {
	local key p
	key=$( { cat "$TOP73/.unpacked" "$KDIR/hugebuf.config" "$FRAGMENT73"
		 echo "$LOCALVERSION73"
		 gcc --version | head -1
		 for p in $(k73_patches); do
			 sed -n '/^diff --git /,$p' "$p"; done; } |
	       sha256sum | cut -c1-16)
	echo "$KTEST_CACHE/images/bzImage-sendzc-7.3-$key"
}

# allnoconfig + both fragments in $BUILD73/obj, then the release suffix;
# every "=y" line must survive but hugebuf.config's that 7.3 dropped
k73_configure() {
	local all=$BUILD73/all.config l dropped=0
	cat "$KDIR/hugebuf.config" "$FRAGMENT73" >"$all"
	make -C "$BUILD73/src" O="$BUILD73/obj" ARCH=x86_64 allnoconfig \
		KCONFIG_ALLCONFIG="$all" >"$BUILD73/config.log" 2>&1 ||
		die "configuration failed, see $BUILD73/config.log"
	for l in $(grep '^CONFIG_[A-Z0-9_]*=y' "$FRAGMENT73"); do
		grep -qxF "$l" "$BUILD73/obj/.config" ||
			die "$l from $(basename "$FRAGMENT73") did not survive kconfig"
	done
	for l in $(grep '^CONFIG_[A-Z0-9_]*=' "$KDIR/hugebuf.config"); do
		grep -qxF "$l" "$BUILD73/obj/.config" && continue
		log "7.3's Kconfig dropped $l"
		dropped=$((dropped + 1))
	done
	"$BUILD73/src/scripts/config" --file "$BUILD73/obj/.config" \
		--set-str LOCALVERSION "$LOCALVERSION73" &&
		make -C "$BUILD73/src" O="$BUILD73/obj" ARCH=x86_64 olddefconfig \
			>>"$BUILD73/config.log" 2>&1 ||
		die "setting CONFIG_LOCALVERSION failed, see $BUILD73/config.log"
	log "$dropped line(s) of hugebuf.config dropped by 7.3's Kconfig"
}

# build the image unless it is cached; print its path
k73_build() {
	local img p t
	img=$(k73_image)
	if [ -f "$img" ]; then
		echo "$img"
		return 0
	fi
	t=$(date +%s)
	# the tree stays pristine: the patch goes into a copy of what it touches
	rm -rf "$BUILD73"
	mkdir -p "$BUILD73/src"
	cp -a "$SRC73/." "$BUILD73/src/"
	for p in $(k73_patches); do
		patch -d "$BUILD73/src" -p1 -s --forward --batch -F0 <"$p" ||
			die "$(basename "$p") does not apply to linux-source-7.3"
	done
	k73_configure
	log "building (make -j$KTEST_JOBS, log $BUILD73/build.log)"
	make -C "$BUILD73/src" O="$BUILD73/obj" ARCH=x86_64 -j"$KTEST_JOBS" \
		bzImage >"$BUILD73/build.log" 2>&1 ||
		{ tail -30 "$BUILD73/build.log" >&2; die "build failed"; }
	mkdir -p "$(dirname "$img")"
	cp "$BUILD73/obj/.config" "$img.config"
	cp "$BUILD73/obj/arch/x86/boot/bzImage" "$img.tmp" && mv "$img.tmp" "$img"
	log "$(basename "$img") built in $(($(date +%s) - t)) s"
	echo "$img"
}

# Debian's own 7.3.4 cloud image's vmlinuz, fetched like the source: the
# newest linux-binary-7.3.4*-cloud-amd64 of the index
k73_debian_image() {
	local d=$TOP73/deb pkg f
	if [ -f "$d/vmlinuz" ]; then
		echo "$d/vmlinuz"
		return 0
	fi
	k73_apt_prepare
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
# the command line)
k73_initramfs() {	# $1 = output
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

k73_boot() {	# $1 = label, $2 = kernel image, $3 = initramfs
	local log=$KTEST_CACHE/k73-console-$1.log
	timeout 900 qemu-system-x86_64 -m 2048 -smp 2 -nographic -no-reboot \
		-kernel "$2" -initrd "$3" \
		-append "console=ttyS0 quiet panic=-1 hugepages=64" >"$log" 2>&1 ||
		log "$1: qemu ended with $? (console: $log)"
	grep -a '^@@K73 \|^SENDZC ' "$log" | sed "s/^/$1: /"
}

k73_run() {
	local img deb cpio=$KTEST_CACHE/k73-initramfs.cpio
	[ -x "$TOP/kernel/static/sendzc-probe" ] ||
		die "no kernel/static/sendzc-probe: run 'make static' first"
	command -v qemu-system-x86_64 >/dev/null || die "no qemu-system-x86_64: apt-get install qemu-system-x86"
	img=$(k73_build)
	deb=$(k73_debian_image)
	k73_initramfs "$cpio"
	k73_boot debian-7.3.4 "$deb" "$cpio"
	k73_boot sendzc-fix-7.3.4 "$img" "$cpio"
}

# sourced (kbuild.sh): the functions alone
[ "${BASH_SOURCE[0]}" = "$0" ] || return 0

case ${1:-} in
--run)
	k73_fetch_source
	k73_run ;;
--source)
	k73_fetch_source
	echo "$SRC73" ;;
--build)
	k73_fetch_source
	k73_build ;;
-h | --help)
	sed -n '3,/^# Environment/p' "$0" | sed 's/^# \{0,1\}//' ;;
*)
	die "usage: kernel/k73.sh --source | --build | --run (see --help)" ;;
esac
