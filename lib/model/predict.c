// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block requests a registered buffer becomes (pure): the prediction that
 * tests, the CLI and bench/ (through 'hugebuf plan --json') compare with
 * the device's counters.  The live measurement is in measure.c.
 */
#include <string.h>

#include "model/model.h"

/* ------------------------------------------------------------------ */
/* block split emulation (pure)                                        */
/* ------------------------------------------------------------------ */

#define HB_SECTOR_SIZE		512

/*
 * Emulate bio_split_rw_at() (block/blk-merge.c, 6.x) for one bio that
 * carries the whole imu, as a READ_FIXED of the whole buffer builds it
 * (bio_iov_bvec_set() hands imu->bvec to the bio as is).  Rules:
 *  - each bvec is at least one segment; bvecs are never merged, even when
 *    physically contiguous;
 *  - a bvec longer than max_segment_size is several segments;
 *  - a request ends when the next bvec (or the part of it that fits)
 *    would exceed max_sectors bytes or max_segments; the split point is
 *    rounded down to the logical block size and the rest of the bvec
 *    starts the next request.
 * Segment boundaries (seg_boundary_mask, 4 GiB by default) and virt
 * boundaries are not modelled: folios never cross them on x86.
 */
struct hb_split {
	uint64_t max_bytes;
	unsigned int max_segs;
	uint64_t max_seg;
};

/*
 * One request starting @done bytes into bvec @i.  Returns the bytes it
 * takes (0 only if nothing fits, which the limits rule out).
 */
static uint64_t split_one(const struct hb_split *s, const struct hb_imu *imu,
			  unsigned int i, uint64_t done, unsigned int *segs)
{
	uint64_t bytes = 0;
	unsigned int nsegs = 0;

	*segs = 0;

	for (; i < imu->nr_bvecs; i++, done = 0) {
		uint64_t bv_len = imu->bvec[i].len - done;
		uint64_t room = s->max_bytes - bytes;
		uint64_t take = bv_len < room ? bv_len : room;
		uint64_t total = 0;

		while (take && nsegs < s->max_segs) {
			uint64_t seg = take < s->max_seg ? take : s->max_seg;

			nsegs++;
			total += seg;
			take -= seg;
		}
		bytes += total;
		*segs = nsegs;
		if (take || bv_len > room)
			return HB_ALIGN_DOWN(bytes, HB_SECTOR_SIZE);
	}
	return bytes;
}

unsigned int hb_predict_requests(const struct hb_imu *imu, uint64_t max_bytes,
				 unsigned int max_segs, uint64_t max_seg_size)
{
	struct hb_queue_limits q = {
		.max_hw_bytes = max_bytes,
		.max_segments = max_segs,
		.max_segment_size = max_seg_size,
	};
	struct hb_bio_split out;

	return hb_split_bio(imu, &q, &out) ? 0 : out.requests;
}

int hb_split_bio(const struct hb_imu *imu, const struct hb_queue_limits *q,
		 struct hb_bio_split *out)
{
	return hb_split_bio_reqs(imu, q, out, NULL, 0);
}

int hb_split_bio_reqs(const struct hb_imu *imu, const struct hb_queue_limits *q,
		      struct hb_bio_split *out, struct hb_split_req *reqs,
		      unsigned int max_reqs)
{
	struct hb_split s = {
		.max_bytes = q->max_hw_bytes,
		.max_segs = q->max_segments ? q->max_segments : 1,
		.max_seg = q->max_segment_size ? q->max_segment_size :
						 UINT64_MAX,
	};
	unsigned int i = 0, segs;
	uint64_t done = 0;

	memset(out, 0, sizeof(*out));
	if (!imu || !imu->nr_bvecs || q->max_hw_bytes < HB_SECTOR_SIZE)
		return -1;
	while (i < imu->nr_bvecs) {
		uint64_t got = split_one(&s, imu, i, done, &segs);

		if (!got) {
			out->requests = 0;
			return -1;
		}
		/* blk_rq_bio_prep(rq, bio, nr_segs): the split's count */
		if (reqs && out->requests < max_reqs) {
			reqs[out->requests].bytes = got;
			reqs[out->requests].nr_phys_segments = segs;
		}
		out->requests++;
		out->last_bytes = got;
		out->last_segs = segs;
		/* advance @got bytes through the bvecs */
		while (got && i < imu->nr_bvecs) {
			uint64_t left = imu->bvec[i].len - done;

			if (got < left) {
				done += got;
				got = 0;
			} else {
				got -= left;
				done = 0;
				i++;
			}
		}
	}
	return 0;
}

