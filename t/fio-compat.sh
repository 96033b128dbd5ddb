#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: rows run fio's own io_uring engine of that release
#
# Drop-in compatibility table: every job file in t/compat/ exercises one
# option of fio's io_uring engine or one of fio's memory options, and runs
# twice -- ioengine=io_uring and the engine swapped in -- on a private loop
# device (O_DIRECT, so the device counts are ours alone).  A row passes
# when both runs exit alike, move the same bytes, and (verify rows) end
# with error 0.  The kernel series' own command line is a row too, and
# must cost the same device requests per I/O on both engines.  Rows where
# fio 3.33's io_uring itself is wrong on this kernel are listed as
# expected differences, with the reason.  A row that needs an option
# of a later fio ("; needs-option: NAME") runs where the fio has it.
. "$(dirname "$0")/_fio-lib.sh"
t_require
[ "$(id -u)" = 0 ] || skip "needs root (loop device, hugetlbfs mount)"
command -v losetup >/dev/null 2>&1 || skip "losetup not found: apt-get install mount"
t_need_hugepages 300

SIZE=${HB_COMPAT_SIZE:-256M}
truncate -s "$SIZE" "$T_DIR/disk" || skip "cannot create $T_DIR/disk"
dd if=/dev/urandom of="$T_DIR/disk" bs=1M count=16 conv=notrunc status=none
loop=$(losetup --direct-io=on -f --show "$T_DIR/disk" 2>/dev/null) ||
	skip "no loop device (losetup -f failed)"
t_atexit "losetup -d $loop"
dev=${loop#/dev/}
mkdir -p "$T_DIR/huge"
mount -t hugetlbfs -o pagesize=2M none "$T_DIR/huge" ||
	skip "cannot mount hugetlbfs on $T_DIR/huge"
t_atexit "umount $T_DIR/huge"
# buffered rows that need a file system (RWF_DONTCACHE is per file system)
truncate -s "$SIZE" "$T_DIR/file" || skip "cannot create $T_DIR/file"
export HB_FILE=$loop HB_SIZE=$SIZE HB_HUGETLBFS=$T_DIR/huge \
	HB_REGFILE=$T_DIR/file

# dev_ios: reads + writes completed on the loop device
dev_ios() {
	awk '{ print $1 + $5 }' "/sys/block/$dev/stat"
}

# summary FILE.json: "error bytes ios" over all jobs of fio's JSON
summary() {
	$T_CHECK summary "$1"
}

# run ROW ENGINE ARGS...: fio into $T_DIR/ROW.ENG.json; sets RC SUM RPI
run() {
	local row=$1 eng=$2 tag=${2%%:*} d0 d1
	shift 2
	d0=$(dev_ios)
	(cd "$T_DIR" && HB_IOENGINE=$eng timeout -k 10 120 "$FIO" \
		--output-format=json --output="$T_DIR/$row.$tag.json" "$@" \
		>"$T_DIR/$row.$tag.out" 2>"$T_DIR/$row.$tag.err")
	RC=$?
	d1=$(t_settle "" still dev_ios)
	SUM=$(summary "$T_DIR/$row.$tag.json")
	set -- $SUM
	RPI=$(awk -v r=$((d1 - d0)) -v n="$3" \
		'BEGIN { printf "%.2f", n ? r / n : 0 }')
}

# expected ROW: why fio 3.33's io_uring differs here, or nothing
expected() {
	local kmaj kmin
	IFS=. read -r kmaj kmin _ <<<"$(uname -r)"
	case $1 in
	uncached)
		# RWF_UNCACHED (0x40) never went upstream; 6.11 made it RWF_ATOMIC
		if "$FIO" --version | grep -q '^fio-3\.3[0-8]' &&
			[ "$kmaj" -gt 6 -o \( "$kmaj" = 6 -a "$kmin" -ge 11 \) ]; then
			echo "$("$FIO" --version) sends RWF_UNCACHED=0x40, which kernel $(uname -r) reads as RWF_ATOMIC"
		fi ;;
	esac
}

