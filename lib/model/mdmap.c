// SPDX-License-Identifier: GPL-2.0-only
/*
 * A metadata buffer that comes with one command (NVMe passthrough's
 * metadata pointer, plain io_uring's PI attribute), as the kernel takes
 * it.  Which releases map it at all is hb_kmodel's md_user_map
 * (lib/model/kmodel.c).
 *
 * Where it maps (read: Debian's linux-source-6.12 and 7.3.4, the same
 * code), bio_integrity_map_user() (block/bio-integrity.c) pins the
 * buffer's pages and bvec_from_pages() makes one bvec of each run of
 * pages that are neighbours in one folio.  It copies the buffer into one
 * kmalloc() bounce buffer instead (bio_integrity_copy_user(), one bvec)
 * when address or length is off the queue's dma_alignment
 * (iov_iter_alignment() against blk_lim_dma_alignment_and_pad()) or the
 * bvecs are more than queue_max_integrity_segments().
 * bio_integrity_map_iter() (the PI attribute, 7.3.4) maps through it.
 *
 * NVMe PCI (drivers/nvme/host/pci.c, 6.12 and 7.3.4): the queue takes
 * NVME_MAX_META_SEGS (15) integrity segments when the controller has
 * metadata SGLs (nvme_ctrl_meta_sgl_supported(), SGLS bit MSDS), else 1.
 * Without them the command's metadata pointer (MPTR) is one
 * dma_map_bvec() of its one segment.  With them a passthrough command
 * (NVME_REQ_USERCMD) always gets an SGL, one data descriptor per
 * segment, and any other command only for more than one segment
 * (nvme_pci_metadata_use_sgls()).  6.1.192 has MPTR only
 * (nvme_map_metadata()) and a limit of 1.
 *
 * Not modelled: the request merging bvecs that are physically adjacent
 * into one segment (blk_rq_count_integrity_sg()), and an IOMMU joining
 * the SGL's segments into one IOVA range (7.3.4's
 * blk_rq_integrity_dma_map_iter_start() through dma_iova_try_alloc()):
 * the segments and DMA addresses counted are the bvecs', an upper bound.
 */
#include <errno.h>
#include <string.h>

#include "model/model.h"

/* BIO_MAX_VECS: bio_integrity_map_user() refuses more pages, -E2BIG */
#define MD_MAX_PAGES		256

/* pages[j] == pages[j - 1] + 1 within one folio: the same bvec */
static bool md_page_continues(const struct hb_page *prev,
			      const struct hb_page *p)
{
	return p->folio == prev->folio && p->idx == prev->idx + 1;
}

/* bvec_from_pages(): one bvec per run of neighbouring pages of a folio */
static unsigned int md_bvecs(const struct hb_page *pages, uint64_t nr)
{
	unsigned int n = nr ? 1 : 0;
	uint64_t i;

	for (i = 1; i < nr; i++)
		if (!md_page_continues(&pages[i - 1], &pages[i]))
			n++;
	return n;
}

/* the copy's reason, HB_MD_WHY_NONE when the pages are taken as they are */
static enum hb_md_why md_copy_reason(uint64_t uaddr, uint64_t len,
				     unsigned int bvecs,
				     const struct hb_md_queue *q)
{
	/* the alignment test comes first in bio_integrity_map_user() */
	if ((uaddr | len) & q->dma_align_mask)
		return HB_MD_WHY_ALIGN;
	if (bvecs > q->max_integrity_segments)
		return HB_MD_WHY_SEGMENTS;
	return HB_MD_WHY_NONE;
}

/* nvme_pci_metadata_use_sgls(): the limit above 1 says the SGLs are there */
static bool md_uses_sgl(const struct hb_md_queue *q, unsigned int segments,
			bool passthrough)
{
	if (q->max_integrity_segments <= 1)
		return false;
	return segments > 1 || passthrough;
}

int hb_model_md_map(const struct hb_kmodel *km, const struct hb_page *pages,
		    uint64_t uaddr, uint64_t len, const struct hb_md_queue *q,
		    bool passthrough, struct hb_md_cmd *out)
{
	uint64_t nr = hb_nr_pages(uaddr, len);

	memset(out, 0, sizeof(*out));
	if (!len || !q->max_integrity_segments)
		return hb_seterr(EINVAL, "a metadata buffer needs a length "
				 "and a queue that takes integrity segments");
	if (nr > MD_MAX_PAGES)
		return hb_seterr(E2BIG, "a metadata buffer of %llu bytes "
				 "spans %llu pages, over the kernel's %u per "
				 "command (BIO_MAX_VECS, E2BIG): use a smaller "
				 "bs", (unsigned long long)len,
				 (unsigned long long)nr, MD_MAX_PAGES);
	out->bvecs = md_bvecs(pages, nr);
	out->map = km->md_user_map;
	if (out->map == HB_MD_UNKNOWN) {
		out->why = HB_MD_WHY_NOT_READ;
		return 0;
	}
	if (out->map == HB_MD_COPIED)
		out->why = HB_MD_WHY_NO_DIRECT;
	else
		out->why = md_copy_reason(uaddr, len, out->bvecs, q);
	if (out->why != HB_MD_WHY_NONE)
		out->map = HB_MD_COPIED;
	/* the bounce buffer is one kmalloc() run: one bvec */
	out->segments = out->map == HB_MD_DIRECT ? out->bvecs : 1;
	out->sgl = km->md_user_map == HB_MD_DIRECT &&
		   md_uses_sgl(q, out->segments, passthrough);
	out->dma_maps = out->sgl ? out->segments : 1;
	return 0;
}

const char *hb_md_map_name(enum hb_md_map map)
{
	switch (map) {
	case HB_MD_DIRECT:
		return "direct";
	case HB_MD_COPIED:
		return "copied";
	case HB_MD_UNKNOWN:
		return "unknown";
	}
	return "?";
}

const char *hb_md_why_name(enum hb_md_why why)
{
	switch (why) {
	case HB_MD_WHY_NONE:
		return "";
	case HB_MD_WHY_NO_DIRECT:
		return "the kernel copies every metadata buffer (before "
		       "bio_integrity_map_user())";
	case HB_MD_WHY_ALIGN:
		return "address or length off the queue's dma_alignment";
	case HB_MD_WHY_SEGMENTS:
		return "more folio runs than max_integrity_segments";
	case HB_MD_WHY_NOT_READ:
		return "the model has not read this release's metadata path";
	}
	return "?";
}
