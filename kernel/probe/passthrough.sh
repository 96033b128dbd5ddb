#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# passthrough.sh: NVMe passthrough through the engine (cmd_type=nvme) in the
# kernel/ktest.sh guest, on the namespace's raw region past the end of its
# ext4 file system (the last 128 MiB, shared with nvme-profile).
#
# For each job (hugetlb, THP and 4 KiB registered buffers, and one buffer
# deliberately misaligned): fio writes with crc32c verify headers and reads
# everything back (do_verify), through IORING_OP_URING_CMD with
# IORING_URING_CMD_FIXED.  Then it checks what the engine predicted for
# each command (the report's "passthrough" object: direct or copy, from
# lib's model of blk_rq_map_user_iov) against what the kernel did, counted
# by two kprobes around the job:
#   blk_rq_map_user_iov  every passthrough command that carries data
#                        (also fio's Identify Namespace at file setup);
#   bio_add_pc_page      called by bio_copy_user_iov() for every bounce
#                        page (6.1 and 6.12), and by nothing else in this
#                        guest while the job runs: the direct bvec path
#                        reuses the registered bvecs and a user buffer
#                        (Identify) goes through bio_add_hw_page().
# A command mapped directly never reaches bio_add_pc_page; a copied one
# does, once per page.  (Not bio_kmalloc: blk_rq_map_bio_alloc() takes
# every non-polled passthrough bio from it, direct ones too.)  7.2 has no
# bio_add_pc_page (its bio_copy_user_iov() adds the bounce pages with
# bio_add_page(), which the file systems call too): there the copy probe
# is bio_copy_user_iov itself, once per copied command, when the kernel
# kept it as a function of its own.  Without a copy probe, each path check
# is a counted skip that names the reason.
#
# Output: "@@KTEST RESULT pt:<job> rc secs" for the fio run and
# "@@KTEST RESULT pt-path:<job> rc 0" for the check, and a "PT" line with
# the numbers.  Usage: passthrough.sh /dev/ngXnY ENGINE
dev=${1:-/dev/ng0n1}
engine=${2:-/hugebuf/engine/hugebuf.so}
T=/sys/kernel/tracing
. "$(dirname "$0")/probe-lib.sh"
blk=nvme${dev#/dev/ng}

result() { echo "@@KTEST RESULT $1 $2 ${3:-0}"; }

if [ ! -c "$dev" ]; then
	# the NVMe generic character device came with 5.13 (2637baed7801)
	echo "PT skip: no $dev: the kernel has no NVMe generic character device (5.13+), so no passthrough"
	result pt:all 77
	exit 0
fi
if [ ! -x /usr/bin/fio ] || [ ! -f "$engine" ]; then
	echo "PT skip: no fio or engine"
	result pt:all 77
	exit 0
fi


# the engine refused cmd_type=nvme because the kernel has no URING_CMD
# (5.19): its one line, from lib/model/ringfeat.c, names the feature
nocmd() { grep -q 'needs IORING_OP_URING_CMD' "$1"; }


sectors=$(cat /sys/block/$blk/size)
off=$((sectors * 512 - 128 * 1048576))
kprobes_off hb_pt_map hb_pt_copy
# the function a copied command calls (per bounce page or once), or none
copy=$(first_function bio_add_pc_page bio_copy_user_iov)
probes=0
if [ -z "$copy" ]; then
	why="neither bio_add_pc_page nor bio_copy_user_iov is a function of this kernel"
elif ! kprobes_on hb_pt_map:blk_rq_map_user_iov hb_pt_copy:"$copy"; then
	why="no kprobe events on blk_rq_map_user_iov and $copy"
else
	probes=1
	echo "PT copy probe: $copy"
fi
[ $probes = 1 ] || echo "PT no kprobes: the path check is skipped: $why"
echo 0 >$T/tracing_on 2>/dev/null	# count hits, keep no records

# Does this kernel coalesce registered buffers?  Our series names itself
# -hugebuf; Debian's 6.1 without it does not, 6.12 does.  Without
# coalescing a 512 KiB buffer from 2 MiB pages is still 128 bvecs, one
# more than NVMe's max_segments on 6.1: the kernel would refuse the
# command (-EINVAL), and the engine refuses the job first.
case $(uname -r) in
*-hugebuf | 6.1[2-9].* | [7-9].*) big=direct ;;
6.1.*) big=einval ;;
*) big=direct ;;
esac

