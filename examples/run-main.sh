#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# The README's main command, from a fresh Debian 12 machine, as root:
#
#   examples/run-main.sh [--dry-run] [SCRATCH_FILE]
#
# Installs the dependencies (make deps), configures and builds, reserves
# 2 MiB hugepages, writes a 2 GiB scratch file (default
# /var/tmp/hugebuf-main.dat, on a file system with O_DIRECT), and runs
# examples/hugepage-randread-8m.fio on the hugebuf engine for 20 seconds,
# printing fio's result and the hugebuf report.
#
# The scratch file is this script's own: SCRATCH_FILE must not exist, or
# must be a scratch file this script wrote before (its first 4 KiB carry
# the marker line below).  Anything else -- a file it did not write, a
# device, a directory, a symbolic link -- is refused before anything is
# written, and it removes only a file that carries its marker.  To read a
# device or an existing file without writing to it, use
# examples/device-read.fio (README: "Your own device").
#
#   --dry-run        check SCRATCH_FILE, say what would be done, exit
#   HUGEBUF_RUNTIME  seconds to run (default 20)
#   HUGEBUF_SIZE     scratch file size (default 2G)
#   KEEP=1           keep the scratch file
set -eu

top=$(cd "$(dirname "$0")/.." && pwd)
marker="hugebuf scratch file, written by examples/run-main.sh: safe to delete"
dry=0
if [ "${1:-}" = --dry-run ]; then
	dry=1
	shift
fi
case "${1:-}" in
-*)
	echo "run-main: unknown option '$1': usage: $0 [--dry-run] [SCRATCH_FILE]" >&2
	exit 2 ;;
esac
file=${1:-/var/tmp/hugebuf-main.dat}
runtime=${HUGEBUF_RUNTIME:-20}
size=${HUGEBUF_SIZE:-2G}
need_pages=300		# 64 x 8 MiB buffers = 256 pages, plus slack
created=

die() {
	echo "run-main: $*" >&2
	exit 1
}

# the first line of the file is our marker (read without following a link)
is_ours() {
	[ "$(head -c ${#marker} -- "$1" 2>/dev/null)" = "$marker" ]
}

# refuse every path that is not ours to write: one line, cause and fix
refuse() {
	die "refusing $file: $1; this script only writes a scratch file it creates itself: give a path that does not exist yet, or read it without writing with examples/device-read.fio"
}

# "create", "reuse" or "rewrite": what may be done with $file
target_action() {
	if [ -L "$file" ]; then
		refuse "it is a symbolic link"
	elif [ -b "$file" ]; then
		refuse "it is a block device"
	elif [ -c "$file" ]; then
		refuse "it is a character device"
	elif [ -d "$file" ]; then
		refuse "it is a directory"
	elif [ ! -e "$file" ]; then
		echo create
	elif [ ! -f "$file" ]; then
		refuse "it is not a regular file"
	elif ! is_ours "$file"; then
		refuse "it is a file this script did not write (no hugebuf marker; an old scratch file you remove yourself)"
	elif [ "$(stat -c %s -- "$file")" -ne "$bytes" ]; then
		echo rewrite
	else
		echo reuse
	fi
}

# O_EXCL create (noclobber), marker in the first 4 KiB, random data after
# it, written for real: reads of unwritten extents never reach the disk
write_scratch() {
	if [ "$1" = create ]; then
		(set -C; : >"$file") 2>/dev/null ||
			die "cannot create $file (it appeared meanwhile, or the directory is not writable): give a new path"
		created=$file
	fi
	printf '%s\n' "$marker" |
		dd of="$file" bs=4096 count=1 conv=sync,notrunc status=none ||
		die "cannot write $file: choose a file on ext4/xfs (O_DIRECT) with $size free"
	dd if=/dev/urandom of="$file" bs=8M count=$((bytes / 8388608)) \
		iflag=fullblock oflag=direct,seek_bytes seek=4096 conv=notrunc \
		status=none ||
		die "cannot write $file: choose a file on ext4/xfs (O_DIRECT) with $size free"
	truncate -s "$bytes" -- "$file"
	created=
}

# a write that failed half way: remove the file if this run created it
# (O_EXCL above: nobody else's)
cleanup() {
	[ -z "$created" ] || rm -f -- "$created"
}
trap cleanup EXIT

bytes=$(numfmt --from=iec "$size" 2>/dev/null) ||
	die "HUGEBUF_SIZE=$size is not a size: use a number with K, M or G, e.g. 2G"
[ $((bytes % 8388608)) = 0 ] && [ "$bytes" -gt 0 ] ||
	die "HUGEBUF_SIZE=$size is not a whole number of 8 MiB I/Os: use e.g. 2G"
action=$(target_action)
if [ $dry = 1 ]; then
	echo "run-main: would $action $file ($size)"
	exit 0
fi

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
# checked again: the build took minutes
action=$(target_action)
[ "$action" = reuse ] || write_scratch "$action"

echo "== fio examples/hugepage-randread-8m.fio (${runtime}s)"
rc=0
HUGEBUF_ENGINE=$top/engines/hugebuf.so HUGEBUF_FILE=$file \
	HUGEBUF_SIZE=$size HUGEBUF_RUNTIME=$runtime \
	fio examples/hugepage-randread-8m.fio || rc=$?
if [ "${KEEP:-0}" != 1 ] && [ -f "$file" ] && [ ! -L "$file" ] &&
	is_ours "$file"; then
	rm -f -- "$file"
fi
exit $rc
