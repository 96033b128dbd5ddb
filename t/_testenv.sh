#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# The test command's hugepage pools, in one place: as root, reserve the
# 2 MiB pages the tests allocate from (HB_TEST_HUGEPAGES, default 1024) and
# the 1 GiB pages of the 1G cases (HB_TEST_1G_PAGES, default 2: what
# t/probe-backings, t/backing-io, t/regbuf-1g and the 1G example use; a
# 24 GiB machine gives 2 at run time), and give both pools back as they
# were.  A pool already that large is left alone, and then nothing is
# restored, so a nested user (tools/check.sh around t/runtests.sh) changes
# nothing.  THP sizes are each test's own (t_thp_only(), t_mthp).
#
# Sourced: testenv_setup, then testenv_restore (e.g. from an EXIT trap).
# Run: t/_testenv.sh CMD [ARGS...] runs CMD with the pools reserved.

TESTENV_POOL_2M=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
TESTENV_POOL_1G=/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
TESTENV_OLD_2M=
TESTENV_OLD_1G=

# testenv_reserve POOL WANT NAME: sets TESTENV_WAS to the old size when
# it raised the pool
testenv_reserve() {
	local pool=$1 want=$2 name=$3 have
	TESTENV_WAS=
	[ "$(id -u)" = 0 ] && [ -w "$pool" ] && [ "$want" -gt 0 ] || return 0
	have=$(cat "$pool")
	[ "$have" -ge "$want" ] && return 0
	TESTENV_WAS=$have
	echo "$want" >"$pool" 2>/dev/null
	have=$(cat "$pool")
	if [ "$have" -lt "$want" ]; then
		# fragmented memory: compact once and try again
		echo 1 >/proc/sys/vm/compact_memory 2>/dev/null
		echo "$want" >"$pool" 2>/dev/null
		have=$(cat "$pool")
	fi
	echo "testenv: reserved $have of $want $name hugepages (was $TESTENV_WAS; restored at exit)"
}

testenv_setup() {
	testenv_reserve "$TESTENV_POOL_2M" "${HB_TEST_HUGEPAGES:-1024}" 2M
	TESTENV_OLD_2M=$TESTENV_WAS
	testenv_reserve "$TESTENV_POOL_1G" "${HB_TEST_1G_PAGES:-2}" 1G
	TESTENV_OLD_1G=$TESTENV_WAS
}

testenv_restore() {
	[ -n "$TESTENV_OLD_2M" ] && echo "$TESTENV_OLD_2M" >"$TESTENV_POOL_2M"
	[ -n "$TESTENV_OLD_1G" ] && echo "$TESTENV_OLD_1G" >"$TESTENV_POOL_1G"
	TESTENV_OLD_2M= TESTENV_OLD_1G=
	return 0
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# -gt 0 ] || { echo "usage: t/_testenv.sh CMD [ARGS...]" >&2; exit 2; }
	testenv_setup
	trap testenv_restore EXIT
	trap 'exit 130' INT TERM
	"$@"
	exit $?
fi
