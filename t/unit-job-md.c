// SPDX-License-Identifier: GPL-2.0-only
/*
 * hb_job_md_predict() (lib/job/job.c) over a job's real metadata
 * buffers (issue 45, item 2): md_per_io_size places one per slot after
 * the data, page aligned, in the same backing, and the prediction probes
 * them and asks hb_model_md_map() for each.  A 4 KiB plan of 4 slots, no
 * files, no pool: 512 bytes per slot share one page (one bvec, mapped
 * on a queue of one integrity segment); 8 KiB per slot span two 4 KiB
 * folios (two bvecs: copied at one segment, two SGL segments at 15).  A
 * queue without max_integrity_segments gets no prediction, said.
 *
 * hb_job_md_predict_dev(), for reads and writes with a PI attribute, reads
 * the queue of the device hb_job_file_opened() found: a file on no block
 * device still gets the report's md_* keys, no prediction said; on the
 * host's disk under "/" it predicts what hb_job_md_predict() does with
 * that device's limits.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "hugebuf-job.h"

#define SLOTS	4
#define BS	8192

static void say(void *arg, bool error, const char *line)
{
	(void)arg;
	t_info("the job said (%s): %s", error ? "error" : "note", line);
}

static struct hb_job *md_job(unsigned int md_per_io)
{
	struct hb_job_prep how = { .coalesce_check = HB_JOB_CHECK_OFF };
	enum hb_job_step failed;
	struct hb_job *j = hb_job_new(say, NULL);

	if (!j)
		return NULL;
	j->plan.backing = "4k";
	j->plan.depth = SLOTS;
	j->plan.max_bs = BS;
	j->plan.min_len = (uint64_t)SLOTS * BS;
	j->plan.fixedbufs = true;
	j->plan.md_per_io_size = md_per_io;
	if (hb_jobplan_check(&j->plan) || hb_job_alloc(j) ||
	    hb_job_prepare(j, &how, &failed)) {
		t_info("md job of %u: %s", md_per_io, hb_errmsg());
		hb_job_free(j);
		return NULL;
	}
	return j;
}

struct md_case {
	unsigned int md_per_io;
	unsigned int integrity_segs;
	unsigned int direct, copied;
	unsigned int segs_max, dma_max, sgl;
};

static const struct md_case cases[] = {
	{ 512, 1, SLOTS, 0, 1, 1, 0 },
	{ 8192, 1, 0, SLOTS, 1, 1, 0 },
	{ 8192, 15, SLOTS, 0, 2, 2, SLOTS },
};

static int check_case(const struct md_case *c)
{
	struct hb_queue_limits lim = {
		.dma_align_mask = 3,
		.max_integrity_segments = c->integrity_segs,
	};
	struct hb_md_report r;
	struct hb_job *j = md_job(c->md_per_io);
	int ret = T_EXIT_PASS;

	if (!j)
		return t_fail("a 4 KiB job with md_per_io_size=%u",
			      c->md_per_io);
	if (j->plan.km.md_user_map != HB_MD_DIRECT) {
		hb_job_free(j);
		return t_skip("kernel model %s does not map metadata",
			      j->plan.km.name);
	}
	if (hb_job_md_predict(j, &lim, c->md_per_io, true, &r))
		ret = t_fail("hb_job_md_predict: %s", hb_errmsg());
	else if (!r.predicted)
		ret = t_fail("md %u: no prediction: %s", c->md_per_io,
			     r.not_predicted);
	else if (r.count[HB_MD_DIRECT] != c->direct ||
		 r.count[HB_MD_COPIED] != c->copied ||
		 r.segs_max != c->segs_max || r.dma_max != c->dma_max ||
		 r.sgl != c->sgl)
		ret = t_fail("md %u at %u segments: direct %u copied %u "
			     "segments <= %u dma <= %u sgl %u, expected %u %u "
			     "%u %u %u", c->md_per_io, c->integrity_segs,
			     r.count[HB_MD_DIRECT], r.count[HB_MD_COPIED],
			     r.segs_max, r.dma_max, r.sgl, c->direct,
			     c->copied, c->segs_max, c->dma_max, c->sgl);
	hb_job_free(j);
	return ret;
}

/* a queue whose max_integrity_segments was not read: said, not guessed */
static int check_no_limit(void)
{
	struct hb_queue_limits lim = { .dma_align_mask = 3 };
	struct hb_md_report r;
	struct hb_job *j = md_job(512);
	int ret = T_EXIT_PASS;

	if (!j)
		return t_fail("a 4 KiB job with md_per_io_size=512");
	if (hb_job_md_predict(j, &lim, 512, true, &r))
		ret = t_fail("hb_job_md_predict: %s", hb_errmsg());
	else if (r.predicted || !r.not_predicted)
		ret = t_fail("a prediction without max_integrity_segments");
	hb_job_free(j);
	return ret;
}

