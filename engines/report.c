// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's report: the init-time notes, the vectored model's bvecs
 * once the ring exists, and the job-end report through lib's one writer
 * (lib/job/report.c).  fio glue only; the buffer plan is engines/options.c's
 * translation of the job and lib/job/jobplan.c's rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hugebuf-engine.h"

#include "verify.h"

void hbe_model_vectored(struct hbe_data *hd)
{
	const struct hb_jobplan *p = &hd->job->plan;
	struct hb_analysis an;
	struct hb_vimport vi;
	struct iovec iov[64];
	struct hb_bvec *out;
	uint64_t bound;
	unsigned int n;

	/* the cut of slot 0's largest I/O, through the vectored model */
	if (hb_analyze(&p->km, hd->setup->iovecs, 1, &p->b, 0, 0,
		       HB_ANALYZE_KEEP, &an))
		return;
	n = hb_vec_split(hd->setup->iovecs[0].iov_base, p->max_bs, hd->vec_n,
			 hd->vec_offset, hd->dio_align, iov);
	bound = hb_import_vec_bound(&an.imu[0], iov, n);
	out = calloc(bound, sizeof(*out));
	if (out && !hb_model_import_vec(&an.km, &an.imu[0], iov, n, out, bound,
					&vi))
		hd->job->vec_bvecs = vi.nr_bvecs;
	free(out);
	hb_analysis_free(&an);
}

void hbe_note_kernel(void)
{
	static bool said;
	const struct hb_kdetect *d = hb_kdetect_cached();

	if (said || !d || !d->warning[0])
		return;
	said = true;
	hbe_note(HBE_LOG_PREFIX "%s\n", d->warning);
}

/*
 * experimental_verify keeps no log: do_verify() replays the job's I/O
 * sequence and checks every write's seed at its offset, in order, so a
 * block written twice (norandommap) holds the later write and fails.  fio
 * 3.33's io_uring engine passes such a job only because it builds its SQE
 * in ->prep, before the replay turns the write into a read, and writes the
 * expected data instead of reading it (fio master preps again after the
 * flip).
 */
void hbe_warn_replay(struct thread_data *td)
{
	if (!td->o.experimental_verify || !td->o.norandommap ||
	    !td_write(td) || !td->o.do_verify || td->o.verify == VERIFY_NONE)
		return;
	hbe_note(HBE_LOG_PREFIX "warning: experimental_verify replays writes "
		 "in order and a block norandommap writes twice fails the "
		 "check: drop norandommap or experimental_verify\n");
}

/* ------------------------------------------------------------------ */
/* report                                                              */
/* ------------------------------------------------------------------ */

/*
 * Device requests of the first I/O (hbe_probe_first_io()), on its queue;
 * with fixedbufs=0 also the plain model's counts in @plain.
 */
static int hbe_predict_requests(const struct hbe_job *j,
				struct hb_req_pred *pred,
				struct hb_plain_pred *plain)
{
	struct hb_queue_limits q;

	if (!j->io0_ok ||
	    hb_blkdev_queue_limits(j->dev, &q.max_hw_bytes,
				   &q.max_segments, &q.max_segment_size))
		return -1;
	if (!j->plan.fixedbufs)
		return hb_predict_plain_requests(&j->plan.km, &j->io0, &q, pred,
						 plain);
	return hb_predict_io_requests(&j->plan.km, &j->io0, j->io0.addr,
				      j->io0.len, &q, pred);
}

void hbe_report(struct thread_data *td, struct hbe_data *hd)
{
	struct hbe_options *o = hbe_opts(td);
	struct hbe_job *j = hd->job;
	const struct hb_jobplan *p = &j->plan;
	struct hb_report r = {
		.job = td->o.name,
		.subjob = td->subjob_number,
		.backing = p->b,
		.layout = p->layout == HB_JOB_REGION ? "region" : "per-io",
		.head_offset = p->head,
		.fixedbufs = p->fixedbufs,
		.kernel_model = p->km.name,
		.nr_buffers = p->nr_iovecs,
		.buffer_len = j->buffer_len,
		.bs = p->max_bs,
		.stride = p->stride,
		.st = j->st,
		.register_usec = j->register_usec,
		.vmpin_kb = j->vmpin_kb,
		/* fio's count of whole reads and writes done */
		.ios = td->io_blocks[DDIR_READ] + td->io_blocks[DDIR_WRITE],
		/*
		 * The counters are per device: other jobs' I/O lands there.
		 * ramp_time: fio zeroes io_blocks when the ramp ends
		 * (reset_all_stats()), the device counts from open.
		 */
		.requests_approximate = thread_number > 1 || td->o.ramp_time,
		.limits = j->limits_ok ? &j->limits : NULL,
		.vec_iovecs = hd->vec_n,
		.shared = !j->share ? "" : j->share_idx ? "clone" : "source",
		.ready_usec = j->ready_usec,
		.vec_bvecs = j->vec_bvecs,
		.km = &p->km,
	};
	const struct hb_kdetect *d = hb_kdetect_cached();
	struct hb_plain_pred plain;
	struct hb_req_pred pred;
	const char *path;
	uint64_t r1, w1;
	struct hb_str text;

	path = o->report_json && *o->report_json ? o->report_json :
	       getenv("HUGEBUF_REPORT_JSON");
	if (!o->report && !(path && *path))
		return;
	r.kernel_detect = d ? d->summary : "";
	if (hd->pt)
		r.pt = &hd->pt->r;
	if (j->dev_ok && td->o.odirect && r.ios &&
	    !hb_blkdev_ios_settled(j->dev, &r1, &w1)) {
		r.device = j->dev;
		r.dev_reads = r1 - j->dev_r0;
		r.dev_writes = w1 - j->dev_w0;
		r.write_ios = td->io_blocks[DDIR_WRITE];
		if (!hbe_predict_requests(j, &pred, &plain)) {
			r.pred = &pred;
			if (!p->fixedbufs) {
				r.plain = &plain;
				r.plain_pfn = j->io0.pfn ? "probed" :
					      "synthetic";
			}
		}
	}
	if (o->report) {
		hb_str_init(&text);
		hb_report_text(&r, "hugebuf: ", &text);
		if (text.s)
			hbe_note("%s", text.s);
		hb_str_free(&text);
	}
	if (path && *path && hb_report_append(&r, path))
		log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
}
