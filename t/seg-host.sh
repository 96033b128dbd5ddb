#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# lib's segment model (hb_model_segments()) against this machine's kernel
# for one 8 MiB O_DIRECT READ_FIXED from 4 KiB pages with known PFNs, on
# the whole disk under the test directory: kernel/probe/seg-profile (the
# guest probe of the same name), reading the last 128 MiB of the disk.
# Its "SEGPROF model ... result=ok" lines are the checks.  Without kprobe
# events (the 6.18 host) it counts the block tracepoints of a virtio-blk
# disk without indirect descriptors; elsewhere it skips, saying why.
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it reads /proc/self/pagemap's PFNs and tracefs"
prog=$T_TOP/kernel/static/seg-profile
[ -x "$prog" ] || skip "no $prog: run 'make static'"
t_tmpdir
dir=${HUGEBUF_TEST_DIR:-$T_DIR}
disk=$(python3 - "$dir" <<'PY'
import os, sys
st = os.stat(sys.argv[1])
real = os.path.realpath("/sys/dev/block/%d:%d" % (os.major(st.st_dev),
                                                    os.minor(st.st_dev)))
if os.path.exists(os.path.join(real, "partition")):
    real = os.path.dirname(real)
print(os.path.basename(real))
PY
) || skip "cannot find the disk under $dir"
[ -b "/dev/$disk" ] || skip "/dev/$disk is no block device"
tracefs=/sys/kernel/tracing
if [ ! -e $tracefs/trace ]; then
	mount -t tracefs nodev $tracefs 2>/dev/null ||
		skip "tracefs is not mounted and cannot be"
fi
out=$T_DIR/seg.out
"$prog" -e 134217728 -d "/dev/$disk" -t $tracefs >"$out" 2>&1
rc=$?
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
