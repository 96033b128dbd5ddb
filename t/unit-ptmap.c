// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of hb_model_pt_map(): what NVMe passthrough with a fixed
 * buffer (IORING_URING_CMD_FIXED) gets from blk_rq_map_user_iov() under
 * our 6.1 series ("6.1+hugebuf": coalesced, exact nr_segs from io_uring 2/5,
 * no split check), plain 6.1 (one bvec per 4 KiB page) and 6.12
 * (bio_split_rw_at() check).  Every expected value is worked out by hand
 * from the kernel rules written next to it (docs/kernel-rules.md §9.4),
 * not from the model.  Also checks which releases get which rules.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define K 1024ULL
#define M (1024ULL * 1024)
#define BASE (1ULL << 40) /* 1 GiB aligned user address */

/* NVMe on PCIe: MDTS 512 KiB, virt boundary 4095, dma_alignment 3 */
static const struct hb_queue_limits nvme61 = {
	.max_hw_bytes = 512 * K,
	.max_segments = 127,
	.max_segment_size = 0xffffffffULL,
	.virt_boundary_mask = 4095,
	.seg_boundary_mask = 0xffffffffULL,
	.dma_align_mask = 3,
};
static const struct hb_queue_limits nvme612 = {
	.max_hw_bytes = 512 * K,
	.max_segments = 128,
	.max_segment_size = 0xffffffffULL,
	.virt_boundary_mask = 4095,
	.seg_boundary_mask = 0xffffffffULL,
	.dma_align_mask = 3,
};
/* a driver with 64 KiB segments (the be0e822bb3f5 case) */
static const struct hb_queue_limits seg64k = {
	.max_hw_bytes = 512 * K,
	.max_segments = 128,
	.max_segment_size = 64 * K,
	.virt_boundary_mask = 4095,
	.seg_boundary_mask = 0xffffffffULL,
	.dma_align_mask = 3,
};
/* the same with room for only 4 segments */
static const struct hb_queue_limits seg64k_4 = {
	.max_hw_bytes = 512 * K,
	.max_segments = 4,
	.max_segment_size = 64 * K,
	.virt_boundary_mask = 4095,
	.seg_boundary_mask = 0xffffffffULL,
	.dma_align_mask = 3,
};
/* 64 KiB segment boundary, no virt boundary */
static const struct hb_queue_limits bound64k = {
	.max_hw_bytes = 512 * K,
	.max_segments = 128,
	.max_segment_size = 0xffffffffULL,
	.virt_boundary_mask = 0,
	.seg_boundary_mask = 0xffffULL,
	.dma_align_mask = 3,
};

#define NO_CHECK (-1)

struct pcase {
	const char *what;
	const char *kernel;
	uint64_t folio, head, buf_len; /* the registered buffer */
	uint64_t io_off, io_len; /* the I/O, from the buffer's start */
	const struct hb_queue_limits *lim;
	enum hb_pt_path path;
	int nsegs, nr_phys; /* NO_CHECK: not compared */
	int bounce_over; /* copy only; NO_CHECK otherwise */
};

