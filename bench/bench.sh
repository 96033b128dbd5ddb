#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# make bench: hugebuf vs fio's built-in io_uring engine (fixed buffers on
# SHM_HUGETLB 2M pages, registered files) on one 2 GiB O_DIRECT file:
# randread/randwrite 8M qd16 and randread 4K qd32, engines interleaved,
# 3 rounds, medians and ratios.  Takes about 2.5 minutes.  Not a test.
#
# Environment: HUGEBUF_BENCH_FILE (default /var/tmp/hugebuf-bench.dat, on
# a file system with O_DIRECT), HUGEBUF_BENCH_SIZE (2G),
# HUGEBUF_BENCH_RUNTIME (5 s per run), HUGEBUF_BENCH_ROUNDS (3), FIO.
# Needs root (or memlock and hugepage permissions) and ~200 free 2M
# hugepages; it reserves them as root if there are fewer.
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
export HUGEBUF_ENGINE=${HUGEBUF_ENGINE:-$top/engines/hugebuf.so}
export HUGEBUF_BENCH_FILE=${HUGEBUF_BENCH_FILE:-/var/tmp/hugebuf-bench.dat}
export HUGEBUF_BENCH_SIZE=${HUGEBUF_BENCH_SIZE:-2G}
export FIO=${FIO:-fio}
need=200

die() {
	echo "bench: $*" >&2
	exit 1
}

[ -f "$HUGEBUF_ENGINE" ] || die "no engine at $HUGEBUF_ENGINE: run make"
command -v python3 >/dev/null 2>&1 || die "python3 not found: apt-get install python3"
command -v "$FIO" >/dev/null 2>&1 || die "fio not found: apt-get install fio"

pool=/sys/kernel/mm/hugepages/hugepages-2048kB
free=$(cat "$pool/free_hugepages" 2>/dev/null || echo 0)
if [ "$free" -lt "$need" ]; then
	[ -w "$pool/nr_hugepages" ] ||
		die "needs $need free 2M hugepages, $free free: echo 1024 > /proc/sys/vm/nr_hugepages (as root)"
	echo $(($(cat "$pool/nr_hugepages") + need - free)) >"$pool/nr_hugepages"
fi

bytes=$(numfmt --from=iec "$HUGEBUF_BENCH_SIZE")
if [ ! -f "$HUGEBUF_BENCH_FILE" ] ||
	[ "$(stat -c %s "$HUGEBUF_BENCH_FILE")" -ne "$bytes" ]; then
	echo "bench: writing $HUGEBUF_BENCH_SIZE to $HUGEBUF_BENCH_FILE" >&2
	# written for real: reads of unwritten extents never reach the disk
	dd if=/dev/urandom of="$HUGEBUF_BENCH_FILE" bs=8M \
		count=$((bytes / 8388608)) oflag=direct status=none ||
		die "cannot write $HUGEBUF_BENCH_FILE: use a file system with O_DIRECT"
fi

exec python3 "$top/bench/bench.py"
