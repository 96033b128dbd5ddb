#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: trims through the ring are the engine's built for fio 3.41
#
# Trims built for fio 3.41 go through the ring: on a block device one
# BLOCK_URING_CMD_DISCARD per range (6.12+), num_range ranges per io_u.
# On a loop device over a file of 0xff bytes the trimmed ranges, and only
# they, read back as zeroes from the file (the loop device punches them
# out), the job's end line counts the io_us and the commands, and fio's
# own io_uring trims the same way with the same result.  Where the kernel
# has no discard command the engine says so and trims synchronously: then
# the line says that, and the data is checked the same.
. "$(dirname "$0")/_fio-lib.sh"
t_need_root "it creates a loop device"
t_require
t_need_cmd losetup cmp
"$FIO" --enghelp="$HUGEBUF_ENGINE" 2>/dev/null | grep -q '^readfua' ||
	skip "trims through the ring: this engine is built for $("$FIO" --version), whose trims are fio's own (tools/fio-build.sh --check runs it)"
t_tmpdir cd

img=$T_DIR/disk.img
head -c $((16 << 20)) /dev/zero | tr '\0' '\377' >"$img"
loop=$(losetup --find --show "$img") || skip "no free loop device"
t_atexit "losetup -d $loop"

J="--filename=$loop --rw=trim --bs=64k --size=4M --iodepth=4"
E="--ioengine=external:$HUGEBUF_ENGINE --backing=4k"

# 0-4M: one range per io_u; 4M-8M: four ranges per io_u
t_run_job "$T_DIR/one.out" "$FIO" --name=one $J --offset=0 $E
[ "$T_RC" = 0 ] || fail "trim job, num_range=1: exit $T_RC: $(head -3 "$T_DIR/one.out")"
t_run_job "$T_DIR/four.out" "$FIO" --name=four $J --offset=4M \
	--num_range=4 $E
[ "$T_RC" = 0 ] || fail "trim job, num_range=4: exit $T_RC: $(head -3 "$T_DIR/four.out")"
# 8M-12M: fio's own io_uring, one range per io_u (fio refuses more there)
t_run_job "$T_DIR/fio.out" "$FIO" --name=fio $J --offset=8M \
	--ioengine=io_uring
[ "$T_RC" = 0 ] || fail "fio's io_uring trim job: exit $T_RC"

# the job-end line: io_us, and commands through the ring or synchronous
line1=$(grep '^hugebuf: trims: ' "$T_DIR/one.out")
line4=$(grep '^hugebuf: trims: ' "$T_DIR/four.out")
if grep -q 'synchronous BLKDISCARD: the kernel answered' "$T_DIR/one.out"; then
	t_info "$(grep 'synchronous BLKDISCARD' "$T_DIR/one.out" | head -1)"
	want1='trims: 64, 0 through io_uring in 0 .*, 64 synchronous'
	want4='trims: 16, 0 through io_uring in 0 .*, 16 synchronous'
else
	want1='trims: 64, 64 through io_uring in 64 BLOCK_URING_CMD_DISCARD commands, 0 synchronous'
	want4='trims: 16, 16 through io_uring in 64 BLOCK_URING_CMD_DISCARD commands, 0 synchronous'
fi
if echo "$line1" | grep -q "$want1"; then
	t_ok "num_range=1: $line1"
else
	fail "num_range=1: '$line1', wanted '$want1'"
fi
if echo "$line4" | grep -q "$want4"; then
	t_ok "num_range=4: $line4"
else
	fail "num_range=4: '$line4', wanted '$want4'"
fi

# the data, in the file under the loop device (detached: the exit's
# second losetup -d finds nothing): 0-12M zeroes, 12M-16M untouched
losetup -d "$loop"
if head -c $((12 << 20)) "$img" | cmp -s -n $((12 << 20)) - /dev/zero; then
	t_ok "the trimmed 12 MiB read back as zeroes (both engines)"
else
	fail "the trimmed ranges do not read as zeroes: $(head -c $((12 << 20)) "$img" | cmp -n $((12 << 20)) - /dev/zero 2>&1 | head -1)"
fi
if tail -c $((4 << 20)) "$img" | tr -d '\377' | cmp -s - /dev/null; then
	t_ok "the 4 MiB not trimmed are untouched"
else
	fail "bytes past the trimmed ranges changed"
fi
t_done
