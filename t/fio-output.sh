#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: fio's output formats and JSON are the release's
#
# What scripts read from fio with the engine swapped in:
#  - every --output-format combination: the JSON object parses (found at
#    the first line that is "{", as fio prints normal text around it in
#    the combined formats) and no engine text is on stdout unless the
#    format is normal alone;
#  - report_json lines parse and carry the job name when it has quotes,
#    backslashes and UTF-8;
#  - mem=mmaphuge:FILE on hugetlbfs is shared: a second process (a second
#    fio, and a plain mmap) sees each other's writes, and the pages go back
#    to the pool after both exit;
#  - on a kernel model that cannot coalesce (6.1), the report's "to
#    coalesce:" advice in text and report_json, and none on 6.18;
#  - bad input: each a one-line message and a failed job.
. "$(dirname "$0")/_fio-lib.sh"
t_require
[ "$(id -u)" = 0 ] || skip "needs root (hugetlbfs mount)"
t_need_hugepages 64
E="external:$HUGEBUF_ENGINE"
F=$T_DIR/data
"$FIO" --name=lay --filename="$F" --size=8M --rw=write --bs=1M \
	--output=/dev/null >/dev/null 2>&1 || skip "cannot write $F"
JOB="--filename=$F --size=8M --rw=randread --bs=128k --iodepth=4 --direct=1"

# parses FORMAT FILE: fio's output of that format is what scripts expect
parses() {
	$T_CHECK formats "$1" "$2"
}

for fmt in normal json json+ terse json,normal normal,json json+,normal \
	normal,json+ terse,json json,terse; do
	(cd "$T_DIR" && "$FIO" --name=fmt $JOB --ioengine="$E" \
		--output-format="$fmt" >"$T_DIR/fmt.out" 2>"$T_DIR/fmt.err")
	rc=$?
	if [ $rc = 0 ] && parses "$fmt" "$T_DIR/fmt.out"; then
		t_ok "--output-format=$fmt"
	else
		fail "--output-format=$fmt: rc $rc, stdout does not parse as fio's"
		head -3 "$T_DIR/fmt.out" | sed 's/^/    /'
	fi
done

# a job name scripts cannot quote by hand
name='q"x\y ü-日本'
rm -f "$T_DIR/name.report"
(cd "$T_DIR" && HUGEBUF_REPORT_JSON=$T_DIR/name.report "$FIO" --name="$name" \
	$JOB --ioengine="$E" --output-format=json >"$T_DIR/name.json" \
	2>"$T_DIR/name.err")
if $T_CHECK jobname "$T_DIR/name.report" "$T_DIR/name.json" "$name"
then
	t_ok "report_json with job name $name parses"
else
	fail "report_json with job name $name does not parse: $(head -c 300 "$T_DIR/name.report")"
fi

# mem=mmaphuge:FILE shared by two processes
H=$T_DIR/huge
mkdir -p "$H"
mount -t hugetlbfs -o pagesize=2M none "$H" || skip "cannot mount hugetlbfs on $H"
t_atexit "umount $H"
base=$(t_free_hugepages)
python3 -c "open('$T_DIR/pat', 'wb').write(b'\xab' * (8 << 20))"
# fio A: reads 0xab blocks into the shared pages for 10 s (B and the
# mmap below must find it still running, also on a loaded machine)
(cd "$T_DIR" && "$FIO" --name=A --filename="$T_DIR/pat" --size=8M --rw=read \
	--bs=1M --iodepth=2 --direct=1 --time_based --runtime=10 \
	--ioengine="$E" --mem=mmaphuge:"$H/shared" --output=/dev/null \
	>"$T_DIR/A.out" 2>&1) &
pa=$!
for _ in $(seq 50); do [ -e "$H/shared" ] && break; sleep 0.1; done
sleep 1
# fio B: the same file; its zeroed write buffers are A's pages, so what it
# writes out is what A read in
(cd "$T_DIR" && "$FIO" --name=B --filename="$T_DIR/outB" --size=8M \
	--rw=write --bs=1M --iodepth=1 --direct=1 --zero_buffers \
	--ioengine="$E" --mem=mmaphuge:"$H/shared" --output=/dev/null \
	>"$T_DIR/B.out" 2>&1)
rb=$?
# a plain mmap of the same file sees A's reads too
seen=$(python3 - "$H/shared" <<'PY'
import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 2 << 20)
print(m[:4096].count(b"\xab"))
PY
)
wait $pa
ra=$?
if [ $ra = 0 ] && [ $rb = 0 ] &&
	python3 -c "import sys; d=open('$T_DIR/outB','rb').read(); sys.exit(0 if d.count(b'\xab') > len(d)//2 else 1)"; then
	t_ok "mem=mmaphuge:FILE: fio B wrote what fio A read into the shared pages"
