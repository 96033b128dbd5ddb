// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of hb_model_plain(), the model of plain O_DIRECT bio building
 * (docs/kernel-rules.md §9.2).  The expected counts are the ones
 * kernel/probe/bio-profile measured in the guests (docs/series-rationale.md,
 * "Calls per plain O_DIRECT I/O"), worked out again by hand:
 *  - 8 MiB from four 2 MiB folios on 6.1: 2048 page adds, each one merge
 *    test, in 9 batches (256, then 255 x 7, then 7 pages);
 *  - the same with folio runs (patched 6.1, 6.12): 12 adds, a run ending
 *    at each of the 3 folio ends and the 8 batch ends inside the I/O; the
 *    merge test counted for every add on 6.1 (12), only from the second
 *    add of a bio on 6.12 (11);
 *  - 8 MiB from 4 KiB pages that are never adjacent: 2048 bvecs need 8
 *    bios of 256, so 6.12 counts 2048 - 8 merge tests (the third run).
 * The rules: folio runs from ed9832bc08db (6.12) and our 6.1 the block patch;
 * the merge test only for a bio with a bvec since 6.5
 * (bvec_try_merge_page()); every run its own bvec in 7.x
 * (iov_iter_extract_bvecs(), read in 7.2 and matched there 60 of 60).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define SZ_128K		(128ULL << 10)
#define SZ_8M		(8ULL << 20)
#define BASE		0x7f0000000000ULL
/* a bio split's queue limits: bytes per request, segments, segment size */
#define SPLIT_LIMITS(b, n, s)						\
	{ .max_hw_bytes = (b), .max_segments = (n), .max_segment_size = (s) }
/* the emulated NVMe namespace: 512 KiB per command (mdts 7) */
static const struct hb_queue_limits nvme =
	SPLIT_LIMITS(512 << 10, 127, 0xffffffff);

enum layout { FOLIOS_APART, FOLIOS_ADJACENT, PAGES_APART };

struct buf {
	struct hb_page *pages;
	uint64_t *pfn;
	uint64_t n;
};

/* @len bytes at BASE + @head in folios of @folio bytes, laid out by @how */
static int make_buf(struct buf *b, uint64_t folio, uint64_t head,
		    uint64_t len, enum layout how)
{
	uint64_t i;

	b->n = hb_nr_pages(BASE + head, len);
	b->pages = calloc(b->n, sizeof(*b->pages));
	b->pfn = calloc(b->n, sizeof(*b->pfn));
	if (!b->pages || !b->pfn ||
	    hb_layout_synth(folio, head % folio, len, 100, b->pages))
		return -1;
	for (i = 0; i < b->n; i++) {
		if (how == FOLIOS_ADJACENT)
			b->pfn[i] = 0x40000 + (head >> 12) + i;
		else if (how == PAGES_APART)
			b->pfn[i] = 0x40000 + 2 * i;
		else
			b->pfn[i] = (b->pages[i].folio << 20) +
				    b->pages[i].idx;
	}
	return 0;
}

static void free_buf(struct buf *b)
{
	free(b->pages);
	free(b->pfn);
}

struct pcase {
	const char *what, *kernel;
	uint64_t folio, head, len, split;
	enum layout how;
	struct hb_plain_pred want;
};

