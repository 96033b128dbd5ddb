// SPDX-License-Identifier: GPL-2.0-only
/*
 * One analysis of a set of buffers: probe each one's real folio layout,
 * run the registration model over it, model the import of the I/Os the
 * caller will issue, and the memlock charge of registering them all in
 * one batch.  The engine's report, 'hugebuf check' and the tests all come
 * through here, so they cannot disagree about what the kernel builds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job/job.h"

static void minmax(unsigned int *lo, unsigned int *hi, unsigned int v,
		   bool first)
{
	if (first || v < *lo)
		*lo = v;
	if (first || v > *hi)
		*hi = v;
}

/* Every page pinned by the batch, back to back, for the accounting. */
struct batch_pages {
	struct hb_page *pages;
	unsigned int *per_buf;
	uint64_t nr, cap;
};

static int batch_add(struct batch_pages *bp, unsigned int buf,
		     const struct hb_probe *p)
{
	if (bp->nr + p->nr_pages > bp->cap) {
		uint64_t cap = bp->cap ? bp->cap * 2 : 1024;
		struct hb_page *n;

		while (cap < bp->nr + p->nr_pages)
			cap *= 2;
		n = realloc(bp->pages, cap * sizeof(*n));
		if (!n)
			return hb_seterr(ENOMEM, "out of memory for the page "
					 "map of %llu pages",
					 (unsigned long long)cap);
		bp->pages = n;
		bp->cap = cap;
	}
	memcpy(bp->pages + bp->nr, p->pages, p->nr_pages * sizeof(*p->pages));
	bp->nr += p->nr_pages;
	bp->per_buf[buf] = p->nr_pages;
	return 0;
}

/* Bvecs an @io_len I/O touches, at every @io_stride of the buffer. */
static void model_ios(struct hb_analysis *a, const struct hb_imu *imu,
		      uint64_t io_len, uint64_t io_stride, bool *first)
{
	uint64_t off;

	if (!io_len)
		return;
	for (off = 0; off + io_len <= imu->len; off += io_stride) {
		struct hb_import imp;

		if (!hb_model_import(&a->km, imu, imu->ubuf + off, io_len,
				     &imp)) {
			minmax(&a->st.min_io_segs, &a->st.max_io_segs,
			       imp.nr_segs_exact, *first);
			*first = false;
		}
		if (!io_stride)
			break;
	}
}

/* One address per folio of every buffer, for one node query. */
struct folio_addrs {
	void **addr;
	unsigned int nr, cap;
	bool failed;
};

static void folio_addrs_add(struct folio_addrs *fa, const struct hb_probe *p)
{
	if (fa->failed)
		return;
	if (fa->nr + p->nr_folios > fa->cap) {
		unsigned int cap = fa->cap ? 2 * fa->cap : 64;
		void **n;

		while (cap < fa->nr + p->nr_folios)
			cap *= 2;
		n = realloc(fa->addr, cap * sizeof(*n));
		if (!n) {
			fa->failed = true;
			return;
		}
		fa->addr = n;
		fa->cap = cap;
	}
	fa->nr += hbi_numa_folio_addrs(p, fa->addr + fa->nr);
}

/*
 * Where the folios of all the buffers are, in one move_pages(); a failed
 * query only leaves the counts empty.
 */
static void add_nodes(struct hb_bufstats *st, const struct folio_addrs *fa)
{
	if (fa->failed || hbi_numa_count(fa->addr, fa->nr, st->node_folios,
					&st->nr_nodes)) {
		memset(st->node_folios, 0, sizeof(st->node_folios));
		st->nr_nodes = 0;
	}
}

static void add_stats(struct hb_analysis *a, unsigned int i,
		      const struct hb_probe *p, const struct hb_imu *imu,
		      struct folio_addrs *fa)
{
	struct hb_bufstats *st = &a->st;
	bool first = i == 0;

	minmax(&st->min_folios, &st->max_folios, p->nr_folios, first);
	minmax(&st->min_bvecs, &st->max_bvecs, imu->nr_bvecs, first);
	if (first || p->min_folio < st->min_folio)
		st->min_folio = p->min_folio;
	if (first || p->max_folio > st->max_folio)
		st->max_folio = p->max_folio;
	st->all_coalesced &= imu->coalesced;
	/* one bvec per folio is the best any kernel does */
	if (imu->nr_bvecs > p->nr_folios)
		st->not_coalesced++;
	st->imu_bytes += hb_imu_bytes(&a->km, imu->nr_bvecs);
	st->imu_bytes_4k += hb_imu_bytes(&a->km,
					 hb_nr_pages(imu->ubuf, imu->len));
	hb_contig_add(&st->contig, &p->contig, first);
	if (first || p->contig.nr_runs < st->min_runs)
		st->min_runs = p->contig.nr_runs;
	if (first || p->contig.nr_runs > st->max_runs)
		st->max_runs = p->contig.nr_runs;
	folio_addrs_add(fa, p);
	if (first || p->source == HB_PROBE_RECIPE) {
		st->source = p->source;
		snprintf(st->note, sizeof(st->note), "%s", p->note);
	}
}

