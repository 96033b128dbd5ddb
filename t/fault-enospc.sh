#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: ENOSPC during a write job.  A 48 MiB ext4 on a loop device (image
# in the test directory; unmounted and detached on every exit path) and a
# 128 MiB sequential O_DIRECT write job without preallocation.  Expected:
# fio reports "No space left on device" (error 28) and ends, no hang, the
# hugepage pool is back to its baseline, and every byte the job says it
# wrote reads back right (fio's crc32c headers, through the engine).
# iodepth=1 keeps the acknowledged writes one contiguous range.
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it mounts a loop device"
t_need_engine
t_tmpdir cd
t_loop_ext4 48
data=$T_MNT/data
t_baseline

out=$T_DIR/write.out
timeout -k 5 120 "$FIO" --name=enospc --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=128M --bs=1M --iodepth=1 --direct=1 \
	--rw=write --fallocate=none --verify=crc32c --do_verify=0 \
	--output-format=json --output="$out" >"$out.err" 2>&1
rc=$?
set -- $(t_fio_result "$out")
written=${3:-0}
if t_expect_fio_error $rc "${1:-}" 28 ENOSPC "$written" \
	"write past a full file system" &&
	! grep -q 'No space left on device' "$out.err" "$out"; then
	fail "fio did not say 'No space left on device': $(tail -n 3 "$out.err")"
fi
[ "$written" -gt 0 ] || t_fail_now "nothing was written before ENOSPC"
[ "$written" -lt $((48 << 20)) ] &&
	t_ok "wrote $written bytes, less than the 48 MiB file system" ||
	fail "wrote $written bytes on a 48 MiB file system"
t_check_baseline "after ENOSPC"

out=$T_DIR/verify.out
timeout -k 5 120 "$FIO" --name=verify --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size="$written" --bs=1M --iodepth=4 --direct=1 \
	--rw=read --verify=crc32c --verify_fatal=1 --output-format=json \
	--output="$out" >"$out.err" 2>&1
rc=$?
t_expect_read "$out" $rc "$written" \
	"reading back the $written acknowledged bytes" &&
	t_info "the $written acknowledged bytes read back and verify (crc32c)"
t_check_baseline "after the verify pass"
t_done
