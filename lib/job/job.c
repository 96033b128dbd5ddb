// SPDX-License-Identifier: GPL-2.0-only
/*
 * The job object (hugebuf-job.h): one I/O job's buffers from its checked
 * plan to its report, in the order the kernel sees them -- placed, probed
 * and modelled (hb_analyze()), judged, registered -- and at the end the
 * device's requests beside the model's.  The framework that runs the job
 * keeps its options, its ring and its I/O path.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "job/job.h"

static void job_say(const struct hb_job *j, bool error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void job_say(const struct hb_job *j, bool error, const char *fmt, ...)
{
	char line[PATH_MAX + 640];
	va_list ap;

	if (!j->say)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	j->say(j->say_arg, error, line);
}

static double usec_between(const struct timespec *t0,
			   const struct timespec *t1)
{
	return (t1->tv_sec - t0->tv_sec) * 1e6 +
	       (t1->tv_nsec - t0->tv_nsec) / 1e3;
}

static int64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

struct hb_job *hb_job_new(hb_job_say_fn say, void *arg)
{
	struct hb_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->say = say;
	j->say_arg = arg;
	j->t_new_ns = mono_ns();
	return j;
}

void hb_job_free(struct hb_job *j)
{
	if (!j)
		return;
	if (j->buf_ok)
		hb_free(&j->buf);
	if (j->an_kept)
		hb_analysis_free(&j->an);
	if (j->io0_ok)
		hb_probe_free(&j->io0);
	free(j->iovecs);
	free(j);
}

int hb_job_alloc(struct hb_job *j)
{
	const struct hb_jobplan *p = &j->plan;
	int ret;

	ret = hb_alloc(&p->b, p->len, p->head, &j->buf);
	if (ret) {
		job_say(j, true, "%s", hb_errmsg());
		return ret;
	}
	j->buf_ok = true;
	j->map = j->buf.map;
	j->map_len = j->buf.map_len;
	return 0;
}

/*
 * Slot i at map + head + i * stride (the plan's layout), and the iovecs
 * that register them: one per slot, or one per region.
 */
static int job_place(struct hb_job *j)
{
	const struct hb_jobplan *p = &j->plan;
	unsigned int nr;
	int ret;

	ret = hb_slot_iovecs((uintptr_t)(j->map + p->head), p->depth,
			     p->stride, p->max_bs, p->slots_per_region,
			     &j->iovecs, &nr);
	if (!ret)
		j->buffer_len = j->iovecs[0].iov_len;
	return ret;
}

/*
 * The pages of the first I/O, for the report's prediction of device
 * requests: hb_predict_io_requests() for READ_FIXED/WRITE_FIXED,
 * hb_model_plain() for plain READ/WRITE (fixedbufs=0).  Only where one
 * prediction holds for every I/O: one block size from buffers the
 * analysis found alike, not split by chunk_size, not vectored and not
 * passthrough (their bvecs are made otherwise).
 */
static void job_probe_first_io(struct hb_job *j, bool one_size)
{
	const struct hb_jobplan *p = &j->plan;
	const struct hb_bufstats *st = &j->st;

	if (p->passthrough || p->vec_iovecs || p->max_pieces > 1 ||
	    !one_size || st->min_io_segs != st->max_io_segs ||
	    st->min_bvecs != st->max_bvecs)
		return;
	j->io0_ok = !hb_probe(j->iovecs[0].iov_base, p->max_bs, &p->b,
			      &j->io0);
}

/*
 * What the running kernel makes of the buffers: lib's one analysis
 * (probe, registration model, import of a max_bs I/O at every slot,
 * memlock charge).  Sets whether they coalesce.
 */
static int job_model(struct hb_job *j, bool one_size, bool *coalesces)
{
	const struct hb_jobplan *p = &j->plan;
	struct hb_analysis *an = &j->an;
	int ret;

	/* passthrough keeps the imus: each command is predicted at open */
	ret = hb_analyze(&p->km, j->iovecs, p->nr_iovecs, &p->b, p->max_bs,
			 p->stride, p->passthrough ? HB_ANALYZE_KEEP : 0, an);
	if (ret)
		return ret;
	j->st = an->st;
	*coalesces = hb_analysis_coalesces(an, &p->b);
	job_probe_first_io(j, one_size);
	if (p->passthrough)
		j->an_kept = true;
	else
		hb_analysis_free(an);
	return 0;
}