static const struct pcase cases[] = {
	/*
	 * 2 MiB hugepage, 512 KiB at 0.  Coalesced: one 2M bvec, nr_segs 1
	 * (6.1 counts bvecs to the table's end: 1).  Aligned (offset 0,
	 * length 512K).  512K = max_hw.  6.1: the whole 2M bvec is more
	 * than the I/O: the walk stops, direct; one scatterlist entry (the
	 * 4 GiB segment boundary and the 4G-1 segment size are far).  6.12:
	 * one trimmed 512K vec, one segment.
	 */
	{ "2M hugepage, 512K", "6.1+hugebuf", T_SZ_2M, 0, T_SZ_2M, 0, 512 * K,
	  &nvme61, HB_PT_DIRECT, 1, 1, NO_CHECK },
	{ "2M hugepage, 512K", "6.12", T_SZ_2M, 0, T_SZ_2M, 0, 512 * K,
	  &nvme612, HB_PT_DIRECT, 1, 1, NO_CHECK },
	/* plain 6.1 has 512 4K bvecs: nr_segs 512 > 127 */
	{ "2M hugepage, 512K", "6.1", T_SZ_2M, 0, T_SZ_2M, 0, 512 * K, &nvme61,
	  HB_PT_EINVAL, 0, 0, NO_CHECK },
	/*
	 * plain 6.1, the last 256K of that buffer: bvec 448 on, nr_segs 64;
	 * 64 whole 4K bvecs add up to exactly 256K, no gaps: direct, 64
	 * entries, nr_phys_segments 64.
	 */
	{ "2M hugepage, last 256K", "6.1", T_SZ_2M, 0, T_SZ_2M,
	  T_SZ_2M - 256 * K, 256 * K, &nvme61, HB_PT_DIRECT, 64, 64, NO_CHECK },
	/*
	 * 8 MiB of 2M folios, 512K at 0.  6.1+hugebuf: nr_segs 1 (the I/O
	 * lies in bvec 0; io_uring 2/5), one entry: direct 1, nr_phys 1.
	 */
	{ "8M of 2M, 512K at 0", "6.1+hugebuf", T_SZ_2M, 0, 8 * M, 0, 512 * K,
	  &nvme61, HB_PT_DIRECT, 1, 1, NO_CHECK },
	/*
	 * 256 MiB of 2M folios, 128 bvecs against max_segments 127, 512K
	 * at 0: 6.1's over-estimate (all 128 bvecs to the table's end) was
	 * -EINVAL; io_uring 2/5 counts 1: direct 1.  The last 512K lies in
	 * bvec 127, nr_segs 1 either way.  Plain 6.1: 65536 4K bvecs.
	 */
	{ "256M of 2M, 512K at 0", "6.1+hugebuf", T_SZ_2M, 0, 256 * M, 0,
	  512 * K, &nvme61, HB_PT_DIRECT, 1, 1, NO_CHECK },
	{ "256M of 2M, last 512K", "6.1+hugebuf", T_SZ_2M, 0, 256 * M,
	  256 * M - 512 * K, 512 * K, &nvme61, HB_PT_DIRECT, 1, 1, NO_CHECK },
	{ "256M of 2M, 512K at 0", "6.1", T_SZ_2M, 0, 256 * M, 0, 512 * K,
	  &nvme61, HB_PT_EINVAL, 0, 0, NO_CHECK },
	/*
	 * A buffer starting 4K + 0x200 before a folio's end: bvec 0 holds
	 * 0x1e00 bytes on a tail page (bv_offset 0x200 of that page), so
	 * 512K from the start covers bvec 0 and bvec 1: nr_segs 2, two
	 * entries.  Mainline's formula with this bv_offset would say 1.
	 */
	{ "bvec 0 of 0x1e00, 512K at 0", "6.1+hugebuf", T_SZ_2M,
	  T_SZ_2M - 0x1e00, 8 * M, 0, 512 * K, &nvme61, HB_PT_DIRECT, 2, 2,
	  NO_CHECK },
	/*
	 * 512K across the first folio boundary (at 2M - 256K): 256K of
	 * bvec 0 ending on 2M, 256K of bvec 1 from 0: no gap, two entries.
	 * 6.1+hugebuf: nr_segs 2 (256K of bvec 0 left, 256K more: one folio);
	 * 6.12: 2 segments.
	 */
	{ "8M of 2M, 512K across 2M", "6.1+hugebuf", T_SZ_2M, 0, 8 * M,
	  T_SZ_2M - 256 * K, 512 * K, &nvme61, HB_PT_DIRECT, 2, 2, NO_CHECK },
	{ "8M of 2M, 512K across 2M", "6.12", T_SZ_2M, 0, 8 * M,
	  T_SZ_2M - 256 * K, 512 * K, &nvme612, HB_PT_DIRECT, 2, 2, NO_CHECK },
	/*
	 * 8 MiB of 4K pages, 256K at 0: 2048 bvecs, and 6.1's nr_segs is
	 * all 2048 of them > 127.  6.1+hugebuf does not coalesce order-0
	 * pages, but counts the 64 bvecs the I/O covers (io_uring 2/5): 64
	 * whole 4K bvecs, no gaps, direct 64.  6.12 walks the 64 trimmed
	 * 4K vecs: 64 segments.
	 */
	{ "8M of 4K, 256K", "6.1", T_SZ_4K, 0, 8 * M, 0, 256 * K, &nvme61,
	  HB_PT_EINVAL, 0, 0, NO_CHECK },
	{ "8M of 4K, 256K", "6.1+hugebuf", T_SZ_4K, 0, 8 * M, 0, 256 * K,
	  &nvme61, HB_PT_DIRECT, 64, 64, NO_CHECK },
	{ "8M of 4K, 256K", "6.12", T_SZ_4K, 0, 8 * M, 0, 256 * K, &nvme612,
	  HB_PT_DIRECT, 64, 64, NO_CHECK },
	/*
	 * 512K of 4K pages, all of it: 128 bvecs.  6.1: 128 > 127.  6.12
	 * with 128 segments: the 128th vec still fits (127 < 128, 508K + 4K
	 * <= 512K): direct 128.  With 127 segments the 128th needs a split:
	 * copy, and the 128 bounce pages are over 127.
	 */
	{ "512K of 4K, whole", "6.1", T_SZ_4K, 0, 512 * K, 0, 512 * K, &nvme61,
	  HB_PT_EINVAL, 0, 0, NO_CHECK },
	{ "512K of 4K, whole", "6.12", T_SZ_4K, 0, 512 * K, 0, 512 * K,
	  &nvme612, HB_PT_DIRECT, 128, 128, NO_CHECK },
	{ "512K of 4K, 127 segments", "6.12", T_SZ_4K, 0, 512 * K, 0, 512 * K,
	  &nvme61, HB_PT_COPY, 128, NO_CHECK, 1 },
	/*
	 * One byte (or two) off: the first piece's offset is odd (or 2
	 * mod 4), dma_alignment 3 catches it before any other check: copy
	 * on every kernel; 64K is 16 bounce pages.
	 */
	{ "+1, 64K", "6.1", T_SZ_2M, 0, T_SZ_2M, 1, 64 * K, &nvme61, HB_PT_COPY,
	  16, NO_CHECK, 0 },
	{ "+1, 64K", "6.1+hugebuf", T_SZ_2M, 0, T_SZ_2M, 1, 64 * K, &nvme61,
	  HB_PT_COPY, 16, NO_CHECK, 0 },
	{ "+1, 64K", "6.12", T_SZ_2M, 0, T_SZ_2M, 1, 64 * K, &nvme612,
	  HB_PT_COPY, 16, NO_CHECK, 0 },
	{ "+2, 64K of 4K", "6.12", T_SZ_4K, 0, 8 * M, 2, 64 * K, &nvme612,
	  HB_PT_COPY, 16, NO_CHECK, 0 },
	/* the length counts too: 64K + 2 */
	{ "64K+2", "6.1+hugebuf", T_SZ_2M, 0, T_SZ_2M, 0, 64 * K + 2, &nvme61,
	  HB_PT_COPY, 17, NO_CHECK, 0 },
	/*
	 * 512K at +4: aligned (4 & 3 = 0, the length too), inside the one
	 * coalesced bvec: one segment.  At +2, 512K: copy, 128 bounce
	 * pages, which is over max_segments on 6.1 (127) only.
	 */
	{ "+4, 512K", "6.12", T_SZ_2M, 0, T_SZ_2M, 4, 512 * K, &nvme612,
	  HB_PT_DIRECT, 1, 1, NO_CHECK },
	{ "+2, 512K", "6.1+hugebuf", T_SZ_2M, 0, T_SZ_2M, 2, 512 * K, &nvme61,
	  HB_PT_COPY, 128, NO_CHECK, 1 },
	{ "+2, 512K", "6.12", T_SZ_2M, 0, T_SZ_2M, 2, 512 * K, &nvme612,
	  HB_PT_COPY, 128, NO_CHECK, 0 },
	/* over max_hw (1M > 512K): -EINVAL, aligned or not */
	{ "1M", "6.1", T_SZ_2M, 0, T_SZ_2M, 0, M, &nvme61, HB_PT_EINVAL, 0, 0,
	  NO_CHECK },
	{ "1M", "6.1+hugebuf", T_SZ_2M, 0, T_SZ_2M, 0, M, &nvme61, HB_PT_EINVAL,
	  0, 0, NO_CHECK },
	{ "1M", "6.12", T_SZ_2M, 0, T_SZ_2M, 0, M, &nvme612, HB_PT_EINVAL, 0, 0,
	  NO_CHECK },
	{ "+1, 1M", "6.12", T_SZ_2M, 0, T_SZ_2M, 1, M, &nvme612, HB_PT_EINVAL,
	  0, 0, NO_CHECK },
	/*
	 * 64K max_segment_size, 2M bvec, 512K: 6.12 cuts the bvec into 8
	 * segments of 64K, each ending on the virt boundary: no split,
	 * direct 8.  6.1 never looks at the segment size: direct with
	 * nr_phys_segments 1, while blk_rq_map_sg() builds 8 entries.
	 */
	{ "64K segments, 512K of 2M", "6.12", T_SZ_2M, 0, T_SZ_2M, 0, 512 * K,
	  &seg64k, HB_PT_DIRECT, 8, 8, NO_CHECK },
	{ "64K segments, 512K of 2M", "6.1+hugebuf", T_SZ_2M, 0, T_SZ_2M, 0,
	  512 * K, &seg64k, HB_PT_DIRECT, 8, 1, NO_CHECK },
	/*
	 * ... and with only 4 segments: 6.12 needs 8 > 4, a split: copy
	 * (128 bounce pages > 4).  6.1: nr_segs 1 <= 4, direct, 8 entries
	 * for a request sized for 1: the hole be0e822bb3f5 closed.
	 */
	{ "64K segments, 4 max", "6.12", T_SZ_2M, 0, T_SZ_2M, 0, 512 * K,
	  &seg64k_4, HB_PT_COPY, 128, NO_CHECK, 1 },
	{ "64K segments, 4 max", "6.1+hugebuf", T_SZ_2M, 0, T_SZ_2M, 0, 512 * K,
	  &seg64k_4, HB_PT_DIRECT, 8, 1, NO_CHECK },
	/*
	 * 64K segment boundary, 512K from +32K in a 2M folio: 32K to the
	 * first boundary, then 7 x 64K = 480K, then 32K: 9 segments.
	 */
	{ "64K boundary, 512K at +32K", "6.12", T_SZ_2M, 0, T_SZ_2M, 32 * K,
	  512 * K, &bound64k, HB_PT_DIRECT, 9, 9, NO_CHECK },
	{ "64K boundary, 512K at +32K", "6.1+hugebuf", T_SZ_2M, 0, T_SZ_2M,
	  32 * K, 512 * K, &bound64k, HB_PT_DIRECT, 9, 1, NO_CHECK },
	/*
	 * Before 2ff949441802 (6.1.115): whole 4K bvecs from the I/O's
	 * first; 16K of a 16K buffer adds up exactly: direct (nr_phys 4,
	 * 4 entries); 8K of it: the third bvec passes 8K: -EINVAL; 6.1.116
	 * stops there instead: direct 2, nr_phys still 4.
	 */
	{ "16K of 4K, whole", "6.1.115", T_SZ_4K, 0, 16 * K, 0, 16 * K, &nvme61,
	  HB_PT_DIRECT, 4, 4, NO_CHECK },
	{ "16K of 4K, first 8K", "6.1.115", T_SZ_4K, 0, 16 * K, 0, 8 * K,
	  &nvme61, HB_PT_EINVAL, 0, 0, NO_CHECK },
	{ "16K of 4K, first 8K", "6.1.116", T_SZ_4K, 0, 16 * K, 0, 8 * K,
	  &nvme61, HB_PT_DIRECT, 2, 4, NO_CHECK },
	/*
	 * Our series on a 6.1.y older than .116: one 512K bvec in a 2M
	 * folio, the whole buffer: bytes add up, but the bvec is over a
	 * page: -EINVAL.  From .116 on: direct 1.
	 */
	{ "512K in 2M, old 6.1", "6.1.100+hugebuf", T_SZ_2M, 0, 512 * K, 0,
	  512 * K, &nvme61, HB_PT_EINVAL, 0, 0, NO_CHECK },
	{ "512K in 2M, 6.1.119", "6.1.119+hugebuf", T_SZ_2M, 0, 512 * K, 0,
	  512 * K, &nvme61, HB_PT_DIRECT, 1, 1, NO_CHECK },
};

