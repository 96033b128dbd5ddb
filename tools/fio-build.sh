#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Build a second fio from Debian's source of another release, to build and
# test the engine against it: by default fio 3.41 from sid.  The source
# comes from the mirror this machine already uses: a deb-src entry derived
# from its apt sources (tools/apt-sources.sh), kept in a private apt state
# so the system's sources and lists are not touched.  Only the upstream
# tarball (fio_VERSION.orig.tar.gz) is fetched, checked against the SHA-256
# the Sources index gives for it: the mirror serves it where the .dsc and
# Debian's packaging tarball are not served, and the engine needs fio's
# own sources only.
#
#   tools/fio-build.sh [--check] [VERSION [SUITE]]   (default: 3.41 sid)
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
# it is) and run the fio-facing tests whose outcome depends on the fio
# release with that fio and engine (those marked "# second-fio:";
# HB_FIO2_TESTS names others, "all" every fio-facing test; badinput's
# engine and fio rows only), the load-time guard both ways included (the engine
# built for one fio inside the other); the runner's counts are the
# stage's.  Exit 77 (skip) when the mirror does not serve the source.
set -eu

check=0
if [ "${1:-}" = --check ]; then
	check=1
	shift
fi

top=$(cd "$(dirname "$0")/.." && pwd)
ver=${1:-3.41}
suite=${2:-sid}
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
apt_private() { apt_state_run "$apt" "$@"; }

fetch() {
	local codename src
	command -v apt-get >/dev/null 2>&1 || die "apt-get not found"
	[ -x /usr/lib/apt/apt-helper ] || die "/usr/lib/apt/apt-helper not found"
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -n "$codename" ] || die "no VERSION_CODENAME in /etc/os-release"
	. "$top/tools/apt-sources.sh"
	apt_state_sources "$apt" "$codename" "$suite" ||
		die "no enabled apt source for $codename to derive a $suite deb-src entry from"
	if ! apt_private update >"$apt/update.log" 2>&1; then
		echo "fio-build: $suite's Sources index cannot be had: $(grep -E '^(E|W):' "$apt/update.log" | head -n 1) (see $apt/update.log)" >&2
		exit 77
	fi
	fetch_orig
}

# The upstream tarball of fio VERSION from SUITE's Sources index: its URI,
# size and SHA-256 as apt prints them ('URI' NAME SIZE SHA256:HEX), fetched
# by apt's own downloader, which checks the hash.
fetch_orig() {
	local line uri name hash
	apt_private source --print-uris "fio/$suite" >"$dir/uris.log" 2>&1 ||
		die "the $suite Sources index has no fio: see $dir/uris.log"
	line=$(grep -E "^'[^']*/fio_${ver}\.orig\.tar\.[a-z0-9]+' " \
		"$dir/uris.log" | head -n 1)
	if [ -z "$line" ]; then
		echo "fio-build: $suite's Sources index lists no fio_$ver.orig tarball: see $dir/uris.log" >&2
		exit 77
	fi
	uri=$(echo "$line" | cut -d"'" -f2)
	name=$(echo "$line" | awk '{print $2}')
	hash=$(echo "$line" | awk '{print $4}')
	case $hash in
	SHA256:*) ;;
	*) die "no SHA-256 for $name in $suite's Sources index (got '$hash')" ;;
	esac
	if ! /usr/lib/apt/apt-helper download-file "$uri" "$tmp/$name" \
		"$hash" >"$dir/fetch.log" 2>&1; then
		rm -rf "$tmp"
		if grep -q '404' "$dir/fetch.log"; then
			echo "fio-build: the mirror lists $name but does not serve it (404): see $dir/fetch.log" >&2
			exit 77
		fi
		die "downloading $name failed: see $dir/fetch.log"
	fi
	tar -xf "$tmp/$name" -C "$tmp" ||
		die "$name does not unpack"
	rm -f "$tmp/$name"
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
	[ -n "$d" ] || die "$suite's fio_$ver.orig tarball holds no fio-* tree"
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
(cd "$copy" && make -j"$(nproc)" engine cli t/hugebuf-abitest.so \
	>make.log 2>&1) ||
	die "the engine does not build against fio-$ver: see $copy/make.log"
# the tests whose outcome can differ between fio releases, each marked by
# a "# second-fio: WHY" line (its options, --enghelp, the load-time ABI
# guard, output and JSON, fio's own io_uring engine beside ours, its
# parser's refusals), from the copy so that its engine and CLI are the
# ones built for this fio; the guard test also loads each engine into the
# other fio.  The other fio-facing tests drive the engine and the kernel
# alike under any release and run once, in the suite (HB_FIO2_TESTS=all:
# every fio-facing test, as before).
case ${HB_FIO2_TESTS:-} in
all) tests=$(cd "$copy" && ls t/fio-*.sh t/badinput.sh t/docs-match.sh) ;;
"") tests=$(cd "$copy" && grep -l '^# second-fio: ' t/*.sh) ;;
*) tests=$HB_FIO2_TESTS ;;
esac
echo "fio-build: with fio-$ver: $(echo $tests)"
cd "$copy" || die "no $copy"
HB_BADINPUT_ONLY=engine FIO=$tree/fio HUGEBUF_ENGINE=$copy/engines/hugebuf.so \
	HUGEBUF_CLI=$copy/cli/hugebuf HUGEBUF_OTHER_FIO=$(command -v fio) \
	HUGEBUF_OTHER_ENGINE=$top/engines/hugebuf.so \
	t/runtests.sh $tests
