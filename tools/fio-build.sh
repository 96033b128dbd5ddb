#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Build a second fio from a Debian source package, to build and test the
# engine against it: by default fio 3.39 from Debian 13 (trixie).  The
# source comes from the mirror this machine already uses (a deb-src entry
# derived from its apt sources by tools/apt-sources.sh, kept in a private apt
# state so the system's sources and lists are not touched).
#
#   tools/fio-build.sh [--check] [VERSION [SUITE]]   (default: 3.39 trixie)
#
# Result, cached outside the clone (HB_FIO_CACHE, default
# /var/tmp/hugebuf-fio): VERSION/fio-VERSION/ is the configured source tree
# with the fio binary built in it.  The last line on stdout is
#   FIO=<binary> FIO_SOURCE=<tree>
# ready for ./configure --fio=... --fio-source=...  A second run with the
# cache in place only prints that line.  Needs root only when it must fetch
# (apt-get update of the private lists).
#
# --check (the make check stage): also build the engine against that fio
# in a copy of this tree (VERSION/hugebuf/, the clone's own build stays as
# it is) and run t/fio-examples.sh with that fio and engine.  Exit 77
# (skip) when the mirror does not serve the source.
set -eu

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi

top=$(cd "$(dirname "$0")/.." && pwd)
ver=${1:-3.39}
suite=${2:-trixie}
cache=${HB_FIO_CACHE:-/var/tmp/hugebuf-fio}
dir=$cache/$ver
tree=$dir/fio-$ver
apt=$cache/apt-$suite

die() {
	echo "fio-build: $*" >&2
	exit 1
}

built() {
	[ -x "$tree/fio" ] && [ -f "$tree/config-host.h" ] &&
		[ "$("$tree/fio" --version 2>/dev/null)" = "fio-$ver" ]
}

# apt-get with private source parts and lists: nothing in /etc/apt or
# /var/lib/apt/lists changes
apt_private() {
	apt-get -q -o Dir::Etc::SourceList=/dev/null \
		-o Dir::Etc::SourceParts="$apt/sources.list.d" \
		-o Dir::State::Lists="$apt/lists" \
		-o Dir::Cache::pkgcache= -o Dir::Cache::srcpkgcache= "$@"
}

fetch() {
	local codename src
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found"
	command -v dpkg-source >/dev/null 2>&1 ||
		die "dpkg-source not found: apt-get install dpkg-dev (make deps)"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
	. "$top/tools/apt-sources.sh"
	mkdir -p "$apt/sources.list.d" "$apt/lists/partial"
	src=$(apt_src_deb822 "$codename" "$suite")
	if [ -n "$src" ]; then
		printf '%s\n' "$src" >"$apt/sources.list.d/src.sources"
	else
		rm -f "$apt/sources.list.d/src.sources"
	fi
	src=$(apt_src_oneline "$codename" "$suite")
	if [ -n "$src" ]; then
		printf '%s\n' "$src" >"$apt/sources.list.d/src.list"
	else
		rm -f "$apt/sources.list.d/src.list"
	fi
	ls "$apt/sources.list.d/"* >/dev/null 2>&1 ||
		die "no enabled apt source for $codename to derive a $suite deb-src entry from"
	apt_private update >"$apt/update.log" 2>&1 ||
		die "apt-get update of the $suite deb-src entry failed: see $apt/update.log"
	(cd "$tmp" && apt_private source "fio/$suite" >"$dir/fetch.log" 2>&1) &&
		return 0
	rm -rf "$tmp"
	if grep -q '404' "$dir/fetch.log"; then
		echo "fio-build: the mirror lists fio's $suite source but does not serve its files (404): see $dir/fetch.log" >&2
		exit 77
	fi
	die "apt-get source fio/$suite failed: see $dir/fetch.log"
}

if ! built; then
	command -v gcc >/dev/null 2>&1 || die "no gcc: run make deps"
	mkdir -p "$dir"
	# one builder at a time; the others wait and reuse its result
	exec 9>"$dir/.lock"
	command -v flock >/dev/null 2>&1 && flock 9
fi
if ! built; then
	start=$(date +%s)
	tmp=$(mktemp -d "$dir/src.XXXXXX")
	fetch
	d=$(find "$tmp" -maxdepth 1 -type d -name 'fio-*' | head -n 1)
	[ -n "$d" ] || die "apt-get source produced no fio tree in $tmp"
	got=$(sed -n 's/^DEF_VER=//p' "$d/FIO-VERSION-GEN")
	[ "$got" = "fio-$ver" ] || die "$suite has $got, not fio-$ver"
	# as tools/deps.sh configures the installed fio's source
	(cd "$d" && ./configure --disable-native --prefix=/usr \
		>configure.log 2>&1) ||
		die "fio ./configure failed: see $d/configure.log"
	(cd "$d" && make -j"$(nproc)" fio >make.log 2>&1) ||
		die "fio make failed: see $d/make.log"
	rm -rf "$tree"
	mv "$d" "$tree"
	rm -rf "$tmp"
	echo "fio-build: built fio-$ver in $(($(date +%s) - start)) s" >&2
fi
built || die "$tree/fio is not fio-$ver"
[ $check = 1 ] || {
	echo "FIO=$tree/fio FIO_SOURCE=$tree"
	exit 0
}

# the engine against this fio, in a copy of the tree (sources only)
copy=$dir/hugebuf
rm -rf "$copy"
mkdir -p "$copy"
(cd "$top" && tar --exclude=.git --exclude=./deps --exclude='*.o' \
	--exclude='*.a' --exclude='*.so' --exclude='*.t' -cf - .) |
	(cd "$copy" && tar -xf -)
(cd "$copy" && ./configure --fio="$tree/fio" --fio-source="$tree" \
	>configure.log 2>&1) ||
	die "configure against fio-$ver failed: see $copy/configure.log"
(cd "$copy" && make -j"$(nproc)" engine cli >make.log 2>&1) ||
	die "the engine does not build against fio-$ver: see $copy/make.log"
FIO=$tree/fio HUGEBUF_ENGINE=$copy/engines/hugebuf.so \
	HUGEBUF_CLI=$copy/cli/hugebuf "$copy/t/fio-examples.sh"
