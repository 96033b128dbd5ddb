// SPDX-License-Identifier: GPL-2.0-only
/*
 * NVMe passthrough with a registered buffer (pure): what the block layer
 * does with the iterator io_import_fixed() built for one
 * IORING_OP_URING_CMD with IORING_URING_CMD_FIXED.  nvme_map_user_request()
 * hands that iterator to blk_rq_map_user_iov(), which either points the
 * request at the registered pages (direct), copies through a bounce
 * buffer (bio_copy_user_iov), or fails.  A passthrough request is never
 * split: whatever does not fit the queue limits in one request is copied
 * or refused.
 *
 * The rules, per kernel (lib/model/kmodel.c names the releases):
 *  - every kernel: an iterator whose bvec offsets or lengths are not
 *    multiples of dma_alignment + 1 is copied, before anything else;
 *  - 6.1 walk (no pt_split_check): -EINVAL over max_hw_sectors or with
 *    more iterator segments than max_segments (6.1's nr_segs counts every
 *    bvec to the end of the table; our series' io_uring 2/5 only the bvecs
 *    the I/O covers), then whole bvecs from the first one:
 *    a virt boundary gap between two of them is copied; no segment size
 *    or boundary check.  Before 2ff949441802 the walk also refused a bvec
 *    over a page and whole bvecs adding up to more than the I/O;
 *  - 6.12 (pt_split_check, be0e822bb3f5): -EINVAL over max_hw_sectors,
 *    then bio_split_rw_at() over the bvecs trimmed to the I/O: anything
 *    that would need a split is copied.
 *
 * Physical addresses matter only for the segment boundary.  A bvec lies
 * inside one naturally aligned folio, so its position in that folio
 * (page index * 4 KiB + offset) stands in for its address: for a
 * power-of-two boundary the distance to the next boundary comes out the
 * same, or, for a folio smaller than the boundary, both are past the
 * bvec's end.
 */
#include <errno.h>
#include <string.h>

#include "model/model.h"

#define PT_SECTOR_SHIFT 9
#define PT_U32_MAX 0xffffffffULL

/* One bvec as the block layer sees it while walking. */
struct pt_vec {
	uint64_t offset; /* bv_offset, as the kernel has it */
	uint64_t len; /* bv_len */
	uint64_t pos; /* position in its folio, for the boundary */
};

/* The iterator io_import_fixed() leaves behind. */
struct pt_iter {
	const struct hb_imu *imu;
	unsigned int idx; /* iter->bvec - imu->bvec */
	uint64_t skip; /* iter->iov_offset */
	uint64_t count; /* iter->count */
	unsigned int nr_segs; /* iter->nr_segs as the kernel stored it */
};

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* min_not_zero() of the kernel */
static uint64_t min_not_zero_u64(uint64_t a, uint64_t b)
{
	if (!a)
		return b;
	if (!b)
		return a;
	return min_u64(a, b);
}

/* Table entry @i, whole (@skip 0, @left = its length) or trimmed. */
static void get_vec(const struct hb_imu *imu, unsigned int i, uint64_t skip,
		    uint64_t left, struct pt_vec *v)
{
	const struct hb_bvec *bv = &imu->bvec[i];

	v->offset = bv->offset + skip;
	v->len = min_u64(bv->len - skip, left);
	v->pos = ((uint64_t)bv->page_idx << HB_PAGE_SHIFT) + v->offset;
}

/*
 * bvec_gap_to_prev() (block/blk.h, 6.1 and 6.12): with a virt boundary,
 * the previous bvec must end on it and the next must start on it.
 */
static bool gap_to_prev(const struct hb_queue_limits *lim,
			const struct pt_vec *prev, uint64_t offset)
{
	if (!lim->virt_boundary_mask)
		return false;
	return (offset & lim->virt_boundary_mask) ||
	       ((prev->offset + prev->len) & lim->virt_boundary_mask);
}

