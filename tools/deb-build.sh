#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# tools/deb-build.sh: build hugebuf's Debian binary packages from this tree
# (dpkg-buildpackage -b -us -uc) in a scratch copy outside it, so that the
# tree stays as git has it, then lintian the result.  The .debs, the
# .buildinfo and the .changes land in OUT (default out/deb/ of this tree,
# which git ignores); what was there before is replaced.
#
# Usage: tools/deb-build.sh [--out DIR] [--no-lintian]
#   HB_FIO_SOURCE=DIR  the configured source tree of the installed fio
#                      (default deps/fio-X.Y of this tree: make deps)
# The copy holds the files git knows (tracked, and untracked ones that are
# not ignored), or, outside a git tree, everything but deps/ and out/.
# Exit status: 0 built and lintian found no error; 1 otherwise.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/out/deb
lint=1

die() {
	echo "deb-build: $*" >&2
	exit 1
}

while [ $# -gt 0 ]; do
	case $1 in
	--out) shift; out=${1:?--out needs a directory} ;;
	--out=*) out=${1#--out=} ;;
	--no-lintian) lint=0 ;;
	-h | --help) sed -n '3,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (--help)" ;;
	esac
	shift
done

for p in dpkg-buildpackage:dpkg-dev dh:debhelper fio:fio; do
	command -v "${p%%:*}" >/dev/null 2>&1 ||
		die "${p%%:*} not found: apt-get install ${p#*:} (or run 'make deps' as root)"
done
[ "$lint" = 0 ] || command -v lintian >/dev/null 2>&1 ||
	die "lintian not found: apt-get install lintian (or run 'make deps' as root, or --no-lintian)"

fio_ver=$(fio --version)
fio_src=${HB_FIO_SOURCE:-$top/deps/$fio_ver}
[ -f "$fio_src/config-host.h" ] ||
	die "no configured fio source tree at $fio_src: run 'make deps' as root, or set HB_FIO_SOURCE=DIR (the $fio_ver source, ./configure'd)"
fio_src=$(cd "$fio_src" && pwd)

version=$(sed -n '/^[0-9]/{p;q;}' "$top/VERSION")
[ -n "$version" ] || die "no MAJOR.MINOR.PATCH line in $top/VERSION"

mkdir -p "$out" || die "cannot create $out"
out=$(cd "$out" && pwd)
case $out/ in
"$top"/out/*) ;;
"$top"/*) die "--out $out is inside the source tree: use out/... (ignored by git) or a directory outside it" ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/hugebuf-deb.XXXXXX") ||
	die "cannot create a scratch directory"
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
src=$work/hugebuf-$version
mkdir "$src"

if git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	# files git knows that exist (a deleted tracked file is left out)
	# shellcheck disable=SC2016
	(cd "$top" && git ls-files -z --cached --others --exclude-standard |
		xargs -0 sh -c 'for f; do [ -e "$f" ] || [ -L "$f" ] &&
			printf "%s\0" "$f"; done' _ |
		tar --null -T - -cf -) | tar -C "$src" -xf - ||
		die "copying the tree to $src failed"
else
	(cd "$top" && tar --exclude=./deps --exclude=./out -cf - .) |
		tar -C "$src" -xf - || die "copying the tree to $src failed"
	make -C "$src" distclean >/dev/null 2>&1 || true
fi

echo "deb-build: dpkg-buildpackage -b -us -uc in $src (fio source $fio_src, log $out/build.log)"
rm -f "$out"/*.deb "$out"/*.changes "$out"/*.buildinfo "$out"/build.log \
	"$out"/lintian.log
if ! (cd "$src" && HB_FIO_SOURCE=$fio_src dpkg-buildpackage -b -us -uc \
	-j2) >"$out/build.log" 2>&1; then
	tail -n 30 "$out/build.log" | sed 's/^/  | /'
	die "dpkg-buildpackage failed (log $out/build.log)"
fi
cp "$work"/*.deb "$work"/*.changes "$work"/*.buildinfo "$out"/ ||
	die "dpkg-buildpackage left no .deb/.changes in $work"
changes=$(ls "$out"/*.changes)
for d in "$out"/*.deb; do
	echo "deb-build: $(basename "$d")"
done

[ "$lint" = 1 ] || exit 0
# errors fail the build; warnings and infos are shown
if lintian -I --fail-on error "$changes" >"$out/lintian.log" 2>&1; then
	rc=0
else
	rc=1
fi
sed 's/^/  lintian: /' "$out/lintian.log"
counts=$(grep -oE '^[EWIPX]:' "$out/lintian.log" | sort | uniq -c |
	awk '{ printf "%s%s %s", sep, $1, $2; sep = ", " }')
if [ "$rc" = 0 ]; then
	echo "deb-build: lintian: no errors (${counts:-no tags})"
else
	die "lintian reported errors (${counts}; log $out/lintian.log)"
fi
