#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# md-map.sh: what the kernel makes of the engine's metadata buffers
# (issue 45, item 2) against lib's model of it (hb_model_md_map(), the
# report's md_* keys).  On the value controller's pi1sep namespace
# (kboot.sh: 8 bytes of separate metadata per 4 KiB LBA, PI type 1), one
# passthrough write job per backing, the host generating the tuples
# (pi_act=0), 128 bytes of metadata per 64 KiB command, each slot's
# metadata buffer 4032 bytes into a page (head_offset=4032,
# md_per_io_size=4096): inside one 2 MiB folio with hugetlb, across two
# 4 KiB folios with backing=4k.  Two kprobes count around each job:
#   bio_integrity_map_user   every command with a metadata buffer
#                            (block/bio-integrity.c, 6.12 and 7.3.4)
#   the copy                 bio_integrity_copy_user, once per command
#                            it copies into a bounce buffer; where it is
#                            inlined (Debian's 7.3.4) bio_integrity_add_page,
#                            which in 7.3.4's block layer only the copy
#                            calls (and the NVMe target, not loaded here)
# Before bio_integrity_map_user() (6.1.192) the NVMe driver copies every
# metadata buffer itself: nvme_add_user_metadata() (drivers/nvme/host/
# ioctl.c) kmalloc()s a bounce buffer, copies a write's metadata into it
# and gives the bio its one page.  There the two kprobes are
#   nvme_add_user_metadata   every command with a metadata buffer (where
#                            it is inlined, bio_integrity_alloc: in 6.1
#                            only the copy and the block layer's own PI
#                            generation call it, and the job sends no
#                            block I/O to the namespace)
#   bio_integrity_add_page   the bounce buffer's page, once per command
# In an IOMMU guest (KTEST_IOMMU=1, a probes copy with an iommu line of
# md-map) a third kprobe records the length of every DMA API mapping
# (dma_map_phys, 7.x; dma_map_page_attrs before it) during the job; the
# ones of the metadata's length, one per command and integrity segment
# (nvme_map_metadata()'s dma_map_bvec(), 6.12), are checked against the
# report's md_dma_per_cmd for every command.
# The model's word per slot is the check: every slot direct, no copy;
# every slot copied, a copy per mapped command.  A kernel without any of
# these functions, or whose block layer takes no integrity data (no
# CONFIG_BLK_DEV_INTEGRITY: the namespace has no integrity directory in
# sysfs and 6.1 answers such a command EINVAL), is a counted skip naming
# it.
# Output: "MDMAP job=... model=... commands=N mapped=N copied=N" and
# "@@KTEST RESULT mdmap:JOB rc secs".
# Usage: md-map.sh FIO ENGINE
fio=${1:-/hugebuf/fio2/fio}
engine=${2:-/hugebuf/engine/hugebuf-fio2.so}
[ -f /hugebuf/env ] && . /hugebuf/env
T=/sys/kernel/tracing
. "$(dirname "$0")/probe-lib.sh"

result() { echo "@@KTEST RESULT mdmap:$1 $2 ${3:-0}"; }

skip_all() {	# reason
	echo "MDMAP skip=$1"
	result all 77
	exit 0
}

