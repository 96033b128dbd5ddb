#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: I/O errors in the middle of a write job, without device-mapper
# (see t/fault-dm-error.sh for the dm-error variant).  A 64 MiB ext4 on a
# loop device; a rate-limited sequential O_DIRECT write job over a
# preallocated 32 MiB file; after a second the file system is shut down
# (EXT4_IOC_SHUTDOWN, NOLOGFLUSH: the ioctl xfs_io's "shutdown" uses), so
# every later I/O fails with EIO.  Expected: fio reports an I/O error and
# ends, no hang, the hugepage pool is back to its baseline, and after a
# remount every byte fio says it wrote reads back right (crc32c headers
# through the engine; the file held zeros before, so unwritten blocks
# would not verify).
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it mounts a loop device and shuts its file system down"
t_need_engine
t_need_cmd python3
t_tmpdir cd
t_loop_ext4 64
data=$T_MNT/data
"$FIO" --name=layout --filename="$data" --size=32M --rw=write --bs=1M \
	--zero_buffers --output=/dev/null >/dev/null 2>&1 || t_fail_now "cannot create $data"
sync
t_baseline

out=$T_DIR/write.out
timeout -k 5 60 "$FIO" --name=eio --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=32M --bs=256K --iodepth=1 --direct=1 \
	--rw=write --rate=8m --verify=crc32c --do_verify=0 \
	--output-format=json --output="$out" >"$out.err" 2>&1 &
pid=$!
t_atexit "kill $pid"
sleep 1
# EXT4_IOC_SHUTDOWN = _IOR('X', 125, __u32), EXT4_GOING_FLAGS_NOLOGFLUSH = 2
python3 -c '
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
fcntl.ioctl(fd, 0x8004587d, struct.pack("I", 2))' "$T_MNT" ||
	skip "EXT4_IOC_SHUTDOWN is not supported here"
t_info "file system shut down while the job writes"
wait $pid
rc=$?
set -- $(t_fio_result "$out")
written=${3:-0}
t_expect_fio_error $rc "${1:-}" 5 EIO "$written" \
	"write job on a shut-down file system"
t_check_baseline "after the I/O errors"

umount "$T_MNT" || t_fail_now "cannot unmount the shut-down file system"
mount "$T_LOOP" "$T_MNT" || t_fail_now "cannot mount $T_LOOP again"
if [ "$written" -gt 0 ]; then
	out=$T_DIR/verify.out
	timeout -k 5 60 "$FIO" --name=verify --ioengine=external:"$HUGEBUF_ENGINE" \
		--filename="$data" --size="$written" --bs=256K --iodepth=4 \
		--direct=1 --rw=read --verify=crc32c --verify_fatal=1 \
		--output-format=json --output="$out" >"$out.err" 2>&1
	rc=$?
	t_expect_read "$out" $rc "$written" \
		"the $written acknowledged bytes after remount" &&
		t_info "after remount the $written acknowledged bytes verify (crc32c)"
else
	fail "nothing was written before the shutdown"
fi
t_done
