#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Fetch and unpack a Debian source package of another suite from the
# mirror this machine already uses, without touching its apt state: a
# deb-src entry for SUITE is derived from the machine's own sources
# (tools/apt-sources.sh, derive mode) into a private apt state directory,
# and apt-get source fetches the .dsc and tarballs there, checked against
# the signed index, and unpacks them with dpkg-source.  The pattern of
# tools/fio-build.sh, for any package.
#
#   tools/apt-source-fetch.sh PACKAGE SUITE DESTDIR STATEDIR
#
# DESTDIR receives the .dsc, the tarballs and the unpacked PACKAGE-VERSION/
# tree; STATEDIR holds the private sources and lists (reused, refreshed on
# every call).  Exit 0 when done, 77 when the source cannot be had here (no
# apt source to derive from, the mirror unreachable, or the package or its
# files not served: one line on stderr says which), 1 on any other error.
# Needs root (apt-get update of the private lists).
set -eu

[ $# = 4 ] || {
	echo "usage: tools/apt-source-fetch.sh PACKAGE SUITE DESTDIR STATEDIR" >&2
	exit 1
}
pkg=$1
suite=$2
dest=$3
apt=$4
top=$(cd "$(dirname "$0")/.." && pwd)

die() {
	echo "apt-source-fetch: $*" >&2
	exit 1
}

unavailable() {
	echo "apt-source-fetch: $*" >&2
	exit 77
}

# apt-get with private source parts and lists: nothing in /etc/apt or
# /var/lib/apt/lists changes
apt_private() { apt_state_run "$apt" "$@"; }

command -v apt-get >/dev/null 2>&1 ||
	unavailable "apt-get not found: $pkg's $suite source cannot be had here"
command -v dpkg-source >/dev/null 2>&1 ||
	die "dpkg-source not found: apt-get install dpkg-dev (make deps)"
codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
[ -n "$codename" ] || unavailable "no VERSION_CODENAME in /etc/os-release"
. "$top/tools/apt-sources.sh"
mkdir -p "$dest"
apt_state_sources "$apt" "$codename" "$suite" ||
	unavailable "no enabled apt source for $codename to derive a $suite deb-src entry from"
apt_private update >"$apt/update.log" 2>&1 ||
	unavailable "apt-get update of the $suite deb-src entry failed (mirror unreachable?): see $apt/update.log"
if ! (cd "$dest" && apt_private source "$pkg/$suite") >"$dest/fetch.log" 2>&1
then
	if grep -qE '404|Unable to find a source package' "$dest/fetch.log"
	then
		unavailable "the mirror does not serve $pkg's $suite source: see $dest/fetch.log"
	fi
	die "apt-get source $pkg/$suite failed: see $dest/fetch.log"
fi
