// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: hb_model_register() (io_sqe_buffer_register()) against
 * a brute-force reference written here from the rules, not from
 * lib/model.c:
 *  - validation (io_buffer_validate()): NULL base, zero length or more
 *    than SZ_1G is -EFAULT, an end that wraps (with PAGE_ALIGN) -EOVERFLOW;
 *  - < 6.3: one bvec per pinned page;
 *  - 6.3 - 6.11 (57bebf807e2a + 776617db78c6): one bvec when every page is
 *    the next struct page of the first page's folio;
 *  - 6.12+ (a8edbb424b13, io_check_coalesce_buffer()): one bvec per folio
 *    run when the runs have one order above 0, the first runs to its
 *    folio's end, middle runs are whole folios and later runs start at
 *    page 0; bvec[0]'s offset is uaddr & (folio_size - 1) on 6.12 - 6.15
 *    and the first page's place in its folio since 3a3c6d61577d (6.16);
 *    our 6.1 backport keeps bvec[0] on the pinned first page with the
 *    in-page offset instead (kernel/patches/0003), the same bytes.
 * Every table except the 6.12 - 6.15 one must also map each byte of the
 * buffer to the (folio, offset) the page array says it lives at.
 */
#include <errno.h>

#include "fuzz.h"

struct ref_run {
	uint64_t folio;
	uint32_t start, npages, order;
	uint64_t first;		/* index of its first page in the array */
};

static struct hb_page pages[FZ_MAX_PAGES];
static struct hb_bvec got[FZ_MAX_PAGES], want[FZ_MAX_PAGES];
static struct ref_run runs[FZ_MAX_PAGES];

static int ref_validate(uint64_t uaddr, uint64_t len)
{
	if (!uaddr || !len || len > (1ULL << 30))
		return -EFAULT;
	if (uaddr + len < uaddr || uaddr + len > UINT64_MAX - (FZ_PG - 1))
		return -EOVERFLOW;
	return 0;
}

static unsigned int ref_runs(uint64_t nr)
{
	unsigned int n = 0;
	uint64_t i;

	for (i = 0; i < nr; i++) {
		if (n && pages[i].folio == runs[n - 1].folio &&
		    pages[i].idx == runs[n - 1].start + runs[n - 1].npages) {
			runs[n - 1].npages++;
			continue;
		}
		runs[n] = (struct ref_run){ pages[i].folio, pages[i].idx, 1,
					    pages[i].order, i };
		n++;
	}
	return n;
}

/* bytes of the buffer (starting off0 into page 0) inside pages [a, a+n) */
static uint64_t bytes_in(uint64_t off0, uint64_t len, uint64_t a, uint64_t n)
{
	uint64_t lo = a * FZ_PG, hi = (a + n) * FZ_PG;

	if (lo < off0)
		lo = off0;
	if (hi > off0 + len)
		hi = off0 + len;
	return hi > lo ? hi - lo : 0;
}

static bool ref_multi_rules(unsigned int n, uint64_t nr)
{
	uint32_t fp = 1U << runs[0].order;
	unsigned int k;

	if (nr < 2 || fp == 1)
		return false;
	for (k = 0; k < n; k++) {
		if (runs[k].order != runs[0].order)
			return false;
		if (k && runs[k].start)
			return false;
		if (k + 1 < n && runs[k].start + runs[k].npages != fp)
			return false;
	}
	return true;
}

/* returns nr_bvecs; *shift and *coal describe the table */
static unsigned int ref_table(const struct hb_kmodel *km, uint64_t uaddr,
			      uint64_t len, unsigned int *shift, bool *coal)
{
	uint64_t nr = hb_nr_pages(uaddr, len), off0 = uaddr % FZ_PG, i;
	unsigned int n = ref_runs(nr), k;

	*coal = false;
	*shift = 12;
	if (km->gen == HB_KGEN_SINGLE && nr > 1 && n == 1) {
		*coal = true;
		want[0] = (struct hb_bvec){ pages[0].folio, pages[0].idx,
					    (uint32_t)off0, (uint32_t)len };
		return 1;
	}
	if ((km->gen == HB_KGEN_MULTI || km->gen == HB_KGEN_MULTI_FIXED) &&
	    ref_multi_rules(n, nr)) {
		uint64_t fs = FZ_PG << runs[0].order, left = len, o;

		*coal = true;
		*shift = 12 + runs[0].order;
		for (k = 0; k < n; k++) {
			want[k].folio = runs[k].folio;
			want[k].page_idx = 0;
			if (km->gen == HB_KGEN_MULTI) {
				o = k ? 0 : uaddr & (fs - 1);
				want[k].offset = (uint32_t)o;
				want[k].len = (uint32_t)(fs - o < left ?
							 fs - o : left);
				left -= want[k].len;
			} else if (!k && km->first_bvec_pinned_page) {
				want[k].page_idx = runs[0].start;
				want[k].offset = (uint32_t)off0;
				want[k].len = (uint32_t)bytes_in(off0, len,
					runs[k].first, runs[k].npages);
			} else {
				want[k].offset = k ? 0 :
					(uint32_t)(runs[0].start * FZ_PG +
						   off0);
				want[k].len = (uint32_t)bytes_in(off0, len,
					runs[k].first, runs[k].npages);
			}
		}
		return n;
	}
	for (i = 0; i < nr; i++)
		want[i] = (struct hb_bvec){ pages[i].folio, pages[i].idx,
					    i ? 0 : (uint32_t)off0,
					    (uint32_t)bytes_in(off0, len, i,
							       1) };
	return (unsigned int)nr;
}

