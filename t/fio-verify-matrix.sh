#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# fio verify through the engine's buffers, over
#   backing     hugetlb, memfd, thp, 4k, mthp (when a size can be enabled)
#   layout      per-io, region
#   head_offset 0, 0x1234, 4096
#   bs          4K, 128K, 2M+4K, 8M
# Every job writes random blocks and reads them back through the same fixed
# buffers with crc32c or md5: 0 verify errors, as many bytes verified as
# written, and the engine's report agrees with `hugebuf plan` for that
# backing/size/offset.  head_offset 0x1234 is not sector aligned, so those
# jobs use buffered I/O (direct=0); the others use O_DIRECT.  One fio run
# per backing (jobs stonewalled), sizes kept small.
#
# HB_TEST_TIER=user (make check): each behaviour once on the running
# kernel: bs 4K (inside a folio) and 2M+4K (across folio ends) only, and
# no memfd:2M run (its folios are hugetlb's, as hugetlb:2M's); make
# check-all runs the whole matrix.
. "$(dirname "$0")/_fio-lib.sh"
t_require

t_need_hugepages 64

BSES="4096 131072 2101248 8388608"
[ "${HB_TEST_TIER:-}" = user ] && BSES="4096 2101248"

# make_jobs BACKING: one job per layout x head_offset x bs
make_jobs() {
	local backing=$1 layout off bs direct sum n=0 size
	cat <<EOF
[global]
ioengine=external:$HUGEBUF_ENGINE
backing=$backing
rw=randwrite
iodepth=4
verify_fatal=1
do_verify=1
stonewall
EOF
	for layout in per-io region; do
		for off in 0 4660 4096; do
			for bs in $BSES; do
				n=$((n + 1))
				direct=1
				[ $((off % 512)) = 0 ] || direct=0
				sum=crc32c
				[ $((n % 2)) = 0 ] && sum=md5
				size=$((bs * 4))
				[ "$size" -ge 262144 ] || size=262144
				cat <<EOF

[$layout-o$off-b$bs]
filename=$T_DIR/f$n
layout=$layout
head_offset=$off
bs=$bs
size=$size
direct=$direct
verify=$sum
EOF
			done
		done
	done
}

run_backing() {
	local backing=$1 name jobs
	name=$(echo "$backing" | tr ':' '-')
	make_jobs "$backing" >"$T_DIR/$name.fio"
	jobs=$(grep -c '^\[.*-o' "$T_DIR/$name.fio")
	if ! t_fio "$name" "$T_DIR/$name.fio"; then
		fail "$backing: fio exited non-zero:"
		grep -h 'hugebuf\|err=\|verify' "$T_DIR/$name.err" \
			"$T_DIR/$name.json" | head -8
		return
	fi
	t_check "$backing: $jobs verify jobs verified" \
		$T_CHECK run "$T_DIR/$name.json" --verify
	t_check "$backing: $jobs reports agree with hugebuf plan" \
		$T_CHECK report "$T_DIR/$name.report" "$jobs"
}

run_backing hugetlb:2M
[ "${HB_TEST_TIER:-}" = user ] || run_backing memfd:2M
run_backing thp
run_backing 4k
if t_mthp; then
	t_pmd_thp_off
	run_backing "mthp:$T_MTHP"
	t_pmd_thp_restore
else
	t_skip_check "mthp: no mTHP size can be enabled here"
fi

t_done
