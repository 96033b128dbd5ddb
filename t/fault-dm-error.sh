#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: a failing block device.  A device-mapper table over a 64 MiB loop
# device: the first 32 MiB linear, the rest the "error" target, so every
# I/O there fails with EIO.  A read job over the whole device must end
# with fio's EIO (error 5), no hang, the pool back at its baseline, and
# the readable first half must verify (crc32c headers written through the
# linear part first).  Skips when the kernel has no device-mapper (the
# 6.18 test kernel of this project has none: t/fault-eio.sh covers I/O
# errors with an ext4 shutdown instead).
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it creates loop and device-mapper devices"
t_need_engine
t_need_cmd dmsetup losetup
dmsetup targets 2>/dev/null | grep -q '^error' ||
	skip "no device-mapper error target (dmsetup targets failed: no dm_mod in this kernel)"
t_tmpdir cd
img=$T_DIR/disk.img
truncate -s 64M "$img"
loop=$(losetup --find --show "$img") || skip "no free loop device"
t_atexit "losetup -d $loop"
name=hugebuf-err-$$
half=$((32 * 2048))
printf '0 %d linear %s 0\n%d %d error\n' $half "$loop" $half $half |
	dmsetup create "$name" || t_fail_now "dmsetup create $name failed"
t_atexit "dmsetup remove --retry $name"
dev=/dev/mapper/$name
"$FIO" --name=layout --filename="$dev" --size=32M --rw=write --bs=1M \
	--direct=1 --verify=crc32c --do_verify=0 --output=/dev/null \
	>/dev/null 2>&1 || t_fail_now "cannot write the linear half of $dev"
t_baseline

out=$T_DIR/read.out
timeout -k 5 60 "$FIO" --name=dmerr --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$dev" --size=64M --bs=1M --iodepth=4 --direct=1 \
	--rw=read --output-format=json --output="$out" >"$out.err" 2>&1
rc=$?
set -- $(t_fio_result "$out")
t_expect_fio_error $rc "${1:-}" 5 EIO "${2:-0}" "read over dm-error"
t_check_baseline "after the I/O errors"

out=$T_DIR/verify.out
timeout -k 5 60 "$FIO" --name=verify --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$dev" --size=32M --bs=1M --iodepth=4 --direct=1 \
	--rw=read --verify=crc32c --verify_fatal=1 --output-format=json \
	--output="$out" >"$out.err" 2>&1
rc=$?
t_expect_read "$out" $rc $((32 << 20)) "the linear half does not verify"
t_done
