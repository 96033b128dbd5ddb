// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of hb_model_segments(): where physically adjacent bvecs of
 * one I/O merge (issue 44, item 2).  Synthetic PFN arrays: 4 KiB pages
 * that are all adjacent, scattered, adjacent in pairs; 2 MiB hugepage
 * bvecs; a 64 KiB max_segment_size; a 64 KiB segment boundary; an NVMe
 * virt gap.  Every expected figure is worked out by hand in the comment
 * beside it from the kernel rules (lib/model/segments.c), not from the
 * model.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define K 1024ULL
#define M (1024ULL * 1024)
#define PAGES_8M 2048
/* PFN of physical 4 GiB: 8 MiB from here stays in one 4 GiB window */
#define PFN0 0x100000ULL

/* the host's virtio-blk disk: 254 segments, 4 MiB requests */
static const struct hb_queue_limits virtio = {
	.max_hw_bytes = 4 * M,
	.max_segments = 254,
	.max_segment_size = 0xffffffffULL,
	.seg_boundary_mask = 0xffffffffULL,
	.dma_align_mask = 511,
};
/* NVMe with PRPs only: virt boundary 4 KiB, 127 segments, 512 KiB */
static const struct hb_queue_limits nvme_prp = {
	.max_hw_bytes = 512 * K,
	.max_segments = 127,
	.max_segment_size = 0xffffffffULL,
	.virt_boundary_mask = 4095,
	.seg_boundary_mask = 0xffffffffULL,
	.dma_align_mask = 3,
};
/* 7.3's NVMe with SGLs: no virt boundary, 256 segments */
static const struct hb_queue_limits nvme_sgl73 = {
	.max_hw_bytes = 512 * K,
	.max_segments = 256,
	.max_segment_size = 0xffffffffULL,
	.seg_boundary_mask = 0xffffffffULL,
	.dma_align_mask = 3,
};

static const struct hb_seg_cfg cfg_virtio = { HB_SEG_DRV_VIRTIO_BLK, false, 0 };
static const struct hb_seg_cfg cfg_prp = { HB_SEG_DRV_NVME_PCI, false, 32768 };
static const struct hb_seg_cfg cfg_sgl = { HB_SEG_DRV_NVME_PCI, true, 32768 };

enum layout { ADJACENT, SCATTERED, PAIRS };

static uint64_t pfn_at(enum layout l, unsigned int i)
{
	switch (l) {
	case ADJACENT:
		return PFN0 + i;
	case SCATTERED:
		return PFN0 + 2ULL * i;
	case PAIRS:
		return PFN0 + 3ULL * (i / 2) + i % 2;
	}
	return 0;
}

static struct hb_phys_bvec bv[PAGES_8M];

static unsigned int pages_4k(enum layout l, unsigned int n)
{
	uint64_t pfn[PAGES_8M];
	unsigned int i;
	int got;

	for (i = 0; i < n; i++)
		pfn[i] = pfn_at(l, i);
	got = hb_phys_bvecs_4k(pfn, n, 0, n * T_SZ_4K, bv);
	return got < 0 ? 0 : (unsigned int)got;
}

static int model(const char *kernel, unsigned int nr,
		 const struct hb_queue_limits *q, const struct hb_seg_cfg *c,
		 struct hb_seg_pred *p)
{
	struct hb_kmodel km;

	if (hb_kmodel_parse(kernel, &km) ||
	    hb_model_segments(&km, bv, nr, q, c, NULL, 0, p)) {
		t_fail("%s: %s", kernel, hb_errmsg());
		return 1;
	}
	return 0;
}

struct want {
	unsigned int requests;
	uint64_t segs, sg, extra; /* extra: virtio descs or PRP entries */
};

static int expect(const char *what, const char *kernel,
		  const struct hb_seg_pred *p, const struct hb_seg_cfg *c,
		  const struct want *w)
{
	uint64_t extra = c->driver == HB_SEG_DRV_VIRTIO_BLK ? p->virtio_descs :
			 p->prp_entries + p->sgl_descs;

	if (p->requests == w->requests && p->nr_phys_segments == w->segs &&
	    p->sg_entries == w->sg && extra == w->extra)
		return t_pass();
	t_fail("%s on %s: requests %u segs %llu sg %llu extra %llu, "
	       "want %u %llu %llu %llu", what, kernel, p->requests,
	       (unsigned long long)p->nr_phys_segments,
	       (unsigned long long)p->sg_entries, (unsigned long long)extra,
	       w->requests, (unsigned long long)w->segs,
	       (unsigned long long)w->sg, (unsigned long long)w->extra);
	return 1;
}

static int run(const char *what, const char *kernel, unsigned int nr,
	       const struct hb_queue_limits *q, const struct hb_seg_cfg *c,
	       const struct want *w)
{
	struct hb_seg_pred p;

	return model(kernel, nr, q, c, &p) || expect(what, kernel, &p, c, w);
}

