#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: the 2M pool runs dry while a job runs.  The engine allocates
# every buffer page at init (hb_alloc faults each folio in) and io_uring
# pins them at registration, so "mid-job" for this preallocated pool means
# after registration: another process that then takes every free hugepage
# cannot take the job's pages.  Expected: the running job is unaffected
# (no error, VmPin unchanged; afterwards a read pass verifies every block
# against fio's crc32c headers), a second job
# started while the pool is empty fails at init with one line naming
# nr_hugepages, and once the hog is gone HugePages_Free is back to its
# value before the test.
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it takes every free hugepage of the pool"
t_need_engine
t_need_cmd python3 pgrep
t_tmpdir cd
data=$T_DIR/data
"$FIO" --name=layout --filename="$data" --size=64M --rw=write --bs=1M \
	--verify=crc32c --do_verify=0 --output=/dev/null >/dev/null 2>&1 ||
	t_fail_now "cannot create $data"
[ "$(t_free_hugepages)" -ge 16 ] || skip "needs 16 free 2M hugepages, $(t_free_hugepages) free"
t_baseline

# The running job must outlive the hog and the late job: under load (a
# guest booting beside the suite) the late fio's start-up alone took most
# of an earlier 15 s, and the job had ended before its VmPin was read.
out=$T_DIR/job.out
timeout -k 5 150 "$FIO" --name=running --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=64M --bs=1M --iodepth=4 --direct=1 \
	--rw=randread --time_based --runtime=40 \
	--backing=hugetlb --output-format=json --output="$out" \
	>"$out.err" 2>&1 &
fio_pid=$!
t_atexit "kill $fio_pid"
main=$(t_child_of $fio_pid) || t_fail_now "fio did not start"
job=$(t_pinned_child "$main") ||
	t_fail_now "no job registered its buffers (VmPin 0): $(cat "$out.err")"
pinned=$(t_vmpin "$job")
t_info "job $job registered, VmPin $pinned kB, $(t_free_hugepages) pages free"

# the hog takes every free page and keeps taking the pages other processes
# free meanwhile (the pool is shared), so the late job finds none
t_hog all || t_fail_now "could not hold the free hugepages: $(cat "$T_DIR/hog.out")"
t_info "hog $T_HOG: $(cat "$T_DIR/hog.out"); free now $(t_free_hugepages)"

# a new job cannot get buffers now
out2=$T_DIR/late.out
timeout -k 5 60 "$FIO" --name=late --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=64M --bs=1M --iodepth=4 --direct=1 \
	--rw=randread --backing=hugetlb --output="$out2.fio" >"$out2" 2>&1
rc=$?
if [ $rc = 0 ] || [ $rc -ge 124 ]; then
	fail "a job started with the pool exhausted: exit $rc, wanted 1"
elif ! t_one_engine_error "$out2" nr_hugepages; then
	fail "a job started with the pool exhausted: wanted one line naming nr_hugepages: $T_ERRS"
else
	t_ok "late job: exit $rc: $T_ERRS"
fi

now=$(t_settle "$pinned" eq t_vmpin "$job")
if [ -z "$now" ]; then
	fail "the running job had ended before its VmPin was read: the fault came after it (raise its runtime)"
elif [ "$now" = "$pinned" ]; then
	t_ok "the running job's VmPin stayed at $pinned kB"
else
	fail "the running job's VmPin changed from $pinned to $now kB"
fi
wait $fio_pid
rc=$?
res=$(t_fio_result "$out")
set -- $res
if [ $rc != 0 ] || [ "$1" != 0 ]; then
	fail "the running job: exit $rc, fio error ${1:-?}: $(tail -n 5 "$out.err")"
elif [ "$2" -le 0 ]; then
	fail "the running job read nothing"
else
	t_ok "running job: exit 0, error 0, $2 bytes read in $4 I/Os"
fi
# the data path still delivers the right bytes (fio's crc32c headers),
# with the pool still held: the verify job needs its own pages, so it runs
# after the hog lets go of one folio's worth
kill $T_HOG 2>/dev/null
t_wait_gone $T_HOG 10
out3=$T_DIR/verify.out
timeout -k 5 120 "$FIO" --name=verify --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=64M --bs=1M --iodepth=4 --direct=1 \
	--rw=read --verify=crc32c --verify_fatal=1 --backing=hugetlb \
	--output-format=json --output="$out3" >"$out3.err" 2>&1
rc=$?
t_expect_read "$out3" $rc $((64 << 20)) "verify pass after the fault" &&
	t_info "verify pass: 64 MiB read back, crc32c headers all good"
t_check_baseline "after the job and the hog"
t_done
