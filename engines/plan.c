// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's buffer plan and report: what the job's options mean for
 * the layout of its io_u buffers, the checks that refuse a plan with one
 * line naming the fix, lib's preflight over the same layout, and the
 * job-end report through lib's one writer.  fio glue only; the rules live
 * in lib/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hugebuf-engine.h"
#include "uring-compat.h"

#include "verify.h"

/* ------------------------------------------------------------------ */
/* option checks (init): every failure is one line naming the fix      */
/* ------------------------------------------------------------------ */

/*
 * Everything the plan needs (pool, THP/mTHP, memlock as the kernel will
 * charge it) comes from lib's one preflight, over the same slot layout
 * post_init registers.
 */
int hbe_check_resources(struct hbe_data *hd, struct hbe_options *o,
			      uint64_t len)
{
	struct hb_plan plan = {
		.backing = hd->backing,
		.map_len = hb_map_len(&hd->backing, len, hd->head_offset),
		.registered = o->fixedbufs,
	};
	struct iovec *iov = NULL;
	struct hb_sysinfo si;
	unsigned int nr = 0;
	char bk[HB_BACKING_STR_MAX];
	int ret;

	ret = hb_sysinfo_read(&si);
	if (!ret)
		ret = hb_slot_iovecs(hd->head_offset, hd->depth, hd->stride,
				     hd->max_bs, hd->slots_per_region, &iov,
				     &nr);
	if (!ret) {
		plan.iov = iov;
		plan.nr_iov = nr;
		ret = hb_preflight(&si, &hd->km, &plan);
	}
	free(iov);
	if (ret) {
		hb_backing_str(&hd->backing, bk, sizeof(bk));
		log_err(HBE_LOG_PREFIX "backing=%s, iodepth=%u x bs=%llu: %s\n",
			bk, hd->depth, hd->max_bs, hb_errmsg());
	}
	return ret;
}

/* direct=1: the strictest logical block size of the job's files */
static unsigned int hbe_job_dio_align(struct thread_data *td)
{
	unsigned int i, align = 512;
	struct fio_file *f;

	for_each_file(td, f, i) {
		unsigned int a = hb_dio_align(f->file_name);

		if (a > align)
			align = a;
	}
	return align;
}

/*
 * Lay io_u i out at base + head_offset + i * stride.  The stride is max_bs
 * rounded up to the folio size, so every buffer starts head_offset bytes
 * into a folio and (head_offset 0) covers whole folios from its start.
 */
/*
 * vec_iovecs: READV_FIXED/WRITEV_FIXED need registered buffers, and one
 * SQE per io_u (the cuts are made over the whole I/O).
 */
static int hbe_check_vectored(struct hbe_data *hd, struct hbe_options *o)
{
	if (!o->vec_iovecs)
		return 0;
	if (!o->fixedbufs) {
		log_err(HBE_LOG_PREFIX "vec_iovecs=%u needs fixedbufs (it "
			"issues READV_FIXED/WRITEV_FIXED): drop fixedbufs=0 or "
			"vec_iovecs\n", o->vec_iovecs);
		return -EINVAL;
	}
	if (o->chunk_size) {
		log_err(HBE_LOG_PREFIX "vec_iovecs and chunk_size both cut the "
			"I/O: use one of them\n");
		return -EINVAL;
	}
	if (o->vec_offset >= hd->max_bs) {
		log_err(HBE_LOG_PREFIX "vec_offset=%llu is not below bs=%llu: "
			"use a smaller offset\n", o->vec_offset, hd->max_bs);
		return -EINVAL;
	}
	return 0;
}

int hbe_plan_layout(struct thread_data *td, struct hbe_data *hd,
			  struct hbe_options *o)
{
	unsigned int dio_align = td->o.odirect ? hbe_job_dio_align(td) : 0;

