#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make liburing-tests DEST=<liburing source>/test: write hugebuf's
# folio-boundary tests (t/liburing/*.c) into the test/ directory of a
# liburing source tree as standalone liburing tests, and list each in its
# Makefile's test_srcs, in its sorted place.  The part the tests share is
# kept once, in t/liburing/folio-*.h: each '#include "folio-NAME.h"' line
# of a test is replaced by that file (less its SPDX line), so every
# exported test is one .c file using only liburing and its helpers.h.
# Idempotent: a second run writes the sources again and lists nothing
# twice.  It refuses to replace a file of that name that is not one of
# ours.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
dest=${1:-}

die() {
	echo "liburing-export: $*" >&2
	exit 1
}

[ -n "$dest" ] ||
	die "no destination: make liburing-tests DEST=<liburing source>/test"
want="DEST must be the test/ directory of a liburing source tree"
[ -d "$dest" ] || die "$dest is not a directory: $want"
grep -q '^test_srcs :=' "$dest/Makefile" 2>/dev/null ||
	die "$dest/Makefile has no 'test_srcs :=' list: $want"
[ -f "$dest/helpers.h" ] || die "$dest has no helpers.h: $want"

# the test $1 with each shared part written in place of its #include
inline_shared() {
	awk -v dir="$top/t/liburing" '
	/^#include "folio-[a-z]+\.h"$/ {
		f = dir "/" substr($2, 2, length($2) - 2)
		skip = 1	# its SPDX line: the test has its own
		while ((getline line < f) > 0) {
			if (skip) {
				skip = 0
				continue
			}
			print line
		}
		if (skip) {
			print "liburing-export: cannot read " f > "/dev/stderr"
			exit 1
		}
		close(f)
		next
	}
	{ print }' "$1"
}

names=
for f in "$top"/t/liburing/*.c; do
	n=$(basename "$f")
	if [ -e "$dest/$n" ] && ! grep -q "hugebuf's" "$dest/$n"; then
		die "$dest/$n exists and is not hugebuf's:" \
			"remove it or use a clean tree"
	fi
	inline_shared "$f" >"$dest/$n" || die "cannot write $dest/$n"
	names="$names $n"
done
[ -n "$names" ] || die "no tests in $top/t/liburing"

# Insert each name missing from test_srcs before the first entry that
# sorts after it (or before the list's "# EOL" end line).
tmp=$(mktemp "$dest/Makefile.XXXXXX")
awk -v names="$names" '
	BEGIN { n = split(names, want, " ") }
	function flush_before(entry,    i) {
		for (i = 1; i <= n; i++)
			if (want[i] != "" && (entry == "" || want[i] < entry)) {
				print "\t" want[i] " \\"
				added++
				want[i] = ""
			}
	}
	/^test_srcs :=/ { inlist = 1; print; next }
	inlist && /^[ \t]*# EOL/ { flush_before(""); inlist = 0; print; next }
	inlist && /^\t[^ \t]+ \\$/ {
		e = $1
		for (i = 1; i <= n; i++)
			if (want[i] == e)
				want[i] = ""
		flush_before(e)
		print
		next
	}
	inlist { flush_before(""); inlist = 0 }
	{ print }
	END {
		for (i = 1; i <= n; i++)
			if (want[i] != "")
				exit 3
		printf "%d\n", added > "/dev/stderr"
	}' "$dest/Makefile" >"$tmp" 2>"$tmp.added" || {
	rm -f "$tmp" "$tmp.added"
	die "could not find the end of test_srcs in $dest/Makefile"
}
added=$(cat "$tmp.added")
rm -f "$tmp.added"
if cmp -s "$tmp" "$dest/Makefile"; then
	rm -f "$tmp"
else
	cat "$tmp" >"$dest/Makefile"
	rm -f "$tmp"
fi
echo "liburing-export: $(echo $names | wc -w) tests in $dest" \
	"($added newly listed in test_srcs)"
