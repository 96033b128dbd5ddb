// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the registration cost model, hb_model_register_cost():
 * pages, bvecs, compound heads, and the accounting's work per kernel
 * generation, each count worked by hand from the kernel code it mirrors:
 *  - io_buffer_account_pin() up to 7.1: headpage_already_acct() for each
 *    head not equal to *last_hpage reads the entries before it in the
 *    imu's array (one per page up to 6.2, one per folio once coalesced)
 *    and then the bvecs of the ring's table, each scan stopping at its
 *    first match;
 *  - the table holds the earlier buffers of the same call up to 6.12,
 *    none from 6.13 (3597f2786b68), all of them for an update;
 *  - 7.2's ctx->hpage_acct: one lookup per head, no scan.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define BASE		0x7f0000000000ULL
#define SZ_16K		(16ULL << 10)
#define SZ_1M		(1ULL << 20)
#define SZ_2M		(2ULL << 20)

struct want {
	uint64_t pages, bvecs, heads, reads, lookups;
};

/* @nr buffers of @len bytes back to back from BASE in @folio_size folios */
struct layout {
	struct hb_page *pages;
	struct hb_reg_buf bufs[4];
	unsigned int nr;
};

static void layout_make(struct layout *l, uint64_t folio_size, uint64_t len,
			unsigned int nr)
{
	uint64_t total = len * nr, per = hb_nr_pages(0, len);
	unsigned int i;

	l->pages = calloc(hb_nr_pages(0, total), sizeof(*l->pages));
	if (!l->pages || nr > T_ARRAY_SIZE(l->bufs) ||
	    hb_layout_synth(folio_size, 0, total, BASE / folio_size,
			    l->pages))
		abort();
	for (i = 0; i < nr; i++) {
		l->bufs[i].pages = l->pages + i * per;
		l->bufs[i].uaddr = BASE + i * len;
		l->bufs[i].len = len;
	}
	l->nr = nr;
}

static int expect(const char *what, const char *kernel,
		  const struct hb_reg_buf *bufs, unsigned int nr,
		  enum hb_reg_calls calls, const struct want *w)
{
	struct hb_reg_cost c;
	struct hb_kmodel km;

	if (hb_kmodel_parse(kernel, &km))
		return t_fail("%s: kernel %s: %s", what, kernel, hb_errmsg());
	if (hb_model_register_cost(&km, bufs, nr, calls, &c))
		return t_fail("%s (%s): %s", what, kernel, hb_errmsg());
	if (c.pages != w->pages || c.bvecs != w->bvecs ||
	    c.heads != w->heads || c.scan_reads != w->reads ||
	    c.ring_lookups != w->lookups)
		return t_fail("%s (%s): pages/bvecs/heads/reads/lookups "
			      "%llu/%llu/%llu/%llu/%llu, expected "
			      "%llu/%llu/%llu/%llu/%llu",
			      what, kernel, (unsigned long long)c.pages,
			      (unsigned long long)c.bvecs,
			      (unsigned long long)c.heads,
			      (unsigned long long)c.scan_reads,
			      (unsigned long long)c.ring_lookups,
			      (unsigned long long)w->pages,
			      (unsigned long long)w->bvecs,
			      (unsigned long long)w->heads,
			      (unsigned long long)w->reads,
			      (unsigned long long)w->lookups);
	return T_EXIT_PASS;
}

/*
 * 1 MiB of 16 KiB folios, 64 of them: coalesced (6.12), each new head
 * reads every entry before it, 0 + 1 + ... + 63 = 2016; one entry per
 * page on 6.1, the heads at 0, 4, ... 252: 4 * 2016; 7.2 looks up 64.
 */
static int test_one_buffer(void)
{
	const struct want w612 = { 256, 64, 64, 2016, 0 };
	const struct want w61 = { 256, 256, 64, 8064, 0 };
	const struct want w72 = { 256, 64, 64, 0, 64 };
	struct layout l;
	int ret = T_EXIT_PASS;

	layout_make(&l, SZ_16K, SZ_1M, 1);
	ret = t_worst(ret, expect("1M of 16K", "6.12", l.bufs, 1,
				  HB_REG_ONE_CALL, &w612));
	ret = t_worst(ret, expect("1M of 16K", "6.18", l.bufs, 1,
				  HB_REG_ONE_CALL, &w612));
	ret = t_worst(ret, expect("1M of 16K", "6.1", l.bufs, 1,
				  HB_REG_ONE_CALL, &w61));
	ret = t_worst(ret, expect("1M of 16K", "7.2", l.bufs, 1,
				  HB_REG_ONE_CALL, &w72));
	free(l.pages);
	return ret;
}

/*
 * Two such buffers: the second's 64 heads also read the first's 64 bvecs
 * in the table (2016 + 64 * 64 more) up to 6.12 in one call and in every
 * version one by one; not in one call from 6.13.
 */
static int test_two_buffers(void)
{
	const struct want seen = { 512, 128, 128, 2016 + 2016 + 64 * 64, 0 };
	const struct want unseen = { 512, 128, 128, 2 * 2016, 0 };
	const struct want w72 = { 512, 128, 128, 0, 128 };
	struct layout l;
	int ret = T_EXIT_PASS;

	layout_make(&l, SZ_16K, SZ_1M, 2);
	ret = t_worst(ret, expect("2 x 1M, one call", "6.12", l.bufs, 2,
				  HB_REG_ONE_CALL, &seen));
	ret = t_worst(ret, expect("2 x 1M, one call", "6.16", l.bufs, 2,
				  HB_REG_ONE_CALL, &unseen));
	ret = t_worst(ret, expect("2 x 1M, one by one", "6.16", l.bufs, 2,
				  HB_REG_ONE_BY_ONE, &seen));
	ret = t_worst(ret, expect("2 x 1M, one by one", "7.2", l.bufs, 2,
				  HB_REG_ONE_BY_ONE, &w72));
	free(l.pages);
	return ret;
}