/*
 * iov_iter_alignment() of a bvec iterator (iov_iter_alignment_bvec(),
 * lib/iov_iter.c, 6.1 and 6.12): the OR of every piece's start offset
 * and length, the first piece starting iov_offset into its bvec.
 */
static uint64_t iter_alignment(const struct pt_iter *it)
{
	const struct hb_imu *imu = it->imu;
	uint64_t res = 0, left = it->count, skip = it->skip;
	unsigned int i;

	for (i = it->idx; i < imu->nr_bvecs && left; i++, skip = 0) {
		uint64_t len = imu->bvec[i].len - skip;

		res |= imu->bvec[i].offset + skip;
		len = min_u64(len, left);
		res |= len;
		left -= len;
	}
	return res;
}

/*
 * blk_rq_map_user_iov() (block/blk-map.c, 6.1 and 6.12): an iterator not
 * aligned to dma_alignment | dma_pad_mask is copied before the bvec path
 * is even tried.
 */
static bool misaligned_for_dma(const struct pt_iter *it,
			       const struct hb_queue_limits *lim)
{
	return iter_alignment(it) & lim->dma_align_mask;
}

/*
 * get_max_segment_size() of 6.1 (block/blk-merge.c): the bytes from
 * @pos to the next segment boundary, capped by max_segment_size.
 */
static uint64_t max_segment_61(const struct hb_queue_limits *lim, uint64_t pos)
{
	uint64_t mask = lim->seg_boundary_mask;

	return min_not_zero_u64(mask - (mask & pos) + 1, lim->max_segment_size);
}

/*
 * __blk_bios_map_sg() / blk_bvec_map_sg() of 6.1: the scatterlist
 * entries of the mapped request.  A bvec inside one page is one entry;
 * a larger one is cut by get_max_segment_size().  Entries of one bio
 * are never merged.  The bvecs are the bio's, trimmed to the I/O.
 */
static unsigned int map_sg_entries_61(const struct pt_iter *it,
				      const struct hb_queue_limits *lim)
{
	const struct hb_imu *imu = it->imu;
	uint64_t left = it->count, skip = it->skip;
	unsigned int i, n = 0;
	struct pt_vec v;

	for (i = it->idx; i < imu->nr_bvecs && left; i++, skip = 0) {
		uint64_t done = 0;

		get_vec(imu, i, skip, left, &v);
		left -= v.len;
		if (v.offset + v.len <= HB_PAGE_SIZE) {
			n++;
			continue;
		}
		while (done < v.len) {
			done += min_u64(max_segment_61(lim, v.pos + done),
					v.len - done);
			n++;
		}
	}
	return n;
}

static int set_result(struct hb_pt_map *out, enum hb_pt_path path,
		      const char *why)
{
	out->path = path;
	out->why = why;
	return 0;
}

/*
 * bio_copy_user_iov() (6.1 and 6.12): one order-0 page per 4 KiB of the
 * I/O, added to bios that are appended to the request.  Appending checks
 * max_hw_sectors and max_segments (ll_back_merge_fn()): more bytes than
 * max_hw is -EINVAL; more pages than max_segments fails too unless some
 * of the pages happen to be physically contiguous and merge.
 */
static int copy_path(const struct pt_iter *it, const struct hb_queue_limits *lim,
		     const char *why, struct hb_pt_map *out)
{
	uint64_t pages = HB_ALIGN_UP(it->count, HB_PAGE_SIZE) >> HB_PAGE_SHIFT;

	if (it->count > lim->max_hw_bytes)
		return set_result(out, HB_PT_EINVAL,
				  "larger than max_hw_sectors_kb (the bounce "
				  "bios cannot all join the request)");
	out->nsegs = (unsigned int)pages;
	out->bounce_over_limits = pages > lim->max_segments;
	return set_result(out, HB_PT_COPY, why);
}