static int run_case(const struct pcase *c)
{
	uint64_t nr = hb_nr_pages(c->head, c->buf_len);
	struct hb_page *pages = calloc(nr, sizeof(*pages));
	struct hb_kmodel km;
	struct hb_imu imu;
	struct hb_pt_map m;
	int ret = T_EXIT_PASS, err;

	if (!pages)
		return t_fail("out of memory");
	if (hb_kmodel_parse(c->kernel, &km) ||
	    hb_layout_synth(c->folio, c->head, c->buf_len, 1, pages) ||
	    hb_imu_build(&km, pages, BASE + c->head, c->buf_len, &imu)) {
		free(pages);
		return t_fail("%s (%s): setup: %s", c->what, c->kernel,
			      hb_errmsg());
	}
	err = hb_model_pt_map(&km, &imu, BASE + c->head + c->io_off, c->io_len,
			      c->lim, &m);
	if (err)
		ret = t_fail("%s (%s): %s", c->what, c->kernel, hb_errmsg());
	else if (m.path != c->path ||
		 (c->nsegs != NO_CHECK && m.nsegs != (unsigned int)c->nsegs) ||
		 (c->nr_phys != NO_CHECK &&
		  m.nr_phys_segments != (unsigned int)c->nr_phys) ||
		 (c->bounce_over != NO_CHECK &&
		  m.bounce_over_limits != (c->bounce_over == 1)))
		ret = t_fail("%s (%s): %s nsegs %u nr_phys %u bounce_over %d "
			     "(%s), expected %s nsegs %d nr_phys %d "
			     "bounce_over %d",
			     c->what, c->kernel, hb_pt_path_name(m.path),
			     m.nsegs, m.nr_phys_segments, m.bounce_over_limits,
			     m.why, hb_pt_path_name(c->path), c->nsegs,
			     c->nr_phys, c->bounce_over);
	else if (!m.why || !*m.why)
		ret = t_fail("%s (%s): no reason given", c->what, c->kernel);
	hb_imu_free(&imu);
	free(pages);
	return ret;
}

