#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Faults: short reads at the end of a file, and a file truncated under a
# running job.
#  1. EOF: a 6 MiB file (fio crc32c headers) is cut to 5 MiB + 100 KiB
#     during the job's start delay, after fio sized it.  The read at 5 MiB
#     comes back short: fio must count one short I/O, no error, and the
#     five whole blocks must verify.
#  2. Truncation: a time-based random read job over 64 MiB; once the job
#     has registered its buffers the file is cut to 4 MiB.  Reads beyond
#     the new end return 0 bytes.  Expected: the job ends by itself
#     (runtime or a clean error from fio), no hang, and the hugepage pool
#     is back to its baseline.  What fio made of it is printed: fio 3.33
#     counts reads past the new end as done, with no error and no short
#     I/O, for its built-in io_uring engine (fixedbufs) as for this one.
. "$(dirname "$0")/_fio-lib.sh"

t_need_engine
t_need_cmd python3 pgrep truncate
t_tmpdir cd
t_baseline
data=$T_DIR/data

# --- 1. short read at EOF ---
"$FIO" --name=layout --filename="$data" --size=6M --rw=write --bs=1M \
	--verify=crc32c --do_verify=0 --output=/dev/null >/dev/null 2>&1 ||
	t_fail_now "cannot create $data"
out=$T_DIR/eof.out
timeout -k 5 60 "$FIO" --name=eof --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=6M --bs=1M --iodepth=2 --direct=1 \
	--rw=read --verify=crc32c --verify_fatal=1 --startdelay=2 \
	--output-format=json --output="$out" >"$out.err" 2>&1 &
pid=$!
sleep 1
truncate -s $((5 * 1048576 + 102400)) "$data"
wait $pid
rc=$?
set -- $(t_fio_result "$out")
if [ $rc -ge 124 ]; then
	fail "short read at EOF: the job hung (exit $rc)"
elif [ $rc != 0 ] || [ "$1" != 0 ]; then
	fail "short read at EOF: exit $rc, fio error ${1:-none}: $(tail -n 3 "$out.err")"
elif [ "${6:-0}" -lt 1 ]; then
	fail "short read at EOF: fio counted no short read (result $*)"
elif [ "$2" -lt $((5 << 20)) ] || [ "$2" -gt $((5 * 1048576 + 102400)) ]; then
	fail "short read at EOF: $2 bytes read, wanted 5 MiB .. 5 MiB + 100 KiB"
else
	t_ok "EOF: exit 0, $4 reads, $6 short, $2 bytes read, whole blocks verified"
fi

# --- 2. truncated under a running job ---
"$FIO" --name=layout --filename="$data" --size=64M --rw=write --bs=1M \
	--output=/dev/null >/dev/null 2>&1 || t_fail_now "cannot create $data"
out=$T_DIR/trunc.out
timeout -k 5 60 "$FIO" --name=trunc --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=64M --bs=1M --iodepth=4 --direct=1 \
	--rw=randread --time_based --runtime=3 --output-format=json \
	--output="$out" >"$out.err" 2>&1 &
pid=$!
t_atexit "kill $pid"
main=$(t_child_of $pid) || t_fail_now "fio did not start"
t_pinned_child "$main" >/dev/null ||
	t_fail_now "the job never registered its buffers: $(cat "$out.err")"
sleep 0.5
truncate -s 4M "$data"
wait $pid
rc=$?
set -- $(t_fio_result "$out")
if [ $rc -ge 124 ]; then
	fail "truncated under the job: it hung (exit $rc)"
elif [ "$1" = none ]; then
	fail "truncated under the job: no fio result (exit $rc): $(tail -n 3 "$out.err")"
else
	t_ok "truncated to 4 MiB mid-job: exit $rc, fio error $1, $4 reads ($6 short), $2 bytes"
	[ $rc = 0 ] || grep -m1 -E 'err=|error' "$out.err" | sed 's/^/    fio: /'
fi
t_check_baseline "after the truncation"
t_done
