#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: RLIMIT_MEMLOCK too low for the buffers, as a user without
# CAP_IPC_LOCK (nobody, `ulimit -l 1024`).  io_uring charges registered
# pages to RLIMIT_MEMLOCK unless the ring's creator has CAP_IPC_LOCK
# (io_account_mem()), a hugepage whole (io_buffer_account_pin()).  Every
# backing must fail before any I/O with one line naming `ulimit -l`, the
# CLI too, and nothing may stay pinned or allocated.
. "$(dirname "$0")/_fio-lib.sh"

t_need_engine
t_need_cli
t_nobody_setup 8
cd "$T_NB" || exit 1
t_baseline
for backing in hugetlb 4k memfd; do
	out=$T_NB/$backing.out
	t_run_job "$out" t_as_nobody 1024 "$FIO" --name=lowlock \
		--ioengine=external:"$T_NB_ENGINE" --filename="$T_NB_DATA" \
		--size=8M --bs=1M --iodepth=2 --direct=1 --rw=read \
		--backing=$backing
	t_expect_refused "$out" $T_RC 'ulimit -l' \
		"backing=$backing with ulimit -l 1024"
done
out=$T_NB/cli.out
t_as_nobody 1024 "$T_NB_CLI" check --backing=hugetlb:2M --size=4M \
	--file="$T_NB/check.dat" >"$out.stdout" 2>"$out"
rc=$?
if ! t_cli_refused $rc "$out" 'ulimit -l'; then
	fail "hugebuf check with ulimit -l 1024: exit $rc, wanted 3 and one line naming 'ulimit -l': $(cat "$out")"
else
	t_ok "CLI: exit 3: $(cat "$out")"
fi
t_check_baseline "after the refused jobs"
t_done
