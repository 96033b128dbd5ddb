// SPDX-License-Identifier: GPL-2.0-only
/*
 * Physical segments of one I/O (pure): where the kernel merges physically
 * contiguous neighbours of an I/O's bvecs and where it does not.  The
 * bvecs are given by their physical address, so the model sees what the
 * page allocator handed out: a 4 KiB-page buffer whose pages happen to be
 * adjacent, or scattered ones.  Per request: the block layer's segment
 * count (nr_phys_segments, which never merges bvecs of one bio), the
 * scatterlist or DMA iterator entries (which merge from 6.16), and what
 * the driver builds from them: NVMe PRP entries or SGL descriptors,
 * virtio-blk descriptors.  The DMA mapping is dma-direct: one DMA segment
 * per entry (dma_direct_map_sg() merges nothing); an IOMMU's mapping is
 * hb_model_iommu_io()'s.  Sources read: 6.1, 6.12 and 7.3 (Debian's
 * linux-source packages), the 6.16 image for where the merge appeared.
 */
#include <errno.h>
#include <string.h>

#include "model/model.h"

#define SEG_SECTOR		512ULL
#define NVME_CTRL_PAGE		4096ULL
/* PRP list entries per controller page (NVME_CTRL_PAGE_SIZE >> 3) */
#define NVME_PRPS_PER_LIST	(NVME_CTRL_PAGE / 8)
/* SGL descriptors per controller page (SGES_PER_PAGE, 6.1 and 6.12) */
#define NVME_SGES_PER_LIST	(NVME_CTRL_PAGE / 16)

/*
 * Where scatterlist entries merge.  Up to 6.15 __blk_bios_map_sg()
 * (block/blk-merge.c) maps each bvec of a bio alone and tries a merge only
 * with the first bvec of the next bio.  6.16's __blk_rq_map_sg() walks
 * the request with blk_map_iter_next() (block/blk-mq-dma.c, present in
 * Debian's 6.16.12 image and not in 6.12.118), which joins a whole next
 * bvec when biovec_phys_mergeable() and the sum stays within
 * get_max_segment_size().  From 6.17 nvme-pci maps through the same
 * iterator (blk_rq_dma_map_iter_start(); hb_iommu_gen_of()).
 */
enum hb_seg_gen hb_seg_gen_of(const struct hb_kmodel *km)
{
	if (km->kmajor > 6 || (km->kmajor == 6 && km->kminor >= 17))
		return HB_SEG_GEN_DMA_ITER;
	if (km->kmajor == 6 && km->kminor >= 16)
		return HB_SEG_GEN_MERGE;
	return HB_SEG_GEN_BVEC;
}

const char *hb_seg_gen_name(enum hb_seg_gen g)
{
	switch (g) {
	case HB_SEG_GEN_BVEC:
		return "bvec";
	case HB_SEG_GEN_MERGE:
		return "merge";
	case HB_SEG_GEN_DMA_ITER:
		return "dma-iter";
	}
	return "?";
}

int hb_phys_bvecs_4k(const uint64_t *pfn, uint64_t nr_pages, uint32_t offset,
		     uint64_t len, struct hb_phys_bvec *bv)
{
	uint64_t i, left = len;

	if (offset >= HB_PAGE_SIZE || !len ||
	    hb_nr_pages(offset, len) > nr_pages)
		return hb_seterr(EINVAL, "%llu bytes at offset %u need more "
				 "than the %llu pages given",
				 (unsigned long long)len, offset,
				 (unsigned long long)nr_pages);
	for (i = 0; left; i++, offset = 0) {
		uint64_t n = HB_PAGE_SIZE - offset;

		if (n > left)
			n = left;
		bv[i] = (struct hb_phys_bvec){ pfn[i], offset, (uint32_t)n };
		left -= n;
	}
	return (int)i;
}

static uint64_t bv_phys(const struct hb_phys_bvec *b)
{
	return (b->pfn << HB_PAGE_SHIFT) + b->offset;
}

static uint64_t lim_mask(const struct hb_queue_limits *q)
{
	return q->seg_boundary_mask ? q->seg_boundary_mask : ~0ULL;
}

static uint64_t lim_seg_size(const struct hb_queue_limits *q)
{
	return q->max_segment_size ? q->max_segment_size : 0xffffffffULL;
}

/*
 * get_max_segment_size() (block/blk.h 7.3; blk-merge.c 6.1, 6.12): the
 * bytes from @phys to the next segment boundary, at most max_segment_size
 * and @len.
 */
static uint64_t seg_max(const struct hb_queue_limits *q, uint64_t phys,
			uint64_t len)
{
	uint64_t mask = lim_mask(q);
	uint64_t room = mask - (mask & phys);
	uint64_t max = lim_seg_size(q) - 1;

	room = (room < max ? room : max) + 1;
	return room < len ? room : len;
}

