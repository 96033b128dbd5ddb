// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of hb_model_iommu_io(): the DMA-mapping work of one
 * registered-buffer I/O on NVMe behind an Intel IOMMU (dma-iommu,
 * intel-iommu; docs/kernel-rules.md "Under an IOMMU").  Synthetic PFN
 * layouts; every expected figure is worked out by hand next to its case
 * from the kernel rules lib/model/iommu.c cites, not from the model.  Each case
 * runs strict (iommu.strict=1) and lazy: lazy has the same figures but no
 * IOTLB sync and one flush-queue entry per unmap.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define K 1024ULL
#define M (1024ULL * 1024)
#define BASE (1ULL << 40) /* 1 GiB aligned user address */
#define MAX_FOLIOS 16

/* NVMe on PCIe: virt boundary 4095, 4 GiB segment boundary */
#define NVME_LIMITS(hw, segs)                                                  \
	{                                                                      \
		.max_hw_bytes = (hw), .max_segments = (segs),                  \
		.max_segment_size = 0xffffffffULL, .virt_boundary_mask = 4095, \
		.seg_boundary_mask = 0xffffffffULL, .dma_align_mask = 3        \
	}

static const struct hb_queue_limits q4m = NVME_LIMITS(4 * M, 127);
static const struct hb_queue_limits q8m = NVME_LIMITS(8 * M, 127);
/* wider than NVMe's 127/128, to reach the IOMMU rules with 4K pages */
static const struct hb_queue_limits q4m_wide = NVME_LIMITS(4 * M, 2048);

struct icase {
	const char *what;
	const char *kernel;
	unsigned int order; /* folio order: 0 (4K) or 9 (2M) */
	unsigned int nr_folios;
	uint64_t fpfn[MAX_FOLIOS]; /* each folio's first PFN */
	uint64_t io_off, io_len; /* from the buffer's start */
	bool pt, no_sgl, gig; /* passthrough; no SGLs; 1G pages too */
	const struct hb_queue_limits *lim;
	struct hb_iommu_pred want; /* strict */
	uint64_t run_pfn; /* non-zero: page j >= 1 has PFN run_pfn + j */
};

/* four 2M folios far apart, each 2M aligned (PFN multiple of 512) */
#define FOUR_2M                                    \
	{                                          \
		0x10000, 0x20000, 0x30000, 0x40000 \
	}