/*
 * A hand-made table whose first bvec ends off the virt boundary (2K):
 * no io_uring registration builds one, but it shows the gap rule and
 * where 6.1 and 6.12 look.  2K + 4K at 0: both see the gap, copy.  The
 * first 2K alone: 6.12 walks only the trimmed first vec, direct 1; 6.1
 * walks whole bvecs and checks the next one's gap before noticing it is
 * past the I/O: copy.
 */
static int check_gap(void)
{
	struct hb_bvec bv[2] = {
		{ .folio = 1, .page_idx = 0, .offset = 0, .len = 2048 },
		{ .folio = 2, .page_idx = 0, .offset = 0, .len = 4096 },
	};
	struct hb_imu imu = {
		.ubuf = BASE,
		.len = 6144,
		.nr_pages = 2,
		.nr_bvecs = 2,
		.folio_shift = HB_PAGE_SHIFT,
		.bvec = bv,
	};
	static const struct {
		const char *kernel;
		uint64_t len;
		enum hb_pt_path path;
	} g[] = {
		{ "6.1", 6144, HB_PT_COPY },
		{ "6.12", 6144, HB_PT_COPY },
		{ "6.1", 2048, HB_PT_COPY },
		{ "6.12", 2048, HB_PT_DIRECT },
	};
	struct hb_kmodel km;
	struct hb_pt_map m;
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(g); i++) {
		hb_kmodel_parse(g[i].kernel, &km);
		if (hb_model_pt_map(&km, &imu, BASE, g[i].len, &nvme612, &m) ||
		    m.path != g[i].path)
			ret = t_fail("gap table, %llu bytes (%s): %s (%s), "
				     "expected %s",
				     (unsigned long long)g[i].len, g[i].kernel,
				     hb_pt_path_name(m.path),
				     m.why ? m.why : hb_errmsg(),
				     hb_pt_path_name(g[i].path));
	}
	return ret;
}

