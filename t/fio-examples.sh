#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# Every job in examples/ runs (64 MiB file, 2 s): fio's JSON shows no error
# and bytes moved, and the engine's report has every field and agrees with
# `hugebuf plan` for the same backing, buffer size and head offset.  Jobs
# whose resource is absent (1G pages, mTHP) must fail with our one-line
# message instead.
. "$(dirname "$0")/_fio-lib.sh"
t_require

t_need_hugepages 300

export HUGEBUF_FILE=$T_DIR/data HUGEBUF_SIZE=64M HUGEBUF_RUNTIME=2
# HB_TEST_TIER=user (make check): 1 s per job, enough for its report
[ "${HB_TEST_TIER:-}" = user ] && HUGEBUF_RUNTIME=1
t_mthp || true

run_example() {
	local job=$1 opts=$2 name
	shift 2
	name=$(basename "$job" .fio)
	# "$@": fio's own options before the job file
	if ! t_fio "$name" "$@" "$T_TOP/examples/$job"; then
		# an io_uring feature the job asks for and the kernel lacks
		# (cmd_type=nvme before 5.19): the engine's one-line refusal
		if grep -hq '^hugebuf: .* needs IORING_.*which kernel' \
			"$T_DIR/$name.err" "$T_DIR/$name.out"; then
			t_skip_check "$name: $(grep -h -m1 'needs IORING_' \
				"$T_DIR/$name.err" "$T_DIR/$name.out")"
			return
		fi
		fail "$name: fio exited non-zero:"
		cat "$T_DIR/$name.err" "$T_DIR/$name.out" | head -5
		return
	fi
	# shellcheck disable=SC2086
	t_check "$name: fio's results ($opts)" \
		$T_CHECK run "$T_DIR/$name.json" $opts
	case "$job" in
	builtin-*)
		[ ! -s "$T_DIR/$name.report" ] &&
			t_ok "$name: the built-in engine wrote no hugebuf report" ||
			fail "$name: built-in engine job wrote a hugebuf report" ;;
	*)
		t_check "$name: report agrees with hugebuf plan" \
			$T_CHECK report "$T_DIR/$name.report" 1 ;;
	esac
}

run_example hugepage-randread-8m.fio --nonzero-read
run_example hugepage-randwrite-8m.fio --nonzero-write
run_example thp-randread.fio --nonzero-read
run_example verify-crc32c.fio --verify
run_example verify-md5.fio --verify
run_example builtin-io_uring-8m.fio --nonzero-read
# the device job under fio --readonly, on the file the jobs above wrote:
# it reads, and the file's bytes are the same afterwards
before=$(sha256sum <"$HUGEBUF_FILE")
run_example device-read.fio --nonzero-read --readonly
[ "$(sha256sum <"$HUGEBUF_FILE")" = "$before" ] &&
	t_ok "device-read.fio: the file is unchanged under fio --readonly" ||
	fail "device-read.fio: the file changed under fio --readonly"
# NVMe passthrough overwrites a namespace: only where one is offered for
# it (HUGEBUF_PT_DEV=/dev/ngXnY, HUGEBUF_PT_OFFSET); kernel/probe/
# passthrough.sh runs the same job in every ktest guest
if [ -n "${HUGEBUF_PT_DEV:-}" ] && [ -n "${HUGEBUF_PT_OFFSET:-}" ]; then
	run_example nvme-passthrough.fio --verify
else
	t_skip_check "nvme-passthrough.fio: no HUGEBUF_PT_DEV to overwrite"
fi

if [ "$T_MTHP" = 64K ]; then
	t_pmd_thp_off
	run_example mthp-64k-randread.fio --nonzero-read
	t_pmd_thp_restore
else
	d=/sys/kernel/mm/transparent_hugepage/hugepages-64kB
	if [ -f "$d/enabled" ]; then
		t_expect_fail mthp-64k "mTHP 64kB is disabled: echo madvise" \
			"$T_TOP/examples/mthp-64k-randread.fio"
	else
		t_skip_check "mthp-64k-randread.fio: the kernel has no 64K mTHP"
	fi
fi

p1g=/sys/kernel/mm/hugepages/hugepages-1048576kB
if [ ! -d "$p1g" ]; then
	t_expect_fail hugetlb-1g "1G hugepages are not available" \
		"$T_TOP/examples/hugetlb-1g-randread.fio"
elif [ "$(cat "$p1g/free_hugepages")" -ge 1 ]; then
	run_example hugetlb-1g-randread.fio --nonzero-read
else
	# lib's one pool message: "need N free 1G hugepages, M available: ..."
	t_expect_fail hugetlb-1g "free 1G hugepages" \
		"$T_TOP/examples/hugetlb-1g-randread.fio"
	grep -q 'hugepages-1048576kB/nr_hugepages' "$T_DIR/hugetlb-1g.txt" &&
		t_ok "hugetlb-1g: the message names the 1G pool's knob" ||
		fail "hugetlb-1g: the message does not name the 1G pool's knob"
fi

t_done