/*
 * blk_rq_map_user_bvec() of 6.1 (2ff949441802 and before): limits are
 * checked against the iterator as io_import_fixed() left it, then the
 * whole bvecs from the first one are walked for virt boundary gaps,
 * until the next whole bvec would pass the I/O's byte count.
 */
static bool over_max_hw_61(const struct pt_iter *it,
			   const struct hb_queue_limits *lim)
{
	/* (nr_iter >> SECTOR_SHIFT) > queue_max_hw_sectors(q) */
	return (it->count >> PT_SECTOR_SHIFT) >
	       (lim->max_hw_bytes >> PT_SECTOR_SHIFT);
}

static bool too_many_iter_segs_61(const struct pt_iter *it,
				  const struct hb_queue_limits *lim)
{
	return it->nr_segs > lim->max_segments;
}

static int walk_whole_bvecs_61(const struct hb_kmodel *km,
			       const struct pt_iter *it,
			       const struct hb_queue_limits *lim,
			       struct hb_pt_map *out)
{
	const struct hb_imu *imu = it->imu;
	uint64_t bytes = 0;
	struct pt_vec v, prev;
	unsigned int i;

	for (i = 0; i < it->nr_segs && it->idx + i < imu->nr_bvecs; i++) {
		get_vec(imu, it->idx + i, 0, UINT64_MAX, &v);
		if (i && gap_to_prev(lim, &prev, v.offset))
			return copy_path(it, lim,
					 "virt boundary gap between "
					 "bvecs (copy)",
					 out);
		if (bytes > PT_U32_MAX - v.len)
			return set_result(out, HB_PT_EINVAL,
					  "bvec bytes "
					  "overflow 32 bits");
		/*
		 * km->pt_old_bvec_checks: before 2ff949441802 (6.12; 6.11.7,
		 * 6.6.60, 6.1.116) the 6.1 walk also refused, with -EINVAL, a
		 * bvec over a page boundary and whole bvecs adding up to more
		 * than the I/O: only an I/O from a bvec's start to the buffer's
		 * end could be mapped directly.
		 */
		if (bytes + v.len > it->count) {
			if (!km->pt_old_bvec_checks)
				break;
			return set_result(out, HB_PT_EINVAL,
					  "whole bvecs run "
					  "past the I/O's end (before "
					  "2ff949441802)");
		}
		if (km->pt_old_bvec_checks && v.offset + v.len > HB_PAGE_SIZE)
			return set_result(out, HB_PT_EINVAL,
					  "bvec over a "
					  "page boundary (before "
					  "2ff949441802)");
		bytes += v.len;
		prev = v;
	}
	return 1;
}

static int map_61(const struct hb_kmodel *km, const struct pt_iter *it,
		  const struct hb_queue_limits *lim, struct hb_pt_map *out)
{
	int ret;

	if (over_max_hw_61(it, lim))
		return set_result(out, HB_PT_EINVAL,
				  "larger than max_hw_sectors_kb");
	if (too_many_iter_segs_61(it, lim))
		return set_result(out, HB_PT_EINVAL,
				  km->exact_nr_segs ?
					  "the I/O covers more than "
					  "max_segments bvecs" :
					  "more than max_segments bvecs in the "
					  "iterator (6.1 counts all remaining "
					  "bvecs)");
	ret = walk_whole_bvecs_61(km, it, lim, out);
	if (ret <= 0)
		return ret;
	/* blk_rq_bio_prep(rq, bio, nr_segs) */
	out->nr_phys_segments = it->nr_segs;
	out->nsegs = map_sg_entries_61(it, lim);
	if (out->nsegs > out->nr_phys_segments)
		return set_result(out, HB_PT_DIRECT,
				  "direct, but more DMA segments than "
				  "nr_phys_segments (no split check before "
				  "be0e822bb3f5)");
	return set_result(out, HB_PT_DIRECT, "aligned, within limits");
}

