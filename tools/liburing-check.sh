#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Our exported tests (t/liburing/) inside Debian's liburing 2.9 source: the
# source package comes from this machine's own mirror
# (tools/apt-source-fetch.sh, Debian 13 "trixie"), is built with liburing's
# own configure and Makefile (library and tests), our tests are exported
# into its test/ (tools/liburing-export.sh) and built by its Makefile, and
# they run with liburing's test/runtests.sh, together with liburing's own
# registered-buffer tests of that tree, under the hugetlb lock.
#
#   tools/liburing-check.sh [--build-only]
#
# Prints a line per test (PASS/SKIP/FAIL NAME [ours|liburing]) and closes
# with "N passed, N failed, N skipped", a test each.  Exit 0 when none
# failed, 77 (one line) when the source cannot be had here, 1 otherwise.
# --build-only stops after the build and prints one line: the test
# directory and the test programs to run there (kernel/ktest.sh's guests).
# The tree is cached outside the clone (HB_LIBURING_CACHE, default
# /var/tmp/hugebuf-liburing): VERSION/liburing-VERSION/.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
ver=2.9
suite=trixie
cache=${HB_LIBURING_CACHE:-/var/tmp/hugebuf-liburing}
dir=$cache/$ver
tree=$dir/liburing-$ver
lock=${HB_HUGETLB_LOCK:-/var/tmp/hugebuf-hugetlb.lock}
build_only=0
[ "${1:-}" = --build-only ] && build_only=1

# liburing's tests on registered buffers, by their names in its test/;
# those a release does not have are counted as skipped
theirs="fixed-buf-iter fixed-buf-merge fixed-hugepage fixed-link
fixed-reuse fixed-seg regbuf-clone regbuf-merge"
# and those only the guests of kernel/ktest.sh run (--build-only): NVMe
# passthrough with fixed buffers needs a namespace of its own there
guest_only="io_uring_passthrough"

die() {
	echo "liburing-check: $*" >&2
	exit 1
}

unpacked() {
	[ -f "$tree/.hugebuf-unpacked" ]
}

mkdir -p "$dir" || die "cannot create $dir"
exec 9>"$dir/.lock"
flock 9 || die "cannot lock $dir/.lock"

if ! unpacked; then
	start=$(date +%s)
	rm -rf "$dir/dl" "$tree"
	tools_rc=0
	"$top/tools/apt-source-fetch.sh" liburing "$suite" "$dir/dl" \
		"$cache/apt-$suite" 2>"$dir/fetch.err" || tools_rc=$?
	if [ $tools_rc = 77 ]; then
		echo "liburing-check: skipped: $(tail -n 1 "$dir/fetch.err")"
		exit 77
	fi
	[ $tools_rc = 0 ] || die "fetching liburing's $suite source failed: $(tail -n 1 "$dir/fetch.err")"
	d=$(find "$dir/dl" -maxdepth 1 -type d -name 'liburing-*' | head -n 1)
	[ -n "$d" ] || die "apt-get source produced no liburing tree in $dir/dl"
	got=$(sed -n 's/^Version:[[:space:]]*//p' "$d/liburing.spec")
	[ "$got" = "$ver" ] ||
		die "$suite has liburing $got, not $ver: set ver= in $0"
	{ mv "$d" "$tree" && touch "$tree/.hugebuf-unpacked"; } ||
		die "cannot move the tree to $tree"
	echo "liburing-check: fetched liburing $ver ($suite) in" \
		"$(($(date +%s) - start)) s"
fi

# liburing's own configure and Makefile: the library, then the tests run
# here, each by its own target (liburing's whole test directory is some
# 250 programs, minutes on two cores; make is incremental)
if [ ! -f "$tree/config-host.mak" ]; then
	(cd "$tree" && ./configure) >"$dir/configure.log" 2>&1 ||
		die "liburing's configure failed: see $dir/configure.log"
fi
"$top/tools/liburing-export.sh" "$tree/test" ||
	die "exporting our tests into $tree/test failed"
ours=$(cd "$top/t/liburing" && ls -- *.c | sed 's/\.c$//' | tr '\n' ' ')
targets=
for t in $ours $theirs $guest_only; do
	[ -f "$tree/test/$t.c" ] && targets="$targets $t.t"
done
# shellcheck disable=SC2086
(cd "$tree" && make -j2 -C src && make -j2 -C test $targets) \
	>"$dir/make.log" 2>&1 ||
	die "building liburing $ver and its tests failed: see $dir/make.log"
missing=
built=
for t in $ours $theirs; do
	if [ -x "$tree/test/$t.t" ]; then
		built="$built $t.t"
	else
		missing="$missing $t"
	fi
done
if [ $build_only = 1 ]; then
	for t in $guest_only; do
		[ -x "$tree/test/$t.t" ] && built="$built $t.t"
	done
	echo "$tree/test$built"
	exit 0
fi
out=$dir/runtests.log
: >"$out"
passed=0
failed=0
skipped=0
# liburing's runner, one test at a time so that each has its own result
# (TEST_GNU_EXITCODE: exit 77 for a skip; a timeout is a failure here),
# from its test directory (it runs ./NAME.t there, where our tests keep
# their scratch files, on a block device); hugetlb tests of several
# checkouts share the pool: one at a time, under the lock
exec 8>"$lock"
flock 8 || die "cannot take $lock"
for t in $ours $theirs; do
	case " $ours " in
	*" $t "*) who=ours ;;
	*) who=liburing ;;
	esac
	case " $missing " in
	*" $t "*)
		if [ $who = ours ]; then
			echo "FAIL $t [$who]: not built"
			failed=$((failed + 1))
		else
			echo "SKIP $t [$who]: not in liburing $ver"
			skipped=$((skipped + 1))
		fi
		continue
		;;
	esac
	(cd "$tree/test" && TEST_GNU_EXITCODE=1 ./runtests.sh "$t.t") \
		>"$out.one" 2>&1
	rc=$?
	cat "$out.one" >>"$out"
	if grep -q 'timed out' "$out.one"; then
		rc=124
	fi
	case $rc in
	0)
		echo "PASS $t [$who]"
		passed=$((passed + 1)) ;;
	77)
		why=$(head -n 1 "$out.one" |
			sed -E 's/^Running test [^ ]+ +//; s/ *Skipped$//')
		echo "SKIP $t [$who]: ${why:-no reason printed}"
		skipped=$((skipped + 1)) ;;
	*)
		echo "FAIL $t [$who] (runtests.sh exit $rc):"
		sed 's/^/      | /' "$out.one" | tail -n 20
		failed=$((failed + 1)) ;;
	esac
done
rm -f "$out.one"
flock -u 8
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