	hd->depth = td->o.iodepth;
	hd->max_bs = td_max_bs(td);
	hd->stride = hb_slot_stride(&hd->backing, hd->max_bs);

	if (o->fixedbufs && hd->max_bs > HB_MAX_BUF_LEN) {
		log_err(HBE_LOG_PREFIX "bs=%llu is over the kernel's 1 GiB limit "
			"for one registered buffer (io_buffer_validate): use "
			"bs<=1G or fixedbufs=0\n", hd->max_bs);
		return -EINVAL;
	}
	/*
	 * lib/ places every buffer head_offset bytes after a boundary of
	 * hb_backing_align() (the folio, or 2M for the 4k baseline): an
	 * offset past it would be a different layout from the one asked for.
	 */
	if (hd->head_offset > HB_MAX_BUF_LEN * 1024ULL) {
		log_err(HBE_LOG_PREFIX "head_offset=%lld is negative or too large: "
			"use a value below %llu for this backing\n",
			(long long)hd->head_offset,
			(unsigned long long)hb_backing_align(&hd->backing));
		return -EINVAL;
	}
	if (hd->head_offset >= hb_backing_align(&hd->backing)) {
		log_err(HBE_LOG_PREFIX "head_offset=%llu is not inside the first "
			"folio: use a value below %llu for this backing\n",
			(unsigned long long)hd->head_offset,
			(unsigned long long)hb_backing_align(&hd->backing));
		return -EINVAL;
	}
	if (hb_check_dio_multiple("head_offset", hd->head_offset,
				  dio_align)) {
		log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
		return -EINVAL;
	}
	hd->slots_per_region = o->layout == HBE_LAYOUT_PER_IO ? 1 :
			       hb_slots_per_region(hd->stride, hd->depth);
	hd->nr_iovecs = (hd->depth + hd->slots_per_region - 1) /
			hd->slots_per_region;
	if (o->fixedbufs && hd->nr_iovecs > HB_MAX_REG_BUFFERS) {
		log_err(HBE_LOG_PREFIX "iodepth=%u needs %u registered buffers, "
			"the kernel allows %u: use layout=region or a lower "
			"iodepth\n", hd->depth, hd->nr_iovecs,
			HB_MAX_REG_BUFFERS);
		return -EINVAL;
	}
	hd->dio_align = dio_align;
	hd->vec_n = o->vec_iovecs;
	hd->vec_offset = o->vec_offset;
	if (hbe_check_vectored(hd, o))
		return -EINVAL;
	hd->max_pieces = 1;
	if (o->chunk_size > HB_MAX_BUF_LEN * 1024ULL) {
		log_err(HBE_LOG_PREFIX "chunk_size=%lld is negative or too large: "
			"use a positive size such as 1M, or 0 for off\n",
			(long long)o->chunk_size);
		return -EINVAL;
	}
	if (o->chunk_size) {
		uint64_t n = (hd->max_bs + o->chunk_size - 1) / o->chunk_size;

		if (hb_check_dio_multiple("chunk_size", o->chunk_size,
					  dio_align)) {
			log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
			return -EINVAL;
		}
		if (n > HBE_MAX_PIECES) {
			log_err(HBE_LOG_PREFIX "chunk_size=%llu splits bs=%llu "
				"into %llu pieces, at most %d are allowed: raise "
				"chunk_size\n", o->chunk_size, hd->max_bs,
				(unsigned long long)n, HBE_MAX_PIECES);
			return -EINVAL;
		}
		hd->max_pieces = n;
	}
	return 0;
}

/*
 * Bytes to map: our layout, and at least what fio asks the iomem_alloc
 * hook for before post_init moves the buffers: iodepth * max_bs, plus a
 * page and iomem_align of alignment slack, rounded up to hugepage-size for
 * mem=shmhuge/mmaphuge (init_io_u_buffers()), plus another page and
 * iomem_align (allocate_io_mem()).
 */