/* THP and mTHP are best effort: folios other than asked for are said */
static void job_warn_folios(const struct hb_job *j, const char *bk)
{
	const struct hb_jobplan *p = &j->plan;
	const struct hb_bufstats *st = &j->st;

	if (st->min_folio == p->b.folio_size &&
	    st->max_folio == p->b.folio_size)
		return;
	job_say(j, false, "warning: backing=%s asked for %llu-byte folios, "
		"the probe saw %llu..%llu (THP/mTHP are best effort: for "
		"mTHP echo never > /sys/kernel/mm/transparent_hugepage/"
		"hugepages-2048kB/enabled while testing; for THP free or "
		"compact memory)", bk, (unsigned long long)p->b.folio_size,
		(unsigned long long)st->min_folio,
		(unsigned long long)st->max_folio);
}

/*
 * coalesce_check: buffers the kernel would not coalesce are a warning,
 * or the job's error.  4 KiB pages have nothing to coalesce: no warning
 * for them.
 */
static int job_verdict(const struct hb_job *j, enum hb_job_check check,
		       bool coalesces, const char *bk)
{
	const struct hb_jobplan *p = &j->plan;
	const struct hb_bufstats *st = &j->st;
	bool req = check == HB_JOB_CHECK_REQUIRE;

	if (check == HB_JOB_CHECK_OFF || coalesces ||
	    (p->b.folio_size <= HB_PAGE_SIZE && !req))
		return 0;
	job_say(j, req, "%s: kernel %s would not coalesce these buffers "
		"(backing=%s, %u-%u bvecs for %u-%u folios per buffer); to "
		"coalesce: %s%s", req ? "error" : "warning", p->km.name, bk,
		st->min_bvecs, st->max_bvecs, st->min_folios, st->max_folios,
		hb_coalesce_advice(&p->km, p->b.folio_size, p->head,
				   j->buffer_len),
		req ? " (coalesce_check=warn runs it anyway)" : "");
	return req ? -EINVAL : 0;
}

/* a registration the hugepage accounting will make slow: say so */
static void job_warn_regcost(const struct hb_job *j)
{
	char msg[512];

	if (j->plan.fixedbufs &&
	    hb_reg_cost_warning(&j->st.reg_cost, msg, sizeof(msg)) > 0)
		job_say(j, false, "warning: %s", msg);
}

/* 7.2 - 7.3: a cloned hugepage un-charged twice (efde156d91ba) */
static void job_warn_clone_acct(const struct hb_job *j)
{
	const struct hb_jobplan *p = &j->plan;
	struct hb_sysinfo si;
	char msg[512];

	if (p->clone != HB_JOB_CLONE_OFF &&
	    hb_sysinfo_read(&si) == 0 &&
	    hb_clone_acct_warning(&p->km, p->b.folio_size, si.cap_ipc_lock,
				  msg, sizeof(msg)) > 0)
		job_say(j, false, "warning: %s", msg);
}

/* vec_iovecs: the cut of slot 0's largest I/O, through the vectored model */
static void job_model_vectored(struct hb_job *j)
{
	const struct hb_jobplan *p = &j->plan;
	struct hb_analysis an;
	struct hb_vimport vi;
	struct iovec iov[64];
	struct hb_bvec *out;
	uint64_t bound;
	unsigned int n;

	if (!p->vec_iovecs ||
	    hb_analyze(&p->km, j->iovecs, 1, &p->b, 0, 0, HB_ANALYZE_KEEP,
		       &an))
		return;
	n = hb_vec_split(j->iovecs[0].iov_base, p->max_bs, p->vec_iovecs,
			 p->vec_offset, p->dio_align, iov);
	bound = hb_import_vec_bound(&an.imu[0], iov, n);
	out = calloc(bound, sizeof(*out));
	if (out && !hb_model_import_vec(&an.km, &an.imu[0], iov, n, out, bound,
					&vi))
		j->vec_bvecs = vi.nr_bvecs;
	free(out);
	hb_analysis_free(&an);
}

