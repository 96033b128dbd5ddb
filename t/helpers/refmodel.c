// SPDX-License-Identifier: GPL-2.0-only
/*
 * The reference coalescing model (see refmodel.h), stated on runs: a run is
 * a stretch of the page array whose pages are consecutive pages of one
 * folio.  The rules, by kernel generation (docs/kernel-rules.md §1):
 *
 *  - validation, io_buffer_validate() (§7.1): a NULL base, a zero length
 *    or more than SZ_1G is -EFAULT; an end that wraps once PAGE_ALIGN()ed
 *    is -EOVERFLOW.
 *  - before 6.3: one bvec per pinned page (§2).
 *  - 6.3 - 6.11 (§2.1; 57bebf807e2a, 776617db78c6): a buffer of more than
 *    one page that is one run becomes one bvec {first page, in-page
 *    offset, whole length}.
 *  - 6.12+ (§2.2; a8edbb424b13, io_check_coalesce_buffer()): one bvec per
 *    run when there are at least two pages, every run's folio has the
 *    same order above 0, the first run reaches its folio's end, middle
 *    runs are whole folios and later runs start at the folio's page 0.
 *    bvec[0] starts (§3) at uaddr & (folio_size - 1) on 6.12 - 6.15, and
 *    at the first page's place in its folio plus the in-page offset since
 *    3a3c6d61577d (6.16, stable); our 6.1 series (§11) keeps bvec[0] on
 *    the first pinned page with the in-page offset: the same bytes.
 *    6.12 - 6.15 fill bvecs a folio at a time from that offset; later
 *    kernels give each bvec exactly the bytes of its run.
 *  - otherwise one bvec per pinned page, as before 6.3.
 *  - the imu is the kernel model's header plus 16 bytes per bvec (§8).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "refmodel.h"

#define REF_PG 4096ULL
#define REF_SHIFT 12
#define REF_SZ_1G (1ULL << 30)

struct ref_run {
	uint64_t folio;
	uint32_t start; /* the first page's index in its folio */
	uint32_t npages;
	uint32_t order;
	uint64_t first; /* the first page's index in the array */
};

uint64_t t_ref_nr_pages(uint64_t uaddr, uint64_t len)
{
	uint64_t first = uaddr >> REF_SHIFT;
	uint64_t end = (uaddr + len + REF_PG - 1) >> REF_SHIFT;

	return end - first;
}

int t_ref_validate(uint64_t uaddr, uint64_t len)
{
	if (!uaddr || !len || len > REF_SZ_1G)
		return -EFAULT;
	if (uaddr + len < uaddr || uaddr + len > UINT64_MAX - (REF_PG - 1))
		return -EOVERFLOW;
	return 0;
}

/* The run that starts at page @i of the @nr pages. */
static void run_at(const struct hb_page *p, uint64_t nr, uint64_t i,
		   struct ref_run *r)
{
	*r = (struct ref_run){ p[i].folio, p[i].idx, 1, p[i].order, i };
	while (i + r->npages < nr && p[i + r->npages].folio == r->folio &&
	       p[i + r->npages].idx == r->start + r->npages)
		r->npages++;
}

static unsigned int count_runs(const struct hb_page *p, uint64_t nr)
{
	struct ref_run r;
	unsigned int n = 0;
	uint64_t i;

	for (i = 0; i < nr; i += r.npages, n++)
		run_at(p, nr, i, &r);
	return n;
}

/* 6.12+: may the runs become one bvec each? */
static bool runs_coalesce(const struct hb_page *p, uint64_t nr)
{
	uint32_t order = p[0].order, fp = 1U << order;
	struct ref_run r;
	uint64_t i;

	if (nr < 2 || !order)
		return false;
	for (i = 0; i < nr; i += r.npages) {
		run_at(p, nr, i, &r);
		if (r.order != order)
			return false;
		if (i && r.start)
			return false;
		if (i + r.npages < nr && r.start + r.npages != fp)
			return false;
	}
	return true;
}

