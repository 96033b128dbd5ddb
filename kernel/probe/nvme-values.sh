#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# nvme-values.sh: every value of fio's io_uring and io_uring_cmd options
# that needs a device to answer (issue 45), run by fio's own engine and by
# hugebuf's on the same namespace of the value controller (serial
# hugebufval, kernel/kboot.sh: a plain namespace, PI types 1 and 3 with
# separate and extended-LBA metadata, a zoned namespace), with the fio
# release that has the options (KTEST_FIO2: fio 3.41) and the engine built
# for it.
#
# Each case is one fio job (its options below), run by fio's engine, then
# by ours, each after the same preparation of its region, and judged:
#   outcome   ok, an I/O error (the errno, or the NVMe status when the
#             device answered: "nvme:sct/sc"), a job error (err=N: fio's
#             verify, PI check) or refused before any I/O: the same for
#             both engines.  A value the engine refuses by its own list
#             while fio's engine runs it is a counted skip naming the
#             engine's line (issue 45 makes those values work);
#   data      fio's verify where the job has it; then the region read back
#             through the block device (md5 of the raw bytes) after each
#             engine's job: the same bytes; on the PI namespaces, what ours
#             wrote read back by fio's engine with the device and fio
#             checking the guard, reference and application tags;
#   commands  the NVMe I/O commands the kernel issued for the job (the
#             nvme_setup_cmd tracepoint, I/O queues only: qid != 0) per
#             I/O fio counted, with their opcodes: ours no more than
#             fio's engine; per byte moved instead where both succeeded
#             but fio's engine counted other bytes than ours (the row
#             says cmds=per-byte and both byte counts).
# A case whose fio side meets a known bug of fio's own ($fio_bug: the
# outcome it gives, then its cause) is a counted skip naming it where
# fio's engine gives that outcome and ours another.
# A case where lib's kernel model makes the engine do what fio's engine
# does not ($model_diff: fio's outcome, ours, then why) passes with
# those two outcomes only when the engine said at job start that it acted
# on the model ($model_line in its output) and its report counts as many
# such writes as fio counted writes; the row says expect=model and why.
# Output: "NVVAL case=... ns=... fio=OUTCOME/CMDS_PER_IO/OPS
# hugebuf=OUTCOME/CMDS_PER_IO/OPS data=... result=ok|fail|skip" and
# "@@KTEST RESULT nvval:CASE rc secs".
# Usage: nvme-values.sh FIO ENGINE
fio=${1:-/hugebuf/fio2/fio}
engine=${2:-/hugebuf/engine/hugebuf-fio2.so}
[ -f /hugebuf/env ] && . /hugebuf/env
tmo=${KTEST_TEST_TIMEOUT:-300}
T=/sys/kernel/tracing
. "$(dirname "$0")/probe-lib.sh"
EV=$T/events/nvme/nvme_setup_cmd

result() { echo "@@KTEST RESULT nvval:$1 $2 ${3:-0}"; }

skip_all() {	# reason
	echo "NVVAL skip=$1"
	result all 77
	exit 0
}


# the nsid of namespace name $1 in KTEST_VALUE_NS ("nsid:name ...")
ns_id() {	# name
	for e in $KTEST_VALUE_NS; do
		[ "${e#*:}" = "$1" ] && echo "${e%%:*}" && return 0
	done
	return 1
}

[ -n "$KTEST_VALUE_NS" ] || skip_all "no value namespaces in this guest (KTEST_VALUE_NS=0)"
[ -x "$fio" ] || skip_all "no second fio in the guest (ktest.sh KTEST_FIO2: fio 3.41 built by tools/fio-build.sh)"
[ -f "$engine" ] || skip_all "no engine built for $($fio --version) in the guest"
wait_value_ns 1 >/dev/null || skip_all "no NVMe controller of serial hugebufval"
echo "NVVAL $($fio --version) engine=$engine namespaces:" $(for e in $KTEST_VALUE_NS; do
	d=$(value_ns "${e%%:*}") || d=none
	echo "${e#*:}=$d(blk=$([ -b "/dev/$d" ] && cat "/sys/block/$d/size" || echo none))"
done)

