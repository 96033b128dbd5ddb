#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: fio 3.33 refuses atomic=1 for an engine without FIO_ATOMICWRITES
#
# atomic=1 built for fio 3.41: every write carries RWF_ATOMIC and the file
# answers.  From plain buffers (fixedbufs=0) the engine and fio's plain
# io_uring get the same answer.  From registered buffers, where the
# kernel refuses RWF_ATOMIC (only user memory may be written atomically,
# 6.11+: lib's model, atomic_ubuf_only) and fio's io_uring with fixedbufs
# gets EINVAL, the engine's default must still write: IORING_OP_WRITE from
# the same buffers, said in one line at job start, counted in its report
# (text and report_json) as many as fio issued writes, and fio verifies
# what it wrote.  On a file system that refuses atomic writes (ext4 on a
# device without atomic write limits) every job fails with the same errno
# and no error line of the engine's; on XFS over a loop device (atomic
# writes by copy on write, 6.16+) the writes go through.
. "$(dirname "$0")/_fio-lib.sh"
t_require
"$FIO" --enghelp="$HUGEBUF_ENGINE" 2>/dev/null | grep -q '^readfua' ||
	skip "atomic=1: this engine is built for $("$FIO" --version), which refuses it (tools/fio-build.sh --check runs it)"
t_tmpdir cd

J="--rw=write --direct=1 --atomic=1 --bs=4k --size=1M --iodepth=4"
E="--ioengine=external:$HUGEBUF_ENGINE --backing=4k"
LINE="^hugebuf: atomic=1: atomic writes go unregistered"

# the errno of fio's "io_u error" line, or "ok" when the job ran
answer() {
	if [ "$2" = 0 ]; then
		echo ok
	else
		sed -n 's/.*io_u error on file [^:]*: \([^:]*\):.*/\1/p' "$1" |
			head -1
	fi
}

# run_pair DIR HBOPT FIOOPT: both engines' atomic write jobs on files in
# DIR, the engine's (fio's verify over what it wrote, its JSON report in
# hb.json) with HBOPT, fio's io_uring with FIOOPT; answers in $hb, $fio
run_pair() {
	rm -f "$T_DIR/hb.json"
	t_run_job "$T_DIR/hb.out" "$FIO" --name=hb $J \
		--filename="$1/hb.dat" --verify=crc32c --do_verify=1 \
		--verify_fatal=1 $E --report_json="$T_DIR/hb.json" $2
	hb=$(answer "$T_DIR/hb.out" "$T_RC")
	t_run_job "$T_DIR/fio.out" "$FIO" --name=fio $J \
		--filename="$1/fio.dat" --ioengine=io_uring $3
	fio=$(answer "$T_DIR/fio.out" "$T_RC")
	rm -f "$1/hb.dat" "$1/fio.dat"
}

# the same answer from both engines of run_pair, named WHAT
same_answer() {
	if [ -z "$hb" ] || [ "$hb" != "$fio" ]; then
		fail "$1: hugebuf '$hb', fio's io_uring '$fio'"
		head -5 "$T_DIR/hb.out" | sed 's/^/    /'
	elif [ -n "$(t_engine_errors "$T_DIR/hb.out")" ]; then
		fail "$1: the engine said: $(t_engine_errors "$T_DIR/hb.out")"
	else
		t_ok "$1: both engines: $hb"
	fi
}

# the writes fio issued (its "issued rwts: total=R,W,T,X" line)
issued_writes() {
	sed -n 's/.*issued rwts: total=[0-9]*,\([0-9]*\),.*/\1/p' "$1" |
		head -1
}

# run_pair's engine job wrote from registered buffers where fio's
# io_uring got EINVAL: every write unregistered, said and counted
unregistered() {
	w=$(issued_writes "$T_DIR/hb.out")
	n=$(sed -n 's/^hugebuf: hb: atomic writes: \([0-9]*\) sent unregistered.*/\1/p' \
		"$T_DIR/hb.out" | head -1)
	j=$(python3 -c 'import json, sys
print(json.loads(open(sys.argv[1]).readline())["atomic_unregistered_writes"])' \
		"$T_DIR/hb.json" 2>/dev/null)
	if [ "$hb" != ok ]; then
		fail "$1: hugebuf '$hb' where fio's io_uring got '$fio' (a drop-in must write)"
		head -5 "$T_DIR/hb.out" | sed 's/^/    /'
	elif ! grep -q "$LINE" "$T_DIR/hb.out"; then
		fail "$1: the engine did not say at job start that its atomic writes go unregistered"
	elif [ -n "$(t_engine_errors "$T_DIR/hb.out")" ]; then
		fail "$1: the engine said: $(t_engine_errors "$T_DIR/hb.out")"
	elif [ -z "$w" ] || [ "$w" = 0 ] || [ "$n" != "$w" ] || [ "$j" != "$w" ]; then
		fail "$1: ${w:-?} writes issued, the report counts '${n}' unregistered (JSON '${j}')"
	else
		t_ok "$1: fio's io_uring '$fio'; hugebuf wrote and verified, $n of $w writes unregistered"
	fi
}

# both kinds of buffer in DIR, named WHAT: registered buffers for both
# engines (the engine's default), then plain ones (fio's default)
both_buffers() {
	run_pair "$1" --fixedbufs=0 ""
	same_answer "$2, fixedbufs=0"
	plain=$fio
	run_pair "$1" "" --fixedbufs
	if [ "$plain" = ok ] && [ "$fio" = "Invalid argument" ]; then
		unregistered "$2, registered buffers"
	else
		same_answer "$2, registered buffers"
	fi
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