static int analyze_one(struct hb_analysis *a, unsigned int i,
		       const struct iovec *iov, const struct hb_backing *recipe,
		       uint64_t io_len, uint64_t io_stride, bool keep,
		       const struct hb_probe_files *files,
		       struct folio_addrs *fa, struct batch_pages *bp,
		       struct hb_reg_walk *walk, bool *first_io)
{
	struct hb_probe p, *pp = keep ? &a->probe[i] : &p;
	struct hb_imu imu, *ip = keep ? &a->imu[i] : &imu;
	int ret;

	ret = hbi_probe_with(files, iov->iov_base, iov->iov_len, recipe, pp);
	if (ret)
		return ret;
	ret = hb_imu_build(&a->km, pp->pages, (uintptr_t)iov->iov_base,
			   iov->iov_len, ip);
	if (!ret) {
		add_stats(a, i, pp, ip, fa);
		model_ios(a, ip, io_len, io_stride, first_io);
		ret = batch_add(bp, i, pp);
	}
	/* what registering them in one call costs, over the same imu */
	if (!ret)
		ret = hbi_reg_walk_add(walk, i, ip, pp->pages, pp->nr_pages);
	if (keep && !ret)
		return 0;
	hb_imu_free(ip);
	hb_probe_free(pp);
	return ret;
}

int hb_analyze(const struct hb_kmodel *km, const struct iovec *iov,
	       unsigned int nr, const struct hb_backing *recipe,
	       uint64_t io_len, uint64_t io_stride, unsigned int flags,
	       struct hb_analysis *a)
{
	bool keep = flags & HB_ANALYZE_KEEP, first_io = true;
	struct hb_probe_files files = { -1, -1 };
	struct folio_addrs fa = { 0 };
	struct batch_pages bp = { 0 };
	struct hb_kmodel model = *km;	/* @km may point into @a */
	struct hb_reg_walk walk;
	unsigned int i;
	int ret = 0;

	memset(a, 0, sizeof(*a));
	a->km = model;
	/* the engine's and hugebuf check's one IORING_REGISTER_BUFFERS call */
	hbi_reg_walk_init(&walk, &a->km, HB_REG_ONE_CALL, &a->st.reg_cost);
	a->st.all_coalesced = true;
	if (!nr)
		return hb_seterr(EINVAL, "no buffers to analyze");
	bp.per_buf = calloc(nr, sizeof(*bp.per_buf));
	if (keep) {
		a->probe = calloc(nr, sizeof(*a->probe));
		a->imu = calloc(nr, sizeof(*a->imu));
	}
	if (!bp.per_buf || (keep && (!a->probe || !a->imu))) {
		ret = hb_seterr(ENOMEM, "out of memory for %u buffers", nr);
		goto out;
	}
	/* one open of the probe's /proc files for all the buffers */
	hbi_probe_files_open(&files);
	for (i = 0; i < nr; i++) {
		ret = analyze_one(a, i, &iov[i], recipe, io_len, io_stride,
				  keep, &files, &fa, &bp, &walk, &first_io);
		if (ret)
			goto out;
		a->nr = i + 1;
		a->st.nr_bufs = i + 1;
	}
	add_nodes(&a->st, &fa);
	ret = hb_model_account(&a->km, bp.pages, bp.per_buf, nr,
			       &a->st.charged_bytes);
out:
	hbi_probe_files_close(&files);
	free(fa.addr);
	hbi_reg_walk_free(&walk);
	free(bp.pages);
	free(bp.per_buf);
	if (ret)
		hb_analysis_free(a);
	return ret;
}

void hb_analysis_free(struct hb_analysis *a)
{
	unsigned int i;

	if (a->probe)
		for (i = 0; i < a->nr; i++)
			hb_probe_free(&a->probe[i]);
	if (a->imu)
		for (i = 0; i < a->nr; i++)
			hb_imu_free(&a->imu[i]);
	free(a->probe);
	free(a->imu);
	a->probe = NULL;
	a->imu = NULL;
	a->nr = 0;
}

bool hb_analysis_coalesces(const struct hb_analysis *a,
			   const struct hb_backing *b)
{
	return b->folio_size > HB_PAGE_SIZE && a->km.gen != HB_KGEN_NONE &&
	       a->st.not_coalesced == 0;
}

/*
 * The imus of the verdict's two hypotheses (lib/model/verdict.c) over the same
 * probed pages: no coalescing (< 6.3) and one bvec per folio (the 6.16
 * rules), each with @km's imu header.
 */
int hb_imu_hypotheses(const struct hb_kmodel *km, const struct hb_page *pages,
		      uint64_t uaddr, uint64_t len, struct hb_imu *none,
		      struct hb_imu *multi)
{
	struct hb_kmodel k = *km;
	int ret;