static const struct icase cases[] = {
	/*
	 * (a) 8M in 4 x 2M hugetlb folios, 6.12 (one bvec per folio), queue
	 * 4M / 127: bio_split_rw_at() cuts after 2 bvecs: 2 requests of 4M,
	 * nr_phys_segments 2 each -> map_sg.  blk_rq_map_sg(): 2 entries
	 * each (4 in all).  IOVA: 1024 pages per request, order 10 >= 6:
	 * uncached, not rounded: 2 x 4M, aligned 4M.  The folios are apart:
	 * 2 __iommu_map per request (4), each 2M at a 2M-aligned IOVA and
	 * PFN: map_pages(2M, 1): 4 calls, ptes[1] = 4.  One iotlb_sync_map
	 * per request.  Unmap 4M at a 4M-aligned IOVA: iommu_pgsize() ->
	 * 2M x 2 (no bigger size): 1 unmap_pages each.  Strict: 2 syncs.
	 */
	{ "(a) 8M of 2M folios, coalesced",
	  "6.12",
	  9,
	  4,
	  FOUR_2M,
	  0,
	  8 * M,
	  false,
	  false,
	  false,
	  &q4m,
	  { .requests = 2,
	    .map_sg = 2,
	    .sg_entries = 4,
	    .iova_allocs = 2,
	    .iova_uncached = 2,
	    .iova_bytes = 8 * M,
	    .iommu_maps = 4,
	    .map_pages = 4,
	    .ptes = { 0, 4, 0 },
	    .sync_map = 2,
	    .unmaps = 2,
	    .unmap_pages = 2,
	    .iotlb_syncs = 2 },
	  0 },
	/*
	 * (b) The same under 6.1: 2048 4K bvecs.  127 segments a request:
	 * 16 requests of 127 pages and one of 16 (16 * 127 + 16 = 2048):
	 * 17, all map_sg (nr_phys_segments > 1), 2048 entries (bvecs of one
	 * bio never merge).  IOVA: 127 pages is order 7: uncached, 16 times;
	 * 16 pages is order 4: cached, already a power of two; bytes 2048 *
	 * 4K = 8M.  iommu_map_sg() joins physically continuing entries:
	 * request k holds pages [127k, 127k + 127); the folio ends at pages
	 * 512, 1024, 1536 fall inside requests 4, 8, 12: 17 + 3 = 20
	 * __iommu_map, each under 2M: one map_pages(4K, n) each, 2048 4K
	 * PTEs.  Unmap: 127 pages at a 512K-aligned IOVA, or 16 pages: one
	 * 4K x n piece each: 17.
	 */
	{ "(b) 8M of 2M folios, 6.1 4K bvecs",
	  "6.1",
	  9,
	  4,
	  FOUR_2M,
	  0,
	  8 * M,
	  false,
	  false,
	  false,
	  &q4m,
	  { .requests = 17,
	    .map_sg = 17,
	    .sg_entries = 2048,
	    .iova_allocs = 17,
	    .iova_uncached = 16,
	    .iova_bytes = 8 * M,
	    .iommu_maps = 20,
	    .map_pages = 20,
	    .ptes = { 2048, 0, 0 },
	    .sync_map = 17,
	    .unmaps = 17,
	    .unmap_pages = 17,
	    .iotlb_syncs = 17 },
	  0 },
	/*
	 * (c) 128K at 64K inside one hugepage, 6.12: one trimmed bvec,
	 * bv_offset 64K: (64K & 4095) + 128K > 8K, not PRP simple; SGLs:
	 * nvme_setup_sgl_simple() -> map_page.  32 pages: order 5, cached;
	 * one __iommu_map of 128K, under 2M: map_pages(4K, 32).  Unmap 32
	 * pages: one piece.
	 */
	{ "(c) 128K in a hugepage, SGL simple",
	  "6.12",
	  9,
	  1,
	  { 0x10000 },
	  64 * K,
	  128 * K,
	  false,
	  false,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_page = 1,
	    .iova_allocs = 1,
	    .iova_bytes = 128 * K,
	    .iommu_maps = 1,
	    .map_pages = 1,
	    .ptes = { 32, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/* (c) without SGLs: map_sg of one entry, the same IOMMU work */
	{ "(c') 128K in a hugepage, no SGLs",
	  "6.12",
	  9,
	  1,
	  { 0x10000 },
	  64 * K,
	  128 * K,
	  false,
	  true,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 1,
	    .iova_allocs = 1,
	    .iova_bytes = 128 * K,
	    .iommu_maps = 1,
	    .map_pages = 1,
	    .ptes = { 32, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (c'') 4K at 2K (512-byte aligned), no SGLs: (2K & 4095) + 4K <= 8K:
	 * PRP simple, map_page.  iova_align(2K + 4K) = 8K: 2 pages, rounded
	 * (already 2), cached; the two pages are adjacent in the folio: one
	 * __iommu_map, map_pages(4K, 2).
	 */
	{ "(c'') 4K at 2K, PRP simple",
	  "6.12",
	  9,
	  1,
	  { 0x10000 },
	  2 * K,
	  4 * K,
	  false,
	  true,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_page = 1,
	    .iova_allocs = 1,
	    .iova_bytes = 8 * K,
	    .iommu_maps = 1,
	    .map_pages = 1,
	    .ptes = { 2, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (d) 16 4K pages, PFNs two apart: 16 bvecs, one request, 16
	 * entries, 16 runs: 16 __iommu_map / map_pages(4K, 1).  16 pages:
	 * order 4, cached, 64K.  Unmap 16 pages at a 64K-aligned IOVA: one.
	 */
	{ "(d) 4K pages apart",
	  "6.12",
	  0,
	  16,
	  { 0x1000, 0x1002, 0x1004, 0x1006, 0x1008, 0x100a, 0x100c, 0x100e,
	    0x1010, 0x1012, 0x1014, 0x1016, 0x1018, 0x101a, 0x101c, 0x101e },
	  0,
	  64 * K,
	  false,
	  false,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 16,
	    .iova_allocs = 1,
	    .iova_bytes = 64 * K,
	    .iommu_maps = 16,
	    .map_pages = 16,
	    .ptes = { 16, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (e) 16 4K pages: 0-3 and 4-7 each physically consecutive (the two
	 * runs apart), 8-15 apart: still 16 entries (one bio), but
	 * iommu_map_sg() joins 0-3 and 4-7: 1 + 1 + 8 = 10 __iommu_map,
	 * 10 map_pages, 16 4K PTEs.
	 */
	{ "(e) 4K pages partly contiguous",
	  "6.12",
	  0,
	  16,
	  { 0x1000, 0x1001, 0x1002, 0x1003, 0x2000, 0x2001, 0x2002, 0x2003,
	    0x3000, 0x3002, 0x3004, 0x3006, 0x3008, 0x300a, 0x300c, 0x300e },
	  0,
	  64 * K,
	  false,
	  false,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 16,
	    .iova_allocs = 1,
	    .iova_bytes = 64 * K,
	    .iommu_maps = 10,
	    .map_pages = 10,
	    .ptes = { 16, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/* (f) passthrough of 8M over max_hw 4M: -EINVAL, nothing mapped */
	{ "(f) passthrough over max_hw",
	  "6.12",
	  9,
	  4,
	  FOUR_2M,
	  0,
	  8 * M,
	  true,
	  false,
	  false,
	  &q4m,
	  { .error = -EINVAL },
	  0 },
	/* (f') passthrough, 6.12, the 128K of (c): one request, SGL simple */
	{ "(f') passthrough 128K, 6.12",
	  "6.12",
	  9,
	  1,
	  { 0x10000 },
	  64 * K,
	  128 * K,
	  true,
	  false,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_page = 1,
	    .iova_allocs = 1,
	    .iova_bytes = 128 * K,
	    .iommu_maps = 1,
	    .map_pages = 1,
	    .ptes = { 32, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (f'') passthrough, our 6.1 series: 128K at 0 of the 8M buffer.
	 * 6.1's own nr_segs would count the 4 bvecs to the table's end and
	 * the request keep it as nr_phys_segments (4 != 1: map_sg); the
	 * series' exact count (io_uring 2/5, nr_segs_from_head) gives the 1
	 * bvec the I/O covers, so nr_phys_segments is 1 and NVMe takes its
	 * one-segment shortcut, map_page, as 6.12 does in (f').  Same IOMMU
	 * work as (c).
	 */
	{ "(f'') passthrough 128K, 6.1 + the series' exact nr_segs",
	  "6.1+hugebuf",
	  9,
	  4,
	  FOUR_2M,
	  0,
	  128 * K,
	  true,
	  false,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_page = 1,
	    .iova_allocs = 1,
	    .iova_bytes = 128 * K,
	    .iommu_maps = 1,
	    .map_pages = 1,
	    .ptes = { 32, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (g) 3 x 2M folios, the 2nd and 3rd physically adjacent (PFN
	 * 0x40000, 0x40200), queue 8M: one request of 6M, 3 entries.  IOVA
	 * 1536 pages: uncached, not rounded (6M), aligned 8M.  Runs: folio 1
	 * (2M at IOVA 0) and folios 2+3 (4M at IOVA offset 2M, PFN 2M
	 * aligned): 2 __iommu_map; map_pages(2M, 1) and map_pages(2M, 2):
	 * 3 2M PTEs.  Unmap 6M at an 8M-aligned IOVA: 2M x 3, one piece.
	 */
	{ "(g) 4M run at IOVA offset 2M",
	  "6.12",
	  9,
	  3,
	  { 0x10000, 0x40000, 0x40200 },
	  0,
	  6 * M,
	  false,
	  false,
	  false,
	  &q8m,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 3,
	    .iova_allocs = 1,
	    .iova_uncached = 1,
	    .iova_bytes = 6 * M,
	    .iommu_maps = 2,
	    .map_pages = 2,
	    .ptes = { 0, 3, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (g') the same with 1G pages in the domain: the 4M run's IOVA and
	 * PFN differ modulo 1G and 4M < 1G: still 2M pages, same figures.
	 */
	{ "(g') the same, 4K|2M|1G",
	  "6.12",
	  9,
	  3,
	  { 0x10000, 0x40000, 0x40200 },
	  0,
	  6 * M,
	  false,
	  false,
	  true,
	  &q8m,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 3,
	    .iova_allocs = 1,
	    .iova_uncached = 1,
	    .iova_bytes = 6 * M,
	    .iommu_maps = 2,
	    .map_pages = 2,
	    .ptes = { 0, 3, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (h) 4M from 4K into the first of 3 folios apart: entries 2M - 4K
	 * (IOVA 0), 2M (IOVA 2M - 4K), 4K (IOVA 4M - 4K); 1024 pages, 4M
	 * aligned, uncached.  The 2nd entry's PFN is 2M aligned but its IOVA
	 * is 4K off: iommu_pgsize() gives 4K x 512, no superpage.  3 runs,
	 * 3 map_pages (511, 512, 1 pages): 1024 4K PTEs.  Unmap 4M at a 4M
	 * IOVA: unmap_pages(2M, 2); the leaf there is 4K, nothing to widen:
	 * one call.
	 */
	{ "(h) IOVA/PFN not congruent",
	  "6.12",
	  9,
	  3,
	  { 0x10000, 0x20000, 0x30000 },
	  4 * K,
	  4 * M,
	  false,
	  false,
	  false,
	  &q8m,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 3,
	    .iova_allocs = 1,
	    .iova_uncached = 1,
	    .iova_bytes = 4 * M,
	    .iommu_maps = 3,
	    .map_pages = 3,
	    .ptes = { 1024, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (h') As (h) with a 4M run: 4K into folio 1 for 6M, folios 2 and 3
	 * physically adjacent, folio 4 apart.  Entries 2M - 4K, 2M, 2M, 4K:
	 * 1536 pages (6M, uncached, 8M aligned).  Runs: folio 1's part
	 * (map_pages(4K, 511)); folios 2 + 3, 4M at IOVA 2M - 4K, PFN 2M
	 * aligned: not congruent modulo 2M, so no stop at the 2M boundary:
	 * map_pages(4K, 1024) in one call; the 4K of folio 4: map_pages(4K,
	 * 1).  Unmap 6M at an 8M IOVA: unmap_pages(2M, 3), one call.
	 */
	{ "(h') a 4M run not congruent",
	  "6.12",
	  9,
	  4,
	  { 0x10000, 0x40000, 0x40200, 0x30000 },
	  4 * K,
	  6 * M,
	  false,
	  false,
	  false,
	  &q8m,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 4,
	    .iova_allocs = 1,
	    .iova_uncached = 1,
	    .iova_bytes = 6 * M,
	    .iommu_maps = 3,
	    .map_pages = 3,
	    .ptes = { 1536, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (c3) 4K at 64K in a hugepage, no SGLs: bv_offset is 64K, but
	 * nvme_map_data() masks it to the controller page (6.1 and 6.12):
	 * 0 + 4K <= 8K, PRP simple.  1 page, cached.
	 */
	{ "(c3) 4K at 64K, PRP simple",
	  "6.12",
	  9,
	  1,
	  { 0x10000 },
	  64 * K,
	  4 * K,
	  false,
	  true,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_page = 1,
	    .iova_allocs = 1,
	    .iova_bytes = 4 * K,
	    .iommu_maps = 1,
	    .map_pages = 1,
	    .ptes = { 1, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (c4) 12K at 0, no SGLs: 0 + 12K > 8K, map_sg of 1 entry.  3 pages
	 * < 32: alloc_iova_fast() rounds up to 4 (16K of IOVA); the map and
	 * unmap are of the 12K: map_pages(4K, 3), one unmap piece.
	 */
	{ "(c4) 12K: IOVA rounded to 16K",
	  "6.12",
	  9,
	  1,
	  { 0x10000 },
	  0,
	  12 * K,
	  false,
	  true,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 1,
	    .iova_allocs = 1,
	    .iova_bytes = 16 * K,
	    .iommu_maps = 1,
	    .map_pages = 1,
	    .ptes = { 3, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (c5) 256K at 0, SGLs: SGL simple, map_page.  64 pages: not
	 * rounded (>= 32), order_base_2(64) = 6 >= 6: uncached.  The 128K of
	 * (c) is order 5: cached.
	 */
	{ "(c5) 256K: first uncached size",
	  "6.12",
	  9,
	  1,
	  { 0x10000 },
	  0,
	  256 * K,
	  false,
	  false,
	  false,
	  &q4m,
	  { .requests = 1,
	    .map_page = 1,
	    .iova_allocs = 1,
	    .iova_uncached = 1,
	    .iova_bytes = 256 * K,
	    .iommu_maps = 1,
	    .map_pages = 1,
	    .ptes = { 64, 0, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0 },
	/*
	 * (i) 1024 4K pages: page 0 apart, pages 1-1023 at PFN 0x40000 + j
	 * (page 1 is 4K past a 2M boundary).  A queue of 2048 segments: one
	 * request, 1024 entries, 1024 pages uncached.  Runs: page 0 (IOVA
	 * 0): map_pages(4K, 1); pages 1-1023 at IOVA 4K, PFN 4K past 2M:
	 * congruent modulo 2M, so iommu_pgsize() stops the 4K pages at the
	 * 2M boundary (offset 2M - 4K, and 2M - 4K + 2M <= 4M - 4K):
	 * map_pages(4K, 511), then map_pages(2M, 1).  PTEs: 512 4K, 1 2M.
	 * Unmap 4M at a 4M IOVA: unmap_pages(2M, 2), the leaf at its start
	 * is 4K: one call.
	 */
	{ "(i) 4K pages, then a 2M page",
	  "6.12",
	  0,
	  1024,
	  { 0x10000 },
	  0,
	  4 * M,
	  false,
	  false,
	  false,
	  &q4m_wide,
	  { .requests = 1,
	    .map_sg = 1,
	    .sg_entries = 1024,
	    .iova_allocs = 1,
	    .iova_uncached = 1,
	    .iova_bytes = 4 * M,
	    .iommu_maps = 2,
	    .map_pages = 3,
	    .ptes = { 512, 1, 0 },
	    .sync_map = 1,
	    .unmaps = 1,
	    .unmap_pages = 1,
	    .iotlb_syncs = 1 },
	  0x40000 },
};

static int setup(const struct icase *c, struct hb_page **pages, uint64_t **pfn,
		 uint64_t *span)
{
	uint64_t fp = 1ULL << c->order, n = c->nr_folios * fp, j;

	*span = n * 4096;
	*pages = calloc(n, sizeof(**pages));
	*pfn = calloc(n, sizeof(**pfn));
	if (!*pages || !*pfn)
		return t_fail("out of memory");
	for (j = 0; j < n; j++) {
		(*pages)[j].folio = j / fp + 1;
		(*pages)[j].idx = (uint32_t)(j % fp);
		(*pages)[j].order = c->order;
		if (c->run_pfn && j)
			(*pfn)[j] = c->run_pfn + j;
		else if (j / fp < MAX_FOLIOS)
			(*pfn)[j] = c->fpfn[j / fp] + j % fp;
	}
	return T_EXIT_PASS;
}

#define CMP(f)                                                              \
	do {                                                                \
		if (got->f != want->f)                                      \
			ret = t_fail("%s (%s): " #f " %llu, expected %llu", \
				     c->what, mode,                         \
				     (unsigned long long)got->f,            \
				     (unsigned long long)want->f);          \
	} while (0)

static int compare(const struct icase *c, const char *mode,
		   const struct hb_iommu_pred *got,
		   const struct hb_iommu_pred *want)
{
	int ret = T_EXIT_PASS;

	if (got->error != want->error)
		ret = t_fail("%s (%s): error %d, expected %d", c->what, mode,
			     got->error, want->error);
	CMP(requests);
	CMP(map_page);
	CMP(map_sg);
	CMP(sg_entries);
	CMP(iova_allocs);
	CMP(iova_uncached);
	CMP(iova_bytes);
	CMP(iommu_maps);
	CMP(map_pages);
	CMP(ptes[0]);
	CMP(ptes[1]);
	CMP(ptes[2]);
	CMP(sync_map);
	CMP(unmaps);
	CMP(unmap_pages);
	CMP(iotlb_syncs);
	CMP(fq_queued);
	CMP(gen);
	CMP(iova_tries);
	CMP(iova_links);
	CMP(dma_vecs);
	CMP(map_phys);
	return ret;
}

static int run_mode(const struct icase *c, const struct hb_kmodel *km,
		    const struct hb_page *pages, const uint64_t *pfn,
		    uint64_t span, bool strict)
{
	struct hb_iommu_pred got, want = c->want;
	struct hb_iommu_cfg cfg;

	hb_iommu_cfg_default(&cfg, strict);
	cfg.sgl = !c->no_sgl;
	if (c->gig)
		cfg.pgsize_bitmap |= 1ULL << 30;
	if (!strict) {
		/* lazy: the same work, the IOVA queued instead of a sync */
		want.fq_queued = want.unmaps;
		want.iotlb_syncs = 0;
	}
	if (hb_model_iommu_io(km, pages, pfn, BASE, span, BASE + c->io_off,
			      c->io_len, c->pt, c->lim, &cfg, &got))
		return t_fail("%s: %s", c->what, hb_errmsg());
	return compare(c, strict ? "strict" : "lazy", &got, &want);
}

/*
 * No translation (an identity domain, or no IOMMU): dma_direct_map_sg()
 * and dma_direct_map_page() take the same requests with no IOVA and no
 * page table, so every IOMMU figure is 0 and the DMA API's are as
 * translated; hb_iommu_figure() gives the dma-iommu entry points 0 too.
 */
static int run_direct(const struct icase *c, const struct hb_kmodel *km,
		      const struct hb_page *pages, const uint64_t *pfn,
		      uint64_t span)
{
	struct hb_iommu_pred got, want = { 0 };
	struct hb_iommu_cfg cfg;

	hb_iommu_cfg_default(&cfg, true);
	cfg.translated = false;
	cfg.sgl = !c->no_sgl;
	want.error = c->want.error;
	want.requests = c->want.requests;
	want.map_page = c->want.map_page;
	want.map_sg = c->want.map_sg;
	want.sg_entries = c->want.sg_entries;
	if (hb_model_iommu_io(km, pages, pfn, BASE, span, BASE + c->io_off,
			      c->io_len, c->pt, c->lim, &cfg, &got))
		return t_fail("%s: %s", c->what, hb_errmsg());
	if (hb_iommu_figure(&got, &cfg, HB_IOMMU_MAP_SG) ||
	    hb_iommu_figure(&got, &cfg, HB_IOMMU_MAP_PAGE))
		return t_fail("%s (direct): a dma-iommu entry point counts",
			      c->what);
	if (hb_iommu_figure(&got, &cfg, HB_IOMMU_DMA_MAP_SG) != want.map_sg)
		return t_fail("%s (direct): dma_map_sgtable() figure %llu",
			      c->what,
			      (unsigned long long)hb_iommu_figure(
				      &got, &cfg, HB_IOMMU_DMA_MAP_SG));
	return compare(c, "direct", &got, &want);
}

static int run_case(const struct icase *c)
{
	struct hb_page *pages = NULL;
	uint64_t *pfn = NULL, span;
	struct hb_kmodel km;
	int ret;

	if (hb_kmodel_parse(c->kernel, &km))
		return t_fail("cannot parse %s", c->kernel);
	ret = setup(c, &pages, &pfn, &span);
	if (ret == T_EXIT_PASS)
		ret = t_worst(
			t_worst(run_mode(c, &km, pages, pfn, span, true),
				run_mode(c, &km, pages, pfn, span, false)),
			run_direct(c, &km, pages, pfn, span));
	free(pages);
	free(pfn);
	return ret;
}

/*
 * 7.3's IOVA-based DMA API (HB_IOMMU_GEN_IOVA), every mode worked out by
 * hand: lazy is not strict's figures with the syncs queued, since
 * dma_iova_destroy() syncs the IOTLB in both, and dma-direct calls
 * dma_iova_try_alloc() (which says no) and dma_map_phys() per segment.
 */
struct vcase {
	struct icase c; /* c.want unused */
	struct hb_iommu_pred strict, lazy, direct;
};

/*
 * The IOVA path's figures, strict and lazy alike (dma_iova_destroy()
 * syncs in both): cases (v1), (v2) and (v4) below.
 */
#define V1_MAPPED                                                         \
	{                                                                 \
		.gen = HB_IOMMU_GEN_IOVA, .requests = 2, .iova_tries = 2, \
		.dma_vecs = 4, .iova_links = 4, .iova_allocs = 2,         \
		.iova_uncached = 2, .iova_bytes = 8 * M, .iommu_maps = 4, \
		.ptes = { 0, 4, 0 }, .sync_map = 2, .unmaps = 2,          \
		.iotlb_syncs = 2                                          \
	}
#define V2_MAPPED                                                             \
	{                                                                     \
		.gen = HB_IOMMU_GEN_IOVA, .requests = 1, .iova_tries = 1,     \
		.dma_vecs = 16, .iova_links = 16, .iova_allocs = 1,           \
		.iova_bytes = 64 * K, .iommu_maps = 16, .ptes = { 16, 0, 0 }, \
		.sync_map = 1, .unmaps = 1, .iotlb_syncs = 1                  \
	}
#define V4_MAPPED                                                             \
	{                                                                     \
		.gen = HB_IOMMU_GEN_IOVA, .requests = 1, .iova_tries = 1,     \
		.dma_vecs = 1, .iova_links = 1, .iova_allocs = 1,             \
		.iova_bytes = 128 * K, .iommu_maps = 1, .ptes = { 32, 0, 0 }, \
		.sync_map = 1, .unmaps = 1, .iotlb_syncs = 1                  \
	}

/* case (c)'s buffer and I/O: 128K at 64K inside one hugepage */
#define HUGEPAGE_128K(what, no_sgl)                                     \
	{                                                               \
		what, "7.3", 9, 1, { 0x10000 }, 64 * K, 128 * K, false, \
			no_sgl, false, &q4m, { 0 }, 0                   \
	}
/* (v3): strict and lazy apart only in how the unmap flushes */
#define V3_MAPPED(flush)                                                \
	{                                                               \
		.gen = HB_IOMMU_GEN_IOVA, .requests = 1, .map_page = 1, \
		.map_phys = 1, .iova_allocs = 1, .iova_bytes = 128 * K, \
		.iommu_maps = 1, .ptes = { 32, 0, 0 }, .sync_map = 1,   \
		.unmaps = 1, flush                                      \
	}

static const struct vcase vcases[] = {
	/*
	 * (v1) case (a) under 7.3: 2 requests of 4M, 2 segments each (the
	 * folios apart; blk_map_iter_next() joins nothing), gaps at 2M
	 * boundaries: the IOVA path.  dma_iova_try_alloc(): one 4M IOVA
	 * (1024 pages, order 10: uncached) a request; dma_iova_link() per
	 * segment: 4, each 2M at a 2M-aligned IOVA and PFN: 4 2M PTEs, no
	 * map_pages (the generic page table).  dma_iova_sync(): 2 sync_map.
	 * dma_iova_destroy(): one __iommu_unmap() and one IOTLB sync a
	 * request in strict and lazy alike, nothing queued.
	 */
	{ { "(v1) 8M of 2M folios, 7.3 IOVA path",
	    "7.3",
	    9,
	    4,
	    FOUR_2M,
	    0,
	    8 * M,
	    false,
	    false,
	    false,
	    &q4m,
	    { 0 },
	    0 },
	  V1_MAPPED,
	  V1_MAPPED,
	  { .gen = HB_IOMMU_GEN_IOVA,
	    .requests = 2,
	    .iova_tries = 2,
	    .dma_vecs = 4,
	    .map_phys = 4 } },
	/*
	 * (v2) 64K of 16 order-0 folios at every other PFN: one request of
	 * 16 segments (q4m allows 127).  One IOVA of 16 pages (order 4,
	 * cached, a power of two already: 64K), 16 links of one 4K PTE each,
	 * one sync_map, one unmap, one IOTLB sync in both modes.  6.12 would
	 * give one map_sg of 16 entries and, lazy, a queued IOVA instead.
	 */
	{ { "(v2) 64K of 16 apart 4K pages, 7.3",
	    "7.3",
	    0,
	    16,
	    { 0x1000, 0x1002, 0x1004, 0x1006, 0x1008, 0x100a, 0x100c, 0x100e,
	      0x1010, 0x1012, 0x1014, 0x1016, 0x1018, 0x101a, 0x101c, 0x101e },
	    0,
	    64 * K,
	    false,
	    false,
	    false,
	    &q4m,
	    { 0 },
	    0 },
	  V2_MAPPED,
	  V2_MAPPED,
	  { .gen = HB_IOMMU_GEN_IOVA,
	    .requests = 1,
	    .iova_tries = 1,
	    .dma_vecs = 16,
	    .map_phys = 16 } },
	/*
	 * (v3) case (c) under 7.3: one segment, SGLs:
	 * nvme_pci_setup_data_simple() -> dma_map_bvec() ->
	 * dma_map_page_attrs() -> dma_map_phys() -> iommu_dma_map_phys():
	 * the 6.12 figures, the unmap (__iommu_dma_unmap()) queued in lazy
	 * mode; no dma_iova_*().
	 */
	{ HUGEPAGE_128K("(v3) 128K in a hugepage, 7.3 simple", false),
	  V3_MAPPED(.iotlb_syncs = 1),
	  V3_MAPPED(.fq_queued = 1),
	  { .gen = HB_IOMMU_GEN_IOVA,
	    .requests = 1,
	    .map_page = 1,
	    .map_phys = 1 } },
	/*
	 * (v4) the same without SGLs: 64K + 128K > 8K, no PRP simple
	 * (BLK_STS_AGAIN), so blk_rq_dma_map_iter_start() with one segment:
	 * one IOVA of 32 pages (order 5, cached, not rounded), one link,
	 * one IOTLB sync in both modes.
	 */
	{ HUGEPAGE_128K("(v4) 128K in a hugepage, 7.3 no SGLs", true),
	  V4_MAPPED,
	  V4_MAPPED,
	  { .gen = HB_IOMMU_GEN_IOVA,
	    .requests = 1,
	    .iova_tries = 1,
	    .dma_vecs = 1,
	    .map_phys = 1 } },
};

static int run_vmode(const struct vcase *v, const struct hb_kmodel *km,
		     const struct hb_page *pages, const uint64_t *pfn,
		     uint64_t span, int mode)
{
	static const char *const names[] = { "strict", "lazy", "direct" };
	const struct hb_iommu_pred *want[] = { &v->strict, &v->lazy,
					       &v->direct };
	const struct icase *c = &v->c;
	struct hb_iommu_pred got;
	struct hb_iommu_cfg cfg;

	hb_iommu_cfg_default(&cfg, mode == 0);
	cfg.translated = mode != 2;
	cfg.sgl = !c->no_sgl;
	if (hb_model_iommu_io(km, pages, pfn, BASE, span, BASE + c->io_off,
			      c->io_len, c->pt, c->lim, &cfg, &got))
		return t_fail("%s: %s", c->what, hb_errmsg());
	/* the dma-iommu entry: iommu_dma_map_phys(), translated only */
	if (hb_iommu_figure(&got, &cfg, HB_IOMMU_MAP_PAGE) !=
	    (mode == 2 ? 0 : want[mode]->map_phys))
		return t_fail("%s (%s): iommu_dma_map_phys() figure %llu",
			      c->what, names[mode],
			      (unsigned long long)hb_iommu_figure(
				      &got, &cfg, HB_IOMMU_MAP_PAGE));
	return compare(c, names[mode], &got, want[mode]);
}

static int run_vcase(const struct vcase *v)
{
	struct hb_page *pages = NULL;
	uint64_t *pfn = NULL, span;
	struct hb_kmodel km;
	int ret, mode;

	if (hb_kmodel_parse(v->c.kernel, &km))
		return t_fail("cannot parse %s", v->c.kernel);
	ret = setup(&v->c, &pages, &pfn, &span);
	for (mode = 0; mode < 3 && ret == T_EXIT_PASS; mode++)
		ret = run_vmode(v, &km, pages, pfn, span, mode);
	free(pages);
	free(pfn);
	return ret;
}

/*
 * The generation is the kernel's: nvme-pci on blk_rq_dma_map_iter_*()
 * from 6.17 (lib/model/iommu.c), the backport is 6.1 underneath.
 */
static int check_gen(void)
{
	static const struct {
		const char *kernel;
		enum hb_iommu_gen gen;
	} g[] = { { "6.1", HB_IOMMU_GEN_SG },
		  { "6.1+hugebuf", HB_IOMMU_GEN_SG },
		  { "6.12", HB_IOMMU_GEN_SG },
		  { "6.16", HB_IOMMU_GEN_SG },
		  { "6.17", HB_IOMMU_GEN_IOVA },
		  { "7.3", HB_IOMMU_GEN_IOVA } };
	struct hb_kmodel km;
	int ret = T_EXIT_PASS;
	size_t i;

	for (i = 0; i < T_ARRAY_SIZE(g); i++) {
		if (hb_kmodel_parse(g[i].kernel, &km))
			return t_fail("cannot parse %s", g[i].kernel);
		if (hb_iommu_gen_of(&km) != g[i].gen)
			ret = t_fail("%s: generation %s, expected %s",
				     g[i].kernel,
				     hb_iommu_gen_name(hb_iommu_gen_of(&km)),
				     hb_iommu_gen_name(g[i].gen));
	}
	return ret;
}

/*
 * The verdict's range: rbtree allocations are the uncached sizes exactly,
 * plus cache misses, never more than all allocations; every other figure
 * is one value.
 */
static int check_verdict(void)
{
	struct hb_iommu_pred p = { .iova_allocs = 17,
				   .iova_uncached = 16,
				   .map_sg = 17,
				   .ptes = { 2048, 0, 0 } };
	struct hb_iommu_cfg c;
	int ret = T_EXIT_PASS;

	hb_iommu_cfg_default(&c, true);
	if (!hb_iommu_count_matches(&p, &c, HB_IOMMU_IOVA_UNCACHED, 16) ||
	    !hb_iommu_count_matches(&p, &c, HB_IOMMU_IOVA_UNCACHED, 17))
		ret = t_fail("rbtree allocations within 16..17 refused");
	if (hb_iommu_count_matches(&p, &c, HB_IOMMU_IOVA_UNCACHED, 15) ||
	    hb_iommu_count_matches(&p, &c, HB_IOMMU_IOVA_UNCACHED, 18))
		ret = t_fail("rbtree allocations outside 16..17 accepted");
	if (hb_iommu_count_matches(&p, &c, HB_IOMMU_PTES_4K, 2049) ||
	    !hb_iommu_count_matches(&p, &c, HB_IOMMU_PTES_4K, 2048))
		ret = t_fail("the 4K PTE verdict is not exact");
	c.translated = false;
	if (hb_iommu_count_matches(&p, &c, HB_IOMMU_MAP_SG, 17) ||
	    !hb_iommu_count_matches(&p, &c, HB_IOMMU_DMA_MAP_SG, 17))
		ret = t_fail("direct: iommu_dma_map_sg must count 0, "
			     "dma_map_sgtable the map_sg requests");
	return ret;
}

/* What the model refuses to guess: bounce pages, 5.10's bio_add_page(). */
static int check_unmodelled(void)
{
	static const struct icase c = { .what = "edges",
					.kernel = "6.12",
					.order = 9,
					.nr_folios = 1,
					.fpfn = { 0x10000 } };
	struct hb_page *pages = NULL;
	uint64_t *pfn = NULL, span;
	struct hb_iommu_pred got;
	struct hb_iommu_cfg cfg;
	struct hb_kmodel km;
	int ret;

	hb_iommu_cfg_default(&cfg, true);
	ret = setup(&c, &pages, &pfn, &span);
	if (ret != T_EXIT_PASS)
		goto out;
	hb_kmodel_parse("6.12", &km);
	/* 2 bytes off dma_alignment + 1 = 4: blk_rq_map_user_iov() copies */
	if (hb_model_iommu_io(&km, pages, pfn, BASE, span, BASE + 2, 512, true,
			      &q4m, &cfg, &got) != -EOPNOTSUPP)
		ret = t_fail("a bounced passthrough must be -EOPNOTSUPP");
	if (hb_model_iommu_io(&km, pages, pfn, BASE, span, BASE, 1000, false,
			      &q4m, &cfg, &got) != -EINVAL)
		ret = t_fail("a length off 512 must be -EINVAL");
	if (hb_model_iommu_io(&km, pages, pfn, BASE, span, BASE + span - 4096,
			      8192, false, &q4m, &cfg, &got) != -EINVAL)
		ret = t_fail("an I/O past the buffer must be -EINVAL");
	hb_kmodel_parse("5.10", &km);
	if (hb_model_iommu_io(&km, pages, pfn, BASE, span, BASE, 4096, false,
			      &q4m, &cfg, &got) != -EOPNOTSUPP)
		ret = t_fail("5.10's bio_add_page() bios must be -EOPNOTSUPP");
out:
	free(pages);
	free(pfn);
	return ret;
}

int main(int argc, char **argv)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	for (i = 0; i < T_ARRAY_SIZE(cases); i++)
		ret = t_worst(ret, t_sub(run_case(&cases[i])));
	for (i = 0; i < T_ARRAY_SIZE(vcases); i++)
		ret = t_worst(ret, t_sub(run_vcase(&vcases[i])));
	ret = t_worst(ret, t_sub(check_gen()));
	ret = t_worst(ret, t_sub(check_unmodelled()));
	ret = t_worst(ret, t_sub(check_verdict()));
	if (ret == T_EXIT_PASS)
		t_info("%zu IOMMU cases (%zu of 7.3's DMA-API path), strict, "
		       "lazy and direct, agree with the hand-worked kernel "
		       "rules",
		       T_ARRAY_SIZE(cases) + T_ARRAY_SIZE(vcases),
		       T_ARRAY_SIZE(vcases));
	return t_done(ret);
}