# ---- counting the commands ----------------------------------------------------

trace=0
if [ -d "$EV" ] && echo 'qid != 0' >"$EV/filter" 2>/dev/null; then
	echo 0 >$T/tracing_on
	echo 4096 >$T/buffer_size_kb
	echo 1 >"$EV/enable" && trace=1
fi
[ $trace = 1 ] || echo "NVVAL no nvme_setup_cmd tracepoint: commands per I/O not counted"

trace_start() {
	[ $trace = 1 ] || return 0
	echo >$T/trace
	echo 1 >$T/tracing_on
}

# "COMMANDS OPS": the I/O commands since trace_start (zone management
# left out) and their opcodes, name:count (a read or write with FUA set
# gets "+fua": control bit 14)
trace_stop() {
	[ $trace = 1 ] || { echo "- -"; return 0; }
	echo 0 >$T/tracing_on
	grep ' nvme_setup_cmd:' $T/trace | awk '{
		op = $0; sub(/.*cmd=\(/, "", op); sub(/[ )].*/, "", op)
		sub(/^nvme_cmd_/, "", op)
		c = $0
		if (sub(/.*ctrl=0x/, "", c)) {
			sub(/,.*/, "", c)
			if (length(c) >= 4 &&
			    index("4567cdef", substr(c, length(c) - 3, 1)))
				op = op "+fua"
		}
		k[op]++
		# the zbd layer of fio resets and reports zones itself, whatever
		# the engine: listed, not counted per I/O
		if (op !~ /^zone_mgmt/) n++ }
		END { s = ""; for (o in k) s = s (s == "" ? "" : ",") o ":" k[o]
			printf "%d %s\n", n, s == "" ? "-" : s }'
}

# ---- one fio run -------------------------------------------------------------

# the outcome of a fio run from its exit status, output and JSON (see
# the header)
outcome() {	# rc, output, json
	[ "$1" = 0 ] && { echo ok; return; }
	# the device's answer: fio's io_uring_cmd says "sct=0x00; sc=0x02",
	# the engine "(SCT 0, SC 0x02)": both as nvme:SCT/SC
	s=$(grep -m1 -o -E 'sct=0x[0-9a-f]+; sc=0x[0-9a-f]+|SCT [0-9]+, SC 0x[0-9a-f]+' "$2" |
		sed -E 's/sct=0x0*([0-9a-f]+); sc=/\1 /; s/SCT ([0-9]+), SC /\1 /')
	if [ -n "$s" ]; then
		echo "nvme:${s% *}/${s#* }"
		return
	fi
	l=$(grep -m1 'io_u error' "$2")
	if [ -n "$l" ]; then
		echo "io:$(echo "$l" | sed 's/^[^:]*: [^:]*: //; s/: [a-z]* offset=.*//' | tr ' ' _)"
		return
	fi
	e=$(grep -o '"error" : [0-9]*' "$3" 2>/dev/null | head -n 1 | awk '{ print $3 }')
	if [ -n "$e" ] && [ "$e" != 0 ]; then
		echo "err=$e"
		return
	fi
	echo refused
}

# the I/Os fio counted (read, write and trim)
total_ios() {	# json
	grep -o '"total_ios" : [0-9]*' "$1" 2>/dev/null |
		awk '{ n += $3 } END { print n + 0 }'
}

# the writes fio counted (the second of read, write and trim)
write_ios() {	# json
	grep -o '"total_ios" : [0-9]*' "$1" 2>/dev/null | sed -n 2p |
		awk '{ print $3 + 0 }'
}

# the bytes fio counted as moved (read, write and trim)
total_bytes() {	# json
	grep -o '"io_bytes" : [0-9]*' "$1" 2>/dev/null |
		awk '{ n += $3 } END { print n + 0 }'
}