[ -n "$KTEST_VALUE_NS" ] || skip_all "no value namespaces in this guest (KTEST_VALUE_NS=0)"
[ -x "$fio" ] || skip_all "no second fio in the guest (ktest.sh KTEST_FIO2: fio 3.41)"
[ -f "$engine" ] || skip_all "no engine built for $($fio --version) in the guest"
d=$(wait_value_ns 2) || skip_all "no namespace 2 (pi1sep) on the value controller"
ng=/dev/ng${d#nvme}
[ -c "$ng" ] || skip_all "no $ng"
# the function every command with a metadata buffer calls once, and the
# one a copied command calls once; 6.1's driver copies them all
if map=$(first_function bio_integrity_map_user); then
	copy=$(first_function bio_integrity_copy_user bio_integrity_add_page) ||
		skip_all "neither bio_integrity_copy_user nor bio_integrity_add_page is a function of this kernel"
else
	# without CONFIG_BLK_DEV_INTEGRITY 6.1 has none of bio_integrity_*
	# and answers a command with metadata EINVAL (bio_integrity_alloc())
	copy=$(first_function bio_integrity_add_page) ||
		skip_all "$(uname -r) takes no integrity data (no bio_integrity_add_page: CONFIG_BLK_DEV_INTEGRITY is off), metadata commands fail EINVAL: run md-map on a kernel built with it"
	map=$(first_function nvme_add_user_metadata bio_integrity_alloc) ||
		skip_all "neither nvme_add_user_metadata nor bio_integrity_alloc is a function of this kernel"
fi
segs=$(cat /sys/block/$d/queue/max_integrity_segments 2>/dev/null || echo none)
echo "MDMAP ns=$d ng=$ng max_integrity_segments=$segs map probe=$map copy probe=$copy kernel=$(uname -r)"
kprobes_off hb_md_map hb_md_copy hb_md_dma
kprobes_on hb_md_map:"$map" hb_md_copy:"$copy" || skip_all "no kprobe events on $map and $copy"
echo 0 >$T/tracing_on 2>/dev/null	# count hits, keep no records
# the IOMMU guest's DMA mappings: the function and its size argument
# (x86-64: dma_map_phys(dev, phys, size...), dma_map_page_attrs(dev,
# page, offset, size...)), recorded
dma=
if [ "${KTEST_IOMMU:-0}" = 1 ]; then
	dma=$(first_function dma_map_phys dma_map_page_attrs) ||
		skip_all "neither dma_map_phys nor dma_map_page_attrs is a function of this kernel"
	case $dma in
	dma_map_phys) reg=%dx ;;
	*) reg=%cx ;;
	esac
	if ! echo "p:hb_md_dma $dma len=$reg:u64" >>$T/kprobe_events ||
	   ! echo 1 >$T/events/kprobes/hb_md_dma/enable; then
		skip_all "no kprobe event on $dma"
	fi
	grp=$(readlink "/sys/block/$d/device/device/iommu_group" 2>/dev/null)
	grp=${grp##*/}
	echo "MDMAP iommu dma probe=$dma group=${grp:-none}" \
		"type=$(cat "/sys/kernel/iommu_groups/$grp/type" 2>/dev/null)"
fi

# the DMA mappings of LEN bytes the trace holds
dma_maps_of() {	# len
	grep -c " hb_md_dma: .* len=$1\$" $T/trace
}

# name, fio options...
job() {
	name=$1
	shift
	rep=/tmp/mdmap-$name.json
	out=/tmp/mdmap-$name.out
	rm -f "$rep"
	m0=$(kprobe_hits hb_md_map) c0=$(kprobe_hits hb_md_copy)
	echo "@@KTEST RUN mdmap:$name"
	if [ -n "$dma" ]; then
		echo >$T/trace
		echo 1 >$T/tracing_on
	fi
	s=$(date +%s)
	timeout "${KTEST_TEST_TIMEOUT:-300}" "$fio" --name="mdmap-$name" \
		--ioengine=external:"$engine" --filename="$ng" \
		--cmd_type=nvme --fixedbufs --offset=0 --size=2m --bs=64k \
		--rw=write --iodepth=4 --head_offset=4032 \
		--md_per_io_size=4096 --pi_act=0 \
		--pi_chk=GUARD,REFTAG,APPTAG --apptag=0x1234 \
		--apptag_mask=0xffff --report_json="$rep" "$@" \
		</dev/null >"$out" 2>&1
	rc=$?
	[ -n "$dma" ] && echo 0 >$T/tracing_on
	m=$(($(kprobe_hits hb_md_map) - m0))
	c=$(($(kprobe_hits hb_md_copy) - c0))
	if [ $rc != 0 ] || [ ! -s "$rep" ]; then
		tail -n 5 "$out"
		echo "MDMAP job=$name fio exit $rc result=fail"
		result "$name" 1 $(($(date +%s) - s))
		return
	fi
	grep '^hugebuf: .*metadata' "$out"
	model=$(jfield "$rep" md_mapping)
	direct=$(jfield "$rep" md_direct)
	copied=$(jfield "$rep" md_copied)
	cmds=$(jfield "$rep" pt_commands)
	ok=1
	[ -n "$cmds" ] && [ "$cmds" -gt 0 ] && [ "$m" -ge "$cmds" ] || ok=0
	case $model in
	direct) [ "$c" = 0 ] || ok=0 ;;
	copied) [ "$c" = "$m" ] || ok=0 ;;
	mixed) [ "$c" -gt 0 ] && [ "$c" -lt "$m" ] || ok=0 ;;
	*) ok=0 ;;
	esac
	# IOMMU guest: md_dma_per_cmd DMA mappings of md_len per command
	dmaw=
	if [ -n "$dma" ]; then
		mdlen=$(jfield "$rep" md_len)
		per=$(grep -o '"md_dma_per_cmd":{[^}]*}' "$rep" |
			sed 's/.*"min":\([0-9]*\),"max":\([0-9]*\).*/\1 \2/')
		dmin=${per% *} dmax=${per#* }
		dm=$(dma_maps_of "$mdlen")
		[ -n "$dmin" ] && [ "$dmin" = "$dmax" ] &&
			[ "$dm" = $((dmin * cmds)) ] || ok=0
		dmaw=" md_len=$mdlen dma_per_cmd=$dmin-$dmax dma_maps=$dm"
	fi
	echo "MDMAP job=$name model=$model direct=$direct copied=$copied" \
		"segments=$(grep -o '"md_segments_per_cmd":{[^}]*}' "$rep" |
			sed 's/.*"min":\([0-9]*\),"max":\([0-9]*\).*/\1-\2/')" \
		"why=\"$(jfield "$rep" md_why)\" commands=$cmds mapped=$m" \
		"bounced=$c$dmaw result=$([ $ok = 1 ] && echo ok || echo fail)"
	result "$name" $((1 - ok)) $(($(date +%s) - s))
}

job hugetlb --backing=hugetlb
job 4k --backing=4k
kprobes_off hb_md_map hb_md_copy hb_md_dma
