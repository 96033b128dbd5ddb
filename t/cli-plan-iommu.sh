#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only
#
# hugebuf plan --iommu, a pure model (nothing allocated): one READ_FIXED
# of 8 MiB of 2M hugetlb pages on NVMe behind an Intel IOMMU, queue limits
# 4M / 127 segments.  The expected figures are t/unit-iommu.c's cases (a)
# and (b), worked out by hand there from the kernel rules:
#  - 6.12 (one bvec per folio): 2 requests of 4M, 4 2M PTEs (the folios
#    never adjacent, each 2M at a 2M-aligned IOVA), 2 IOTLB syncs strict,
#    0 lazy (2 IOVAs queued instead);
#  - 6.1 (one bvec per 4 KiB page): 17 requests (16 x 127 pages + 16),
#    2048 4K PTEs, 20 map_pages (3 requests hold a folio end);
#  - 7.3 (the IOVA-based DMA API, t/unit-iommu.c's case (v1)): the same
#    2 requests and 4 2M PTEs through 2 dma_iova_try_alloc and 4
#    dma_iova_link, and 2 IOTLB syncs in lazy mode too (dma_iova_destroy()),
#    nothing queued; direct: 4 dma_map_phys;
#  - direct: the same requests and DMA API calls, no IOMMU figures;
#  - --pt: one passthrough request of 8M over max_hw 4M is refused;
#  - the contrast line gives the other coalescing's figures;
#  - --json parses and has the same figures;
#  - bad input: --iommu=bogus, --pt without --iommu, no queue limits,
#    a size off 512: exit 2 and one line naming the fix.
. "$(dirname "$0")/_fio-lib.sh"
t_need_cli
t_need_cmd python3
t_tmpdir

# the buffer and queue every case plans
ph() {
	"$HUGEBUF_CLI" plan --backing=hugetlb:2M --size=8M \
		--queue-limits=4M,127,4G "$@"
}

# run NAME ARGS...: hugebuf ARGS to $T_DIR/NAME, exit 0 wanted
run() {
	r_n=$1
	shift
	if "$@" >"$T_DIR/$r_n" 2>"$T_DIR/$r_n.err"; then
		return 0
	fi
	fail "$*: exit $?: $(head -n 1 "$T_DIR/$r_n.err")"
	return 1
}

# has NAME REGEX...: every line pattern is in $T_DIR/NAME
has() {
	h_f=$T_DIR/$1
	shift
	for h_re; do
		grep -qE "$h_re" "$h_f" || {
			h_miss=$h_re
			return 1
		}
	done
	return 0
}

# want NAME WHAT REGEX...: one check that the output has every line
want() {
	w_n=$1
	w_what=$2
	shift 2
	if has "$w_n" "$@"; then
		t_ok "$w_what"
	else
		fail "$w_what: no line /$h_miss/"
		sed 's/^/    /' "$T_DIR/$w_n"
	fi
}

# ---- text ----
if run s612 ph --kernel=6.12 --iommu; then
	want s612 "6.12 strict: 2 requests, 4 2M PTEs, 2 IOTLB syncs (case (a))" \
		'^iommu: +strict, .*block path' \
		'^  assumption: +synthetic PFNs: pages of one folio contiguous, folios never physically adjacent, each folio aligned to its size$' \
		'^  requests: +2$' \
		'^  dma api: +2 map_sg \(4 scatterlist entries\), 0 map_page$' \
		'^  iova allocs: +2 \(2 above the IOVA cache, 8388608 B\)$' \
		'^  iommu_map: +4 ' \
		'^  map_pages: +4$' \
		'^  ptes: +0 4K, 4 2M$' \
		'^  unmaps: +2 \(2 unmap_pages\)$' \
		'^  iotlb syncs: +2 ' \
		'^  contrast: +without coalescing: 17 requests, 17 DMA API maps, 2048 PTEs \(2048 4K, 0 2M\), 20 map_pages, 17 IOTLB syncs \(here: 2, 2, 4 \(0 4K, 4 2M\), 4, 2\)$'
fi
if run l612 ph --kernel=6.12 --iommu=lazy; then
	if has l612 '^iommu: +lazy' '^  ptes: +0 4K, 4 2M$' \
		'^  iova queued: +2 ' && ! grep -q '^  iotlb syncs:' "$T_DIR/l612"; then
		t_ok "6.12 lazy: the same PTEs, 0 IOTLB syncs, 2 IOVAs queued"
	else
		fail "6.12 lazy: no 2 IOVAs queued, or an IOTLB sync line"
		sed 's/^/    /' "$T_DIR/l612"
	fi
