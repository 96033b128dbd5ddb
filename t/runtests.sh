#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Run hugebuf's tests: every t/*.t program and every t/*.sh script (except
# this one and t/_*.sh helpers), or the tests named on the command line,
# plus any extra binaries in $HB_EXTRA_TESTS.  Exit codes: 0 pass, 77 skip,
# anything else (a timeout too) a failure.  As root it reserves the 2M and
# 1G hugepages the tests need (t/_testenv.sh) and restores the pools
# afterwards, and fails a
# test during which the kernel logged a BUG, WARNING, Oops or "Bad page".
#
# Environment:
#   HB_TEST_TIMEOUT   seconds per test (default 600)
#   HB_TEST_HUGEPAGES 2M pages to reserve as root (default 1024)
#   HB_TEST_1G_PAGES  1G pages to reserve as root (default 2; a machine
#                     that gives fewer at run time leaves the 1G cases a
#                     counted skip naming the pool)
#   HB_EXTRA_TESTS    more test programs to run the same way
#   HUGEBUF_TEST_DIR  scratch directory on a block device (default: a new
#                     directory under /var/tmp, removed afterwards)
# Each test ends with its own closing line "PASS|FAIL|SKIP: NAME (P passed,
# F failed, S skipped: reasons)" counting its sub-checks; the runner shows
# those counts on the test's line and adds them up on the line
# "sub-checks: P passed, F failed, S skipped" just before its own closing
# line "N passed, N failed, N skipped" (tests, not sub-checks).

set -u

top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1

timeout_s=${HB_TEST_TIMEOUT:-600}
# shellcheck source=t/_testenv.sh
. "$top/t/_testenv.sh"
# one mark per run and test in the kernel log: a machine that ran the
# suite before (or logged a complaint since) must not see that in this run
run_id=$$.$(date +%s%N)
logdir=$(mktemp -d /tmp/hugebuf-runtests.XXXXXX)
own_dir=
is_root=0
[ "$(id -u)" = 0 ] && is_root=1