printf '%-22s %-28s %-28s %s\n' row "io_uring rc/err/bytes" "hugebuf rc/err/bytes" result
row_check() {
	local row=$1 a=$2 b=$3 why ok=1 rc1 e1 b1 rc2 e2 b2
	IFS=/ read -r rc1 e1 b1 <<<"$a"
	IFS=/ read -r rc2 e2 b2 <<<"$b"
	[ "$rc1" = "$rc2" ] && [ "$b1" = "$b2" ] || ok=0
	case $row in verify*) [ "$e1" = 0 ] && [ "$e2" = 0 ] || ok=0 ;; esac
	why=$(expected "$row")
	if [ $ok = 1 ]; then
		printf '%-22s %-28s %-28s PASS\n' "$row" "$a" "$b"
		T_PASSED=$((T_PASSED + 1))
	elif [ -n "$why" ] && [ "$rc2" = 0 ] && [ "$e2" = 0 ]; then
		printf '%-22s %-28s %-28s EXPECTED (%s)\n' "$row" "$a" "$b" "$why"
		T_PASSED=$((T_PASSED + 1))
	else
		printf '%-22s %-28s %-28s FAIL\n' "$row" "$a" "$b"
		T_FAILED=$((T_FAILED + 1))
		grep -h 'hugebuf\|fio:\|err' "$T_DIR/$row".*.err | head -4 | sed 's/^/    /'
	fi
}

# the options of the running fio's io_uring engine, for rows that need
# one a release added ("; needs-option: NAME" in the row)
"$FIO" --enghelp=io_uring 2>/dev/null | sed -n 's/^\([a-z0-9_]*\) *: .*/\1/p' \
	>"$T_DIR/uring-opts"
for job in "$T_TOP"/t/compat/*.fio; do
	row=$(basename "$job" .fio)
	need=$(sed -n 's/^; needs-option: //p' "$job")
	if [ -n "$need" ] && ! grep -qx "$need" "$T_DIR/uring-opts"; then
		t_skip_check "$row: $("$FIO" --version)'s io_uring has no $need (a row for the second fio)"
		continue
	fi
	run "$row" io_uring "$job"
	set -- $SUM
	a="$RC/$1/$2"
	run "$row" "external:$HUGEBUF_ENGINE" "$job"
	set -- $SUM
	b="$RC/$1/$2"
	row_check "$row" "$a" "$b"
done

# The kernel series' command line, word for word (-fixedbufs is a flag)
series() {
	local eng=$1 tag=${1%%:*} d0 d1
	d0=$(dev_ios)
	(cd "$T_DIR" && timeout -k 10 120 "$FIO" -iodepth=64 -rw=randread \
		-direct=1 -ioengine="$eng" -bs=8M -numjobs=1 -group_reporting \
		-mem=shmhuge -fixedbufs -hugepage-size=2M -filename="$loop" \
		-runtime=10s -name=test1 --output-format=json \
		--output="$T_DIR/series.$tag.json" >"$T_DIR/series.$tag.out" \
		2>"$T_DIR/series.$tag.err")
	RC=$?
	d1=$(t_settle "" still dev_ios)
	SUM=$(summary "$T_DIR/series.$tag.json")
	set -- $SUM
	RPI=$(awk -v r=$((d1 - d0)) -v n="$3" \
		'BEGIN { printf "%.2f", n ? r / n : 0 }')
}
series io_uring
set -- $SUM
a="$RC/$1/$2"
rpi_a=$RPI
series "external:$HUGEBUF_ENGINE"
set -- $SUM
b="$RC/$1/$2"
rpi_b=$RPI
row_check series "$a" "$b"
echo "series: device requests per 8M I/O on $dev: io_uring $rpi_a, hugebuf $rpi_b"
[ "$rpi_a" = "$rpi_b" ] && t_ok "series: the same requests per I/O" ||
	fail "series: requests per I/O differ (io_uring $rpi_a, hugebuf $rpi_b)"

t_done
