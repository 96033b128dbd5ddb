// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's side of the buffer plan and the report: what fio's own
 * buffer carving needs, the vectored model once the ring exists, the
 * init-time notes, and the job-end report through lib's one writer.  fio
 * glue only: the plan's rules live in lib/jobplan.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hugebuf-engine.h"

#include "verify.h"

/*
 * Bytes fio's own carving writes to, through the iomem_alloc hook, before
 * post_init moves the buffers to the plan's layout: iodepth * max_bs,
 * plus a page and iomem_align of alignment slack, rounded up to
 * hugepage-size for mem=shmhuge/mmaphuge (init_io_u_buffers()), plus
 * another page and iomem_align (allocate_io_mem()).  The plan maps at
 * least this much.
 */
uint64_t hbe_fio_len(struct thread_data *td)
{
	uint64_t slack = HB_PAGE_SIZE + td->o.mem_align;
	uint64_t fios = (uint64_t)td->o.iodepth * td_max_bs(td) + slack;
	uint64_t hps = td->o.hugepage_size;

	if ((td->o.mem_type == MEM_SHMHUGE ||
	     td->o.mem_type == MEM_MMAPHUGE) && hps)
		fios = (fios + hps - 1) / hps * hps;
	return fios + slack;
}

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
	    hb_blkdev_queue_limits(j->dev, &q.max_bytes, &q.max_segs,
				   &q.max_seg))
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
		.ios = hd->ios[0] + hd->ios[1],
		/* the counters are per device: other jobs' I/O lands there */
		.requests_approximate = thread_number > 1,
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

	r.kernel_detect = d ? d->summary : "";
	if (hd->pt)
		r.pt = &hd->pt->r;
	if (j->dev_ok && td->o.odirect && r.ios &&
	    !hb_blkdev_ios(j->dev, &r1, &w1)) {
		r.device = j->dev;
		r.dev_reads = r1 - j->dev_r0;
		r.dev_writes = w1 - j->dev_w0;
		r.write_ios = hd->ios[1];
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
	path = o->report_json && *o->report_json ? o->report_json :
	       getenv("HUGEBUF_REPORT_JSON");
	if (path && *path && hb_report_append(&r, path))
		log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
}
