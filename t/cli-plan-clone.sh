#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hugebuf plan's warning for cloned tables (a pure model): on 7.2 and 7.3
# a hugepage of a cloned buffer is un-charged twice once the cloning ring
# registers its own buffer on it (docs/kernel-rules.md §6.5), so a plan
# of hugepage buffers there has one warning line naming the fix,
# efde156d91ba; 6.12 - 7.1, 7.4 and 4 KiB pages have none.  --json's
# clone_sequence gives the exit t/liburing/fixed-clone-acct.c should have
# on each kernel (hb_model_clone_seq()): 77, 0, or 1 on 7.2 and 7.3.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cli
t_need_cmd python3
t_tmpdir

# warns KERNEL BACKING N: the plan has N clone warning lines
warns() {
	if ! "$HUGEBUF_CLI" plan --kernel="$1" --backing="$2" --size=4M \
		>"$T_DIR/out" 2>"$T_DIR/err"; then
		fail "--kernel=$1 --backing=$2: $(head -n 1 "$T_DIR/err")"
		return
	fi
	w_n=$(grep -c '^clones: *warning: ' "$T_DIR/out")
	if [ "$w_n" != "$3" ]; then
		fail "--kernel=$1 --backing=$2: $w_n clone warnings, want $3"
		sed 's/^/    /' "$T_DIR/out"
	elif [ "$3" = 0 ]; then
		t_ok "--kernel=$1 --backing=$2: no clone warning"
	elif grep -q "^clones: *warning: kernel $1 .*efde156d91ba (7\.4)" "$T_DIR/out"; then
		t_ok "--kernel=$1 --backing=$2: one warning naming the kernel and efde156d91ba"
	else
		fail "--kernel=$1 --backing=$2: the warning names neither the kernel nor the fix"
	fi
}

warns 7.2.13 hugetlb:2M 1
warns 7.3 thp 1
warns 7.3 4k 0
warns 7.1 hugetlb:2M 0
warns 6.12 hugetlb:2M 0
warns 7.4 hugetlb:2M 0

# --json: the reproducer's exit a harness judges by, per kernel
for kv in 6.1:77 6.12:0 7.1:0 7.2:1 7.3.4:1 7.4:0; do
	k=${kv%:*}
	want=${kv#*:}
	got=$("$HUGEBUF_CLI" plan --kernel="$k" --backing=hugetlb:2M --size=2M \
		--json | python3 -c 'import json, sys
c = json.load(sys.stdin)["clone_sequence"]
print(c["reproducer_exit"], " ".join(str(v) for v in c.get("vmpin_kb", [])))')
	if [ "${got%% *}" = "$want" ]; then
		t_ok "--kernel=$k --json: reproducer_exit $want (VmPin kB: ${got#* })"
	else
		fail "--kernel=$k --json: reproducer_exit '${got%% *}', want $want"
	fi
done

t_done