# the line of a run's output that says why it stopped: the first of fio's
# or the engine's lines that names an error or a refusal (the engine's
# notes on what it set up come before it), else the first of theirs
why_line() {	# output
	l=$(grep -m1 -E '^(fio|hugebuf): .*([Ee]rror|fail|refus|needs|cannot|does not|must| use )' "$1")
	[ -n "$l" ] || l=$(grep -m1 -E '^(fio|hugebuf): ' "$1")
	echo "$l"
}

# run fio quietly: exit status in $frc, its output in $fout
fio_run() {	# tag, options...
	tag=$1
	shift
	fout=/tmp/nvval-$tag.out
	fjson=/tmp/nvval-$tag.json
	rm -f "$fjson"
	timeout "$tmo" "$fio" --output-format=json --output="$fjson" \
		"$@" </dev/null >"$fout" 2>&1
	frc=$?
}

# md5 of the region (offset, bytes) read through the block device, or "-"
# without one; "read-error" when the device refuses the read
region_md5() {	# disk, offset, size
	[ -b "/dev/$1" ] && [ "$(cat "/sys/block/$1/size")" != 0 ] ||
		{ echo -; return; }
	echo 3 >/proc/sys/vm/drop_caches
	dd if="/dev/$1" bs=65536 skip=$(($2 / 65536)) count=$(($3 / 65536)) \
		2>/dev/null | md5sum | cut -c1-12
	# a read error ends dd early: its md5 is of fewer bytes, so both
	# engines' regions still compare
}

# the engine's own refusal (its one line, or fio's for an ops flag the
# engine lacks), not the kernel's or the device's
own_refusal() {	# outcome, first line of its output
	case $1 in refused | err=*) ;; *) return 1 ;; esac
	echo "$2" | grep -q -E '^hugebuf: |^fio: engine does not support' &&
		! echo "$2" | grep -q -E 'NVMe status|the kernel refused'
}

# ---- the cases -----------------------------------------------------------------

