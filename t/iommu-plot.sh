#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# kernel/iommu-plot.py on a run directory written here by hand (three
# kernels' console-<kernel>-iommu.log.txt with a few IOMMUPROF lines of
# kernel/probe/iommu-profile.c):
#  - the Markdown table has exactly those lines' per-I/O values (hits
#    divided by ios; the ptes line taken as it is; requests_min), for the
#    8 MiB block reads only (a 128K read, a passthrough read and a write
#    of other counts are in the logs too), strict, and lazy for the
#    IOTLB syncs; "6.1" and "6.1 + series" in that order; 7.3's
#    iommu_map_nosync() where it has no __iommu_map();
#  - a panel's .dat has the value and the value drawn (0 at 0.5);
#  - without gnuplot: exit 0, one line saying so, the .gp, .dat and .md
#    still written, no picture; with gnuplot: the .png and .svg;
#  - an empty or missing RUNDIR: exit 1 and one line naming the fix.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cmd python3
t_tmpdir

PLOT=$T_TOP/kernel/iommu-plot.py
RUN=$T_DIR/run
mkdir -p "$RUN" "$T_DIR/empty" "$T_DIR/out" "$T_DIR/nognu" "$T_DIR/bin"

L="mode=strict path=block op=read"
Z="mode=lazy path=block op=read"
S=size=8388608
# 6.1: 2M and 4K; 2M has a 0 (IOTLB syncs lazy) and a fraction (7 / 2)
cat >"$RUN/console-control-iommu.log.txt" <<EOF
[    5.1] some kernel line
IOMMUPROF mode=strict group_type=DMA max_hw_bytes=4194304 max_sectors_bytes=4194304 max_segments=127
IOMMUPROF $L backing=2M $S ios=2 requests_min=2 data=verified
IOMMUPROF $L backing=2M $S sym=__iommu_map hits=1024 min=512
IOMMUPROF $L backing=2M $S sym=alloc_iova_fast hits=7 min=3
IOMMUPROF $L backing=2M $S sym=intel_iommu_tlb_sync hits=4 min=2
IOMMUPROF $L backing=2M $S ptes map_calls=512 map_4k=2048 map_2m=0 map_1g=0 map_other=0 missed=0
IOMMUPROF model ${L%% *} path=block op=read backing=2M size=8388608 what=__iommu_map counted=512 predicted=512 result=ok
IOMMUPROF mode=strict path=block op=read backing=2M size=131072 ios=3 requests_min=1 data=verified
IOMMUPROF mode=strict path=block op=read backing=2M size=131072 sym=__iommu_map hits=99 min=33
IOMMUPROF mode=strict path=pt op=read backing=2M size=8388608 sym=__iommu_map hits=999 min=333
IOMMUPROF mode=strict path=block op=write backing=2M size=8388608 sym=__iommu_map hits=900 min=300
IOMMUPROF $L backing=4k $S ios=3 requests_min=17 data=verified
IOMMUPROF $L backing=4k $S sym=__iommu_map hits=2364 min=788
IOMMUPROF $L backing=4k $S sym=alloc_iova_fast hits=51 min=17
IOMMUPROF $L backing=4k $S sym=intel_iommu_tlb_sync hits=51 min=17
IOMMUPROF $L backing=4k $S ptes map_calls=788 map_4k=2048 map_2m=0 map_1g=0 map_other=0 missed=0
IOMMUPROF $Z backing=2M $S ios=2 requests_min=2 data=verified
IOMMUPROF $Z backing=2M $S sym=intel_iommu_tlb_sync hits=0 min=0
IOMMUPROF $Z backing=4k $S ios=3 requests_min=17 data=verified
IOMMUPROF $Z backing=4k $S sym=intel_iommu_tlb_sync hits=3 min=1
EOF
# the series: 2M and THP, no lazy guest; THP has a strict 0 and a ptes
# line whose kprobe missed hits (not counted)
cat >"$RUN/console-patched-iommu.log.txt" <<EOF
IOMMUPROF $L backing=2M $S ios=3 requests_min=2 data=verified
IOMMUPROF $L backing=2M $S sym=__iommu_map hits=12 min=4
IOMMUPROF $L backing=2M $S sym=alloc_iova_fast hits=6 min=2
IOMMUPROF $L backing=2M $S sym=intel_iommu_tlb_sync hits=6 min=2
IOMMUPROF $L backing=2M $S ptes map_calls=4 map_4k=0 map_2m=4 map_1g=0 map_other=0 missed=0
IOMMUPROF $L backing=thp $S ios=3 requests_min=2 data=verified
IOMMUPROF $L backing=thp $S sym=__iommu_map hits=12 min=4
IOMMUPROF $L backing=thp $S sym=alloc_iova_fast hits=6 min=2
IOMMUPROF $L backing=thp $S sym=intel_iommu_tlb_sync hits=0 min=0
IOMMUPROF $L backing=thp $S ptes map_calls=4 map_4k=1 map_2m=3 map_1g=0 map_other=0 missed=1
EOF