/*
 * get_max_segment_size() of 6.12: the bytes of @len at @pos that fit one
 * segment (segment boundary, max_segment_size).
 */
static uint64_t max_segment_612(const struct hb_queue_limits *lim, uint64_t pos,
				uint64_t len)
{
	uint64_t mask = lim->seg_boundary_mask;

	return min_u64(len,
		       min_u64(mask - (mask & pos), lim->max_segment_size - 1) +
			       1);
}

/* Where bio_split_rw_at() gave up: the reasons it can have. */
enum split_why {
	SPLIT_NONE,
	SPLIT_GAP,
	SPLIT_SEGS,
	SPLIT_BYTES,
	SPLIT_SEG_END
};

/*
 * bvec_split_segs() (block/blk-merge.c, 6.12): cut one bvec into
 * segments while there is room for segments; a segment that ends off the
 * virt boundary must be the bvec's last.  Anything left over means a
 * split.
 */
static enum split_why split_bvec_segs(const struct hb_queue_limits *lim,
				      const struct pt_vec *v,
				      unsigned int *nsegs, uint64_t *bytes,
				      uint64_t max_bytes)
{
	uint64_t max_len = min_u64(max_bytes, PT_U32_MAX) - *bytes;
	uint64_t len = min_u64(v->len, max_len), total = 0;

	while (len && *nsegs < lim->max_segments) {
		uint64_t seg = max_segment_612(lim, v->pos + total, len);

		(*nsegs)++;
		total += seg;
		len -= seg;
		if ((v->offset + total) & lim->virt_boundary_mask)
			break;
	}
	*bytes += total;
	if (v->len > max_len)
		return SPLIT_BYTES;
	if (!len)
		return SPLIT_NONE;
	return *nsegs >= lim->max_segments ? SPLIT_SEGS : SPLIT_SEG_END;
}

static const char *split_reason(enum split_why w)
{
	switch (w) {
	case SPLIT_SEGS:
		return "more segments than max_segments (copy)";
	case SPLIT_BYTES:
		return "more bytes than max_hw_sectors_kb (copy)";
	case SPLIT_SEG_END:
		return "a segment cut by max_segment_size or the segment "
		       "boundary ends off the virt boundary (copy)";
	case SPLIT_GAP:
	default:
		return "virt boundary gap between bvecs (copy)";
	}
}

/*
 * bio_split_rw_at() (6.12) over the bio bio_iov_bvec_set() makes of the
 * iterator: the bvecs trimmed to the I/O.  A bvec inside one page that
 * fits is one segment; any other goes through bvec_split_segs().
 * Returns SPLIT_NONE and the segment count, or why it would split.
 */
static enum split_why split_walk_612(const struct pt_iter *it,
				     const struct hb_queue_limits *lim,
				     uint64_t max_bytes, unsigned int *nsegs)
{
	const struct hb_imu *imu = it->imu;
	uint64_t left = it->count, skip = it->skip, bytes = 0;
	struct pt_vec v, prev;
	unsigned int i;
	bool first = true;

	*nsegs = 0;
	for (i = it->idx; i < imu->nr_bvecs && left; i++, skip = 0) {
		enum split_why w;

		get_vec(imu, i, skip, left, &v);
		left -= v.len;
		if (!first && gap_to_prev(lim, &prev, v.offset))
			return SPLIT_GAP;
		if (*nsegs < lim->max_segments && bytes + v.len <= max_bytes &&
		    v.offset + v.len <= HB_PAGE_SIZE) {
			(*nsegs)++;
			bytes += v.len;
		} else {
			w = split_bvec_segs(lim, &v, nsegs, &bytes, max_bytes);
			if (w != SPLIT_NONE)
				return w;
		}
		prev = v;
		first = false;
	}
	return SPLIT_NONE;
}

