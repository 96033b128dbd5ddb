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
. "$(dirname "$0")/_reliability-lib.sh"

r_need_root "it takes every free hugepage of the pool"
r_need_engine
r_need_cmd python3 pgrep
r_tmpdir
data=$R_DIR/data
"$FIO" --name=layout --filename="$data" --size=64M --rw=write --bs=1M \
	--verify=crc32c --do_verify=0 --output=/dev/null >/dev/null 2>&1 ||
	r_fail_now "cannot create $data"
[ "$(r_hp_free)" -ge 16 ] || r_skip "needs 16 free 2M hugepages, $(r_hp_free) free"
r_baseline

out=$R_DIR/job.out
timeout -k 5 120 "$FIO" --name=running --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=64M --bs=1M --iodepth=4 --direct=1 \
	--rw=randread --time_based --runtime=4 \
	--backing=hugetlb --output-format=json --output="$out" \
	>"$out.err" 2>&1 &
fio_pid=$!
r_atexit "kill $fio_pid"
main=$(r_child_of $fio_pid) || r_fail_now "fio did not start"
job=$(r_pinned_child "$main") ||
	r_fail_now "no job registered its buffers (VmPin 0): $(cat "$out.err")"
pinned=$(r_vmpin "$job")
r_info "job $job registered, VmPin $pinned kB, $(r_hp_free) pages free"

grab=$(r_hp_free)
r_hog "$grab" || r_fail_now "could not hold $grab hugepages: $(cat "$R_DIR/hog.out")"
r_info "hog $R_HOG holds the $grab free pages; free now $(r_hp_free)"

# a new job cannot get buffers now
out2=$R_DIR/late.out
timeout -k 5 60 "$FIO" --name=late --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=64M --bs=1M --iodepth=4 --direct=1 \
	--rw=randread --backing=hugetlb --output="$out2.fio" >"$out2" 2>&1
rc=$?
if [ $rc = 0 ] || [ $rc -ge 124 ]; then
	r_fail "a job started with the pool exhausted: exit $rc, wanted 1"
elif ! r_one_engine_error "$out2" nr_hugepages; then
	r_fail "a job started with the pool exhausted: wanted one line naming nr_hugepages: $R_ERRS"
else
	r_info "late job: exit $rc: $R_ERRS"
fi

[ "$(r_vmpin "$job")" = "$pinned" ] ||
	r_fail "the running job's VmPin changed from $pinned to $(r_vmpin "$job") kB"
wait $fio_pid
rc=$?
res=$(r_fio_result "$out")
set -- $res
if [ $rc != 0 ] || [ "$1" != 0 ]; then
	r_fail "the running job: exit $rc, fio error ${1:-?}: $(tail -n 5 "$out.err")"
elif [ "$2" -le 0 ]; then
	r_fail "the running job read nothing"
else
	r_info "running job: exit 0, error 0, $2 bytes read in $4 I/Os"
fi
# the data path still delivers the right bytes (fio's crc32c headers),
# with the pool still held: the verify job needs its own pages, so it runs
# after the hog lets go of one folio's worth
kill $R_HOG 2>/dev/null
r_wait_gone $R_HOG 10
out3=$R_DIR/verify.out
timeout -k 5 120 "$FIO" --name=verify --ioengine=external:"$HUGEBUF_ENGINE" \
	--filename="$data" --size=64M --bs=1M --iodepth=4 --direct=1 \
	--rw=read --verify=crc32c --verify_fatal=1 --backing=hugetlb \
	--output-format=json --output="$out3" >"$out3.err" 2>&1
rc=$?
r_expect_read "$out3" $rc $((64 << 20)) "verify pass after the fault" &&
	r_info "verify pass: 64 MiB read back, crc32c headers all good"
r_check_baseline "after the job and the hog"
r_done
