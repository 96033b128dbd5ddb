#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The README's main command, from a fresh Debian 12 machine, as root:
#
#   examples/run-main.sh [SCRATCH_FILE]
#
# Installs the dependencies (make deps), configures and builds, reserves
# 2 MiB hugepages, writes a 2 GiB scratch file (default
# /var/tmp/hugebuf-main.dat, on a file system with O_DIRECT), and runs
# examples/hugepage-randread-8m.fio on the hugebuf engine for 20 seconds,
# printing fio's result and the hugebuf report.  Environment:
#   HUGEBUF_RUNTIME  seconds to run (default 20)
#   HUGEBUF_SIZE     scratch file size (default 2G)
#   KEEP=1           keep the scratch file
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
file=${1:-/var/tmp/hugebuf-main.dat}
runtime=${HUGEBUF_RUNTIME:-20}
size=${HUGEBUF_SIZE:-2G}
need_pages=300		# 64 x 8 MiB buffers = 256 pages, plus slack

die() {
	echo "run-main: $*" >&2
	exit 1
}

[ "$(id -u)" = 0 ] || die "must run as root (installs packages, reserves hugepages): sudo $0"
cd "$top"

# tools/deps.sh is "make deps": a fresh Debian has no make before it
echo "== make deps"
tools/deps.sh
echo "== ./configure && make"
./configure
make -j"$(nproc)"

echo "== hugepages"
pool=/sys/kernel/mm/hugepages/hugepages-2048kB
[ -d "$pool" ] || die "this kernel has no 2 MiB hugepages ($pool missing)"
free=$(cat "$pool/free_hugepages")
if [ "$free" -lt "$need_pages" ]; then
	nr=$(cat "$pool/nr_hugepages")
	echo $((nr + need_pages - free)) >"$pool/nr_hugepages"
	free=$(cat "$pool/free_hugepages")
	[ "$free" -ge "$need_pages" ] ||
		die "could only get $free free 2M hugepages, need $need_pages: free some memory and retry"
fi
echo "$free free 2 MiB hugepages"

echo "== scratch file $file ($size)"
mkdir -p "$(dirname "$file")"
bytes=$(numfmt --from=iec "$size")
if [ ! -f "$file" ] || [ "$(stat -c %s "$file")" -ne "$bytes" ]; then
	# written for real: reads of unwritten extents never reach the disk
	dd if=/dev/urandom of="$file" bs=8M count=$((bytes / 8388608)) \
		oflag=direct status=none ||
		die "cannot write $file: choose a file on ext4/xfs (O_DIRECT) with $size free"
fi

echo "== fio examples/hugepage-randread-8m.fio (${runtime}s)"
rc=0
HUGEBUF_ENGINE=$top/engines/hugebuf.so HUGEBUF_FILE=$file \
	HUGEBUF_SIZE=$size HUGEBUF_RUNTIME=$runtime \
	fio examples/hugepage-randread-8m.fio || rc=$?
[ "${KEEP:-0}" = 1 ] || rm -f "$file"
exit $rc
