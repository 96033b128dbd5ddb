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

int main(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++)
		ret = t_worst(ret, t_sub(check_case(&cases[i])));
	ret = t_worst(ret, t_sub(check_no_limit()));
	return t_done(ret);
}