# case NAME NS DEV PREP POST OPTIONS...
#   NS    the namespace's name (VALUE_NS_TAB in kboot.sh)
#   DEV   ng: io_uring_cmd on its generic char device (ours: cmd_type=nvme);
#         blk: io_uring on its block device (ours: plain), O_DIRECT;
#         blk-plain: the same without registered buffers (fixedbufs)
#   PREP  -: nothing; fill: the region written with a pattern first by
#         fio's io_uring_cmd (so that zeroes, trims and Write Uncorrectable
#         change something, and both engines start from the same bytes)
#   POST  md5: the region's bytes after each engine must be the same;
#         xread:OPTS: fio's engine reads back what ours wrote with OPTS
#         (the PI checks), which must succeed; -: fio's verify only
run_case() {
	name=$1 ns=$2 dev=$3 prep=$4 post=$5
	shift 5
	s0=$(date +%s)
	echo "@@KTEST RUN nvval:$name"
	id=$(ns_id "$ns") && d=$(value_ns "$id") || {
		echo "NVVAL case=$name ns=$ns result=skip skip=no namespace $ns in this guest"
		result "$name" 77
		return
	}
	ng=/dev/ng${d#nvme}
	# registered buffers, O_DIRECT on the block device (the generic char
	# device takes no O_DIRECT: fio's io_uring_cmd refuses it)
	common="--fixedbufs --thread"
	case $dev in
	ng)	file=$ng fe=io_uring_cmd ours="--cmd_type=nvme" ;;
	blk)	file=/dev/$d fe=io_uring ours= common="$common --direct=1" ;;
	blk-plain)
		# said for both: fio's io_uring has fixedbufs off by default,
		# the engine on
		file=/dev/$d fe=io_uring ours=
		common="--thread --direct=1 --fixedbufs=0" ;;
	esac
	if [ ! -e "$file" ] || { [ $dev != ng ] &&
	   [ "$(cat "/sys/block/$d/size")" = 0 ]; }; then
		why="the kernel gives $ns ($d) no $([ $dev = ng ] && echo generic device || echo block device)"
		[ $dev != ng ] && [ -d "/sys/block/$d" ] &&
			why="the kernel gives $ns ($d) no capacity: a format or command set its block layer does not take (metadata without integrity support, zones without CONFIG_BLK_DEV_ZONED)"
		echo "NVVAL case=$name ns=$ns result=skip skip=$why"
		result "$name" 77
		return
	fi
	for e in fio hugebuf; do
		if [ $prep = fill ]; then
			fio_run prep --name=prep --filename="$ng" \
				--ioengine=io_uring_cmd --rw=write --bs=64k \
				--iodepth=4 --offset="$OFF" --size="$SIZE" \
				--buffer_pattern=0xa5a5a5a5
			[ $frc = 0 ] || { echo "NVVAL prep failed:"; cat "$fout"; }
		fi
		if [ $e = fio ]; then
			eng="--ioengine=$fe"
			nofix=
			[ "$fio_fixed" = 1 ] || nofix=--fixedbufs=0
		else
			eng="--ioengine=external:$engine $ours" nofix=
		fi
		trace_start
		# shellcheck disable=SC2086
		fio_run $e --name="nvval-$name" --filename="$file" $eng \
			$common $nofix "$@"
		cmds=$(trace_stop)
		cat "$fout"
		out=$(outcome $frc "$fout" "$fjson")
		ios=$(total_ios "$fjson")
		bytes=$(total_bytes "$fjson")
		n=${cmds%% *}
		per=-
		[ "$n" != - ] && [ "$ios" -gt 0 ] &&
			per=$(awk -v n="$n" -v i="$ios" 'BEGIN { printf "%.2f", n / i }')
		eval "out_$e=\$out per_$e=\$per ops_$e=\${cmds#* } ios_$e=\$ios"
		eval "cmds_$e=\$n bytes_$e=\$bytes"
		eval "line_$e=\$(why_line \"\$fout\")"
		# the model's line and the report's count of such writes
		said=0
		[ -n "$model_line" ] && grep -q -F "$model_line" "$fout" &&
			said=1
		eval "said_$e=\$said"
		eval "unreg_$e=\$(sed -n 's/.*atomic writes: \([0-9]*\) sent unregistered.*/\1/p' \"\$fout\" | head -n 1)"
		eval "wios_$e=\$(write_ios \"\$fjson\")"
		data=-
		case $post in
		md5)	data=$(region_md5 "$d" "$OFF" "$SIZE") ;;
		xread:*)
			if [ $e = hugebuf ] && [ "$out" = ok ]; then
				# shellcheck disable=SC2086
				# no O_DIRECT: the generic char device
				# takes none (fio's io_uring_cmd refuses it)
				fio_run xread --name=xread --filename="$ng" \
					--ioengine=io_uring_cmd \
					--fixedbufs "$@" ${post#xread:}
				data=$(outcome $frc "$fout" "$fjson")
				[ "$data" = ok ] || cat "$fout"
			fi ;;
		esac
		eval "data_$e=\$data"
	done
	res=ok why= cmp=io expect=
	# both ok but not the same bytes moved (fio's engine counted I/Os it
	# did not do, docs/known-issues.md): commands per byte, not per I/O
	[ "$out_fio" = ok ] && [ "$out_hugebuf" = ok ] &&
		[ "$bytes_fio" != "$bytes_hugebuf" ] && [ "$bytes_fio" -gt 0 ] &&
		[ "$bytes_hugebuf" -gt 0 ] && cmp=byte
	if [ -n "$model_diff" ] && [ "$out_fio" = "${model_diff%% *}" ] &&
	   [ "$out_hugebuf" = "$(echo "$model_diff" | cut -d' ' -f2)" ]; then
		expect=model
		why="$(echo "$model_diff" | cut -d' ' -f3-)"
		if [ "$said_hugebuf" != 1 ]; then
			res=fail why="the outcomes the model predicts, but the engine did not say '$model_line'"
		elif [ "$unreg_hugebuf" != "$wios_hugebuf" ]; then
			res=fail why="the report counts ${unreg_hugebuf:-no} unregistered writes, fio $wios_hugebuf writes"
		fi
	elif [ "$out_fio" != "$out_hugebuf" ] && own_refusal "$out_hugebuf" "$line_hugebuf"; then
		res=skip why="the engine refuses it by itself where fio's engine gives $out_fio: $line_hugebuf"
	elif [ -n "$fio_bug" ] && [ "$out_fio" = "${fio_bug%% *}" ] &&
	     [ "$out_hugebuf" != "$out_fio" ]; then
		res=skip why="fio's engine's own bug, ours $out_hugebuf: ${fio_bug#* }"
	elif [ "$out_fio" != "$out_hugebuf" ]; then
		res=fail why="outcomes differ"
	elif [ "$data_fio" != "$data_hugebuf" ] && [ "${post%%:*}" = md5 ]; then
		res=fail why="the region's bytes differ"
	elif [ "${post%%:*}" = xread ] && [ "$out_hugebuf" = ok ] &&
	     [ "$data_hugebuf" != ok ]; then
		res=fail why="fio's engine could not read back what ours wrote"
	elif [ $cmp = io ] && [ "$per_fio" != - ] && [ "$per_hugebuf" != - ] &&
	     awk -v a="$per_hugebuf" -v b="$per_fio" 'BEGIN { exit !(a > b) }'; then
		res=fail why="more commands per I/O than fio's engine"
	elif [ $cmp = byte ] && [ "$per_fio" != - ] && [ "$per_hugebuf" != - ] &&
	     awk -v a="$cmds_hugebuf" -v b="$bytes_hugebuf" \
		 -v c="$cmds_fio" -v d="$bytes_fio" 'BEGIN { exit !(a * d > c * b) }'; then
		res=fail why="more commands per byte than fio's engine"
	fi
	[ "$out_fio" = "$out_hugebuf" ] && [ "$out_fio" = refused ] &&
		why="both refused: fio's engine: $line_fio; ours: $line_hugebuf"
	echo "NVVAL case=$name ns=$ns dev=$dev" \
		"fio=$out_fio/$per_fio/$ops_fio" \
		"hugebuf=$out_hugebuf/$per_hugebuf/$ops_hugebuf" \
		"data=$data_fio/$data_hugebuf" \
		"$([ $cmp = byte ] && echo "cmds=per-byte bytes=$bytes_fio/$bytes_hugebuf ")${expect:+expect=$expect }result=$res${why:+ why=$why}"
	case $res in
	ok) rc=0 ;;
	skip) rc=77; echo "NVVAL case=$name skip=$why" ;;
	*) rc=1 ;;
	esac
	result "$name" $rc $(($(date +%s) - s0))
}