/* byte b of the buffer, as the table says and as the page array says */
static void check_byte(const struct hb_imu *imu, const struct hb_bvec *v,
		       uint64_t pos, uint64_t b)
{
	uint64_t ub = imu->ubuf % FZ_PG + b;
	const struct hb_page *p = &pages[ub / FZ_PG];
	uint64_t at = (uint64_t)v->page_idx * FZ_PG + v->offset + pos;

	if (v->folio != p->folio || at != p->idx * FZ_PG + ub % FZ_PG)
		fz_finding("byte %llu of the buffer: table says folio %llu "
			   "+0x%llx, pages say folio %llu +0x%llx",
			   (unsigned long long)b,
			   (unsigned long long)v->folio,
			   (unsigned long long)at,
			   (unsigned long long)p->folio,
			   (unsigned long long)(p->idx * FZ_PG + ub % FZ_PG));
}

static void check_bytes(const struct hb_imu *imu)
{
	uint64_t b = 0, pos, step;
	unsigned int j;

	for (j = 0; j < imu->nr_bvecs; j++) {
		const struct hb_bvec *v = &imu->bvec[j];

		/* first and last byte of every page piece of the bvec */
		for (pos = 0; pos < v->len; pos += step) {
			step = FZ_PG - (imu->ubuf + b + pos) % FZ_PG;
			if (step > v->len - pos)
				step = v->len - pos;
			check_byte(imu, v, pos, b + pos);
			check_byte(imu, v, pos + step - 1, b + pos + step - 1);
		}
		b += v->len;
	}
	if (b != imu->len)
		fz_finding("table holds %llu bytes, the buffer %llu",
			   (unsigned long long)b,
			   (unsigned long long)imu->len);
}

static void compare(const struct hb_kmodel *km, uint64_t uaddr, uint64_t len)
{
	unsigned int nr_want, shift, j;
	struct hb_imu imu;
	bool coal;
	int ret;

	ret = hb_model_register(km, pages, uaddr, len, got, &imu);
	if (ret)
		fz_finding("kernel %s: 0x%llx + %llu refused: %s", km->name,
			   (unsigned long long)uaddr, (unsigned long long)len,
			   hb_errmsg());
	nr_want = ref_table(km, uaddr, len, &shift, &coal);
	if (imu.nr_bvecs != nr_want || imu.folio_shift != shift ||
	    imu.coalesced != coal || imu.nr_pages != hb_nr_pages(uaddr, len))
		fz_finding("kernel %s: 0x%llx + %llu: model %u bvecs shift %u "
			   "coalesced %d, reference %u shift %u coalesced %d",
			   km->name, (unsigned long long)uaddr,
			   (unsigned long long)len, imu.nr_bvecs,
			   imu.folio_shift, imu.coalesced, nr_want, shift,
			   coal);
	for (j = 0; j < nr_want; j++)
		if (memcmp(&got[j], &want[j], sizeof(got[j])))
			fz_finding("kernel %s: 0x%llx + %llu: bvec %u: model "
				   "%llu/%u +0x%x len 0x%x, reference %llu/%u "
				   "+0x%x len 0x%x", km->name,
				   (unsigned long long)uaddr,
				   (unsigned long long)len, j,
				   (unsigned long long)got[j].folio,
				   got[j].page_idx, got[j].offset, got[j].len,
				   (unsigned long long)want[j].folio,
				   want[j].page_idx, want[j].offset,
				   want[j].len);
	if (imu.imu_bytes != km->imu_header + 16ULL * imu.nr_bvecs)
		fz_finding("imu_bytes %llu for %u bvecs",
			   (unsigned long long)imu.imu_bytes, imu.nr_bvecs);
	if (km->gen != HB_KGEN_MULTI)
		check_bytes(&imu);
}

/* raw 64-bit addresses and lengths: only the validation outcome matters */
static void edges(const struct hb_kmodel *km, struct fz_in *in)
{
	uint64_t uaddr = fz_bytes(in, 8), len = fz_bytes(in, 8);
	struct hb_imu imu;
	int want = ref_validate(uaddr, len), ret;

	if (!want && hb_nr_pages(uaddr, len) > FZ_MAX_PAGES)
		return;	/* valid but too large for the page array */
	if (!want)
		fz_pages(in, pages, hb_nr_pages(uaddr, len));
	ret = hb_model_register(km, pages, uaddr, len, got, &imu);
	if (ret != want)
		fz_finding("0x%llx + %llu: model %d, reference %d",
			   (unsigned long long)uaddr, (unsigned long long)len,
			   ret, want);
	if (ret && strchr(hb_errmsg(), '\n'))
		fz_finding("multi-line message: %s", hb_errmsg());
	if (!ret)
		compare(km, uaddr, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct hb_kmodel km;
	uint64_t off, len, uaddr, max;

	fz_kmodel(&in, &km);
	if (fz_u8(&in) % 8 == 0) {
		edges(&km, &in);
		return 0;
	}
	/* a page-aligned base far from 0 plus an offset into page 0 */
	off = fz_bytes(&in, 2) % FZ_PG;
	uaddr = (1ULL << 40) + (fz_bytes(&in, 1) << 21) + off;
	max = FZ_MAX_PAGES * FZ_PG - off;
	len = fz_bytes(&in, 3) % max + 1;
	fz_pages(&in, pages, hb_nr_pages(uaddr, len));
	compare(&km, uaddr, len);
	return 0;
}