# name, expected path (direct, copy or einval), fio options...
job() {
	name=$1 want=$2
	shift 2
	rep=/tmp/pt-$name.json
	out=/tmp/pt-$name.out
	rm -f "$rep"
	m0=$(kprobe_hits hb_pt_map) c0=$(kprobe_hits hb_pt_copy)
	echo "@@KTEST RUN pt:$name"
	s=$(date +%s)
	timeout "${KTEST_TEST_TIMEOUT:-300}" /usr/bin/fio --name="pt-$name" \
		--ioengine=external:"$engine" --filename="$dev" \
		--cmd_type=nvme --fixedbufs --offset="$off" --size=32m \
		--rw=randwrite --iodepth=4 --verify=crc32c --do_verify=1 \
		--report_json="$rep" "$@" </dev/null >"$out" 2>&1
	rc=$?
	cat "$out"
	if [ $rc != 0 ] && nocmd "$out"; then
		echo "PT cmd-skip job=$name: the engine says this kernel has no IORING_OP_URING_CMD"
		result "pt:$name" 77 $(($(date +%s) - s))
		return
	fi
	if [ "$want" = einval ]; then
		# refused before any I/O, in one line that says why
		if [ $rc != 0 ] && grep -q 'would refuse a .*EINVAL' "$out"; then
			rc=0
			echo "PT job=$name predicted=einval want=einval" \
				"seen=refused-by-the-engine"
		else
			echo "PT job=$name wanted the engine's EINVAL refusal (exit $rc)"
			rc=1
		fi
		result "pt:$name" $rc $(($(date +%s) - s))
		return
	fi
	result "pt:$name" $rc $(($(date +%s) - s))
	[ $rc = 0 ] || return
	if [ $probes = 0 ]; then
		echo "PT path-skip job=$name: $why"
		result "pt-path:$name" 77
		return
	fi
	m=$(($(kprobe_hits hb_pt_map) - m0))
	c=$(($(kprobe_hits hb_pt_copy) - c0))
	cmds=$(jfield "$rep" pt_commands)
	got=$(jfield "$rep" pt_predicted)
	echo "PT job=$name predicted=$got want=$want commands=$cmds" \
		"mapped=$m copied=$c segments=$(jfield "$rep" pt_segments_max)"
	ok=1
	[ "$got" = "$want" ] || ok=0
	[ -n "$cmds" ] && [ "$cmds" -gt 0 ] && [ "$m" -ge "$cmds" ] || ok=0
	case $want in
	direct) [ "$c" = 0 ] || ok=0 ;;
	copy) [ "$c" -ge "$cmds" ] || ok=0 ;;
	esac
	result "pt-path:$name" $((1 - ok))
}

# Command sizes within what the namespace takes (max_hw_sectors_kb): 512
# KiB (qemu's MDTS) in the DMA-direct guests; 6.12 behind an IOMMU caps
# it at 128 KiB (dma_opt_mapping_size(), docs/kernel-lab-notes.md
# "Under an IOMMU"), so there the jobs use that
hw=$(cat /sys/block/$blk/queue/max_hw_sectors_kb 2>/dev/null || echo 512)
small=$((hw < 256 ? hw : 256))k
cmd=$((hw < 512 ? hw : 512))k
# 256 KiB: at most 64 bvecs, within 6.1's max_segments with or without
# coalescing
job hugetlb direct --backing=hugetlb --bs=$small
job thp direct --backing=thp --bs=$small
job 4k direct --backing=4k --bs=$small
# 2 bytes into the buffer: not dword aligned (NVMe's dma_alignment 3)
job misaligned copy --backing=hugetlb --bs=128k --head_offset=2
# a whole MDTS (512 KiB) per command from 2 MiB folios, and one 8 MiB I/O
# as 16 such commands
job hugetlb-512k $big --backing=hugetlb --bs=$cmd
job thp-512k $big --backing=thp --bs=$cmd
job hugetlb-8m $big --backing=hugetlb --bs=8m --chunk_size=$cmd \
	--iodepth=2
# examples/nvme-passthrough.fio as shipped: the same 8 MiB job from a job
# file, with its variables from the environment
if [ -f /hugebuf/nvme-passthrough.fio ]; then
	echo "@@KTEST RUN pt:example"
	s=$(date +%s)
	HUGEBUF_ENGINE=$engine HUGEBUF_PT_DEV=$dev HUGEBUF_PT_OFFSET=$off \
		HUGEBUF_SIZE=32m timeout "${KTEST_TEST_TIMEOUT:-300}" \
		/usr/bin/fio /hugebuf/nvme-passthrough.fio </dev/null \
		>/tmp/pt-example.out 2>&1
	rc=$?
	cat /tmp/pt-example.out
	if [ $rc != 0 ] && nocmd /tmp/pt-example.out; then
		rc=77
	elif [ "$hw" -lt 512 ]; then
		# its 512 KiB chunk_size is over the namespace's limit: the
		# engine must refuse the job in one line naming the fix
		[ $rc != 0 ] && grep -q 'takes at most .* per command' \
			/tmp/pt-example.out && rc=0 || rc=1
	elif [ $big = einval ]; then
		[ $rc != 0 ] && grep -q 'would refuse a .*EINVAL' \
			/tmp/pt-example.out && rc=0 || rc=1
	fi
	result pt:example $rc $(($(date +%s) - s))
fi
kprobes_off hb_pt_map hb_pt_copy
echo 1 >$T/tracing_on 2>/dev/null
exit 0
