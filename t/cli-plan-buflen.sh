#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hugebuf plan and one buffer's length limit per kernel (a pure model,
# nothing allocated; docs/kernel-rules.md §7.1):
#  - up to 7.1 a buffer over 1G is refused (io_buffer_validate(), EFAULT):
#    exit 2 and one line naming the kernel, its limit and the fix (7.2);
#  - 7.2 and 7.3 (b4e41050b212, 1 TiB) plan it: 2G of 2M hugetlb is 1024
#    bvecs, 1.5G of THP 768;
#  - past the plan's own page map (16G) plan refuses with its own bound,
#    not the kernel's.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cli
t_tmpdir

# plans KERNEL SIZE BACKING: the plan's text into $T_DIR/out, its exit
plans() {
	"$HUGEBUF_CLI" plan --kernel="$1" --size="$2" --backing="$3" \
		>"$T_DIR/out" 2>"$T_DIR/err"
}

# refused KERNEL SIZE PATTERN: exit 2 and exactly one line matching it
refused() {
	r_rc=0
	plans "$1" "$2" hugetlb:2M || r_rc=$?
	if [ "$r_rc" = 0 ]; then
		fail "--kernel=$1 --size=$2: planned, a refusal expected"
		return
	fi
	if [ "$r_rc" = 2 ] && [ "$(wc -l <"$T_DIR/err")" = 1 ] &&
		grep -qE "$3" "$T_DIR/err"; then
		t_ok "--kernel=$1 --size=$2: refused, $(cat "$T_DIR/err")"
	else
		fail "--kernel=$1 --size=$2: exit $r_rc, want 2 and one line" \
			"matching '$3': $(cat "$T_DIR/err")"
	fi
}

# bvecs KERNEL SIZE BACKING N: planned, with N bvecs
bvecs() {
	if ! plans "$1" "$2" "$3"; then
		fail "--kernel=$1 --size=$2 --backing=$3: $(head -n 1 "$T_DIR/err")"
		return
	fi
	if grep -qE "^nr_bvecs: +$4\$" "$T_DIR/out"; then
		t_ok "--kernel=$1 --size=$2 --backing=$3: planned, $4 bvecs"
	else
		fail "--kernel=$1 --size=$2 --backing=$3: not $4 bvecs"
		sed 's/^/    /' "$T_DIR/out"
	fi
}

refused 7.1 2G "^hugebuf: --size=2147483648: .*over kernel 7\.1's 1G limit.*\(EFAULT\).*7\.2\+ kernel"
refused 6.12.117 1073745920 "over kernel 6\.12\.117's 1G limit"
bvecs 7.1 1G hugetlb:2M 512
bvecs 7.2 2G hugetlb:2M 1024
bvecs 7.3.4 1536M thp 768
refused 7.3 17G "^hugebuf: --size=18253611008: plan models at most 16G"
refused 7.2 2T "over kernel 7\.2's 1T limit.*\(EINVAL\)"

t_done