/*
 * biovec_phys_mergeable() (block/blk.h, 6.1 to 7.3): @b starts where @a
 * ends and both lie inside one segment boundary window.  (KMSAN, Xen and
 * zone-device pgmaps, which refuse more, are not modelled.)
 */
static bool phys_mergeable(const struct hb_queue_limits *q, uint64_t a,
			   uint64_t alen, uint64_t b, uint64_t blen)
{
	uint64_t mask = lim_mask(q);

	return a + alen == b && (a | mask) == ((b + blen - 1) | mask);
}

/*
 * __bvec_gap_to_prev() (block/blk.h, 6.1 to 7.3): with a virt boundary, a
 * bvec must start on it and the one before must end on it.
 */
static bool virt_gap(const struct hb_queue_limits *q, uint64_t prev_end_off,
		     uint64_t off)
{
	return q->virt_boundary_mask &&
	       ((off | prev_end_off) & q->virt_boundary_mask);
}

/* the I/O's bvecs from @i, @done bytes into it: one bio's iterator */
struct seg_iter {
	const struct hb_phys_bvec *bv;
	unsigned int nr;
	unsigned int i;
	uint64_t done;
};

/* mp_bvec_iter_bvec(): the rest of the current bvec */
static void iter_cur(const struct seg_iter *it, uint64_t *phys, uint64_t *off,
		     uint64_t *len)
{
	const struct hb_phys_bvec *b = &it->bv[it->i];

	*phys = bv_phys(b) + it->done;
	*off = b->offset + it->done;
	*len = b->len - it->done;
}

static void iter_advance(struct seg_iter *it, uint64_t bytes)
{
	while (bytes && it->i < it->nr) {
		uint64_t left = it->bv[it->i].len - it->done;

		if (bytes < left) {
			it->done += bytes;
			return;
		}
		bytes -= left;
		it->done = 0;
		it->i++;
	}
}

/*
 * bvec_split_segs() (block/blk-merge.c, 6.1 to 7.3): the segments of one
 * bvec that fit; false when it must be split inside.  A segment ends at
 * get_max_segment_size(), and after a segment ending off the virt
 * boundary no more of this bvec is taken.
 */
static bool bvec_segs_fit(const struct hb_queue_limits *q, uint64_t phys,
			  uint64_t off, uint64_t bv_len, unsigned int *nsegs,
			  uint64_t *bytes, uint64_t max_bytes)
{
	uint64_t max_len = max_bytes - *bytes;
	uint64_t len = bv_len < max_len ? bv_len : max_len;
	uint64_t total = 0, seg;

	while (len && *nsegs < q->max_segments) {
		seg = seg_max(q, phys + total, len);
		(*nsegs)++;
		total += seg;
		len -= seg;
		if ((off + total) & q->virt_boundary_mask)
			break;
	}
	*bytes += total;
	return !len && bv_len <= max_len;
}

/*
 * bio_split_rw_at() (6.12; bio_split_rw() 6.1, bio_split_io_at() 7.3,
 * block/blk-merge.c) from @it: the bytes of the next request and its
 * segment count, which blk_rq_bio_prep() stores as nr_phys_segments.
 * Each bvec is at least one segment, however it lies physically: a bvec
 * within one page (7.3: within max_fast_segment_size, min(max segment,
 * PAGE_SIZE): the same) is one, a larger one is cut by
 * bvec_segs_fit().  A virt gap before a bvec, or no room for it, ends the
 * request, rounded down to the logical block (512 here).  @gaps collects
 * bvec_seg_gap() (7.3): offsets and ends between neighbours.
 */
static uint64_t split_next(const struct hb_queue_limits *q, struct seg_iter it,
			   unsigned int *segs, uint64_t *gaps)
{
	uint64_t bytes = 0, prev_end = 0, phys, off, len;
	unsigned int nsegs = 0;
	bool first = true;

	*gaps = 0;
	for (; it.i < it.nr; it.i++, it.done = 0) {
		iter_cur(&it, &phys, &off, &len);
		if (!first) {
			if (virt_gap(q, prev_end, off))
				goto split;
			*gaps |= off | prev_end;
		}
		if (nsegs < q->max_segments && bytes + len <= q->max_hw_bytes &&
		    off + len <= HB_PAGE_SIZE) {
			nsegs++;
			bytes += len;
		} else if (!bvec_segs_fit(q, phys, off, len, &nsegs, &bytes,
					  q->max_hw_bytes)) {
			goto split;
		}
		prev_end = off + len;
		first = false;
	}
	*segs = nsegs;
	return bytes;
split:
	*segs = nsegs;
	return HB_ALIGN_DOWN(bytes, SEG_SECTOR);
}