# 7.3: no __iommu_map, its iommu_map_nosync() stands in; no ptes line
cat >"$RUN/console-7.3-iommu.log.txt" <<EOF
IOMMUPROF $L backing=4k $S ios=2 requests_min=64 data=verified
IOMMUPROF $L backing=4k $S sym=iommu_map_nosync hits=3544 min=1772
IOMMUPROF $L backing=4k $S sym=alloc_iova_fast hits=128 min=64
IOMMUPROF $L backing=4k $S sym=intel_iommu_tlb_sync hits=128 min=64
IOMMUPROF $Z backing=4k $S ios=2 requests_min=64 data=verified
IOMMUPROF $Z backing=4k $S sym=intel_iommu_tlb_sync hits=128 min=64
EOF

# the rows wanted: kernel, backing, requests, PTEs 4K, PTEs 2M,
# __iommu_map, IOVA allocs, IOTLB syncs strict, IOTLB syncs lazy
cat >"$T_DIR/want" <<'EOF'
| 6.1 | 2M (hugetlb) | 2 | 2048 | 0 | 512 | 3.50 | 2 | 0 |
| 6.1 | 4K | 17 | 2048 | 0 | 788 | 17 | 17 | 1 |
| 6.1 + series | 2M (hugetlb) | 2 | 0 | 4 | 4 | 2 | 2 | – |
| 6.1 + series | THP | 2 | – | – | 4 | 2 | 0 | – |
EOF

OUT=$T_DIR/out/iommu
if python3 "$PLOT" "$RUN" "$OUT" >"$T_DIR/log" 2>&1; then
	t_ok "exit 0 on three kernels' consoles"
else
	t_fail_now "exit $? on three kernels' consoles: $(head -n 1 "$T_DIR/log")"
fi

grep '^| 6\.1' "$OUT.md" >"$T_DIR/rows"
if cmp -s "$T_DIR/want" "$T_DIR/rows"; then
	t_ok "the table's rows are the lines' per-I/O values"
else
	fail "the table's rows are not the lines' per-I/O values:"
	diff "$T_DIR/want" "$T_DIR/rows" | sed 's/^/  /'
fi

if grep -qFx '| 7.3 | 4K | 64 | – | – | 1772 | 64 | 64 | 64 |' "$OUT.md"; then
	t_ok "7.3: iommu_map_nosync for __iommu_map, lazy IOTLB syncs, no PTEs"
else
	fail "7.3's row: $(grep '^| 7\.3' "$OUT.md")"
fi

# the PTE panel: index, kernel, 2M thp 4k, then the same as drawn
if grep -qFx '0 "6.1" 2048 ? 2048 2048 ? 2048' "$OUT-ptes.dat" &&
	grep -qFx '1 "6.1 + series" 4 ? ? 4 ? ?' "$OUT-ptes.dat" &&
	grep -qFx '0 "6.1" 2 ? 17 2 ? 17' "$OUT-iotlb.dat" &&
	grep -qFx '1 "6.1 + series" 2 0 ? 2 0.5 ?' "$OUT-iotlb.dat" &&
	grep -qFx '0 "6.1" 3.5 ? 17 3.5 ? 17' "$OUT-iova.dat"; then
	t_ok "the .dat rows: values and values drawn"
else
	fail "the .dat rows:"
	grep -v '^#' "$OUT"-*.dat | sed 's/^/  /'
fi

if command -v gnuplot >/dev/null 2>&1; then
	if [ -s "$OUT.png" ] && [ -s "$OUT.svg" ] && [ -s "$OUT.gp" ]; then
		t_ok "gnuplot drew $OUT.png and .svg"
	else
		fail "no .png/.svg/.gp with gnuplot: $(head -n 1 "$T_DIR/log")"
	fi
else
	t_skip_check "gnuplot not installed: pictures not checked"
fi

# no gnuplot: a PATH without it (the interpreter called by its full name)
py=$(python3 -c 'import sys; print(sys.executable)')
ON=$T_DIR/nognu/iommu
if PATH=$T_DIR/bin "$py" "$PLOT" "$RUN" "$ON" >"$T_DIR/log2" 2>&1 &&
	[ "$(wc -l <"$T_DIR/log2")" -eq 1 ] &&
	grep -q 'gnuplot not found' "$T_DIR/log2" &&
	[ -s "$ON.gp" ] && [ -s "$ON.md" ] && [ -s "$ON-iova.dat" ] &&
	[ ! -e "$ON.png" ] && cmp -s "$OUT.md" "$ON.md"; then
	t_ok "without gnuplot: exit 0, one line, .gp/.dat/.md, no picture"
else
	fail "without gnuplot: $(head -n 2 "$T_DIR/log2" | tr '\n' ' ')"
fi

# errors: one line naming the fix, exit 1
for d in "$T_DIR/empty" "$T_DIR/missing"; do
	python3 "$PLOT" "$d" "$T_DIR/out/err" >"$T_DIR/log3" 2>&1
	rc=$?
	if [ $rc = 1 ] && [ "$(wc -l <"$T_DIR/log3")" -eq 1 ] &&
		grep -q 'run KTEST_KEEP=1 kernel/ktest.sh first' "$T_DIR/log3" &&
		[ ! -e "$T_DIR/out/err.md" ]; then
		t_ok "${d##*/} RUNDIR: exit 1, $(cat "$T_DIR/log3")"
	else
		fail "${d##*/} RUNDIR: exit $rc: $(head -n 2 "$T_DIR/log3" | tr '\n' ' ')"
	fi
done

t_done