/* bios batches adds merge_tests bvecs same_page releases requests max */
static const struct pcase cases[] = {
	{ "8M hugetlb adjacent, page by page", "6.1", T_SZ_2M, 0, SZ_8M, 0,
	  FOLIOS_ADJACENT, { 1, 9, 2048, 2048, 1, 0, 4, 16, 1 } },
	{ "8M hugetlb adjacent, runs", "6.1+hugebuf", T_SZ_2M, 0, SZ_8M, 0,
	  FOLIOS_ADJACENT, { 1, 9, 12, 12, 1, 0, 4, 16, 1 } },
	{ "8M hugetlb apart, runs", "6.12", T_SZ_2M, 0, SZ_8M, 0,
	  FOLIOS_APART, { 1, 9, 12, 11, 4, 0, 4, 16, 4 } },
	{ "8M hugetlb apart, page by page", "6.1", T_SZ_2M, 0, SZ_8M, 0,
	  FOLIOS_APART, { 1, 9, 2048, 2048, 4, 0, 4, 16, 4 } },
	{ "128K hugetlb, page by page", "6.1", T_SZ_2M, 0, SZ_128K, 0,
	  FOLIOS_APART, { 1, 1, 32, 32, 1, 0, 1, 1, 1 } },
	{ "128K hugetlb, runs 6.1", "6.1+hugebuf", T_SZ_2M, 0, SZ_128K, 0,
	  FOLIOS_APART, { 1, 1, 1, 1, 1, 0, 1, 1, 1 } },
	{ "128K hugetlb, runs 6.12", "6.12", T_SZ_2M, 0, SZ_128K, 0,
	  FOLIOS_APART, { 1, 1, 1, 0, 1, 0, 1, 1, 1 } },
	/* 8 bios of 256 bvecs: 128 pages per request is 512 KiB */
	{ "8M of 4K pages apart", "6.12", T_SZ_4K, 0, SZ_8M, 0, PAGES_APART,
	  { 8, 8, 2048, 2040, 2048, 0, 2048, 24, 256 } },
	{ "8M of 4K pages apart", "6.1", T_SZ_4K, 0, SZ_8M, 0, PAGES_APART,
	  { 8, 8, 2048, 2048, 2048, 0, 2048, 24, 256 } },
	/*
	 * 7.x: every run its own bvec, no merge test; the batches shrink as
	 * the bvecs grow (256, 255, 254, ...), 12 runs still
	 */
	{ "8M hugetlb adjacent, bvec per run", "7.2", T_SZ_2M, 0, SZ_8M, 0,
	  FOLIOS_ADJACENT, { 1, 9, 12, 0, 12, 0, 12, 16, 12 } },
	{ "8M of 4K pages adjacent, bvec per run", "7.2", T_SZ_4K, 0, SZ_8M,
	  0, FOLIOS_ADJACENT, { 8, 8, 2048, 0, 2048, 0, 2048, 24, 256 } },
	/* 4K folios adjacent: merge into one bvec, one release per page */
	{ "8M of 4K pages adjacent", "6.12", T_SZ_4K, 0, SZ_8M, 0,
	  FOLIOS_ADJACENT, { 1, 9, 2048, 2047, 1, 0, 2048, 16, 1 } },
	/*
	 * Two iovecs sharing a page (the first 2 KiB): the second add
	 * starts in the page the bvec ends in.  npages counts that page
	 * twice (65 slots); 6.1 fetches it again for the second batch.
	 */
	{ "256K hugetlb, 2K + rest", "6.12", T_SZ_2M, 0, 256 << 10, 2048,
	  FOLIOS_APART, { 1, 2, 2, 1, 1, 1, 1, 1, 1 } },
	{ "256K hugetlb, 2K + rest", "6.1", T_SZ_2M, 0, 256 << 10, 2048,
	  FOLIOS_APART, { 1, 2, 65, 65, 1, 1, 1, 1, 1 } },
	/* a run ends at the folio end: 4K before one, 12K long */
	{ "12K over a folio end", "6.12", T_SZ_2M, T_SZ_2M - 4096, 12288, 0,
	  FOLIOS_APART, { 1, 1, 2, 1, 2, 0, 2, 1, 2 } },
};

static int check_case(const struct pcase *c)
{
	struct hb_plain_pred got;
	struct hb_kmodel km;
	struct iovec iov[2];
	struct buf b;
	int ret = T_EXIT_PASS, nr = 1;

	if (hb_kmodel_parse(c->kernel, &km))
		return t_fail("%s: kernel %s not known: %s", c->what,
			      c->kernel, hb_errmsg());
	if (make_buf(&b, c->folio, c->head, c->len, c->how))
		return t_fail("%s: out of memory", c->what);
	iov[0].iov_base = (void *)(uintptr_t)(BASE + c->head);
	iov[0].iov_len = c->split ? c->split : c->len;
	if (c->split) {
		iov[1].iov_base = (char *)iov[0].iov_base + c->split;
		iov[1].iov_len = c->len - c->split;
		nr = 2;
	}
	if (hb_model_plain(&km, b.pages, b.pfn, BASE + c->head, c->len, iov,
			   nr, &nvme, &got)) {
		ret = t_fail("%s on %s: %s", c->what, c->kernel, hb_errmsg());
	} else if (memcmp(&got, &c->want, sizeof(got))) {
		ret = t_fail("%s on %s: bios %u batches %u adds %u merge "
			     "tests %u bvecs %u same-page %u releases %u "
			     "requests %u max bvecs %u; expected %u %u %u %u "
			     "%u %u %u %u %u", c->what, c->kernel, got.bios,
			     got.batches, got.adds, got.merge_tests, got.bvecs,
			     got.same_page, got.releases, got.requests,
			     got.max_bvecs, c->want.bios, c->want.batches,
			     c->want.adds, c->want.merge_tests, c->want.bvecs,
			     c->want.same_page, c->want.releases,
			     c->want.requests, c->want.max_bvecs);
	} else {
		t_pass();
	}
	free_buf(&b);
	return ret;
}