/*
 * 8 MiB of 4 KiB pages on virtio-blk: 254 segments per request (254
 * pages, 1016 KiB < 4 MiB): 8 x 254 + 16 = 2048, 9 requests, on every
 * kernel.  6.12 maps a scatterlist entry per bvec: 2048 entries, 2048 +
 * 2 x 9 descriptors.  6.18 merges adjacent pages: all adjacent, one
 * entry per request (9, 27 descriptors); scattered, none merge (2048);
 * in pairs, 127 per full request and 8 in the last: 1024.
 */
static int check_virtio_4k(void)
{
	static const struct want seg = { 9, 2048, 2048, 2048 + 18 };
	static const struct want adj = { 9, 2048, 9, 9 + 18 };
	static const struct want pairs = { 9, 2048, 1024, 1024 + 18 };
	int ret = 0;

	pages_4k(ADJACENT, PAGES_8M);
	ret |= run("adjacent 4K", "6.12", PAGES_8M, &virtio, &cfg_virtio, &seg);
	ret |= run("adjacent 4K", "6.15", PAGES_8M, &virtio, &cfg_virtio, &seg);
	ret |= run("adjacent 4K", "6.16", PAGES_8M, &virtio, &cfg_virtio, &adj);
	ret |= run("adjacent 4K", "6.18", PAGES_8M, &virtio, &cfg_virtio, &adj);
	pages_4k(SCATTERED, PAGES_8M);
	ret |= run("scattered 4K", "6.18", PAGES_8M, &virtio, &cfg_virtio,
		   &seg);
	pages_4k(PAIRS, PAGES_8M);
	ret |= run("paired 4K", "6.18", PAGES_8M, &virtio, &cfg_virtio, &pairs);
	ret |= run("paired 4K", "6.1", PAGES_8M, &virtio, &cfg_virtio, &seg);
	return ret;
}

/* four 2 MiB bvecs, physically one after the other or apart */
static void hugepages(bool adjacent)
{
	unsigned int i;

	for (i = 0; i < 4; i++)
		bv[i] = (struct hb_phys_bvec){
			PFN0 + (adjacent ? 512ULL : 1024ULL) * i, 0,
			(uint32_t)T_SZ_2M };
}

/*
 * 2 MiB bvecs on virtio-blk: each is one segment (4 GiB segments); two
 * fill a 4 MiB request: 2 requests of 2 segments.  6.12: 4 entries;
 * 6.18: adjacent hugepages join (4 MiB < the 4 GiB segment): 2 entries.
 * With 64 KiB segments every 2 MiB bvec is 32 segments and entries on
 * every kernel: 128 and 128 (an entry never grows past 64 KiB).
 */
static int check_hugepages(void)
{
	static const struct want apart = { 2, 4, 4, 4 + 4 };
	static const struct want joined = { 2, 4, 2, 2 + 4 };
	static const struct want small = { 2, 128, 128, 128 + 4 };
	struct hb_queue_limits seg64k = virtio;
	int ret = 0;

	seg64k.max_segment_size = 64 * K;
	hugepages(true);
	ret |= run("adjacent 2M", "6.12", 4, &virtio, &cfg_virtio, &apart);
	ret |= run("adjacent 2M", "6.18", 4, &virtio, &cfg_virtio, &joined);
	ret |= run("adjacent 2M, 64K seg", "6.18", 4, &seg64k, &cfg_virtio,
		   &small);
	hugepages(false);
	ret |= run("apart 2M", "6.18", 4, &virtio, &cfg_virtio, &apart);
	return ret;
}

/*
 * max_segment_size 64 KiB, 8 MiB of adjacent 4 KiB pages: 254 segments
 * per request as before (each page one); 6.18 merges 16 pages per entry:
 * 254 = 15 x 16 + 14, 16 entries per full request, 1 for the last 16
 * pages: 129.  Segment boundary 64 KiB (size 4 GiB), 64 pages from page
 * 2 of a window: entries end at each 64 KiB line: pages 2-15, 16-31,
 * 32-47, 48-63, 64-65: 5 entries, 64 segments, one request.
 */
static int check_limits(void)
{
	static const struct want size = { 9, 2048, 129, 129 + 18 };
	static const struct want bound = { 1, 64, 5, 5 + 2 };
	static const struct want bound612 = { 1, 64, 64, 64 + 2 };
	struct hb_queue_limits q = virtio;
	uint64_t pfn[64];
	unsigned int i;
	int ret = 0;

	pages_4k(ADJACENT, PAGES_8M);
	q.max_segment_size = 64 * K;
	ret |= run("adjacent 4K, 64K seg", "6.18", PAGES_8M, &q, &cfg_virtio,
		   &size);
	q = virtio;
	q.seg_boundary_mask = 64 * K - 1;
	for (i = 0; i < 64; i++)
		pfn[i] = PFN0 + 2 + i;
	if (hb_phys_bvecs_4k(pfn, 64, 0, 64 * T_SZ_4K, bv) != 64) {
		t_fail("hb_phys_bvecs_4k: %s", hb_errmsg());
		return 1;
	}
	ret |= run("64 pages, 64K boundary", "6.18", 64, &q, &cfg_virtio,
		   &bound);
	ret |= run("64 pages, 64K boundary", "6.12", 64, &q, &cfg_virtio,
		   &bound612);
	return ret;
}