/*
 * __blk_bios_map_sg() (block/blk-merge.c, 6.1 and 6.12): each bvec of
 * the one bio alone: one entry when it lies inside a page
 * (__blk_bvec_map_sg()), else cut at get_max_segment_size()
 * (blk_bvec_map_sg()).  Adjacent bvecs stay apart.
 */
static unsigned int map_sg_bvec(const struct hb_queue_limits *q,
				struct seg_iter it, uint64_t bytes)
{
	uint64_t phys, off, len, cut;
	unsigned int n = 0;

	for (; bytes && it.i < it.nr; it.i++, it.done = 0) {
		iter_cur(&it, &phys, &off, &len);
		if (len > bytes)
			len = bytes;
		bytes -= len;
		if (off + len <= HB_PAGE_SIZE) {
			n++;
			continue;
		}
		for (; len; phys += cut, len -= cut, n++)
			cut = seg_max(q, phys, len);
	}
	return n;
}

/*
 * blk_map_iter_next() (block/blk-mq-dma.c, 6.16 to 7.3), called by
 * __blk_rq_map_sg() and blk_rq_dma_map_iter_start()/_next(): an entry
 * takes what is left of a bvec up to get_max_segment_size(phys,
 * UINT_MAX); only when that used the bvec up does it join whole next
 * bvecs that are biovec_phys_mergeable() while the sum stays within that
 * size.
 */
static unsigned int map_sg_merge(const struct hb_queue_limits *q,
				 struct seg_iter it, uint64_t bytes)
{
	uint64_t phys, off, len, max, nphys, noff, nlen;
	unsigned int n = 0;

	while (bytes && it.i < it.nr) {
		iter_cur(&it, &phys, &off, &len);
		if (len > bytes)
			len = bytes;
		max = seg_max(q, phys, 0xffffffffULL);
		if (len > max)
			len = max;
		iter_advance(&it, len);
		bytes -= len;
		while (bytes && !it.done && it.i < it.nr) {
			iter_cur(&it, &nphys, &noff, &nlen);
			if (nlen > bytes)
				nlen = bytes;
			if (len + nlen > max ||
			    !phys_mergeable(q, phys, len, nphys, nlen))
				break;
			len += nlen;
			iter_advance(&it, nlen);
			bytes -= nlen;
		}
		n++;
	}
	return n;
}

/* PRP list pages for @nprps list entries, chained through the last slot */
static unsigned int prp_lists(uint64_t nprps)
{
	if (nprps <= NVME_PRPS_PER_LIST)
		return 1;
	return 1 + (unsigned int)((nprps - 2) / (NVME_PRPS_PER_LIST - 1));
}

/*
 * nvme_pci_setup_prps() (drivers/nvme/host/pci.c, 6.1, 6.12;
 * nvme_pci_setup_data_prp() 7.3): one entry per controller page the data
 * touches, whatever the segments: PRP1 up to the first page's end, PRP2
 * the second page, or a list of the rest when more than one page is left
 * (a list page holds 512 entries, the last slot chaining the next).
 */
static void nvme_prps(uint64_t first_phys, uint64_t bytes,
		      struct hb_seg_req *r)
{
	uint64_t head = NVME_CTRL_PAGE - first_phys % NVME_CTRL_PAGE;
	uint64_t rest = bytes > head ? bytes - head : 0;
	uint64_t n = (rest + NVME_CTRL_PAGE - 1) / NVME_CTRL_PAGE;

	r->prp_entries = 1 + (unsigned int)n;
	r->desc_lists = n > 1 ? prp_lists(n) : 0;
}

/*
 * nvme_pci_setup_sgls() (6.1, 6.12): one data descriptor per DMA segment;
 * a single segment goes in the command itself, more in list pages of
 * SGES_PER_PAGE chained through the last slot.  7.3's
 * nvme_pci_setup_data_sgl() decides by nr_phys_segments instead (one
 * segment, or an IOMMU-coalesced mapping, in the command) and has one
 * list: NVME_MAX_SEGS is a page's worth.
 */
static void nvme_sgls(enum hb_seg_gen gen, struct hb_seg_req *r)
{
	uint64_t n = r->sg_entries;
	unsigned int decide = gen == HB_SEG_GEN_DMA_ITER ?
			      r->nr_phys_segments : r->sg_entries;

	r->sgl = true;
	r->sgl_descs = r->sg_entries;
	if (decide <= 1)
		r->desc_lists = 0;
	else if (n <= NVME_SGES_PER_LIST)
		r->desc_lists = 1;
	else
		r->desc_lists = 1 + (unsigned int)((n - 2) /
						   (NVME_SGES_PER_LIST - 1));
}

