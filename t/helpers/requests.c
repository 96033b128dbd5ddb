// SPDX-License-Identifier: GPL-2.0-only
/*
 * The block request signal: the kernel's request count for one O_DIRECT
 * READ_FIXED of a whole buffer against hb_predict_requests().
 * See t/helpers.h.
 */
#include <stdint.h>
#include <stdio.h>

#include "helpers-priv.h"

/* Reads to try before concluding the count is above the prediction. */
#define T_REQ_TRIES 40

/*
 * One O_DIRECT READ_FIXED of [boff, boff+len) of the buffer from file
 * offset 0, repeated: the fewest block requests one made in *@got.
 * Other I/O on the disk can only add requests, so the minimum over tries
 * converges on the true count from above: stop as soon as it reaches the
 * prediction @pred (a kernel that needs more never gets there; one that
 * needs fewer goes below it on a quiet try).
 */
static int min_requests(const struct t_regbuf *rb, struct t_file *f,
			uint64_t boff, uint64_t len, unsigned int pred,
			const char *what, uint64_t *got, unsigned int *tries)
{
	t_fill_background(rb, boff, len);
	*got = UINT64_MAX;
	for (*tries = 0; *tries < T_REQ_TRIES && *got > pred; (*tries)++) {
		uint64_t one;
		int ret;

		ret = hb_count_read_requests(rb->ring, f->dfd, true, rb->idx,
					     rb->addr + boff, len, 0,
					     f->blkdev, 1, &one);
		if (ret)
			return t_fail("%s: counting block requests: %s", what,
				      hb_errmsg());
		if (one < *got)
			*got = one;
	}
	return T_EXIT_PASS;
}

static int count_requests(const struct t_regbuf *rb, const struct t_model *m,
			  struct t_file *f, const char *what, bool verify)
{
	struct hb_queue_limits lim;
	uint64_t max_bytes, max_seg, got;
	unsigned int max_segs, pred, tries;
	char msg[200];
	int ret;

	if (!f->blkdev[0] || f->dfd < 0) {
		t_info("%s: request count not checked", what);
		return t_skip_check("request count: no block device under %s",
				    f->dir);
	}
	if ((uintptr_t)rb->addr % f->dio_align || rb->len % f->dio_align ||
	    rb->len > f->size) {
		t_info("%s: request count not checked", what);
		return t_skip_check("request count: buffer not aligned to the "
				    "%u bytes O_DIRECT needs, or larger than "
				    "the scratch file",
				    f->dio_align);
	}
	if (hb_blkdev_queue_limits(f->blkdev, false, &lim)) {
		t_info("%s: request count not checked", what);
		return t_skip_check("request count: %s", hb_errmsg());
	}
	max_bytes = lim.max_hw_bytes;
	max_segs = lim.max_segments;
	max_seg = lim.max_segment_size;
	if (m->km->fixed_bio_add_page) {
		/* before 5.12 the bio merges what the imu keeps apart */
		struct hb_queue_limits q = {
			.max_hw_bytes = max_bytes,
			.max_segments = max_segs,
			.max_segment_size = max_seg,
		};
		struct hb_req_pred rp;

		if (hb_predict_io_requests(m->km, m->probe,
					   (uintptr_t)rb->addr, rb->len, &q,
					   &rp))
			return t_fail("%s: hb_predict_io_requests: %s", what,
				      hb_errmsg());
		pred = rp.model;
	} else {
		pred = hb_predict_requests(m->imu, max_bytes, max_segs,
					   max_seg);
	}
	if (!pred)
		return t_fail("%s: hb_predict_requests gave no prediction for "
			      "%u bvecs",
			      what, m->imu->nr_bvecs);
	ret = min_requests(rb, f, 0, rb->len, pred, what, &got, &tries);
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg), "%s: READ_FIXED data (request count)", what);
	ret = verify ? t_pattern_verify(msg, rb->addr, rb->len, f->seed, 0) :
		       T_EXIT_PASS;
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg),
		 "%s: block requests on %s for one O_DIRECT "
		 "READ_FIXED of %llu bytes (model %s: %u bvecs; minimum of %u "
		 "reads)",
		 what, f->blkdev, (unsigned long long)rb->len, m->km->name,
		 m->imu->nr_bvecs, tries);
	if (got != pred)
		return t_fail_val(msg, pred, (long long)got);
	t_info("%s: %llu block requests on %s, as the model predicts", what,
	       (unsigned long long)got, f->blkdev);
	return t_pass();
}

int t_check_requests(const struct t_regbuf *rb, const struct t_model *m,
		     struct t_file *f, const char *what)
{
	return count_requests(rb, m, f, what, true);
}

int t_check_requests_nodata(const struct t_regbuf *rb, const struct t_model *m,
			    struct t_file *f, const char *what)
{
	return count_requests(rb, m, f, what, false);
}

int t_check_io_requests(const struct t_regbuf *rb, const struct t_model *m,
			struct t_file *f, uint64_t boff, uint64_t len,
			const char *what)
{
	struct hb_queue_limits lim;
	struct hb_req_pred rp;
	unsigned int tries;
	uint64_t got;
	char msg[240];
	int ret;

	if (!f->blkdev[0] || f->dfd < 0)
		return t_skip_check("request count: no block device under %s",
				    f->dir);
	if (((uintptr_t)rb->addr + boff) % f->dio_align ||
	    len % f->dio_align || len > f->size)
		return t_skip_check("request count: I/O not aligned to the %u "
				    "bytes O_DIRECT needs, or larger than the "
				    "scratch file",
				    f->dio_align);
	if (hb_blkdev_queue_limits(f->blkdev, false, &lim))
		return t_skip_check("request count: %s", hb_errmsg());
	if (hb_predict_io_requests(m->km, m->probe, (uintptr_t)rb->addr + boff,
				   len, &lim, &rp))
		return t_fail("%s: hb_predict_io_requests: %s", what,
			      hb_errmsg());
	ret = min_requests(rb, f, boff, len, rp.model, what, &got, &tries);
	if (!ret) {
		snprintf(msg, sizeof(msg), "%s: READ_FIXED data (request count)",
			 what);
		ret = t_pattern_verify(msg, rb->addr + boff, len, f->seed, 0);
	}
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg),
		 "%s: block requests on %s for one O_DIRECT READ_FIXED of "
		 "[0x%llx, +0x%llx) (model %s; one bvec per page would make "
		 "%u, per folio %u; minimum of %u reads)",
		 what, f->blkdev, (unsigned long long)boff,
		 (unsigned long long)len, m->km->name, rp.none, rp.multi, tries);
	if (got != rp.model)
		return t_fail_val(msg, rp.model, (long long)got);
	t_info("%s: %llu block requests on %s for [0x%llx, +0x%llx), as the "
	       "model predicts (per page %u, per folio %u)",
	       what, (unsigned long long)got, f->blkdev,
	       (unsigned long long)boff, (unsigned long long)len, rp.none,
	       rp.multi);
	return t_pass();
}