fi
if run s61 ph --kernel=6.1 --iommu; then
	want s61 "6.1 strict: 17 requests, 2048 4K PTEs (case (b))" \
		'^  requests: +17$' \
		'^  dma api: +17 map_sg \(2048 scatterlist entries\), 0 map_page$' \
		'^  iova allocs: +17 \(16 above the IOVA cache' \
		'^  iommu_map: +20 ' \
		'^  map_pages: +20$' \
		'^  ptes: +2048 4K, 0 2M$' \
		'^  unmaps: +17 \(17 unmap_pages\)$' \
		'^  iotlb syncs: +17 ' \
		'^  contrast: +with coalescing .*: 2 requests, 2 DMA API maps, 4 PTEs \(0 4K, 4 2M\), 4 map_pages, 2 IOTLB syncs \(here: 17, '
	# the IOMMU's requests are the ones plan predicts without it
	want s61 "6.1: plan's own requests line says 17 too" \
		'^requests: +17 per READ_FIXED'
fi
if run d612 ph --kernel=6.12 --iommu=direct; then
	if has d612 '^iommu: +direct' '^  requests: +2$' \
		'^  dma api: +2 map_sg .*dma-direct' &&
		! grep -qE '^  (iova|iommu_map|map_pages|ptes|unmaps|iotlb|iova queued)' \
			"$T_DIR/d612"; then
		t_ok "direct: requests and DMA API calls only, no PTEs"
	else
		fail "direct: figures missing, or an IOMMU figure printed"
		sed 's/^/    /' "$T_DIR/d612"
	fi
fi
if run pt ph --kernel=6.12 --iommu --pt; then
	want pt "--pt: 8M over max_hw 4M is refused" \
		'^iommu: +strict, .*passthrough path' \
		'^  refused: +-EINVAL: larger than max_hw_sectors_kb \(8388608 B, max_hw 4194304 B\)$'
	if grep -q '^  requests:' "$T_DIR/pt"; then
		fail "--pt refused, yet figures printed"
	fi
fi
if run pt4 "$HUGEBUF_CLI" plan --backing=hugetlb:2M --size=4M \
	--queue-limits=4M,127,4G --kernel=6.12 --iommu --pt; then
	want pt4 "--pt: 4M within max_hw 4M is one request of 2 2M PTEs" \
		'^  requests: +1$' '^  ptes: +0 4K, 2 2M$' \
		'^  contrast: +without coalescing: not modelled: '
fi
if run s73 ph --kernel=7.3 --iommu; then
	want s73 "7.3 strict: 2 IOVA ranges, 4 links, 4 2M PTEs (case (v1))" \
		'^iommu: +strict, .*block path, .*, iova DMA mapping$' \
		'^  requests: +2$' \
		'^  dma api: +2 dma_iova_try_alloc, 4 dma_iova_link \(4 segments\), 0 map_page, 0 dma_map_phys$' \
		'^  iova allocs: +2 \(2 above the IOVA cache, 8388608 B\)$' \
		'^  iommu_map: +4 \(iommu_map_nosync calls\)$' \
		'^  ptes: +0 4K, 4 2M$' \
		'^  unmaps: +2 ' \
		'^  iotlb syncs: +2 '
fi
if run l73 ph --kernel=7.3 --iommu=lazy; then
	want l73 "7.3 lazy: 2 IOTLB syncs all the same, 0 IOVAs queued" \
		'^iommu: +lazy' '^  iotlb syncs: +2 \(lazy too' \
		'^  iova queued: +0 '
fi
if run d73 ph --kernel=7.3 --iommu=direct; then
	if has d73 '^  dma api: +2 dma_iova_try_alloc, 0 dma_iova_link \(4 segments\), 0 map_page, 4 dma_map_phys \(dma-direct' &&
		! grep -qE '^  (iova|iommu_map|ptes|unmaps|iotlb)' "$T_DIR/d73"; then
		t_ok "7.3 direct: 4 dma_map_phys, no IOMMU figures"
	else
		fail "7.3 direct: no 4 dma_map_phys, or an IOMMU figure"
		sed 's/^/    /' "$T_DIR/d73"
	fi
fi
if run no ph --kernel=6.12; then
	if ! grep -q '^iommu:' "$T_DIR/no"; then
		t_ok "without --iommu: no iommu part"
	else
		fail "without --iommu: plan printed an iommu part"
	fi
fi

