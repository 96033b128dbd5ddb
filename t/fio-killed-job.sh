#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# second-fio: how fio's parent frees a killed job's options (backend.c)
#
# A job process killed with SIGKILL mid-run, one per backing (hugetlb, thp,
# memfd, shm).  fio 3.33's parent frees a forked job's engine options
# right after fork() and again at its end unless the job cleared td->eo
# (backend.c run_threads(), options.c fio_options_free()): a killed job
# cannot, so the engine keeps td->eo NULL while the job runs
# (engines/options.c hbe_options_hide()).  Expected, per backing: the
# parent reports the signal and exits on its own (not SIGSEGV or SIGABRT,
# which the freed options gave), no process of the job is left with pages
# pinned, HugePages_Free comes back to its value before the job, and no
# SysV segment of the parent or the job is left (ipcs).
. "$(dirname "$0")/_fio-lib.sh"
t_require
t_need_root "it kills fio's job process and reads the hugepage pool"
t_need_cmd pgrep ipcs
t_need_hugepages 80

data=$T_DIR/data
"$FIO" --name=layout --filename="$data" --size=256M --rw=write --bs=1M \
	--output=/dev/null >/dev/null 2>&1 || t_fail_now "cannot create $data"

# the SysV segments whose creator is one of the pids $@ ("shmid cpid")
segments_of() {
	ipcs -m -p | awk -v pids=" $* " \
		'$1 ~ /^[0-9]+$/ && index(pids, " " $3 " ") { print $1, $3 }'
}

# the processes of job $1 still there, with their VmPin ("pid:kB")
pinned_leftovers() {
	for t_p in $(pgrep -f -- "--name=$1 "); do
		t_v=$(t_vmpin "$t_p")
		[ -n "$t_v" ] && [ "$t_v" != 0 ] && echo "$t_p:$t_v"
	done
}

kill_one() {
	b=$1
	name=killed-$b
	out=$T_DIR/$name.out
	t_baseline
	timeout -k 5 120 "$FIO" --name="$name" \
		--ioengine=external:"$HUGEBUF_ENGINE" --filename="$data" \
		--size=256M --direct=1 --backing="$b" --rw=randread --bs=8M \
		--iodepth=16 --time_based --runtime=60 >"$out" 2>&1 &
	fio_pid=$!
	main=$(t_child_of $fio_pid) || {
		fail "$b: fio did not start: $(tail -n 3 "$out")"
		return
	}
	job=$(t_pinned_child "$main") || {
		fail "$b: no job registered its buffers: $(tail -n 3 "$out")"
		wait $fio_pid
		return
	}
	# into the run: its 16 x 8 MiB registered (init's kernel probe pins
	# a little before), then I/O on them
	t_i=0
	while [ "$(t_vmpin "$job")" -lt 131072 ] 2>/dev/null &&
		[ $t_i -lt 200 ]; do
		sleep 0.1
		t_i=$((t_i + 1))
	done
	sleep 1
	t_info "$b: job $job of fio $main, VmPin $(t_vmpin "$job") kB: SIGKILL"
	kill -KILL "$job"
	wait $fio_pid
	rc=$?
	if [ $rc -ge 124 ]; then
		fail "$b: fio's parent exit $rc ($([ $rc -gt 128 ] &&
			kill -l $((rc - 128)) || echo timeout)): $(tail -n 2 "$out")"
	elif ! grep -q "pid=$job, got signal=9" "$out"; then
		fail "$b: exit $rc without fio's 'pid=$job, got signal=9'"
	else
		t_ok "$b: fio's parent reported the killed job and exited $rc"
	fi
	left=$(pinned_leftovers "$name")
	[ -z "$left" ] && t_ok "$b: no process of the job left pinning" ||
		fail "$b: processes left with pages pinned (pid:kB): $left"
	t_check_baseline "$b"
	segs=$(segments_of "$main" "$job")
	[ -z "$segs" ] && t_ok "$b: no SysV segment of fio or the job left" ||
		fail "$b: SysV segments left (shmid cpid): $segs"
}

for b in hugetlb thp memfd shm; do
	kill_one "$b"
done
t_done