/*
 * blk_rq_map_user_bvec() of 6.12 (be0e822bb3f5): -EINVAL for an empty
 * I/O or one over max_hw_sectors; a bio that bio_split_rw_at() would
 * split is -EREMOTEIO, which blk_rq_map_user_iov() turns into a copy.
 */
static int map_612(const struct pt_iter *it, const struct hb_queue_limits *lim,
		   struct hb_pt_map *out)
{
	/* unsigned int max_bytes = lim->max_hw_sectors << SECTOR_SHIFT */
	uint64_t max_bytes =
		((lim->max_hw_bytes >> PT_SECTOR_SHIFT) << PT_SECTOR_SHIFT) &
		PT_U32_MAX;
	enum split_why w;
	unsigned int nsegs;

	if (it->count > max_bytes)
		return set_result(out, HB_PT_EINVAL,
				  "larger than max_hw_sectors_kb");
	w = split_walk_612(it, lim, max_bytes, &nsegs);
	if (w != SPLIT_NONE)
		return copy_path(it, lim, split_reason(w), out);
	out->nsegs = nsegs;
	out->nr_phys_segments = nsegs;
	return set_result(out, HB_PT_DIRECT, "aligned, within limits");
}

static bool before_fixed_cmd(const struct hb_kmodel *km)
{
	/* a model built by hand (kmajor 0) is taken to have it */
	return km->kmajor &&
	       (km->kmajor < 6 || (km->kmajor == 6 && km->kminor < 1));
}

static bool limits_usable(const struct hb_queue_limits *lim)
{
	return lim->max_hw_bytes >= (1ULL << PT_SECTOR_SHIFT) &&
	       lim->max_segments && lim->max_segment_size;
}

int hb_model_pt_map(const struct hb_kmodel *km, const struct hb_imu *imu,
		    uint64_t addr, uint64_t len, const struct hb_queue_limits *lim,
		    struct hb_pt_map *out)
{
	struct hb_import im;
	struct pt_iter it;
	int ret;

	if (!km || !imu || !lim || !out)
		return hb_seterr(EINVAL, "hb_model_pt_map: NULL argument");
	memset(out, 0, sizeof(*out));
	if (!limits_usable(lim))
		return hb_seterr(EINVAL, "passthrough limits need max_hw of at "
					 "least 512 bytes, max_segments and "
					 "max_segment_size");
	ret = hb_model_import(km, imu, addr, len, &im);
	if (ret)
		return ret;
	if (before_fixed_cmd(km))
		return set_result(out, HB_PT_EINVAL,
				  "no fixed-buffer "
				  "passthrough before 6.1");
	/* NVMe maps no data for a zero length; the bvec path refuses it */
	if (!len)
		return set_result(out, HB_PT_EINVAL, "empty I/O");
	it.imu = imu;
	it.idx = im.bvec_idx;
	it.skip = im.iov_offset;
	it.count = len;
	it.nr_segs = im.nr_segs_kernel;
	if (misaligned_for_dma(&it, lim))
		return copy_path(&it, lim,
				 "address or length not aligned to "
				 "dma_alignment+1 (copy)",
				 out);
	/*
	 * km->pt_split_check: NVMe passthrough with a fixed buffer
	 * (blk_rq_map_user_bvec(); lib/model/kmodel.c has the releases): the bvecs
	 * are checked by bio_split_rw_at() against every queue limit, trimmed to the I/O (be0e822bb3f5, 6.12; 6.11.8).
	 * Without it, the 6.1 walk: max_segments against the iterator's
	 * nr_segs, whole bvecs, virt boundary gaps only.
	 */
	if (km->pt_split_check)
		return map_612(&it, lim, out);
	return map_61(km, &it, lim, out);
}

const char *hb_pt_path_name(enum hb_pt_path p)
{
	switch (p) {
	case HB_PT_DIRECT:
		return "direct";
	case HB_PT_COPY:
		return "copy";
	case HB_PT_EINVAL:
		return "einval";
	}
	return "unknown";
}