# the same region for both engines of a case: $OFF and $SIZE, also the
# fio options' offset and size
region() {	# offset, size
	OFF=$1 SIZE=$2
}

fio_fixed=1
fio_bug=
model_diff=
model_line=
V="--verify=pattern --verify_pattern=0x5aa55aa5 --do_verify=1"
PI="--pi_act=0 --pi_chk=GUARD,REFTAG,APPTAG --apptag=0x1234 --apptag_mask=0xffff"
PI3="--pi_act=0 --pi_chk=GUARD,APPTAG --apptag=0x1234 --apptag_mask=0xffff"
Z=$((1024 * 1024))

# plain namespace, 4 KiB LBAs, no metadata: one MiB of its own per case
region 0 $Z
run_case fua-write plain ng - md5 --offset=0 --size=1m --rw=write --bs=64k \
	--iodepth=4 --writefua=1 $V
region $Z $Z
run_case fua-read plain ng - md5 --offset=1m --size=1m --rw=write --bs=64k \
	--iodepth=4 --readfua=1 $V
# fio 3.41's io_uring_cmd sets IORING_URING_CMD_FIXED on every command
# with fixedbufs, also on those whose payload is none of the registered
# buffers (Write Zeroes: none; DSM: its range list), which the kernel
# answers EFAULT: its side of these cases runs without fixedbufs.
# Its Write Zeroes carries no address but the I/O's length as data_len
# (fio_nvme_uring_cmd_prep()): 6.1's nvme_uring_cmd_io() maps a buffer
# only when both are set, 7.3's whenever data_len is, and pins address 0
fio_fixed=0
fio_bug="io:Bad_address fio 3.41's io_uring_cmd sends Write Zeroes with no address and data_len of the I/O's length, which this kernel maps (EFAULT; docs/known-issues.md)"
region $((2 * Z)) $Z
run_case zeroes plain ng fill md5 --offset=2m --size=1m --rw=write --bs=64k \
	--iodepth=4 --write_mode=zeroes
