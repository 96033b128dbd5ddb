#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what hugebuf needs to build and test on Debian, and fetch the fio
# source that matches the installed fio into deps/ (configured, so that its
# config-host.h exists).  Idempotent: does nothing that is already done.
#
# Every program a script of the tree calls (tools/, t/*.sh, bench/,
# examples/) is listed below as "program:package" (or "file:package");
# only what is missing is installed.  The qemu kernel harness
# (kernel/ktest.sh) installs its own packages (qemu, busybox-static, the
# kernel source and build tools) when it runs, so that "make deps" stays
# small for everyone who does not boot kernels.  --user (make check, the
# user's tier) installs only what building and the suite on the running
# kernel call.
#
# apt-get source needs a deb-src entry.  When the machine has none, one is
# derived from its own enabled apt sources (deb822 *.sources and one-line
# sources.list / *.list): the same URIs, suites of this release, components
# and Signed-By keyring, as an admin would add it.  No mirror host is
# written in here.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
need="gcc:build-essential make:build-essential pkg-config:pkg-config
fio:fio /usr/include/liburing.h:liburing-dev
/usr/include/hugetlbfs.h:libhugetlbfs-dev dpkg-source:dpkg-dev
python3:python3
mkfs.ext4:e2fsprogs losetup:mount setpriv:util-linux pgrep:procps
ip:iproute2 ss:iproute2 dmsetup:dmsetup timeout:coreutils
mandoc:mandoc readelf:binutils cmp:diffutils flock:util-linux
strace:strace"
# what only make check-all's stages call (sanitizers, fuzzers, valgrind,
# the packages, the IOMMU plot, the mails, the second fio's XFS case);
# --user (make check) leaves
# them out
need_all="clang:clang libfuzzer:libclang-rt-dev valgrind:valgrind
gnuplot:gnuplot-nox git:git dh:debhelper lintian:lintian
mkfs.xfs:xfsprogs"
[ "${1:-}" = --user ] || need="$need $need_all"
ours=hugebuf-deb-src
. "$top/tools/apt-sources.sh"

die() {
	echo "deps: $*" >&2
	exit 1
}

# is the program (or file) of one "what:package" pair there?
have() {
	case $1 in
	/*) [ -e "$1" ] ;;
	# libFuzzer ships with clang's runtime (libclang-rt-N-dev)
	libfuzzer) ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-*.a \
		>/dev/null 2>&1 ;;
	*) command -v "$1" >/dev/null 2>&1 ;;
	esac
}

missing_packages() {
	for pair in $need; do
		have "${pair%%:*}" || echo "${pair#*:}"
	done | sort -u | tr '\n' ' '
}

have_deb_src() {
	[ -n "$(deb822_awk have "" | head -n 1)$(oneline_awk have "" | head -n 1)" ]
}

add_deb_src() {
	local codename f822 fline
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release: add a deb-src entry for your mirror by hand"
	f822=$(deb822_awk derive "$codename")
	fline=$(oneline_awk derive "$codename")
	[ -n "$f822$fline" ] ||
		die "no enabled apt source for $codename to derive a deb-src entry from: add one for your mirror by hand"
	if [ -n "$f822" ]; then
		echo "deps: adding $srcdir/$ours.sources (deb-src of your configured sources)"
		printf '%s\n' "$f822" >"$srcdir/$ours.sources"
	fi
	if [ -n "$fline" ]; then
		echo "deps: adding $srcdir/$ours.list (deb-src of your configured sources)"
		printf '%s\n' "$fline" >"$srcdir/$ours.list"
	fi
	if ! apt-get update -q >/dev/null; then
		rm -f "$srcdir/$ours.sources" "$srcdir/$ours.list"
		die "apt-get update failed with the derived deb-src entry (removed again): add one for your mirror by hand"
	fi
}

[ "$(id -u)" = 0 ] || die "must run as root (apt-get): sudo make deps"
command -v apt-get >/dev/null 2>&1 ||
	die "apt-get not found: install the packages by hand: $(missing_packages)"

missing=$(missing_packages)
if [ -n "$missing" ]; then
	echo "deps: installing $missing"
	apt-get update -q >/dev/null || die "apt-get update failed: check your apt sources"
	# shellcheck disable=SC2086
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
		--no-install-recommends $missing >/dev/null ||
		die "apt-get install $missing failed"
	missing=$(missing_packages)
	[ -z "$missing" ] || die "still missing after apt-get install: $missing"
fi

ver=$(fio --version)
src="$top/deps/$ver"
if [ ! -f "$src/config-host.h" ]; then
	have_deb_src || add_deb_src
	mkdir -p "$top/deps"
	tmp=$(mktemp -d "$top/deps/src.XXXXXX")
	pkgver=$(dpkg-query -W -f='${Version}' fio)
	(cd "$tmp" && apt-get source -q "fio=$pkgver" >/dev/null 2>&1) ||
		(cd "$tmp" && apt-get source -q fio >/dev/null 2>&1) ||
		die "apt-get source fio failed: add a deb-src entry for your mirror"
	d=$(find "$tmp" -maxdepth 1 -type d -name 'fio-*' | head -n 1)
	[ -n "$d" ] || die "apt-get source fio produced no source tree"
	got=$(sed -n 's/^DEF_VER=//p' "$d/FIO-VERSION-GEN")
	[ "$got" = "$ver" ] || die "apt-get source gave $got but fio is $ver"
	(cd "$d" && ./configure --disable-native --prefix=/usr >configure.log 2>&1) ||
		die "fio ./configure failed: see $d/configure.log"
	rm -rf "$src"
	mv "$d" "$src"
	rm -rf "$tmp"
fi
echo "deps: ok ($ver source in deps/$ver)"