/* the PI attribute's report of the job's device: no error, said */
static int dev_report(struct hb_job *j, const char *what,
		      struct hb_md_report *r)
{
	if (hb_job_md_predict_dev(j, 512, r))
		return t_fail("%s: hb_job_md_predict_dev: %s", what,
			      hb_errmsg());
	if (r->passthrough || r->md_len != 512)
		return t_fail("%s: a report of %llu bytes, passthrough %d",
			      what, (unsigned long long)r->md_len,
			      r->passthrough);
	if (!r->predicted && !r->not_predicted)
		return t_fail("%s: no prediction and no reason", what);
	return T_EXIT_PASS;
}

/* before any file, and a file on no block device (procfs) */
static int check_no_device(void)
{
	struct hb_md_report r;
	struct hb_job *j = md_job(512);
	int ret;

	if (!j)
		return t_fail("a 4 KiB job with md_per_io_size=512");
	ret = dev_report(j, "no file opened", &r);
	if (!ret && r.predicted)
		ret = t_fail("a prediction before any file was opened");
	if (!ret) {
		hb_job_file_opened(j, "/proc/self/stat", false);
		ret = dev_report(j, "a file on procfs", &r);
	}
	if (!ret && r.predicted)
		ret = t_fail("a prediction for a file on no block device");
	hb_job_free(j);
	return ret;
}

static bool md_same(const struct hb_md_report *a, const struct hb_md_report *b)
{
	return a->predicted == b->predicted &&
	       a->max_integrity_segments == b->max_integrity_segments &&
	       !memcmp(a->count, b->count, sizeof(a->count)) &&
	       a->segs_max == b->segs_max && a->dma_max == b->dma_max &&
	       a->sgl == b->sgl &&
	       !strcmp(a->not_predicted ? a->not_predicted : "",
		       b->not_predicted ? b->not_predicted : "");
}

/*
 * The disk under "/": its limits as hb_job_file_opened() found it.
 * Counts its own pass: a skip here is a skip, not a pass too.
 */
static int check_root_device(void)
{
	struct hb_md_report got, want;
	struct hb_queue_limits lim;
	struct hb_job *j = md_job(512);
	int ret = T_EXIT_PASS;

	if (!j)
		return t_fail("a 4 KiB job with md_per_io_size=512");
	hb_job_file_opened(j, "/", false);
	if (j->dev[0] == '-' || !j->dev[0] ||
	    hb_blkdev_queue_limits(j->dev, false, &lim)) {
		hb_job_free(j);
		return t_skip_check("\"/\" is not on a block device with "
				    "queue limits in sysfs");
	}
	if (hb_job_md_predict(j, &lim, 512, false, &want))
		ret = t_fail("hb_job_md_predict on %s: %s", j->dev,
			     hb_errmsg());
	else
		ret = dev_report(j, j->dev, &got);
	if (!ret && !md_same(&got, &want))
		ret = t_fail("%s: predicted %d at %u segments (%s), its limits "
			     "give %d at %u (%s)", j->dev, got.predicted,
			     got.max_integrity_segments,
			     got.not_predicted ? got.not_predicted : "",
			     want.predicted, want.max_integrity_segments,
			     want.not_predicted ? want.not_predicted : "");
	hb_job_free(j);
	return ret ? ret : t_pass();
}

int main(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++)
		ret = t_worst(ret, t_sub(check_case(&cases[i])));
	ret = t_worst(ret, t_sub(check_no_limit()));
	ret = t_worst(ret, t_sub(check_no_device()));
	ret = t_worst(ret, check_root_device());
	return t_done(ret);
}
