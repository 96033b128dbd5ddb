#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Install what hugebuf needs to build and test on Debian, and fetch the fio
# source that matches the installed fio into deps/ (configured, so that its
# config-host.h exists).  Idempotent: does nothing that is already done.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
pkgs="build-essential pkg-config fio liburing-dev libhugetlbfs-dev dpkg-dev
e2fsprogs util-linux procps kmod clang valgrind gnuplot python3 iproute2"

die() {
	echo "deps: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (apt-get): sudo make deps"
command -v apt-get >/dev/null 2>&1 || die "apt-get not found: install the packages by hand: $pkgs"

missing=
for p in $pkgs; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	apt-get update -q >/dev/null || die "apt-get update failed: check the Debian mirror"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $missing >/dev/null ||
		die "apt-get install$missing failed"
fi

ver=$(fio --version)
src="$top/deps/$ver"
if [ ! -f "$src/config-host.h" ]; then
	if ! grep -rqs '^Types:.*deb-src\|^deb-src' /etc/apt/sources.list /etc/apt/sources.list.d/; then
		echo "deps: adding a deb-src entry for apt-get source"
		cat >/etc/apt/sources.list.d/hugebuf-deb-src.sources <<EOT
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: $(. /etc/os-release && echo "$VERSION_CODENAME")
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOT
		apt-get update -q >/dev/null || die "apt-get update failed after adding deb-src"
	fi
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
