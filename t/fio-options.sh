#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: the option table differs between fio releases
#
# The engine's ring and submission options, each under fio verify so the
# data is checked, not just the return codes: registerfiles, sqpoll,
# chunk_size (pieces submitted together, io_u completes when all did),
# fixedbufs=0, defer_taskrun=0, 4k buffers scattered on purpose
# (contig=scattered) and left for the registration to fault in
# (contig=pin, a read job: the report must have probed its frames after
# the registration), numjobs > 1, rw mixes with bssplit, several
# files, time_based.  Latency figures must be filled in (issue time set).
# Built for fio 3.41: its NVMe command options, refused by name on plain
# files (they are passthrough's), the PI options taken.
. "$(dirname "$0")/_fio-lib.sh"
t_require

t_need_hugepages 64

cat >"$T_DIR/opts.fio" <<EOF
[global]
ioengine=external:$HUGEBUF_ENGINE
directory=$T_DIR
direct=1
rw=randwrite
bs=128K
size=8M
iodepth=8
verify=crc32c
do_verify=1
verify_fatal=1
stonewall

[registerfiles]
registerfiles

[sqpoll]
sqpoll

[chunk-16k]
chunk_size=16K
bs=1M
size=16M

[chunk-region-odd]
layout=region
chunk_size=12K
bs=2052K
size=16M

[fixedbufs-0]
fixedbufs=0

[4k-scattered]
backing=4k
contig=scattered

[4k-pin]
backing=4k
contig=pin
rw=randread
verify=0
do_verify=0

[defer-taskrun-0]
defer_taskrun=0

[numjobs-2]
numjobs=2

[bssplit-randrw]
rw=randrw
bssplit=4K/40:64K/40:1M/20
verify=md5

[three-files]
nrfiles=3
size=12M
registerfiles

[time-based]
rw=randrw
verify=0
do_verify=0
time_based
runtime=1
EOF

# sections minus [global], plus the second numjobs clone
njobs=$(grep -c "^\\[" "$T_DIR/opts.fio")
if t_fio opts "$T_DIR/opts.fio"; then
	t_ok "fio ran $njobs option jobs"
else
	fail "fio exited non-zero:"
	grep -h 'hugebuf\|err=\|verify' "$T_DIR/opts.err" "$T_DIR/opts.json" |
		head -8
fi
t_check "$njobs option jobs: no error, bytes moved" \
	$T_CHECK run "$T_DIR/opts.json"
t_check "$njobs option jobs: report lines agree with hugebuf plan" \
	$T_CHECK report "$T_DIR/opts.report" "$njobs"

# verify jobs read back all they wrote; every job has completion latencies
t_check "verify jobs read back all they wrote, latencies filled in" \
	$T_CHECK verify-lat "$T_DIR/opts.json"

# fio 3.41's options (an engine built for it lists them): a field of NVMe
# commands asked of plain reads and writes is refused by name, the PI
# options are taken without effect and cmdprio_hint goes to fio's cmdprio
# code
if ! "$FIO" --enghelp="$HUGEBUF_ENGINE" 2>/dev/null | grep -q '^readfua'; then
	t_skip_check "fio 3.41's options: this engine is built for $("$FIO" --version), which has none (tools/fio-build.sh --check runs them)"
else
	J="--ioengine=external:$HUGEBUF_ENGINE --directory=$T_DIR --direct=1 --size=4M --bs=128K"
	for o in readfua=1 writefua=1 write_mode=zeroes write_mode=uncor \
		verify_mode=compare deac=1 md_per_io_size=8; do
		t_run_job "$T_DIR/x41.out" "$FIO" --name=x41 $J --rw=write \
			--"$o"
		t_expect_refused "$T_DIR/x41.out" "$T_RC" "${o%%=*}" \
			"fio 3.41 option $o"
	done
	t_run_job "$T_DIR/pi.out" "$FIO" --name=pi $J --rw=write \
		--verify=crc32c --do_verify=1 --verify_fatal=1 --pi_act=0 \
		--pi_chk=GUARD --apptag=0x10 --apptag_mask=0xff00 \
		--write_mode=write --verify_mode=read --cmdprio_hint=0
	if [ "$T_RC" = 0 ] && [ -z "$(t_engine_errors "$T_DIR/pi.out")" ]; then
		t_ok "fio 3.41's PI options and the default modes run a verified job"
	else
		fail "fio 3.41's PI options: exit $T_RC"
		head -5 "$T_DIR/pi.out" | sed 's/^/    /'
	fi
fi
t_done