/* Outside the buffer: -EFAULT as the import; empty and pre-6.1: EINVAL */
static int check_edges(void)
{
	uint64_t nr = hb_nr_pages(0, T_SZ_2M);
	struct hb_page *pages = calloc(nr, sizeof(*pages));
	struct hb_kmodel km;
	struct hb_imu imu;
	struct hb_pt_map m;
	int ret = T_EXIT_PASS;

	if (!pages)
		return t_fail("out of memory");
	hb_kmodel_parse("6.12", &km);
	hb_layout_synth(T_SZ_2M, 0, T_SZ_2M, 1, pages);
	if (hb_imu_build(&km, pages, BASE, T_SZ_2M, &imu)) {
		free(pages);
		return t_fail("setup: %s", hb_errmsg());
	}
	if (hb_model_pt_map(&km, &imu, BASE + T_SZ_2M - 4096, 8192, &nvme612,
			    &m) != -EFAULT)
		ret = t_fail("an I/O past the buffer's end must be EFAULT");
	if (hb_model_pt_map(&km, &imu, BASE, 0, &nvme612, &m) ||
	    m.path != HB_PT_EINVAL)
		ret = t_fail("an empty I/O must be einval");
	hb_kmodel_parse("6.0", &km);
	if (hb_model_pt_map(&km, &imu, BASE, 4096, &nvme612, &m) ||
	    m.path != HB_PT_EINVAL)
		ret = t_fail("6.0 has no fixed-buffer passthrough");
	if (strcmp(hb_pt_path_name(HB_PT_DIRECT), "direct") ||
	    strcmp(hb_pt_path_name(HB_PT_COPY), "copy") ||
	    strcmp(hb_pt_path_name(HB_PT_EINVAL), "einval"))
		ret = t_fail("path names");
	hb_imu_free(&imu);
	free(pages);
	return ret;
}