/* Bytes of the buffer (starting @off0 into page 0) in pages [a, a + n). */
static uint64_t bytes_in(uint64_t off0, uint64_t len, uint64_t a, uint64_t n)
{
	uint64_t lo = a * REF_PG, hi = (a + n) * REF_PG;

	if (lo < off0)
		lo = off0;
	if (hi > off0 + len)
		hi = off0 + len;
	return hi > lo ? hi - lo : 0;
}

static void one_bvec_per_page(const struct hb_page *p, uint64_t off0,
			      uint64_t len, struct t_ref *ref)
{
	uint64_t i;

	for (i = 0; i < ref->nr_pages; i++)
		ref->bvec[i] =
			(struct hb_bvec){ p[i].folio, p[i].idx,
					  i ? 0 : (uint32_t)off0,
					  (uint32_t)bytes_in(off0, len, i, 1) };
	ref->nr_bvecs = (unsigned int)ref->nr_pages;
}

/* 6.12 - 6.15: bvec[0] from the vaddr, then whole folios to the end. */
static void bvecs_from_vaddr(const struct hb_page *p, uint64_t uaddr,
			     uint64_t len, struct t_ref *ref)
{
	uint64_t fs = REF_PG << p[0].order, left = len, o, l, i;
	struct ref_run r;
	unsigned int k = 0;

	for (i = 0; i < ref->nr_pages; i += r.npages, k++) {
		run_at(p, ref->nr_pages, i, &r);
		o = k ? 0 : uaddr & (fs - 1);
		l = fs - o < left ? fs - o : left;
		ref->bvec[k] = (struct hb_bvec){ r.folio, 0, (uint32_t)o,
						 (uint32_t)l };
		left -= l;
	}
	ref->nr_bvecs = k;
}

/* 6.16+ and the backport: each bvec holds exactly its run's bytes. */
static void bvecs_from_runs(const struct hb_kmodel *km, const struct hb_page *p,
			    uint64_t off0, uint64_t len, struct t_ref *ref)
{
	struct ref_run r;
	unsigned int k = 0;
	uint64_t i;

	for (i = 0; i < ref->nr_pages; i += r.npages, k++) {
		struct hb_bvec *bv = &ref->bvec[k];

		run_at(p, ref->nr_pages, i, &r);
		bv->folio = r.folio;
		bv->page_idx = 0;
		bv->offset = 0;
		if (!k && km->first_bvec_pinned_page) {
			bv->page_idx = r.start;
			bv->offset = (uint32_t)off0;
		} else if (!k) {
			bv->offset = (uint32_t)(r.start * REF_PG + off0);
		}
		bv->len = (uint32_t)bytes_in(off0, len, r.first, r.npages);
	}
	ref->nr_bvecs = k;
}

void t_ref_register(const struct hb_kmodel *km, const struct hb_page *pages,
		    uint64_t uaddr, uint64_t len, struct t_ref *ref)
{
	uint64_t off0 = uaddr % REF_PG;
	bool multi = km->gen == HB_KGEN_MULTI || km->gen == HB_KGEN_MULTI_FIXED;

	ref->err = t_ref_validate(uaddr, len);
	if (ref->err)
		return;
	ref->nr_pages = t_ref_nr_pages(uaddr, len);
	ref->coalesced = false;
	ref->folio_shift = REF_SHIFT;
	if (km->gen == HB_KGEN_SINGLE && ref->nr_pages > 1 &&
	    count_runs(pages, ref->nr_pages) == 1) {
		ref->coalesced = true;
		ref->nr_bvecs = 1;
		ref->bvec[0] =
			(struct hb_bvec){ pages[0].folio, pages[0].idx,
					  (uint32_t)off0, (uint32_t)len };
	} else if (multi && runs_coalesce(pages, ref->nr_pages)) {
		ref->coalesced = true;
		ref->folio_shift = REF_SHIFT + pages[0].order;
		if (km->gen == HB_KGEN_MULTI)
			bvecs_from_vaddr(pages, uaddr, len, ref);
		else
			bvecs_from_runs(km, pages, off0, len, ref);
	} else {
		one_bvec_per_page(pages, off0, len, ref);
	}
	ref->imu_bytes = km->imu_header + 16ULL * ref->nr_bvecs;
}

