#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Fault: no 2M hugepages in the pool.  With the pool set to 0 (as root,
# restored at exit) a hugetlb and a memfd engine job and `hugebuf check`
# must fail before any I/O, with one message line that names the pool
# (nr_hugepages) as the fix, and leave nothing pinned.
. "$(dirname "$0")/_reliability-lib.sh"

r_need_root "it resizes the hugepage pool"
r_need_engine
r_need_cli
[ -w "$R_POOL/nr_hugepages" ] || r_skip "no 2M hugepage pool ($R_POOL)"
r_tmpdir
data=$R_DIR/data
"$FIO" --name=layout --filename="$data" --size=8M --rw=write --bs=1M \
	--output=/dev/null >/dev/null 2>&1 || r_fail_now "cannot create $data"

r_hp_set 0
[ "$(r_hp_free)" = 0 ] ||
	r_skip "another process holds $(r_hp_free) free pages of the pool"
r_info "2M pool set to 0 (restored at exit)"

for backing in hugetlb memfd; do
	out=$R_DIR/$backing.out
	r_run_job "$out" timeout -k 5 60 "$FIO" --name=nohp \
		--ioengine=external:"$HUGEBUF_ENGINE" --filename="$data" \
		--size=8M --bs=1M --iodepth=2 --direct=1 --rw=read \
		--backing=$backing
	r_expect_refused "$out" $R_RC 'nr_hugepages' \
		"backing=$backing with no hugepages"
done

out=$R_DIR/cli.out
"$HUGEBUF_CLI" check --backing=hugetlb:2M --size=8M >"$out.stdout" 2>"$out"
rc=$?
if ! r_cli_refused $rc "$out" 'nr_hugepages'; then
	r_fail "hugebuf check with no hugepages: exit $rc, wanted 3 and one line naming nr_hugepages: $(cat "$out")"
else
	r_info "hugebuf check: exit 3: $(cat "$out")"
fi
r_done
