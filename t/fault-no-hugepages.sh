#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: no 2M hugepages in the pool.  With the pool set to 0 (as root,
# restored at exit) a hugetlb and a memfd engine job and `hugebuf check`
# must fail before any I/O, with one message line that names the pool
# (nr_hugepages) as the fix, and leave nothing pinned.
. "$(dirname "$0")/_fio-lib.sh"

t_need_root "it resizes the hugepage pool"
t_need_engine
t_need_cli
[ -w "$T_POOL/nr_hugepages" ] || skip "no 2M hugepage pool ($T_POOL)"
t_tmpdir cd
data=$T_DIR/data
"$FIO" --name=layout --filename="$data" --size=8M --rw=write --bs=1M \
	--output=/dev/null >/dev/null 2>&1 || t_fail_now "cannot create $data"

t_hp_set 0
[ "$(t_free_hugepages)" = 0 ] ||
	skip "another process holds $(t_free_hugepages) free pages of the pool"
t_info "2M pool set to 0 (restored at exit)"

for backing in hugetlb memfd; do
	out=$T_DIR/$backing.out
	t_run_job "$out" timeout -k 5 60 "$FIO" --name=nohp \
		--ioengine=external:"$HUGEBUF_ENGINE" --filename="$data" \
		--size=8M --bs=1M --iodepth=2 --direct=1 --rw=read \
		--backing=$backing
	t_expect_refused "$out" $T_RC 'nr_hugepages' \
		"backing=$backing with no hugepages"
done

out=$T_DIR/cli.out
"$HUGEBUF_CLI" check --backing=hugetlb:2M --size=8M >"$out.stdout" 2>"$out"
rc=$?
if ! t_cli_refused $rc "$out" 'nr_hugepages'; then
	fail "hugebuf check with no hugepages: exit $rc, wanted 3 and one line naming nr_hugepages: $(cat "$out")"
else
	t_ok "hugebuf check: exit 3: $(cat "$out")"
fi
t_done
