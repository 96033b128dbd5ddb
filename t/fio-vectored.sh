#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# vec_iovecs: every read and write goes out as READV_FIXED/WRITEV_FIXED
# (6.15, 9ef4cbbcb4ac) with N iovecs cut from the io_u's registered buffer,
# the cuts moved vec_offset bytes into folios so the iovecs start inside
# folios and cross their ends.  Under fio verify on hugetlb, THP and 4 KiB
# buffers, O_DIRECT and buffered; the report must carry the vectored
# model's bvec count; kernels without the opcode get a one-line error; bad
# combinations are refused in one line.
. "$(dirname "$0")/_fio-lib.sh"
t_require

t_need_hugepages 40

cat >"$T_DIR/vec.fio" <<JOB
[global]
ioengine=external:$HUGEBUF_ENGINE
directory=$T_DIR
rw=randwrite
bs=8M
size=64M
iodepth=4
vec_iovecs=4
vec_offset=4096
verify=crc32c
do_verify=1
verify_fatal=1
stonewall

[hugetlb-direct]
direct=1

[hugetlb-buffered]
direct=0
vec_offset=12345

[thp-direct]
backing=thp
direct=1
vec_iovecs=7

[4k-direct]
backing=4k
direct=1

[odd-bs-buffered]
bs=2052K
vec_iovecs=5
vec_offset=777
JOB

out=$T_DIR/vec.out
(cd "$T_DIR" && HUGEBUF_REPORT_JSON=$T_DIR/vec.report timeout -k 10 300 \
	"$FIO" "$T_DIR/vec.fio" --output-format=json --output="$T_DIR/vec.json" \
	>"$out" 2>&1)
rc=$?
if grep -q 'needs IORING_OP_READV_FIXED' "$out"; then
	skip "the kernel has no READV_FIXED: $(grep -m1 READV_FIXED "$out")"
fi
if [ $rc != 0 ]; then
	fail "fio exited $rc:"
	grep -h 'hugebuf\|err=\|verify' "$out" "$T_DIR/vec.json" | head -8
fi
t_check "vec_iovecs jobs verified, reports agree" \
	$T_CHECK vectored "$T_DIR/vec.json" "$T_DIR/vec.report"

t_expect_fail no-fixedbufs 'vec_iovecs=4 needs fixedbufs' \
	--name=x --ioengine=external:"$HUGEBUF_ENGINE" --directory="$T_DIR" \
	--size=8M --bs=1M --fixedbufs=0 --vec_iovecs=4
t_expect_fail with-chunk 'vec_iovecs and chunk_size both cut the I/O' \
	--name=x --ioengine=external:"$HUGEBUF_ENGINE" --directory="$T_DIR" \
	--size=8M --bs=1M --chunk_size=256K --vec_iovecs=4
t_expect_fail offset-too-big 'vec_offset=2097152 is not below bs=1048576' \
	--name=x --ioengine=external:"$HUGEBUF_ENGINE" --directory="$T_DIR" \
	--size=8M --bs=1M --vec_iovecs=2 --vec_offset=2M
t_done