# ---- JSON ----
for a in "6.12 strict" "6.12 lazy" "6.1 strict" "6.12 direct" "7.3 lazy"; do
	k=${a% *}
	m=${a#* }
	n="j$k$m"
	if run "$n" ph --kernel="$k" --iommu="$m" --json; then
		if python3 -m json.tool "$T_DIR/$n" >/dev/null; then
			t_ok "--kernel=$k --iommu=$m --json parses"
		else
			fail "--kernel=$k --iommu=$m --json does not parse: $(head -c 200 "$T_DIR/$n")"
		fi
	fi
done
run jpt ph --kernel=6.12 --iommu --pt --json
if msg=$(python3 - "$T_DIR/j6.12strict" "$T_DIR/j6.12lazy" \
	"$T_DIR/j6.1strict" "$T_DIR/j6.12direct" "$T_DIR/jpt" \
	"$T_DIR/j7.3lazy" 2>&1 <<'PY'
import json, sys
s, l, o, d, pt, v = (json.load(open(f))["iommu"] for f in sys.argv[1:7])
bad = []
def want(x, what, **kv):
    for k, v in kv.items():
        if x.get(k) != v:
            bad.append("%s: %s %r, expected %r" % (what, k, x.get(k), v))
want(s, "6.12 strict", mode="strict", path="block", refused=False,
     requests=2, map_sg=2, sg_entries=4, iova_allocs=2, iova_uncached=2,
     iova_bytes=8 << 20, iommu_maps=4, map_pages=4, ptes_4k=0, ptes_2m=4,
     unmaps=2, unmap_pages=2, iotlb_syncs=2)
want(s["contrast"], "6.12 strict contrast", requests=17, ptes_4k=2048,
     iotlb_syncs=17)
want(l, "6.12 lazy", mode="lazy", ptes_2m=4, iova_queued=2)
if "iotlb_syncs" in l:
    bad.append("6.12 lazy: has iotlb_syncs")
want(o, "6.1 strict", requests=17, map_sg=17, sg_entries=2048,
     iova_uncached=16, iommu_maps=20, map_pages=20, ptes_4k=2048,
     ptes_2m=0, iotlb_syncs=17)
want(o["contrast"], "6.1 strict contrast", requests=2, ptes_2m=4)
want(d, "6.12 direct", mode="direct", requests=2, map_sg=2)
if "ptes_2m" in d or "iova_allocs" in d:
    bad.append("6.12 direct: has IOMMU figures")
want(pt, "--pt", path="passthrough", refused=True,
     reason="larger than max_hw_sectors_kb")
if "requests" in pt:
    bad.append("--pt refused, yet has requests")
want(s, "6.12 strict", dma_mapping="sg")
want(v, "7.3 lazy", dma_mapping="iova", requests=2, map_sg=0,
     iova_tries=2, iova_links=4, dma_vecs=4, iommu_maps=4, ptes_2m=4,
     unmaps=2, iotlb_syncs=2, iova_queued=0)
print("; ".join(bad) if bad else "6.12 %d PTEs of 2M, 6.1 %d of 4K" %
      (s["ptes_2m"], o["ptes_4k"]))
sys.exit(1 if bad else 0)
PY
); then
	t_ok "JSON: the figures of cases (a) and (b), lazy, direct, refused ($msg)"
else
	fail "JSON: $msg"
fi

# ---- bad input: exit 2, one line that names the fix ----
# bad NAME PATTERN ARGS...
bad() {
	b_n=$1
	b_re=$2
	shift 2
	"$@" >"$T_DIR/$b_n" 2>"$T_DIR/$b_n.err"
	b_rc=$?
	if [ "$b_rc" = 2 ] && [ "$(wc -l <"$T_DIR/$b_n.err")" = 1 ] &&
		grep -qE -e "$b_re" "$T_DIR/$b_n.err"; then
		t_ok "$b_n: exit 2, $(cat "$T_DIR/$b_n.err")"
	else
		fail "$b_n: exit $b_rc, wanted 2 and /$b_re/: $(cat "$T_DIR/$b_n.err")"
	fi
}
bad bogus '--iommu=bogus: .*use --iommu=strict, --iommu=lazy or --iommu=direct' \
	ph --iommu=bogus
bad pt-alone '--pt .*add --iommu' ph --pt
bad no-limits '--iommu needs .*--dev=nvmeXnY or --queue-limits=' \
	"$HUGEBUF_CLI" plan --backing=hugetlb:2M --size=8M --iommu
bad size-1000 '--size=1000: not a multiple of 512.*use --size=1024' \
	"$HUGEBUF_CLI" plan --backing=hugetlb:2M --size=1000 \
	--queue-limits=4M,127,4G --iommu
# a disk that is not NVMe, where this machine has one
disk=$(ls /sys/block 2>/dev/null | grep -v '^nvme' | head -n 1)
if [ -n "$disk" ]; then
	bad not-nvme "--dev=$disk: --iommu models an NVMe namespace" \
		"$HUGEBUF_CLI" plan --backing=hugetlb:2M --size=8M --iommu \
		--dev="$disk"
else
	t_skip_check "--dev of a disk that is not NVMe: this machine has none"
fi

t_done
