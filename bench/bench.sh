#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench       quick side-by-side run, about 4 minutes: hugebuf
#                  (4k/hugetlb, fixed) vs fio's io_uring (fixedbufs,
#                  malloc/shmhuge) at 128K..32M randread and 8M randwrite,
#                  a short registration-cost sweep, and bench/regbench's
#                  registration times (about 2.5 minutes more); table,
#                  report, plots
# make bench-full  the whole matrix (bench/README.md), about 20 minutes,
#                  and 5.5 for bench/regbench
#
# Output: the table on stdout; bench/out/report.md, bench/out/*.png/svg,
# bench/out/results*.jsonl.  Not a test; never run in CI.
#
# Environment: HUGEBUF_BENCH_FILE (default /var/tmp/hugebuf-bench.dat, on
# a disk file system with O_DIRECT), HUGEBUF_BENCH_SIZE (2G),
# HUGEBUF_BENCH_RUNTIME (seconds per run: 1.5 quick, 2.5 full),
# HUGEBUF_BENCH_ROUNDS (3), HUGEBUF_BENCH_IODEPTH (16), HUGEBUF_BENCH_OUT
# (bench/out), HUGEBUF_BENCH_ONLY=regbench (the registration section
# alone), HUGEBUF_BENCH_REG_BACKINGS, HUGEBUF_BENCH_REG_SIZES (comma
# lists), FIO, KEEP=1 (keep a scratch file this script created).
# Needs root (or memlock and hugepage permissions): it raises the 2M pool
# to HUGEBUF_BENCH_HUGEPAGES free pages (600) and puts it back afterwards.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
export HUGEBUF_ENGINE=${HUGEBUF_ENGINE:-$top/engines/hugebuf.so}
export HUGEBUF_CLI=${HUGEBUF_CLI:-$top/cli/hugebuf}
export HUGEBUF_BENCH_FILE=${HUGEBUF_BENCH_FILE:-/var/tmp/hugebuf-bench.dat}
export HUGEBUF_BENCH_SIZE=${HUGEBUF_BENCH_SIZE:-2G}
export FIO=${FIO:-fio}
# 1 GiB hugetlb buffer for the registration sweep, plus slack
need=${HUGEBUF_BENCH_HUGEPAGES:-600}
mode=
case "${1:-}" in
--full) mode=--full ;;
"") ;;
*)
	echo "bench: unknown argument $1: use bench.sh [--full]" >&2
	exit 2
	;;
esac

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -f "$HUGEBUF_ENGINE" ] || die "no engine at $HUGEBUF_ENGINE: run make"
[ -x "$HUGEBUF_CLI" ] || die "no CLI at $HUGEBUF_CLI: run make"
command -v python3 >/dev/null 2>&1 || die "python3 not found: apt-get install python3"
command -v "$FIO" >/dev/null 2>&1 || die "fio not found: apt-get install fio"
command -v gnuplot >/dev/null 2>&1 ||
	echo "bench: gnuplot not found, no plots: apt-get install gnuplot" >&2

pool=/sys/kernel/mm/hugepages/hugepages-2048kB
orig_nr=
created=
cleanup() {
	if [ -n "$orig_nr" ]; then
		echo "$orig_nr" >"$pool/nr_hugepages" 2>/dev/null ||
			echo "bench: could not restore nr_hugepages=$orig_nr" >&2
	fi
	if [ -n "$created" ] && [ "${KEEP:-0}" != 1 ]; then
		rm -f "$HUGEBUF_BENCH_FILE"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

free=$(cat "$pool/free_hugepages" 2>/dev/null || echo 0)
if [ "$free" -lt "$need" ]; then
	[ -w "$pool/nr_hugepages" ] ||
		die "needs $need free 2M hugepages, $free free: echo $need > /proc/sys/vm/nr_hugepages (as root)"
	orig_nr=$(cat "$pool/nr_hugepages")
	echo $((orig_nr + need - free)) >"$pool/nr_hugepages"
	free=$(cat "$pool/free_hugepages")
	[ "$free" -ge "$need" ] ||
		die "only $free of $need 2M hugepages could be reserved: free memory or compact (echo 1 > /proc/sys/vm/compact_memory)"
fi

[ -x "$top/bench/regbench" ] || die "no bench/regbench: run make"

bytes=$(numfmt --from=iec "$HUGEBUF_BENCH_SIZE")
if [ "${HUGEBUF_BENCH_ONLY:-}" = regbench ]; then
	: # the registration section alone: no I/O, no scratch file
elif [ ! -f "$HUGEBUF_BENCH_FILE" ] ||
	[ "$(stat -c %s "$HUGEBUF_BENCH_FILE")" -ne "$bytes" ]; then
	echo "bench: writing $HUGEBUF_BENCH_SIZE to $HUGEBUF_BENCH_FILE" >&2
	created=1
	# written for real: reads of unwritten extents never reach the disk
	dd if=/dev/urandom of="$HUGEBUF_BENCH_FILE" bs=8M \
		count=$((bytes / 8388608)) oflag=direct status=none ||
		die "cannot write $HUGEBUF_BENCH_FILE: use a file system with O_DIRECT"
fi

python3 "$top/bench/bench.py" $mode