else
	fail "mem=mmaphuge:FILE: fio B did not see A's data (A rc $ra, B rc $rb)"
	cat "$T_DIR/A.out" "$T_DIR/B.out" | grep -v '^ ' | head -6
fi
[ "${seen:-0}" -gt 2048 ] && t_ok "a plain mmap of the file sees A's reads ($seen of 4096 bytes)" ||
	fail "a plain mmap of $H/shared does not see A's reads ($seen)"
[ ! -e "$H/shared" ] && t_ok "$H/shared is gone after both fio runs" ||
	fail "$H/shared is left after both fio runs exited"
after=$(t_free_hugepages)
if [ "$after" -lt "$base" ]; then
	sleep 1
	after=$(t_free_hugepages)
fi
[ "$after" -ge "$base" ] && t_ok "hugepages back to the pool ($after free, $base before)" ||
	fail "hugepages not back: $after free, $base before"

# a kernel that cannot coalesce (the 6.1 model, HUGEBUF_KERNEL): the
# report says what can work there, in text and in report_json, and
# coalesce_check=require refuses with the same advice
rm -f "$T_DIR/adv.report"
(cd "$T_DIR" && HUGEBUF_KERNEL=6.1 HUGEBUF_REPORT_JSON=$T_DIR/adv.report \
	"$FIO" --name=adv $JOB --ioengine="$E" --backing=hugetlb \
	>"$T_DIR/adv.out" 2>&1)
rc=$?
line=$(grep -E '^hugebuf: adv: to coalesce: .*kernel/patches.*fixedbufs=0' \
	"$T_DIR/adv.out")
[ $rc = 0 ] && [ -n "$line" ] && t_ok "6.1 model: report advises: ${line#*: adv: }" ||
	fail "6.1 model: rc $rc, no 'to coalesce:' line naming kernel/patches and fixedbufs=0"
adv=$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["coalesce_advice"])' \
	"$T_DIR/adv.report" 2>&1)
[ -n "$line" ] && [ "$adv" = "${line#*to coalesce: }" ] &&
	t_ok "6.1 model: report_json coalesce_advice is the text's sentence" ||
	fail "6.1 model: report_json coalesce_advice '$adv' differs from the text"
rm -f "$T_DIR/adv.report"
(cd "$T_DIR" && HUGEBUF_KERNEL=6.18 HUGEBUF_REPORT_JSON=$T_DIR/adv.report \
	"$FIO" --name=adv $JOB --ioengine="$E" --backing=hugetlb \
	>"$T_DIR/adv.out" 2>&1)
adv=$(python3 -c 'import json,sys; print(repr(json.loads(open(sys.argv[1]).readline())["coalesce_advice"]))' \
	"$T_DIR/adv.report" 2>&1)
! grep -q 'to coalesce:' "$T_DIR/adv.out" && [ "$adv" = "''" ] &&
	t_ok "6.18 model: no advice where the buffers coalesce" ||
	fail "6.18 model: advice printed where the buffers coalesce ($adv)"

# bad input: one line each, failed job
bad() {
	local what=$1 want=$2 n
	shift 2
	(cd "$T_DIR" && "$FIO" --name=bad $JOB --ioengine="$E" "$@" \
		>"$T_DIR/bad.out" 2>&1)
	if [ $? = 0 ]; then
		fail "$what: fio succeeded"
		return
	fi
	n=$(grep -c -e "$want" "$T_DIR/bad.out")
	if [ "$n" = 1 ]; then
		t_ok "$what: $(grep -e "$want" "$T_DIR/bad.out")"
	else
		fail "$what: want one line matching '$want', got:"
		head -5 "$T_DIR/bad.out" | sed 's/^/    /'
	fi
}
bad "unknown mem=" "failed parsing mem=bogus" --mem=bogus
bad "mmaphuge: not on hugetlbfs" "is not on hugetlbfs" --mem=mmaphuge:"$T_DIR/nothuge"
bad "hugepage-size the system lacks" "16M hugepages are not available" --mem=shmhuge --hugepage-size=16M
bad "mem= against backing=" "mem=shmhuge and backing=hugetlb contradict" --mem=shmhuge --backing=hugetlb
bad "iomem_align against head_offset=" "iomem_align=4096 and head_offset=8192 contradict" --iomem_align=4k --head_offset=8k
HUGEBUF_KERNEL=6.1 bad "coalesce_check=require on the 6.1 model" \
	"would not coalesce these buffers.*to coalesce: .*kernel/patches.*coalesce_check=warn" \
	--backing=hugetlb --coalesce_check=require

t_done