/*
 * Two 1 MiB halves of one 2 MiB hugepage, one bvec each (6.12).  In one
 * call the second's head is *last_hpage: one head in all.  One by one
 * the update starts afresh, reads nothing of its own array and finds the
 * head at the table's first bvec: 1 read.
 */
static int test_shared_hugepage(void)
{
	const struct want call = { 512, 2, 1, 0, 0 };
	const struct want each = { 512, 2, 2, 1, 0 };
	const struct want w72 = { 512, 2, 2, 0, 2 };
	struct layout l;
	int ret = T_EXIT_PASS;

	layout_make(&l, SZ_2M, SZ_1M, 2);
	ret = t_worst(ret, expect("halves of 2M, one call", "6.12", l.bufs, 2,
				  HB_REG_ONE_CALL, &call));
	ret = t_worst(ret, expect("halves of 2M, one by one", "6.12", l.bufs,
				  2, HB_REG_ONE_BY_ONE, &each));
	ret = t_worst(ret, expect("halves of 2M, one by one", "7.2", l.bufs, 2,
				  HB_REG_ONE_BY_ONE, &w72));
	free(l.pages);
	return ret;
}

/*
 * A page of folio X, one of Y, X's second page again (order-1 folios
 * that no kernel coalesces): X reads nothing, Y the one entry before it,
 * X again stops at its first entry: 2 reads, 3 heads.
 */
static int test_head_seen_earlier(void)
{
	const struct hb_page pages[3] = {
		{ .folio = 10, .idx = 0, .order = 1 },
		{ .folio = 20, .idx = 0, .order = 1 },
		{ .folio = 10, .idx = 1, .order = 1 },
	};
	const struct hb_reg_buf b = { pages, BASE, 3 * HB_PAGE_SIZE };
	const struct want w = { 3, 3, 3, 2, 0 };
	const struct want w72 = { 3, 3, 3, 0, 3 };
	int ret = T_EXIT_PASS;

	ret = t_worst(ret, expect("X Y X", "6.1", &b, 1, HB_REG_ONE_CALL, &w));
	ret = t_worst(ret, expect("X Y X", "6.12", &b, 1, HB_REG_ONE_CALL,
				  &w));
	ret = t_worst(ret, expect("X Y X", "7.2", &b, 1, HB_REG_ONE_CALL,
				  &w72));
	return ret;
}

/* 4 KiB pages are no compound page: no head, no scan, a bvec each. */
static int test_small_pages(void)
{
	const struct want w = { 16, 16, 0, 0, 0 };
	struct layout l;
	int ret;

	layout_make(&l, HB_PAGE_SIZE, 16 * HB_PAGE_SIZE, 1);
	ret = expect("64K of 4K", "6.12", l.bufs, 1, HB_REG_ONE_CALL, &w);
	free(l.pages);
	return ret;
}

/*
 * The jobs on 6.18: one 512 MiB buffer of 16 KiB mTHP (32768
 * folios) reads 32768 * 32767 / 2, beyond the bound; 64 buffers of 8 MiB
 * in one call 64 * 512 * 511 / 2, well below it; 7.2 scans nothing.
 */
static int test_bound(void)
{
	const uint64_t n = (512 * SZ_1M) / SZ_16K;
	struct hb_reg_cost c = { .scan_reads = n * (n - 1) / 2 };
	int ret = T_EXIT_PASS;

	if (!hb_reg_cost_slow(&c))
		ret = t_fail("%llu reads are not slow",
			     (unsigned long long)c.scan_reads);
	c.scan_reads = 64ULL * 512 * 511 / 2;
	if (hb_reg_cost_slow(&c))
		ret = t_fail("%llu reads are slow",
			     (unsigned long long)c.scan_reads);
	c.scan_reads = HB_REG_SCAN_SLOW - 1;
	if (hb_reg_cost_slow(&c))
		ret = t_fail("one read below the bound is slow");
	return ret;
}

static int test_bad_input(void)
{
	struct hb_reg_cost c;
	struct hb_kmodel km;
	const struct hb_page page = { .folio = 1, .idx = 0, .order = 0 };
	const struct hb_reg_buf empty = { &page, BASE, 0 };

	if (hb_kmodel_parse("6.12", &km))
		return t_fail("6.12: %s", hb_errmsg());
	if (hb_model_register_cost(NULL, NULL, 0, HB_REG_ONE_CALL, &c) !=
	    -EINVAL)
		return t_fail("no kernel model was taken");
	if (hb_model_register_cost(&km, NULL, 1, HB_REG_ONE_CALL, &c) !=
	    -EINVAL)
		return t_fail("no buffers were taken");
	/* io_buffer_validate(): a length of 0 is -EFAULT */
	if (hb_model_register_cost(&km, &empty, 1, HB_REG_ONE_CALL, &c) !=
	    -EFAULT)
		return t_fail("a buffer of 0 bytes was taken");
	return T_EXIT_PASS;
}

int main(void)
{
	int ret = T_EXIT_PASS;

	ret = t_worst(ret, t_sub(test_one_buffer()));
	ret = t_worst(ret, t_sub(test_two_buffers()));
	ret = t_worst(ret, t_sub(test_shared_hugepage()));
	ret = t_worst(ret, t_sub(test_head_seen_earlier()));
	ret = t_worst(ret, t_sub(test_small_pages()));
	ret = t_worst(ret, t_sub(test_bound()));
	ret = t_worst(ret, t_sub(test_bad_input()));
	return t_done(ret);
}