region $((3 * Z)) $Z
run_case zeroes-deac plain ng fill md5 --offset=3m --size=1m --rw=write \
	--bs=64k --iodepth=4 --write_mode=zeroes --deac=1
fio_fixed=1
fio_bug=
region $((4 * Z)) $Z
run_case uncor plain ng fill md5 --offset=4m --size=1m --rw=write --bs=64k \
	--iodepth=4 --write_mode=uncor
region $((5 * Z)) $Z
run_case verify plain ng fill md5 --offset=5m --size=1m --rw=write --bs=64k \
	--iodepth=4 --write_mode=verify
region $((6 * Z)) $Z
run_case compare plain ng - md5 --offset=6m --size=1m --rw=write --bs=64k \
	--iodepth=4 --verify_mode=compare $V
# RWF_ATOMIC of one LBA: qemu 7.2 reports AWUPF 0, one block atomic;
# with registered buffers for both (fio's WRITE_FIXED is an ITER_BVEC,
# which generic_atomic_write_valid() refuses with EINVAL from 6.11: only
# user memory may be written atomically, lib's model atomic_ubuf_only;
# the engine, told so by the model, writes IORING_OP_WRITE from the same
# buffers, fio's verify checking them) and from plain ones (fixedbufs=0
# for both engines: fio's default, not the engine's).  Where the kernel
# has no RWF_ATOMIC (6.1) both get EOPNOTSUPP, judged as usual.
model_diff="io:Invalid_argument ok fio's WRITE_FIXED is refused EINVAL (RWF_ATOMIC takes only user memory: generic_atomic_write_valid(), 6.11+); the engine writes IORING_OP_WRITE from its registered buffers as the model says"
model_line="atomic writes go unregistered"
region $((7 * Z)) $Z
run_case atomic plain blk - md5 --offset=7m --size=1m --rw=write --bs=4k \
	--iodepth=4 --atomic=1 $V
model_diff=
model_line=
run_case atomic-plain plain blk-plain - md5 --offset=7m --size=1m \
	--rw=write --bs=4k --iodepth=4 --atomic=1 $V
# Dataset Management of 4 ranges per command through passthrough, and
# one range per BLOCK_URING_CMD_DISCARD on the block device (6.12+; both
# engines fall back to BLKDISCARD where the kernel refuses it, fio's
# counting the trims it had in flight then as done with no bytes: the
# commands are compared per byte there)
fio_fixed=0
region $((8 * Z)) $Z
run_case trim-ranges plain ng fill md5 --offset=8m --size=1m --rw=trim \
	--bs=64k --iodepth=4 --num_range=4
fio_fixed=1
region $((9 * Z)) $Z
run_case trim plain blk-plain fill md5 --offset=9m --size=1m --rw=trim \
	--bs=64k --iodepth=4