uint64_t hbe_alloc_len(struct thread_data *td, struct hbe_data *hd)
{
	uint64_t ours = (uint64_t)(hd->depth - 1) * hd->stride + hd->max_bs;
	uint64_t slack = HB_PAGE_SIZE + td->o.mem_align;
	uint64_t fios = (uint64_t)hd->depth * hd->max_bs + slack;
	uint64_t hps = td->o.hugepage_size;

	if ((td->o.mem_type == MEM_SHMHUGE ||
	     td->o.mem_type == MEM_MMAPHUGE) && hps)
		fios = (fios + hps - 1) / hps * hps;
	fios += slack;
	return ours > fios ? ours : fios;
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
int hbe_model_vectored(struct thread_data *td, struct hbe_data *hd)
{
	struct hb_analysis an;
	struct hb_vimport vi;
	struct iovec iov[64];
	struct hb_bvec *out;
	uint64_t bound;
	unsigned int n;

	if (!hb_uring_op_supported(&hd->ring, HB_IORING_OP_READV_FIXED)) {
		log_err(HBE_LOG_PREFIX "vec_iovecs needs IORING_OP_READV_FIXED "
			"(Linux 6.15+), which kernel %s does not have: drop "
			"vec_iovecs\n", hd->km.name);
		td_verror(td, EOPNOTSUPP, "vec_iovecs");
		return 1;
	}
	/* the cut of slot 0's largest I/O, through the vectored model */
	if (hb_analyze(&hd->km, hd->iovecs, 1, &hd->backing, 0, 0,
		       HB_ANALYZE_KEEP, &an))
		return 0;
	n = hb_vec_split(hd->iovecs[0].iov_base, hd->max_bs, hd->vec_n,
			 hd->vec_offset, hd->dio_align, iov);
	bound = hb_import_vec_bound(&an.imu[0], iov, n);
	out = calloc(bound, sizeof(*out));
	if (out && !hb_model_import_vec(&an.km, &an.imu[0], iov, n, out, bound,
					&vi))
		hd->vec_bvecs = vi.nr_bvecs;
	free(out);
	hb_analysis_free(&an);
	return 0;
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

void hbe_report(struct thread_data *td, struct hbe_data *hd)
{
	struct hbe_options *o = td->eo;
	struct hb_report r = {
		.job = td->o.name,
		.subjob = td->subjob_number,
		.backing = hd->backing,
		.layout = o->layout == HBE_LAYOUT_REGION ? "region" : "per-io",
		.head_offset = hd->head_offset,
		.fixedbufs = o->fixedbufs,
		.kernel_model = hd->km.name,
		.nr_buffers = hd->nr_iovecs,
		.buffer_len = hd->iovecs[0].iov_len,
		.bs = hd->max_bs,
		.stride = hd->stride,
		.st = hd->st,
		.register_usec = hd->register_usec,
		.vmpin_kb = hd->vmpin_kb,
		.ios = hd->ios[0] + hd->ios[1],
		/* the counters are per device: other jobs' I/O lands there */
		.requests_approximate = thread_number > 1,
		.limits = hd->limits_ok ? &hd->limits : NULL,
		.vec_iovecs = hd->vec_n,
		.shared = !hd->share ? "" : hd->share_idx ? "clone" : "source",
		.ready_usec = hd->ready_usec,
		.vec_bvecs = hd->vec_bvecs,
	};
	const struct hb_kdetect *d = hb_kdetect_cached();
	const char *path;
	uint64_t r1, w1;
	struct hb_str text;

	r.kernel_detect = d ? d->summary : "";
	if (hd->pt.on)
		r.pt = &hd->pt.r;
	if (hd->dev_ok && td->o.odirect && r.ios &&
	    !hb_blkdev_ios(hd->dev, &r1, &w1)) {
		r.device = hd->dev;
		r.dev_reads = r1 - hd->dev_r0;
		r.dev_writes = w1 - hd->dev_w0;
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

