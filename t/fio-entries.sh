#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: the reference is that release's own io_uring engine
#
# Kernel entries per I/O: the engine must not call io_uring_enter() more
# often than fio's own io_uring engine in its best configuration
# (fixedbufs, registerfiles, mem=shmhuge) for the same I/Os.  Counted with
# strace -f on a fixed number_ios of O_DIRECT random reads, both engines on
# the same file: counts, not times.  Points: 4 KiB at iodepth 1, 16 and
# 32, 128 KiB and 8 MiB at iodepth 16.  The engine runs with its defaults
# (DEFER_TASKRUN) plus registerfiles, and with defer_taskrun=0.  Ours
# are its entries on its own ring: lib's kernel behaviour probe makes one
# more per process at start-up, on a ring of its own (shown, not compared).
#
# Then the paths the shared entries changed, each under fio verify so the
# data is checked: a submission that waits in the same entry (iodepth 1,
# a full queue, iodepth_batch_complete_min > 1 with chunk_size pieces), a
# reap that must not wait (iodepth_batch_complete_min=0, with and without
# DEFER_TASKRUN), pieces that fill the SQ (FIO_Q_BUSY), SQPOLL with pieces,
# verify_async (io_us held outside the engine), and a time_based end; and
# mixed rw jobs whose chunk_size pieces pile up past iodepth (t/soak.py).
. "$(dirname "$0")/_fio-lib.sh"
t_require
t_need_cmd strace timeout awk

t_need_hugepages 160
t_baseline

data=$T_DIR/data
"$FIO" --name=layout --filename="$data" --size=256M --rw=write --bs=1M \
	--direct=1 --refill_buffers --output=/dev/null >/dev/null 2>&1 ||
	t_fail_now "cannot write $data"

BUILTIN="--ioengine=io_uring --fixedbufs=1 --registerfiles=1 --mem=shmhuge"
OURS="--ioengine=external:$HUGEBUF_ENGINE --registerfiles=1"

