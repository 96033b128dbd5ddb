#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: a file system that refuses O_DIRECT.  tmpfs accepts O_DIRECT on
# recent kernels (6.18 included), ramfs does not set FMODE_CAN_ODIRECT, so
# open(O_DIRECT) there is EINVAL.  A direct=1 engine job on ramfs must
# fail with one engine line naming direct=1 (and the way out), do no I/O
# and pin nothing; the same job with direct=0 must work (reads verified).
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it mounts a ramfs"
t_need_engine
t_need_cmd python3
t_tmpdir cd
mnt=$T_DIR/ramfs
mkdir -p "$mnt"
mount -t ramfs hugebuf-test "$mnt" 2>/dev/null || skip "cannot mount ramfs"
t_atexit "umount $mnt"
data=$mnt/data
"$FIO" --name=layout --filename="$data" --size=8M --rw=write --bs=1M \
	--verify=crc32c --do_verify=0 --output=/dev/null >/dev/null 2>&1 ||
	t_fail_now "cannot write $data on ramfs"
python3 -c 'import os, sys; os.open(sys.argv[1], os.O_RDONLY | os.O_DIRECT)' \
	"$data" 2>/dev/null && skip "ramfs accepts O_DIRECT on this kernel: no file system here refuses it"
t_baseline

out=$T_DIR/direct.out
t_run_job "$out" timeout -k 5 60 "$FIO" --name=odirect \
	--ioengine=external:"$HUGEBUF_ENGINE" --filename="$data" --size=8M \
	--bs=1M --iodepth=2 --direct=1 --rw=read
t_expect_refused "$out" $T_RC 'direct=1' "direct=1 on ramfs"

out=$T_DIR/buffered.out
timeout -k 5 60 "$FIO" --name=buffered --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=8M --bs=1M --iodepth=2 --direct=0 \
	--rw=read --verify=crc32c --verify_fatal=1 --output-format=json \
	--output="$out" >"$out.err" 2>&1
rc=$?
t_expect_read "$out" $rc $((8 << 20)) "direct=0 on ramfs" &&
	t_info "direct=0 on ramfs: 8 MiB read and verified"
t_check_baseline "after the ramfs jobs"
t_done