/*
 * NVMe, 8 MiB of 4 KiB pages, PRPs (127 segments, 512 KiB): 16 requests
 * of 127 pages and one of 16: 17.  PRP entries one per page, 2048,
 * whether pages are adjacent or not; 6.12's scatterlist 2048 either way,
 * 7.3's DMA iterator 17 when adjacent.  With SGLs offered the average
 * segment is 4 KiB < 32 KiB: still PRPs (no SGL descriptor).  2 MiB
 * hugepage bvecs, 512 KiB requests: each request one segment of 512 KiB
 * (the virt boundary allows a whole bvec): 16 requests; with SGLs one
 * descriptor each in the command (16), without them 128 PRPs each
 * (2048).
 */
static int check_nvme(void)
{
	static const struct want prp612 = { 17, 2048, 2048, 2048 };
	static const struct want prp73 = { 17, 2048, 17, 2048 };
	static const struct want huge_sgl = { 16, 16, 16, 16 };
	static const struct want huge_prp = { 16, 16, 16, 2048 };
	struct hb_seg_pred p;
	int ret = 0;

	pages_4k(ADJACENT, PAGES_8M);
	ret |= run("NVMe adjacent 4K", "6.12", PAGES_8M, &nvme_prp, &cfg_prp,
		   &prp612);
	ret |= run("NVMe adjacent 4K, SGLs", "6.12", PAGES_8M, &nvme_prp,
		   &cfg_sgl, &prp612);
	ret |= run("NVMe adjacent 4K", "7.3", PAGES_8M, &nvme_prp, &cfg_prp,
		   &prp73);
	/* 17 PRP lists: each request has more than two pages */
	if (model("7.3", PAGES_8M, &nvme_prp, &cfg_prp, &p))
		ret = 1;
	else if (p.desc_lists != 17 || p.sgl_requests)
		ret = t_fail("NVMe 4K lists %llu sgl %u, want 17 0",
			     (unsigned long long)p.desc_lists, p.sgl_requests);
	else
		t_pass();
	hugepages(true);
	ret |= run("NVMe 2M, SGLs", "6.12", 4, &nvme_prp, &cfg_sgl, &huge_sgl);
	ret |= run("NVMe 2M, PRPs", "6.12", 4, &nvme_prp, &cfg_prp, &huge_prp);
	return ret;
}

/*
 * A virt gap: 2 KiB of one page, then a whole page elsewhere.  6.12 with
 * the 4 KiB virt boundary splits there: 2 requests of one segment, each
 * one PRP.  7.3 with SGLs has no virt boundary: one request of 2
 * segments, and the 2 KiB end forces an SGL (2 descriptors, one list)
 * although 3 KiB on average is below sgl_threshold.
 */
static int check_gap(void)
{
	static const struct want split = { 2, 2, 2, 2 };
	static const struct want forced = { 1, 2, 2, 2 };
	struct hb_seg_pred p;
	int ret = 0;

	bv[0] = (struct hb_phys_bvec){ PFN0, 0, 2048 };
	bv[1] = (struct hb_phys_bvec){ PFN0 + 7, 0, 4096 };
	ret |= run("virt gap", "6.12", 2, &nvme_prp, &cfg_sgl, &split);
	ret |= run("virt gap", "7.3", 2, &nvme_sgl73, &cfg_sgl, &forced);
	if (model("7.3", 2, &nvme_sgl73, &cfg_sgl, &p))
		ret = 1;
	else if (p.sgl_requests != 1 || p.desc_lists != 1)
		ret = t_fail("virt gap 7.3: sgl %u lists %llu, want 1 1",
			     p.sgl_requests, (unsigned long long)p.desc_lists);
	else
		t_pass();
	return ret;
}

/* 8 KiB from 512 bytes into a page: 3584, 4096 and 512 bytes */
static int check_bvecs_4k(void)
{
	uint64_t pfn[3] = { 10, 20, 30 };
	int n = hb_phys_bvecs_4k(pfn, 3, 512, 8192, bv);

	if (n == 3 && bv[0].offset == 512 && bv[0].len == 3584 &&
	    bv[1].pfn == 20 && bv[1].len == 4096 && bv[2].len == 512 &&
	    hb_phys_bvecs_4k(pfn, 2, 512, 8192, bv) < 0)
		return t_pass();
	t_fail("hb_phys_bvecs_4k: %d bvecs", n);
	return 1;
}

int main(void)
{
	int ret = 0;

	ret |= check_bvecs_4k();
	ret |= check_virtio_4k();
	ret |= check_hugepages();
	ret |= check_limits();
	ret |= check_nvme();
	ret |= check_gap();
	return t_done(ret);
}