cleanup() {
	testenv_restore
	[ -n "$own_dir" ] && rm -rf "$own_dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

setup_env() {
	if [ -z "${HUGEBUF_TEST_DIR:-}" ]; then
		own_dir=$(mktemp -d /var/tmp/hugebuf-test.XXXXXX) || exit 1
		export HUGEBUF_TEST_DIR=$own_dir
	fi
	export HUGEBUF_ENGINE=${HUGEBUF_ENGINE:-$top/engines/hugebuf.so}
	export HUGEBUF_CLI=${HUGEBUF_CLI:-$top/cli/hugebuf}
	export FIO=${FIO:-$(command -v fio)}
}

# dmesg lines that mean the kernel is unhappy, whatever the test said
kernel_complaints() {
	grep -E 'BUG:|WARNING:|Oops|Bad page|kernel BUG|general protection|list_(add|del) corruption|refcount_t:' "$1"
}

dmesg_mark() {
	[ $is_root = 1 ] && [ -w /dev/kmsg ] || return 1
	echo "hugebuf-runtests: start $run_id $1" >/dev/kmsg 2>/dev/null ||
		return 1
	return 0
}

# what the kernel logged after this run's mark for test $1 (the last one)
dmesg_since() {
	dmesg 2>/dev/null | awk -v m="hugebuf-runtests: start $run_id $1" \
		'index($0, m) { found = 1; n = 0; next }
		found { line[++n] = $0 }
		END { for (i = 1; i <= n; i++) print line[i] }'
}

list_tests() {
	local f
	if [ $# -gt 0 ]; then
		printf '%s\n' "$@"
	else
		for f in t/*.t t/*.sh; do
			case "$f" in
			t/runtests.sh | t/_*) continue ;;
			esac
			[ -e "$f" ] && echo "$f"
		done
	fi
	for f in ${HB_EXTRA_TESTS:-}; do
		echo "$f"
	done
}

passed=0
failed=0
skipped=0
failed_names=
sub_passed=0
sub_failed=0
sub_skipped=0
nocount_names=
skip_list=()

# the sub-check counts of the test's closing line in log $1: sets
# counts ("P passed, F failed, S skipped") and reasons (may be empty);
# returns 1 when the log has no closing line with counts
sub_counts() {
	local line
	line=$(grep -E '^(PASS|FAIL|SKIP): .* \([0-9]+ passed, [0-9]+ failed, [0-9]+ skipped(: .*)?\)$' "$1" | tail -n 1)
	[ -n "$line" ] || return 1
	counts=$(echo "$line" | sed -E 's/.*\(([0-9]+ passed, [0-9]+ failed, [0-9]+ skipped)(: .*)?\)$/\1/')
	reasons=$(echo "$line" | sed -nE 's/.* skipped: (.*)\)$/\1/p')
	set -- $counts
	sub_passed=$((sub_passed + $1))
	sub_failed=$((sub_failed + $3))
	sub_skipped=$((sub_skipped + $5))
	return 0
}

run_one() {
	local t=$1 name log rc start secs marked=0 complaints reason abs cwd
	name=$(basename "$t")
	log=$logdir/$name.log
	case "$t" in
	/*) abs=$t ;;
	*) abs=$top/$t ;;
	esac
	# each test runs in a scratch directory of its own, so whatever it
	# leaves in its working directory (fio state files...) goes with it
	cwd=$(mktemp -d "$HUGEBUF_TEST_DIR/cwd.XXXXXX")
	dmesg_mark "$name" && marked=1
	start=$(date +%s)
	case "$t" in
	*.sh) (cd "$cwd" && timeout -k 10 "$timeout_s" bash "$abs") >"$log" 2>&1 ;;
	*) (cd "$cwd" && timeout -k 10 "$timeout_s" "$abs") >"$log" 2>&1 ;;
	esac
	rc=$?
	rm -rf "$cwd"
	secs=$(($(date +%s) - start))
	if [ $marked = 1 ]; then
		complaints=$(dmesg_since "$name" | kernel_complaints /dev/stdin)
		if [ -n "$complaints" ]; then
			echo "FAIL: the kernel logged during the test:" >>"$log"
			echo "$complaints" >>"$log"
			rc=99
		fi
	fi
	if ! sub_counts "$log"; then
		counts="no sub-check counts"
		reasons=
		nocount_names="$nocount_names $name"
	fi
	# every test that skipped anything, with its reasons, for the
	# closing list (tools/check.sh gathers these "skipped:" lines)
	case $counts:$rc in
	*" 0 skipped":*) ;;
	*skipped:* | *:77)
		skip_list+=("skipped: $name (${counts##*failed, }): ${reasons:-$(grep -m1 -i 'skip' "$log")}") ;;
	esac
	case $rc in
	0)
		passed=$((passed + 1))
		printf 'PASS  %-36s %4ss  (%s)\n' "$name" "$secs" "$counts"
		[ -n "$reasons" ] && printf '      skipped: %s\n' "$reasons" | cut -c1-160
		;;
	77)
		skipped=$((skipped + 1))
		reason=$reasons
		[ -n "$reason" ] || reason=$(grep -m1 -i 'skip' "$log")
		printf 'SKIP  %-36s %4ss  (%s) %s\n' "$name" "$secs" "$counts" "$reason" | cut -c1-200
		;;
	*)
		failed=$((failed + 1))
		failed_names="$failed_names $name"
		[ $rc = 124 ] || [ $rc = 137 ] && echo "FAIL: timed out after ${timeout_s}s" >>"$log"
		printf 'FAIL  %-36s %4ss  (exit %s; %s)\n' "$name" "$secs" "$rc" "$counts"
		tail -n 25 "$log" | sed 's/^/      | /'
		;;
	esac
}

testenv_setup
setup_env
echo "runtests: kernel $(uname -r), scratch $HUGEBUF_TEST_DIR, logs $logdir"
while read -r t; do
	if [ ! -e "$t" ]; then
		failed=$((failed + 1))
		failed_names="$failed_names $t"
		printf 'FAIL  %-36s (not found: run make first)\n' "$t"
		continue
	fi
	run_one "$t"
done < <(list_tests "$@")

[ ${#skip_list[@]} -gt 0 ] && printf '%s\n' "${skip_list[@]}"
[ -n "$failed_names" ] && echo "runtests: failed:$failed_names"
[ -n "$nocount_names" ] && echo "runtests: no sub-check counts from:$nocount_names"
echo "sub-checks: $sub_passed passed, $sub_failed failed, $sub_skipped skipped"
echo "$passed passed, $failed failed, $skipped skipped"
[ $failed = 0 ]