/* Byte @b of the buffer is byte @pos of bvec @v: the same place? */
static bool byte_ok(const struct hb_imu *imu, const struct hb_page *pages,
		    const struct hb_bvec *v, uint64_t pos, uint64_t b,
		    char *why, size_t why_len)
{
	uint64_t ub = imu->ubuf % REF_PG + b;
	const struct hb_page *p = &pages[ub / REF_PG];
	uint64_t at = (uint64_t)v->page_idx * REF_PG + v->offset + pos;
	uint64_t want = (uint64_t)p->idx * REF_PG + ub % REF_PG;

	if (v->folio == p->folio && at == want)
		return true;
	snprintf(why, why_len,
		 "byte %llu of the buffer: table says folio %llu +0x%llx, "
		 "pages say folio %llu +0x%llx",
		 (unsigned long long)b, (unsigned long long)v->folio,
		 (unsigned long long)at, (unsigned long long)p->folio,
		 (unsigned long long)want);
	return false;
}

bool t_ref_bytes_match(const struct hb_imu *imu, const struct hb_page *pages,
		       char *why, size_t why_len)
{
	uint64_t b = 0, pos, step;
	unsigned int j;

	for (j = 0; j < imu->nr_bvecs; j++) {
		const struct hb_bvec *v = &imu->bvec[j];

		/* the first and last byte of every page piece of the bvec */
		for (pos = 0; pos < v->len; pos += step) {
			step = REF_PG - (imu->ubuf + b + pos) % REF_PG;
			if (step > v->len - pos)
				step = v->len - pos;
			if (!byte_ok(imu, pages, v, pos, b + pos, why,
				     why_len) ||
			    !byte_ok(imu, pages, v, pos + step - 1,
				     b + pos + step - 1, why, why_len))
				return false;
		}
		b += v->len;
	}
	if (b == imu->len)
		return true;
	snprintf(why, why_len, "the table holds %llu bytes, the buffer %llu",
		 (unsigned long long)b, (unsigned long long)imu->len);
	return false;
}

static int bvec_differs(const struct hb_bvec *got, const struct hb_bvec *want,
			unsigned int j, char *why, size_t why_len)
{
	if (!memcmp(got, want, sizeof(*got)))
		return 0;
	snprintf(why, why_len,
		 "bvec %u: model %llu/%u +0x%x len 0x%x, reference %llu/%u "
		 "+0x%x len 0x%x",
		 j, (unsigned long long)got->folio, got->page_idx, got->offset,
		 got->len, (unsigned long long)want->folio, want->page_idx,
		 want->offset, want->len);
	return -1;
}

int t_ref_compare(const struct hb_kmodel *km, const struct hb_page *pages,
		  int model_ret, const struct hb_imu *imu,
		  const struct t_ref *ref, char *why, size_t why_len)
{
	unsigned int j;

	if (model_ret != ref->err) {
		snprintf(why, why_len, "validation: model %d, reference %d",
			 model_ret, ref->err);
		return -1;
	}
	if (ref->err)
		return 0;
	if (imu->nr_pages != ref->nr_pages || imu->nr_bvecs != ref->nr_bvecs ||
	    imu->folio_shift != ref->folio_shift ||
	    imu->coalesced != ref->coalesced) {
		snprintf(why, why_len,
			 "coalescing: model %u pages %u bvecs shift %u "
			 "coalesced %d, reference %llu pages %u bvecs shift %u "
			 "coalesced %d",
			 imu->nr_pages, imu->nr_bvecs, imu->folio_shift,
			 imu->coalesced, (unsigned long long)ref->nr_pages,
			 ref->nr_bvecs, ref->folio_shift, ref->coalesced);
		return -1;
	}
	for (j = 0; j < ref->nr_bvecs; j++)
		if (bvec_differs(&imu->bvec[j], &ref->bvec[j], j, why, why_len))
			return -1;
	if (imu->imu_bytes != ref->imu_bytes) {
		snprintf(why, why_len, "imu bytes: model %llu, reference %llu",
			 (unsigned long long)imu->imu_bytes,
			 (unsigned long long)ref->imu_bytes);
		return -1;
	}
	if (km->gen != HB_KGEN_MULTI &&
	    !t_ref_bytes_match(imu, pages, why, why_len))
		return -1;
	return 0;
}