/*
 * Which releases have which rules (lib/model/kmodel.c): 2ff949441802 in 6.12,
 * 6.11.7, 6.6.60, 6.1.116, never in 6.2 - 6.5 or 6.7 - 6.10;
 * be0e822bb3f5 in 6.12 and 6.11.8 only.  A bare X.Y is the series today.
 */
static int check_versions(void)
{
	static const struct {
		const char *kernel;
		bool split, old;
	} v[] = {
		{ "6.0", false, false },
		{ "6.1", false, false },
		{ "6.1.115", false, true },
		{ "6.1.116", false, false },
		{ "6.1+hugebuf", false, false },
		{ "6.1.100+hugebuf", false, true },
		{ "6.1.192+hugebuf", false, false },
		{ "6.5", false, true },
		{ "6.5.13", false, true },
		{ "6.6.59", false, true },
		{ "6.6.60", false, false },
		{ "6.6", false, false },
		{ "6.10.14", false, true },
		{ "6.11.6", false, true },
		{ "6.11.7", false, false },
		{ "6.11.8", true, false },
		{ "6.11", true, false },
		{ "6.12", true, false },
		{ "6.12.0", true, false },
		{ "6.16", true, false },
	};
	struct hb_kmodel km;
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(v); i++) {
		if (hb_kmodel_parse(v[i].kernel, &km))
			return t_fail("cannot parse %s", v[i].kernel);
		if (km.pt_split_check != v[i].split ||
		    km.pt_old_bvec_checks != v[i].old)
			ret = t_fail("%s: split check %d old checks %d, "
				     "expected %d %d",
				     v[i].kernel, km.pt_split_check,
				     km.pt_old_bvec_checks, v[i].split,
				     v[i].old);
	}
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
	ret = t_worst(ret, t_sub(check_gap()));
	ret = t_worst(ret, t_sub(check_edges()));
	ret = t_worst(ret, t_sub(check_versions()));
	if (ret == T_EXIT_PASS)
		t_info("%zu mapping cases, 4 gap cases and %s agree with the "
		       "hand-worked kernel rules",
		       T_ARRAY_SIZE(cases), "the release table");
	return t_done(ret);
}
