#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lib's segment model (hb_model_segments()) against this machine's kernel
# for one 8 MiB O_DIRECT READ_FIXED from 4 KiB pages with known PFNs:
# kernel/probe/seg-profile (the guest probe of the same name) reading a
# file of the test directory, not the whole disk (a host may refuse to
# open its disk even to root).  The file: 16 MiB from fallocate, written
# once with O_DIRECT (an unwritten extent reads as zeroes without any
# I/O), read in its middle 8 MiB, which must be one extent (FIEMAP): both
# neighbours of the read are then the file's own blocks, so no other
# process's I/O can merge with it.  A file split by the file system is
# made again, twice at most.
# Its "SEGPROF model ... result=ok" lines are the checks.  Without kprobe
# events (the 6.18 host) it counts the block tracepoints of a virtio-blk
# disk without indirect descriptors; elsewhere it skips, saying why.
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it reads /proc/self/pagemap's PFNs and tracefs"
prog=$T_TOP/kernel/static/seg-profile
[ -x "$prog" ] || skip "no $prog: run 'make static'"
t_need_cmd fallocate dd
t_tmpdir
tracefs=/sys/kernel/tracing
if [ ! -e $tracefs/trace ]; then
	mount -t tracefs nodev $tracefs 2>/dev/null ||
		skip "tracefs is not mounted and cannot be"
fi
out=$T_DIR/seg.out
# each try a new file; the earlier ones stay (in T_DIR, removed at exit)
# so that their blocks are not handed out again
for try in 1 2 3; do
	file=$T_DIR/seg.$try
	fallocate -l 16M "$file" 2>"$out" ||
		skip "cannot fallocate 16 MiB in $T_DIR: $(cat "$out")"
	dd if=/dev/zero of="$file" bs=16M count=1 iflag=fullblock \
		oflag=direct conv=notrunc,fsync status=none 2>"$out" ||
		skip "cannot write $file with O_DIRECT: $(cat "$out")"
	"$prog" -f "$file" -o 4194304 -t $tracefs >"$out" 2>&1
	rc=$?
	[ "$rc" = 77 ] && grep -q 'extents, not one' "$out" || break
	t_info "try $try: $(grep -m1 -o 'skip=.*' "$out")"
done
sed 's/^/  /' "$out"
case $rc in
77) skip "$(grep -m1 -o 'skip=.*' "$out" || echo "seg-profile skipped")" ;;
esac
while read -r line; do
	case $line in
	*result=ok) t_ok "${line#SEGPROF model }" ;;
	*) fail "${line#SEGPROF model }" ;;
	esac
done < <(grep '^SEGPROF model ' "$out")
grep -q 'result=FAIL' "$out" && ! grep -q '^SEGPROF model .*result=FAIL' "$out" &&
	fail "$(grep -m1 'result=FAIL' "$out")"
[ "$rc" = 0 ] || fail "seg-profile exited $rc"
t_done
