#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: RLIMIT_MEMLOCK too low for the buffers, as a user without
# CAP_IPC_LOCK (nobody, `ulimit -l 1024`).  io_uring charges registered
# pages to RLIMIT_MEMLOCK unless the ring's creator has CAP_IPC_LOCK
# (io_account_mem()), a hugepage whole (io_buffer_account_pin()).  Every
# backing must fail before any I/O with one line naming `ulimit -l`, the
# CLI too, and nothing may stay pinned or allocated.
. "$(dirname "$0")/_reliability-lib.sh"

r_need_engine
r_need_cli
r_nobody_setup 8
cd "$R_NB" || exit 1
r_baseline
for backing in hugetlb 4k memfd; do
	out=$R_NB/$backing.out
	r_run_job "$out" r_as_nobody 1024 "$FIO" --name=lowlock \
		--ioengine=external:"$R_NB_ENGINE" --filename="$R_NB_DATA" \
		--size=8M --bs=1M --iodepth=2 --direct=1 --rw=read \
		--backing=$backing
	r_expect_refused "$out" $R_RC 'ulimit -l' \
		"backing=$backing with ulimit -l 1024"
done
out=$R_NB/cli.out
r_as_nobody 1024 "$R_NB_CLI" check --backing=hugetlb:2M --size=4M \
	--file="$R_NB/check.dat" >"$out.stdout" 2>"$out"
rc=$?
if ! r_cli_refused $rc "$out" 'ulimit -l'; then
	r_fail "hugebuf check with ulimit -l 1024: exit $rc, wanted 3 and one line naming 'ulimit -l': $(cat "$out")"
else
	r_info "CLI: exit 3: $(cat "$out")"
fi
r_check_baseline "after the refused jobs"
r_done
