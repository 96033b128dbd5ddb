# SPDX-License-Identifier: GPL-2.0-only
# shellcheck shell=bash
#
# kernel/kiommu.sh: the IOMMU guests of kernel/ktest.sh (issue 21), sourced
# by it.  An IOMMU guest boots the same image as its kernel's DMA-direct
# guest on qemu's q35 with the emulated Intel IOMMU (kboot.sh:
# iommu_args()); its console is console-<kernel>-iommu.log.  What it runs
# is in guest-init.sh (iommu_guest()); what is checked and printed here:
#   - every "IOMMUPROF model ... result=" line of kernel/probe/iommu-profile
#     (counted = lib's prediction, strict, lazy and direct) is one pass,
#     fail or skip; a mode that printed no model line and no skip fails;
#   - the table of calls per I/O (print_iommu()).
# Which kernels have an IOMMU guest: kernels.tab's iommu column
# (KTEST_IOMMU_KERNELS, set by kbuild.sh's resolve_kernels()).  7.x's
# nvme-pci maps a request through the IOVA-based DMA API
# (blk_rq_dma_map_iter_start(), dma_iova_try_alloc(), dma_iova_link()):
# lib/model/iommu.c's HB_IOMMU_GEN_IOVA, compared like every other model line.
# Needs from ktest.sh: WORK, KTEST_IOMMU_KERNELS, count, log; kbuild.sh's
# kernel_field.

iommu_wanted() {	# $1 = kernel
	case " $KTEST_IOMMU_KERNELS " in
	*" $1 "*) return 0 ;;
	esac
	return 1
}

check_iommu_model() {	# kernels that had an IOMMU guest...
	local k log line res mode n
	for k in "$@"; do
		log=$WORK/console-$k-iommu.log.txt
		while read -r line; do
			res=${line##*result=}
			res=${res%% *}
			case $res in
			ok) count pass "$k iommu model: ${line#IOMMUPROF model }" ;;
			skip) count skip "$k iommu model: ${line#IOMMUPROF model }" ;;
			*) count fail "$k iommu model: ${line#IOMMUPROF model }" ;;
			esac
		done < <(grep -a '^IOMMUPROF model mode=.*result=' "$log" 2>/dev/null)
		for mode in strict lazy direct; do
			n=$(grep -a -c "^IOMMUPROF model mode=$mode .*result=" "$log" 2>/dev/null)
			if [ "${n:-0}" != 0 ]; then
				continue
			elif grep -aq '^IOMMUPROF skip=' "$log" 2>/dev/null; then
				count skip "$k iommu $mode: $(grep -a -m1 '^IOMMUPROF skip=' "$log")"
			else
				count fail "$k iommu $mode: iommu-profile printed no model check"
			fi
		done
	done
}

# Calls per I/O in each IOMMU guest, from iommu-profile's lines: the sum
# over its windows divided by the I/Os (the compared figure is the
# minimum; the two differ only where other work fell into a window).
# req: device requests (block path only; passthrough is one request and
# not in the disk's statistics); map_sg, map_pg: dma_map_sgtable() and
# dma_map_page_attrs(); links: dma_iova_link() (7.x); iova, iovarb:
# alloc_iova_fast() and its rbtree allocations; maps: __iommu_map() (7.x:
# iommu_map_nosync(), the kernel has no __iommu_map()); pte4k, pte2m: IOMMU PTEs written by
# page size (kprobe, minimum over windows); unmaps: __iommu_unmap();
# syncs: intel_iommu_tlb_sync(); flsall: intel_flush_iotlb_all() (the
# flush queue's, timer-driven); wall_us: the wall time per I/O seen from
# user space with no probe armed (TCG: a ratio only).
print_iommu() {	# dir with console-<kernel>-iommu.log.txt, kernels...
	local dir=$1 k log
	shift
	for k in "$@"; do
		log=$dir/console-$k-iommu.log.txt
		[ -f "$log" ] || continue
		printf '\nIOMMU guest %s (q35, intel-iommu; kernel/probe/iommu-profile.c): calls per I/O (kprobe events; TCG: time only as a ratio)\n' "$k"
		grep -a '^IOMMUPROF mode=[a-z]* path=' "$log" | awk '
		function key() { return v["mode"] " " v["path"] " " v["op"] " " v["size"] " " v["backing"] }
		{
			delete v
			for (i = 2; i <= NF; i++) {
				j = index($i, "=")
				if (j) v[substr($i, 1, j - 1)] = substr($i, j + 1)
			}
			k = key()
			if (!(k in seen)) { seen[k] = 1; order[n++] = k }
			if (v["ios"] != "") {
				ios[k] = v["ios"]; req[k] = v["requests_min"]
				wall[k] = v["wall_usec"]
			}
			if ($0 ~ / ptes /) {
				p4[k] = v["map_4k"]; p2[k] = v["map_2m"]
			}
			if (v["sym"] != "") {
				h[k, v["sym"]] = v["hits"]
			}
		}
		function per(k, s) { return ios[k] ? h[k, s] / ios[k] : 0 }
		function maps(k) { return ((k, "__iommu_map") in h) ? per(k, "__iommu_map") : per(k, "iommu_map_nosync") }
		END {
			printf "%-6s %-5s %-5s %8s %-4s %5s %6s %6s %6s %6s %6s %6s %7s %6s %6s %6s %6s %9s\n",
			    "mode", "path", "op", "size", "buf", "req", "map_sg",
			    "map_pg", "links", "iova", "iovarb", "maps", "pte4k",
			    "pte2m", "unmaps", "syncs", "flsall", "wall_us"
			for (i = 0; i < n; i++) {
				k = order[i]
				if (!(k in ios)) continue
				split(k, f, " ")
				printf "%-6s %-5s %-5s %8s %-4s %5s %6g %6g %6g %6g %6g %6g %7s %6s %6g %6g %6g %9.0f\n",
				    f[1], f[2], f[3], f[4], f[5],
				    f[2] == "pt" ? "-" : req[k],
				    per(k, "dma_map_sgtable"),
				    per(k, "dma_map_page_attrs"),
				    per(k, "dma_iova_link"),
				    per(k, "alloc_iova_fast"), per(k, "alloc_iova"),
				    maps(k), p4[k] == "" ? "-" : p4[k],
				    p2[k] == "" ? "-" : p2[k],
				    per(k, "__iommu_unmap"),
				    per(k, "intel_iommu_tlb_sync"),
				    per(k, "intel_flush_iotlb_all"), wall[k]
			}
		}'
	done
}