int hb_job_prepare(struct hb_job *j, const struct hb_job_prep *how,
		   enum hb_job_step *failed)
{
	char bk[HB_BACKING_STR_MAX];
	bool coalesces = false;
	int ret;

	j->one_size = how->one_size;
	ret = job_place(j);
	if (ret) {
		*failed = HB_JOB_STEP_LAYOUT;
		goto said;
	}
	ret = job_model(j, how->one_size, &coalesces);
	if (ret) {
		*failed = HB_JOB_STEP_PROBE;
		goto said;
	}
	hb_backing_str(&j->plan.b, bk, sizeof(bk));
	job_warn_folios(j, bk);
	ret = job_verdict(j, how->coalesce_check, coalesces, bk);
	if (ret) {
		*failed = HB_JOB_STEP_VERDICT;
		return ret;
	}
	job_warn_regcost(j);
	job_warn_clone_acct(j);
	job_model_vectored(j);
	return 0;
said:
	job_say(j, true, "%s", hb_errmsg());
	return ret;
}

static int job_register(struct hb_job *j, struct io_uring *ring,
			int (*table)(void *arg), void *arg)
{
	struct timespec t0, t1;
	long pin0, pin1;
	int ret;

	pin0 = hb_vmpin_kb();
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = table ? table(arg) :
		      hb_register_buffers(ring, j->iovecs, j->plan.nr_iovecs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (ret) {
		if (!table)
			job_say(j, true, "%s", hb_errmsg());
		return ret;
	}
	pin1 = hb_vmpin_kb();
	j->register_usec = usec_between(&t0, &t1);
	j->vmpin_kb = (pin0 >= 0 && pin1 >= 0) ? pin1 - pin0 : -1;
	return 0;
}

/*
 * contig=pin: hb_job_prepare() modelled pages not faulted in yet (the
 * probe's recipe); registered, they have their frames: the same model
 * again, over them, for the report.
 */
static int job_model_pinned(struct hb_job *j)
{
	bool coalesces;
	int ret;

	if (j->plan.b.contig != HB_CONTIG_PIN)
		return 0;
	if (j->an_kept) {
		hb_analysis_free(&j->an);
		j->an_kept = false;
	}
	if (j->io0_ok) {
		hb_probe_free(&j->io0);
		j->io0_ok = false;
	}
	ret = job_model(j, j->one_size, &coalesces);
	if (ret)
		job_say(j, true, "%s", hb_errmsg());
	return ret;
}

int hb_job_register(struct hb_job *j, struct io_uring *ring,
		    int (*table)(void *arg), void *arg)
{
	int ret;

	if (j->plan.fixedbufs) {
		ret = job_register(j, ring, table, arg);
		if (!ret)
			ret = job_model_pinned(j);
		if (ret)
			return ret;
	}
	j->ready_usec = (mono_ns() - j->t_new_ns) / 1e3;
	/* registered: what only set-up needed goes */
	free(j->iovecs);
	j->iovecs = NULL;
	return 0;
}

void hb_job_file_opened(struct hb_job *j, const char *path, bool char_dev)
{
	/* what the first file allows for direct and atomic I/O (statx) */
	if (!j->limits_ok)
		j->limits_ok = !hb_file_limits(path, &j->limits);
	if (j->dev[0] || char_dev)
		return;
	if (hb_blkdev_of_path(path, j->dev, sizeof(j->dev))) {
		j->dev[0] = '-';	/* tried, not block backed */
		return;
	}
	j->dev_ok = !hb_blkdev_ios(j->dev, &j->dev_r0, &j->dev_w0);
}

/* one slot's command through lib's model of blk_rq_map_user_iov() */
static void pt_count(struct hb_pt_report *r, const struct hb_pt_map *m)
{
	r->count[m->path]++;
	if (m->path == HB_PT_DIRECT) {
		if (m->nsegs < r->segs_min)
			r->segs_min = m->nsegs;
		if (m->nsegs > r->segs_max)
			r->segs_max = m->nsegs;
	} else if (!r->why) {
		r->why = m->why;
	}
}

int hb_job_pt_predict(const struct hb_job *j, const char *path,
		      const struct hb_queue_limits *lim, uint64_t len,
		      struct hb_pt_report *r)
{
	const struct hb_jobplan *p = &j->plan;
	const struct hb_kmodel *km = &p->km;
	unsigned int i;

	r->cmd_len = len;
	if (len > lim->max_hw_bytes) {
		job_say(j, true, "%s takes at most %llu KiB per command "
			"(max_hw_sectors_kb), the job issues %llu KiB: set "
			"chunk_size=%lluk to split every I/O into commands, "
			"or a smaller bs", path,
			(unsigned long long)lim->max_hw_bytes >> 10,
			(unsigned long long)len >> 10,
			(unsigned long long)lim->max_hw_bytes >> 10);
		return -EINVAL;
	}
	if (!p->fixedbufs || !j->an_kept)
		return 0;
	memset(r->count, 0, sizeof(r->count));
	r->segs_min = UINT_MAX;
	r->segs_max = 0;
	for (i = 0; i < p->depth; i++) {
		const struct hb_imu *imu = &j->an.imu[i / p->slots_per_region];
		uint64_t addr = (uintptr_t)(j->map + p->head +
					    (uint64_t)i * p->stride);
		struct hb_pt_map m;

		if (hb_model_pt_map(km, imu, addr, len, lim, &m))
			return 0;	/* the import model refused: not ours */
		pt_count(r, &m);
		if (m.path == HB_PT_EINVAL) {
			job_say(j, true, "kernel %s would refuse a %llu KiB "
				"command from io_u %u's registered buffer on "
				"%s (EINVAL: %s): use hugepage backing, "
				"layout=per-io or a smaller bs", km->name,
				(unsigned long long)len >> 10, i, path, m.why);
			return -EINVAL;
		}
	}
	r->predicted = true;
	return 0;
}

/* one slot's metadata buffer through lib's model of bio_integrity_map_user() */
static void md_count(struct hb_md_report *r, const struct hb_md_cmd *c)
{
	r->count[c->map]++;
	if (c->segments < r->segs_min)
		r->segs_min = c->segments;
	if (c->segments > r->segs_max)
		r->segs_max = c->segments;
	if (c->dma_maps < r->dma_min)
		r->dma_min = c->dma_maps;
	if (c->dma_maps > r->dma_max)
		r->dma_max = c->dma_maps;
	r->sgl += c->sgl;
	if (c->why != HB_MD_WHY_NONE && !r->why)
		r->why = hb_md_why_name(c->why);
}

/*
 * The slots' metadata buffers sit md_per_io_size apart from md_off
 * (hb_jobplan_check()); one probe of them all, each slot's pages a slice
 * of it.
 */
static int md_model_slots(const struct hb_job *j, const struct hb_md_queue *q,
			  struct hb_md_report *r)
{
	const struct hb_jobplan *p = &j->plan;
	uintptr_t base = (uintptr_t)(j->map + p->head + p->md_off);
	struct hb_probe pr;
	unsigned int i;
	int ret;

	ret = hb_probe((const void *)base,
		       (uint64_t)p->depth * p->md_per_io_size, &p->b, &pr);
	if (ret)
		return ret;
	for (i = 0; i < p->depth && !ret; i++) {
		uint64_t addr = base + (uint64_t)i * p->md_per_io_size;
		uint64_t first = (addr >> HB_PAGE_SHIFT) -
				 (base >> HB_PAGE_SHIFT);
		struct hb_md_cmd c;

		ret = hb_model_md_map(&p->km, pr.pages + first, addr, r->md_len,
				      q, r->passthrough, &c);
		if (!ret)
			md_count(r, &c);
	}
	hb_probe_free(&pr);
	return ret;
}

int hb_job_md_predict(const struct hb_job *j,
		      const struct hb_queue_limits *lim, uint64_t md_len,
		      bool passthrough, struct hb_md_report *r)
{
	const struct hb_jobplan *p = &j->plan;
	struct hb_md_queue q = {
		.max_integrity_segments = lim ? lim->max_integrity_segments : 0,
		.dma_align_mask = lim ? lim->dma_align_mask : 0,
	};

	memset(r, 0, sizeof(*r));
	r->md_len = md_len;
	r->passthrough = passthrough;
	r->max_integrity_segments = q.max_integrity_segments;
	r->segs_min = UINT_MAX;
	r->dma_min = UINT_MAX;
	if (!p->md_per_io_size || !j->map || !md_len ||
	    md_len > p->md_per_io_size)
		return hb_seterr(EINVAL, "no metadata buffers of %llu bytes "
				 "in this job's plan",
				 (unsigned long long)md_len);
	if (p->km.md_user_map == HB_MD_UNKNOWN) {
		r->not_predicted = hb_md_why_name(HB_MD_WHY_NOT_READ);
		return 0;
	}
	if (!q.max_integrity_segments) {
		r->not_predicted = "the queue's max_integrity_segments not "
				   "in sysfs";
		return 0;
	}
	if (md_model_slots(j, &q, r)) {
		r->not_predicted = "the metadata buffers' pages not probed";
		return 0;
	}
	r->predicted = true;
	return 0;
}

/* hb_job_file_opened() found a block device under the first file */
static bool job_has_blkdev(const struct hb_job *j)
{
	return j->dev[0] && j->dev[0] != '-';
}

int hb_job_md_predict_dev(const struct hb_job *j, uint64_t md_len,
			  struct hb_md_report *r)
{
	struct hb_queue_limits lim;
	bool ok = job_has_blkdev(j) &&
		  !hb_blkdev_queue_limits(j->dev, false, &lim);

	return hb_job_md_predict(j, ok ? &lim : NULL, md_len, false, r);
}

/*
 * Device requests of the first I/O (job_probe_first_io()), on its queue;
 * with fixedbufs=0 also the plain model's counts in @plain.
 */
static int job_predict_requests(const struct hb_job *j,
				struct hb_req_pred *pred,
				struct hb_plain_pred *plain)
{
	struct hb_queue_limits q;

	if (!j->io0_ok ||
	    hb_blkdev_queue_limits(j->dev, false, &q))
		return -1;
	if (!j->plan.fixedbufs)
		return hb_predict_plain_requests(&j->plan.km, &j->io0, &q, pred,
						 plain);
	return hb_predict_io_requests(&j->plan.km, &j->io0, j->io0.addr,
				      j->io0.len, &q, pred);
}

int hb_job_report(const struct hb_job *j, const struct hb_job_end *e,
		  const char *prefix, struct hb_str *text,
		  const char *json_path)
{
	const struct hb_jobplan *p = &j->plan;
	struct hb_report r = {
		.job = e->name,
		.subjob = e->subjob,
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
		.ios = e->ios,
		.requests_approximate = e->approximate,
		.limits = j->limits_ok ? &j->limits : NULL,
		.vec_iovecs = p->vec_iovecs,
		.shared = e->shared,
		.ready_usec = j->ready_usec,
		.vec_bvecs = j->vec_bvecs,
		.km = &p->km,
		.pt = e->pt,
		.atomic_unreg = e->atomic_unreg,
		.atomic_unreg_writes = e->atomic_unreg_writes,
		.md = e->md,
	};
	const struct hb_kdetect *d = hb_kdetect_cached();
	struct hb_plain_pred plain;
	struct hb_req_pred pred;
	uint64_t r1, w1;

	r.kernel_detect = d ? d->summary : "";
	if (j->dev_ok && e->direct && r.ios &&
	    !hb_blkdev_ios_settled(j->dev, &r1, &w1)) {
		r.device = j->dev;
		r.dev_reads = r1 - j->dev_r0;
		r.dev_writes = w1 - j->dev_w0;
		r.write_ios = e->write_ios;
		if (!job_predict_requests(j, &pred, &plain)) {
			r.pred = &pred;
			if (!p->fixedbufs) {
				r.plain = &plain;
				r.plain_pfn = j->io0.pfn ? "probed" :
					      "synthetic";
			}
		}
	}
	if (text)
		hb_report_text(&r, prefix, text);
	return json_path ? hb_report_append(&r, json_path) : 0;
}