# entries NAME FIO-ARGS...: random reads of $data under strace -f; prints
# "ALL RING IOS": every io_uring_enter call of the fio process, those on
# a registered ring fd (the engine's I/O ring; lib's one-off kernel
# behaviour probe at start-up uses a ring of its own and a plain fd), and
# the reads fio completed.  Nothing when fio failed.
entries() {
	e_n=$1
	shift
	if ! timeout -k 10 300 strace -f -e trace=io_uring_enter \
		-o "$T_DIR/$e_n.strace" "$FIO" --thread --name="$e_n" \
		--filename="$data" --direct=1 --norandommap --randrepeat=0 \
		--rw=randread --output-format=json \
		--output="$T_DIR/$e_n.json" "$@" \
		>"$T_DIR/$e_n.out" 2>"$T_DIR/$e_n.err"; then
		sed 's/^/    /' "$T_DIR/$e_n.err" | head -5
		return
	fi
	# a call interrupted by another thread's line ends in a
	# "<... io_uring_enter resumed>" line: count the starts only
	e_all=$(grep -c 'io_uring_enter(' "$T_DIR/$e_n.strace")
	e_ring=$(grep 'io_uring_enter(' "$T_DIR/$e_n.strace" |
		grep -c 'IORING_ENTER_REGISTERED_RING')
	e_ios=$(python3 -c 'import json, sys
t = sys.stdin.read()
j = json.loads(t[t.find("{"):])
print(sum(x["read"]["total_ios"] for x in j["jobs"]))' <"$T_DIR/$e_n.json")
	echo "$e_all $e_ring $e_ios"
}

# idle NAME: entries of run NAME that neither submit nor wait
# (io_uring_enter(fd, to_submit 0, min_complete 0, ...))
idle() {
	grep -cE 'io_uring_enter\([0-9]+, 0, 0,' "$T_DIR/$1.strace"
}

# point NAME FIO-ARGS...: built-in, ours (defaults), ours defer_taskrun=0.
# fio 3.33's engine has no registered ring fd: all its entries are its
# ring's.  Ours must make no more entries on its I/O ring than the
# built-in makes in all, and none that only finds the ring empty.
point() {
	p_n=$1
	shift
	p_bi=$(entries "$p_n-builtin" $BUILTIN "$@")
	p_hb=$(entries "$p_n-hugebuf" $OURS "$@")
	p_d0=$(entries "$p_n-dt0" $OURS --defer_taskrun=0 "$@")
	if [ -z "$p_bi" ] || [ -z "$p_hb" ] || [ -z "$p_d0" ]; then
		fail "$p_n: fio failed (built-in '$p_bi', hugebuf '$p_hb', defer_taskrun=0 '$p_d0')"
		return
	fi
	set -- $p_bi $p_hb $p_d0
	t_info "$p_n: io_uring_enter calls (all, I/O ring) / I/Os: built-in $1/$3, hugebuf ($4, $5)/$6, defer_taskrun=0 ($7, $8)/$9"
	if [ "$3" != "$6" ] || [ "$3" != "$9" ] || [ "$3" = 0 ]; then
		fail "$p_n: the engines did different numbers of I/Os ($3, $6, $9)"
		return
	fi
	if [ "$5" = 0 ] || [ "$8" = 0 ]; then
		fail "$p_n: no entry on a registered ring fd: the engine did not register its ring (5.18+), cannot tell its I/O ring's entries"
		return
	fi
	if [ "$5" -le "$1" ]; then
		t_ok "$p_n: hugebuf $5 entries <= built-in $1 for $3 I/Os"
	else
		fail "$p_n: hugebuf entered the kernel $5 times, built-in $1, for $3 I/Os"
	fi
	if [ "$8" -le "$1" ]; then
		t_ok "$p_n: defer_taskrun=0 $8 entries <= built-in $1"
	else
		fail "$p_n: defer_taskrun=0 entered the kernel $8 times, built-in $1, for $3 I/Os"
	fi
	p_idle=$(($(idle "$p_n-hugebuf") + $(idle "$p_n-dt0")))
	if [ "$p_idle" = 0 ]; then
		t_ok "$p_n: every entry submits or waits"
	else
		fail "$p_n: $p_idle entries neither submitted nor waited:"
		grep -hE 'io_uring_enter\([0-9]+, 0, 0,' \
			"$T_DIR/$p_n-hugebuf.strace" "$T_DIR/$p_n-dt0.strace" |
			head -3
	fi
}

point 4k-qd1 --bs=4k --iodepth=1 --number_ios=1000
point 4k-qd16 --bs=4k --iodepth=16 --number_ios=4000
point 4k-qd32 --bs=4k --iodepth=32 --number_ios=8000
point 128k-qd16 --bs=128k --iodepth=16 --number_ios=2000
# 32 I/Os cover the 256 MiB file: four loops over it
point 8m-qd16 --bs=8m --iodepth=16 --number_ios=32 --loops=4

# --- the changed paths, data checked ---
cat >"$T_DIR/paths.fio" <<EOF
[global]
ioengine=external:$HUGEBUF_ENGINE
directory=$T_DIR
direct=1
rw=randwrite
bs=16K
size=8M
iodepth=16
verify=crc32c
do_verify=1
verify_fatal=1
stonewall

[qd1]
iodepth=1
bs=4K
size=2M

[bssplit-randrw]
rw=randrw
bssplit=4K/40:64K/40:256K/20
iodepth=32
size=16M
verify=md5

[batch-min4-chunks]
iodepth=8
iodepth_batch_submit=4
iodepth_batch_complete_min=4
iodepth_batch_complete_max=8
bs=64K
chunk_size=16K

[batch-min0]
iodepth_batch_complete_min=0

[batch-min0-dt0]
iodepth_batch_complete_min=0
defer_taskrun=0

[sq-full-pieces]
iodepth=4
bs=256K
chunk_size=16K
size=16M

[sqpoll-pieces]
sqpoll
bs=64K
chunk_size=16K

[verify-async]
verify_async=2
bs=64K
size=16M

[time-based]
rw=randrw
verify=0
do_verify=0
time_based
runtime=1
EOF

njobs=$(grep -c "^\\[" "$T_DIR/paths.fio")
njobs=$((njobs - 1))
if t_fio paths --thread "$T_DIR/paths.fio"; then
	t_ok "fio ran $njobs jobs on the changed paths"
else
	fail "fio exited non-zero:"
	grep -h 'hugebuf\|err=\|verify' "$T_DIR/paths.err" | head -8
fi
t_check "$njobs jobs: no error, bytes moved" \
	$T_CHECK run "$T_DIR/paths.json"
t_check "verify jobs read back all they wrote, latencies filled in" \
	$T_CHECK verify-lat "$T_DIR/paths.json"
# found by t/soak.py: fio 3.33 loses a mixed rw job's verify state when an
# io_u is sent back busy; the engine answered busy when the SQ could not
# hold an io_u's chunk_size pieces (iodepth_batch_submit > iodepth let
# them pile up).  Now the SQ holds every piece: the reads must verify.
for rw in rw randrw; do
	if t_fio busy-$rw --name=busy-$rw --ioengine=external:"$HUGEBUF_ENGINE" \
		--directory="$T_DIR" --direct=1 --rw=$rw --bs=16k --size=2M \
		--iodepth=2 --iodepth_batch_submit=4 --chunk_size=8k \
		--verify=xxhash --do_verify=1 --verify_fatal=1 \
		--randrepeat=0 &&
		! grep -q 'verify:' "$T_DIR/busy-$rw.err"; then
		t_ok "rw=$rw, chunk_size pieces, iodepth_batch_submit > iodepth: verified"
	else
		fail "rw=$rw, chunk_size pieces, iodepth_batch_submit > iodepth:"
		grep -h 'verify:\|hugebuf\|err=' "$T_DIR/busy-$rw.err" | head -4
	fi
done
t_check "busy-path jobs: no error, bytes moved" \
	$T_CHECK run "$T_DIR/busy-rw.json"
t_check_baseline "after every job"
t_done