# PI: the host generates the tags (pi_act=0: fio, and the engine with
# lib's hb_pi_fill()), the device checks them on write and read (pi_chk),
# the host checks them again on read; separate metadata with fio's
# verify of the data; extended LBAs, where fio's verify and PI share the
# buffer, written and then read back with the checks
# PI type $1 with separate metadata ($2 bytes per 16 KiB: 4 LBAs) and
# with extended LBAs (4 of $3 bytes per I/O), 32 I/Os each, with the
# PI options $5; case names end in $4
pi_cases() {	# type, md bytes per 16 KiB, extended 4-LBA block, suffix, PI
	run_case "pi$1-sep$4" "pi$1sep" ng - \
		xread:"--rw=read --offset=0 --size=512k --bs=16k --md_per_io_size=$2 $5 $V" \
		--offset=0 --size=512k --rw=write --bs=16k --iodepth=4 \
		--md_per_io_size="$2" $5 $V
	run_case "pi$1-ext$4" "pi$1ext" ng - \
		xread:"--rw=read --offset=0 --size=$(($3 * 32)) --bs=$3 $5" \
		--offset=0 --size=$(($3 * 32)) --rw=write --bs="$3" --iodepth=4 $5
}
region 0 0
pi_cases 1 32 16416 "" "$PI"
pi_cases 3 64 16640 "" "$PI"
# type 3 has no reference tag to check (the device answers REFTAG with
# Invalid Protection Information, SCT 1 SC 0x81): the guard and the
# application tag, the tuple first in 16 and 64 bytes of metadata
pi_cases 3 64 16640 -ga "$PI3"
# the controller inserts and strips the tags (PRACT): the metadata is
# all PI, so no metadata buffer
run_case pi1-act pi1sep ng - - --offset=1m --size=512k --rw=write \
	--bs=16k --iodepth=4 --pi_act=1 --pi_chk=GUARD,REFTAG $V
# metadata with plain io_uring reads and writes (IORING_RW_ATTR_FLAG_PI,
# 6.14+) on the block device
run_case pi1-uring pi1sep blk - - --offset=2m --size=512k --rw=write \
	--bs=16k --iodepth=4 --md_per_io_size=32 --pi_chk=GUARD,REFTAG,APPTAG \
	--apptag=0x1234 --apptag_mask=0xffff $V
# the same with the host's tuples (pi_act=0), types 1 and 3, read back by
# fio's io_uring_cmd with the checks
run_case pi1-uring-host pi1sep blk - \
	xread:"--rw=read --offset=3m --size=512k --bs=16k --md_per_io_size=32 $PI $V" \
	--offset=3m --size=512k --rw=write --bs=16k --iodepth=4 \
	--md_per_io_size=32 $PI $V
run_case pi3-uring-host pi3sep blk - \
	xread:"--rw=read --offset=3m --size=512k --bs=16k --md_per_io_size=64 $PI3 $V" \
	--offset=3m --size=512k --rw=write --bs=16k --iodepth=4 \
	--md_per_io_size=64 $PI3 $V

# zoned: two 8 MiB zones written sequentially, fio resetting them first
region 0 $((16 * Z))
run_case zbd zoned blk - md5 --zonemode=zbd --offset=0 --size=16m \
	--rw=write --bs=64k --iodepth=1 $V
run_case zbd-cmd zoned ng - md5 --zonemode=zbd --offset=0 --size=16m \
	--rw=write --bs=64k --iodepth=1 $V
if "$fio" --enghelp=io_uring_cmd 2>/dev/null | grep -q zone_append; then
	run_case zone-append zoned ng - md5 --zonemode=zbd --offset=0 \
		--size=16m --rw=write --bs=64k --iodepth=1 \
		--write_mode=zone_append $V
else
	echo "@@KTEST RUN nvval:zone-append"
	echo "NVVAL case=zone-append ns=zoned result=skip skip=$($fio --version) has no write_mode=zone_append"
	result zone-append 77
fi

if [ $trace = 1 ]; then
	echo 0 >"$EV/enable"
	echo 0 >"$EV/filter"
	echo >$T/trace
	echo 1408 >$T/buffer_size_kb
	echo 1 >$T/tracing_on
fi
exit 0