/*
 * nvme_map_data() and nvme_pci_use_sgls() (drivers/nvme/host/pci.c).
 * One segment: the simple path, PRP1/PRP2 when the data sits in two
 * controller pages (nvme_setup_prp_simple()), else one SGL descriptor in
 * the command when SGLs may be used.  Otherwise SGLs when the controller
 * has them, the queue is an I/O queue, sgl_threshold is set and the
 * average segment, DIV_ROUND_UP(bytes, nr_phys_segments), reaches it;
 * 7.3 also forces them when a bvec boundary is not 4 KiB aligned
 * (req_phys_gap_mask(), the virt boundary being lifted with SGLs).
 */
static void nvme_request(enum hb_seg_gen gen, const struct hb_seg_cfg *cfg,
			 uint64_t first_phys, uint64_t gaps,
			 struct hb_seg_req *r)
{
	bool sgls = cfg->nvme_sgls;
	bool forced = gen == HB_SEG_GEN_DMA_ITER && sgls &&
		      (gaps & (NVME_CTRL_PAGE - 1));
	uint64_t avg;

	if (r->nr_phys_segments == 1) {
		bool prp_ok = first_phys % NVME_CTRL_PAGE + r->bytes <=
			      2 * NVME_CTRL_PAGE;

		if (prp_ok && !forced) {
			nvme_prps(first_phys, r->bytes, r);
			return;
		}
		/* 7.3 takes an SGL here whatever sgl_threshold says */
		if (sgls && (cfg->sgl_threshold ||
			     gen == HB_SEG_GEN_DMA_ITER)) {
			r->sgl = true;
			r->sgl_descs = 1;
			return;
		}
	}
	avg = (r->bytes + r->nr_phys_segments - 1) / r->nr_phys_segments;
	if (forced || (sgls && cfg->sgl_threshold &&
		       avg >= cfg->sgl_threshold))
		nvme_sgls(gen, r);
	else
		nvme_prps(first_phys, r->bytes, r);
}

static void add_totals(struct hb_seg_pred *out, const struct hb_seg_req *r)
{
	out->requests++;
	out->bytes += r->bytes;
	out->nr_phys_segments += r->nr_phys_segments;
	out->sg_entries += r->sg_entries;
	out->prp_entries += r->prp_entries;
	out->sgl_descs += r->sgl_descs;
	out->desc_lists += r->desc_lists;
	out->sgl_requests += r->sgl;
	out->virtio_descs += r->virtio_descs;
}

static int check_args(const struct hb_phys_bvec *bv, unsigned int nr,
		      const struct hb_queue_limits *q,
		      const struct hb_seg_cfg *cfg)
{
	unsigned int i;

	if (!bv || !nr || !q || !cfg || !q->max_segments ||
	    q->max_hw_bytes < SEG_SECTOR)
		return hb_seterr(EINVAL, "segments: no bvecs, or queue "
				 "limits without max_segments or bytes");
	for (i = 0; i < nr; i++)
		if (!bv[i].len)
			return hb_seterr(EINVAL, "segments: bvec %u is empty",
					 i);
	return 0;
}

int hb_model_segments(const struct hb_kmodel *km,
		      const struct hb_phys_bvec *bv, unsigned int nr,
		      const struct hb_queue_limits *q,
		      const struct hb_seg_cfg *cfg, struct hb_seg_req *reqs,
		      unsigned int max_reqs, struct hb_seg_pred *out)
{
	struct seg_iter it = { bv, nr, 0, 0 };
	enum hb_seg_gen gen = hb_seg_gen_of(km);
	int ret;

	memset(out, 0, sizeof(*out));
	out->gen = gen;
	ret = check_args(bv, nr, q, cfg);
	if (ret)
		return ret;
	while (it.i < it.nr) {
		struct hb_seg_req r = { 0 };
		uint64_t gaps, first_phys, off, len;

		iter_cur(&it, &first_phys, &off, &len);
		r.bytes = split_next(q, it, &r.nr_phys_segments, &gaps);
		if (!r.bytes)
			return hb_seterr(EINVAL, "segments: a request of no "
					 "bytes (bvec %u fits no limit)", it.i);
		if (gen == HB_SEG_GEN_BVEC)
			r.sg_entries = map_sg_bvec(q, it, r.bytes);
		else
			r.sg_entries = map_sg_merge(q, it, r.bytes);
		if (cfg->driver == HB_SEG_DRV_NVME_PCI)
			nvme_request(gen, cfg, first_phys, gaps, &r);
		/*
		 * virtblk_add_req() (drivers/block/virtio_blk.c, 6.1 to
		 * 7.3): the header, one descriptor per scatterlist entry
		 * (virtqueue_add_sgs()), the status.
		 */
		if (cfg->driver == HB_SEG_DRV_VIRTIO_BLK)
			r.virtio_descs = r.sg_entries + 2;
		if (reqs && out->requests < max_reqs)
			reqs[out->requests] = r;
		add_totals(out, &r);
		iter_advance(&it, r.bytes);
	}
	return 0;
}