	hb_kmodel_set_gen(&k, HB_KGEN_NONE);
	ret = hb_imu_build(&k, pages, uaddr, len, none);
	if (ret)
		return ret;
	hb_kmodel_set_gen(&k, HB_KGEN_MULTI_FIXED);
	ret = hb_imu_build(&k, pages, uaddr, len, multi);
	if (ret)
		hb_imu_free(none);
	return ret;
}

/*
 * Before 5.12 (fixed_bio_add_page) the bio of a fixed I/O is filled from
 * the imu's bvecs through bio_add_page(), which merges what is physically
 * contiguous, so the bios are the plain path's over the same pages
 * (hb_model_plain() with the probed PFNs), whatever bvecs the imu has:
 * the coalesced and uncoalesced hypotheses give the same requests, and
 * the request count cannot tell them apart there.
 */
static int fixed_add_page_requests(const struct hb_kmodel *km,
				   const struct hb_probe *p, uint64_t addr,
				   uint64_t len, const struct hb_queue_limits *q,
				   struct hb_req_pred *out)
{
	struct iovec iov = { (void *)(uintptr_t)addr, len };
	struct hb_plain_pred plain;
	int ret;

	ret = hb_model_plain(km, p->pages, p->pfn, p->addr, p->len, &iov, 1,
			     q, &plain);
	if (ret)
		return ret;
	out->model = out->none = out->multi = plain.requests;
	return 0;
}

/*
 * An I/O's bvecs are the registered buffer's, cut at the I/O's ends
 * (io_import_fixed()), so the block layer splits the I/O as it would split
 * a registration of exactly its range: predict over that.
 */
int hb_predict_io_requests(const struct hb_kmodel *km,
			   const struct hb_probe *p, uint64_t addr,
			   uint64_t len, const struct hb_queue_limits *q,
			   struct hb_req_pred *out)
{
	uint64_t first = (addr >> HB_PAGE_SHIFT) - (p->addr >> HB_PAGE_SHIFT);
	struct hb_imu imu, none, multi;
	int ret;

	memset(out, 0, sizeof(*out));
	if (addr < p->addr || addr + len > p->addr + p->len || !len)
		return hb_seterr(EINVAL, "the I/O is not inside the probed "
				 "buffer");
	/*
	 * km->fixed_bio_add_page: a fixed-buffer I/O's bio is built by adding
	 * the imu's bvecs one at a time with bio_add_page()
	 * (__bio_iov_bvec_add_pages(), 5.10's block/bio.c): physically
	 * contiguous pages merge into one bvec, a bio holds at most 256
	 * (BIO_MAX_PAGES) and a long I/O is several bios, each split on its
	 * own, as on the plain path (lib/model/plain.c). Since c42bca92be92 (5.12)
	 * bio_iov_bvec_set() hands the bio the imu's bvecs as they are.
	 */
	if (km->fixed_bio_add_page)
		return fixed_add_page_requests(km, p, addr, len, q, out);
	ret = hb_imu_build(km, p->pages + first, addr, len, &imu);
	if (ret)
		return ret;
	ret = hb_imu_hypotheses(km, p->pages + first, addr, len, &none,
				&multi);
	if (!ret) {
		out->model = hb_predict_requests(&imu, q->max_hw_bytes,
						 q->max_segments,
						 q->max_segment_size);
		out->none = hb_predict_requests(&none, q->max_hw_bytes,
						q->max_segments,
						q->max_segment_size);
		out->multi = hb_predict_requests(&multi, q->max_hw_bytes,
						 q->max_segments,
						 q->max_segment_size);
		hb_imu_free(&none);
		hb_imu_free(&multi);
	}
	hb_imu_free(&imu);
	return ret;
}

/*
 * fixedbufs=0: the probed I/O as plain O_DIRECT builds it (hb_model_plain()
 * over its pages and PFNs; without PFNs the folios are taken as never
 * physically adjacent), and the verdict's two hypotheses for the same
 * pages: no page merged with another (every PFN apart) and one bvec per
 * folio (the folios apart).
 */
int hb_predict_plain_requests(const struct hb_kmodel *km,
			      const struct hb_probe *p,
			      const struct hb_queue_limits *q,
			      struct hb_req_pred *out,
			      struct hb_plain_pred *plain)
{
	struct iovec iov = { (void *)(uintptr_t)p->addr, p->len };
	struct hb_plain_pred h;
	uint64_t *apart, i;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = hb_model_plain(km, p->pages, p->pfn, p->addr, p->len, &iov, 1,
			     q, plain);
	if (ret)
		return ret;
	out->model = plain->requests;
	ret = hb_model_plain(km, p->pages, NULL, p->addr, p->len, &iov, 1, q,
			     &h);
	if (ret)
		return ret;
	out->multi = h.requests;
	apart = calloc(p->nr_pages, sizeof(*apart));
	if (!apart)
		return hb_seterr(ENOMEM, "out of memory for %u PFNs",
				 p->nr_pages);
	for (i = 0; i < p->nr_pages; i++)
		apart[i] = 2 * i;
	ret = hb_model_plain(km, p->pages, apart, p->addr, p->len, &iov, 1, q,
			     &h);
	free(apart);
	out->none = h.requests;
	return ret;
}
