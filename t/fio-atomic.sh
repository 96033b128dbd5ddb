#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: fio 3.33 refuses atomic=1 for an engine without FIO_ATOMICWRITES
#
# atomic=1 built for fio 3.41: every write carries RWF_ATOMIC and the file
# answers, as with fio's own io_uring on the same kind of buffer: the
# engine's registered buffers beside fio's io_uring with fixedbufs, and
# fixedbufs=0 beside fio's plain io_uring.  On a file system that refuses
# atomic writes (ext4 on a device without atomic write limits) every job
# fails with the same errno and no line of the engine's; on XFS over a
# loop device (atomic writes by copy on write, 6.16+) each pair has the
# same outcome (6.18: EINVAL from a registered buffer, docs/engine-notes.md)
# and where the writes go through, fio verifies what the engine wrote.
. "$(dirname "$0")/_fio-lib.sh"
t_require
"$FIO" --enghelp="$HUGEBUF_ENGINE" 2>/dev/null | grep -q '^readfua' ||
	skip "atomic=1: this engine is built for $("$FIO" --version), which refuses it (tools/fio-build.sh --check runs it)"
t_tmpdir cd

J="--rw=write --direct=1 --atomic=1 --bs=4k --size=1M --iodepth=4"
E="--ioengine=external:$HUGEBUF_ENGINE --backing=4k"

# the errno of fio's "io_u error" line, or "ok" when the job ran
answer() {
	if [ "$2" = 0 ]; then
		echo ok
	else
		sed -n 's/.*io_u error on file [^:]*: \([^:]*\):.*/\1/p' "$1" |
			head -1
	fi
}

# same_answer DIR WHAT HBOPT FIOOPT: both engines' atomic write jobs on
# files in DIR, the engine's with HBOPT, fio's io_uring with FIOOPT
same_answer() {
	t_run_job "$T_DIR/hb.out" "$FIO" --name=hb $J \
		--filename="$1/hb.dat" --verify=crc32c --do_verify=1 \
		--verify_fatal=1 $E $3
	hb=$(answer "$T_DIR/hb.out" "$T_RC")
	t_run_job "$T_DIR/fio.out" "$FIO" --name=fio $J \
		--filename="$1/fio.dat" --ioengine=io_uring $4
	fio=$(answer "$T_DIR/fio.out" "$T_RC")
	rm -f "$1/hb.dat" "$1/fio.dat"
	if [ -z "$hb" ] || [ "$hb" != "$fio" ]; then
		fail "$2: hugebuf '$hb', fio's io_uring '$fio'"
		head -5 "$T_DIR/hb.out" | sed 's/^/    /'
	elif [ -n "$(t_engine_errors "$T_DIR/hb.out")" ]; then
		fail "$2: the engine said: $(t_engine_errors "$T_DIR/hb.out")"
	else
		t_ok "$2: both engines: $hb"
	fi
}

# both kinds of buffer in DIR, named WHAT
both_buffers() {
	same_answer "$1" "$2, registered buffers" "" --fixedbufs
	same_answer "$1" "$2, fixedbufs=0" --fixedbufs=0 ""
}

both_buffers "$T_DIR" "atomic=1 on $(df --output=fstype "$T_DIR" | tail -1)"

# XFS: the kernel takes the writes, fio verifies them
if [ "$(id -u)" != 0 ] || ! command -v mkfs.xfs >/dev/null 2>&1 ||
   ! command -v losetup >/dev/null 2>&1; then
	t_skip_check "atomic writes on XFS: needs root, mkfs.xfs and losetup"
else
	truncate -s 320M "$T_DIR/xfs.img"
	loop=$(losetup --find --show "$T_DIR/xfs.img")
	if [ -z "$loop" ]; then
		t_skip_check "atomic writes on XFS: no free loop device"
	else
		t_atexit "losetup -d $loop"
		mkdir "$T_DIR/mnt"
		if mkfs.xfs -q "$loop" && mount "$loop" "$T_DIR/mnt"; then
			t_atexit "umount $T_DIR/mnt"
			both_buffers "$T_DIR/mnt" "atomic=1 on xfs"
		else
			t_skip_check "atomic writes on XFS: mkfs.xfs or mount failed"
		fi
	fi
fi
t_done