/* without PFNs: folios of a synthetic layout are never adjacent */
static int check_synthetic(void)
{
	struct hb_plain_pred got;
	struct hb_kmodel km;
	struct iovec iov = { (void *)BASE, SZ_8M };
	struct buf b;
	int ret = T_EXIT_PASS;

	hb_kmodel_for_version(6, 12, &km);
	if (make_buf(&b, T_SZ_2M, 0, SZ_8M, FOLIOS_APART))
		return t_fail("out of memory");
	if (hb_model_plain(&km, b.pages, NULL, BASE, SZ_8M, &iov, 1, NULL,
			   &got))
		ret = t_fail("synthetic layout: %s", hb_errmsg());
	else if (got.bvecs != 4 || got.adds != 12 || got.requests)
		ret = t_fail("synthetic 8M of 2M folios on 6.12: %u bvecs, "
			     "%u adds, %u requests; expected 4, 12, 0 (no "
			     "limits)", got.bvecs, got.adds, got.requests);
	else
		t_pass();
	free_buf(&b);
	return ret;
}

/*
 * The requests of several bios: 8 MiB + 16 KiB from 4 KiB pages that are
 * never adjacent is 8 bios of 256 pages and one of 4.  With 254 segments
 * per request each full bio is split in two, the second part 2 pages; the
 * last, 4-page bio is not split and joins that part (the plug's back
 * merge), so 16 requests, not 17.  With 2 segments per request it cannot
 * join: 8 x 128 + 2 = 1026.
 */
static int check_backmerge(void)
{
	static const struct {
		struct hb_queue_limits q;
		unsigned int want;
	} lim[] = {
		{ SPLIT_LIMITS(4 << 20, 254, 0xffffffff), 16 },
		{ SPLIT_LIMITS(4 << 20, 2, 0xffffffff), 1026 },
		/* the join must also fit max_sectors: 8 KiB + 16 KiB > 16 KiB */
		{ SPLIT_LIMITS(16 << 10, 254, 0xffffffff), 8 * 64 + 1 },
	};
	const uint64_t len = SZ_8M + (16 << 10);
	struct iovec iov = { (void *)BASE, len };
	struct hb_plain_pred got;
	struct hb_kmodel km;
	struct buf b;
	int ret = T_EXIT_PASS;
	unsigned int i;

	hb_kmodel_for_version(6, 12, &km);
	if (make_buf(&b, T_SZ_4K, 0, len, PAGES_APART))
		return t_fail("out of memory");
	for (i = 0; i < T_ARRAY_SIZE(lim); i++) {
		if (hb_model_plain(&km, b.pages, b.pfn, BASE, len, &iov, 1,
				   &lim[i].q, &got))
			ret = t_fail("back merge: %s", hb_errmsg());
		else if (got.bios != 9 || got.requests != lim[i].want)
			ret = t_fail("8M+16K of 4K pages, %u segments, %llu "
				     "bytes per request: %u bios, %u requests; "
				     "expected 9, %u", lim[i].q.max_segments,
				     (unsigned long long)lim[i].q.max_hw_bytes,
				     got.bios, got.requests, lim[i].want);
		else
			t_pass();
	}
	free_buf(&b);
	return ret;
}

/* a misaligned or outside iovec is refused with EINVAL and a reason */
static int check_refusals(void)
{
	struct hb_plain_pred got;
	struct hb_kmodel km;
	struct iovec iov;
	struct buf b;
	int ret = T_EXIT_PASS;

	hb_kmodel_for_version(6, 1, &km);
	if (make_buf(&b, T_SZ_2M, 0, SZ_128K, FOLIOS_APART))
		return t_fail("out of memory");
	iov.iov_base = (void *)(BASE + 100);
	iov.iov_len = 4096;
	if (hb_model_plain(&km, b.pages, b.pfn, BASE, SZ_128K, &iov, 1, NULL,
			   &got) != -EINVAL || !strstr(hb_errmsg(), "aligned"))
		ret = t_fail("an iovec at +100 was not refused as unaligned");
	else
		t_pass();
	iov.iov_base = (void *)(BASE + SZ_128K - 4096);
	iov.iov_len = 8192;
	if (hb_model_plain(&km, b.pages, b.pfn, BASE, SZ_128K, &iov, 1, NULL,
			   &got) != -EINVAL || !strstr(hb_errmsg(), "outside"))
		ret = t_fail("an iovec past the buffer was not refused");
	else
		t_pass();
	if (hb_model_plain(&km, b.pages, b.pfn, BASE, SZ_128K, &iov, 0, NULL,
			   &got) != -EINVAL)
		ret = t_fail("no iovec was not refused");
	else
		t_pass();
	free_buf(&b);
	return ret;
}

int main(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++)
		if (check_case(&cases[i]) != T_EXIT_PASS)
			ret = T_EXIT_FAIL;
	if (check_synthetic() != T_EXIT_PASS)
		ret = T_EXIT_FAIL;
	if (check_backmerge() != T_EXIT_PASS)
		ret = T_EXIT_FAIL;
	if (check_refusals() != T_EXIT_PASS)
		ret = T_EXIT_FAIL;
	return t_done(ret);
}
