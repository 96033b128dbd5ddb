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
. "$(dirname "$0")/_reliability-lib.sh"

r_need_root "it mounts a loop device"
r_need_engine
r_tmpdir
r_loop_ext4 48
data=$R_MNT/data
r_baseline

out=$R_DIR/write.out
timeout -k 5 120 "$FIO" --name=enospc --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=128M --bs=1M --iodepth=1 --direct=1 \
	--rw=write --fallocate=none --verify=crc32c --do_verify=0 \
	--output-format=json --output="$out" >"$out.err" 2>&1
rc=$?
set -- $(r_fio_result "$out")
written=${3:-0}
if [ $rc -ge 124 ]; then
	r_fail_now "the write job hung (timeout, exit $rc)"
elif [ $rc = 0 ] || [ "$1" != 28 ]; then
	r_fail "write past a full file system: exit $rc, fio error ${1:-none}, wanted ENOSPC (28)"
elif ! grep -q 'No space left on device' "$out.err" "$out"; then
	r_fail "fio did not say 'No space left on device': $(tail -n 3 "$out.err")"
else
	r_info "write job: exit $rc, error 28 (ENOSPC) after $written bytes"
fi
[ "$written" -gt 0 ] || r_fail_now "nothing was written before ENOSPC"
[ "$written" -lt $((48 << 20)) ] || r_fail "wrote $written bytes on a 48 MiB file system"
r_check_baseline "after ENOSPC"

out=$R_DIR/verify.out
timeout -k 5 120 "$FIO" --name=verify --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size="$written" --bs=1M --iodepth=4 --direct=1 \
	--rw=read --verify=crc32c --verify_fatal=1 --output-format=json \
	--output="$out" >"$out.err" 2>&1
rc=$?
set -- $(r_fio_result "$out")
if [ $rc != 0 ] || [ "$1" != 0 ] || [ "$2" != "$written" ]; then
	r_fail "reading back the $written acknowledged bytes: exit $rc, result $*: $(tail -n 3 "$out.err")"
else
	r_info "the $written acknowledged bytes read back and verify (crc32c)"
fi
r_check_baseline "after the verify pass"
r_done
