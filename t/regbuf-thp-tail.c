// SPDX-License-Identifier: GPL-2.0-only
/*
 * A registered buffer that starts at a tail page of a PMD THP
 * (docs/kernel-rules.md §4; docs/regression-matrix.md).
 *
 * Guards 5afb4bf9fc62 "io_uring/rsrc: fix folio unpinning" (6.16, stable):
 * after coalescing, bvec pages are folio heads, and unregistering unpinned
 * the head page once per bvec instead of the pages that were pinned, so a
 * folio whose tail pages were pinned kept (or lost) pins.  Unregistering
 * must drop exactly the pins registration took.
 *
 * How the pins are seen: a pinned anonymous page is copied for the child
 * at fork (copy_present_pte(): folio_maybe_dma_pinned() makes
 * folio_try_dup_anon_rmap_*() fail), an unpinned one is shared.  So while
 * registered, a fork must give the child its own copy (the positive
 * control: the method can see a pin); after unregistering it must share
 * the page again, for the registered tail pages and for the head page.
 * This needs PFNs (root); without them only the other checks run.  Also:
 * VmPin is the whole folio while registered (io_buffer_account_pin()
 * charges a compound page whole, once) and back at its baseline after
 * unregistering; data on every path; the model's import against the
 * probed pages; the request count where O_DIRECT can read the buffer.
 */
#include <stdio.h>

#include "helpers.h"

#define FILE_SIZE ((8ULL << 20) + (64 << 10))

struct thp_case {
	struct t_case c;
	unsigned int nr_folios;
	long base_vmpin;
	void *head; /* page 0 of the first THP */
};

static const struct thp_case *to_thp(const struct t_case *c)
{
	return (const struct thp_case *)c;
}

/* While registered: whole folios charged, and the folio is pinned. */
static int while_registered(const struct t_case *c, const struct t_regbuf *rb,
			    const struct t_model *m, struct t_file *f)
{
	const struct thp_case *tc = to_thp(c);
	char what[160];
	int ret;

	(void)m;
	(void)f;
	snprintf(what, sizeof(what), "%s: while registered (%u whole THPs)",
		 c->name, tc->nr_folios);
	ret = t_vmpin_expect(tc->base_vmpin, tc->nr_folios * 2048L, what);
	if (ret)
		return ret;
	ret = t_expect_pinned(rb->addr, true, what);
	if (ret)
		return ret;
	return t_expect_pinned(tc->head, true, what);
}

static int run(struct thp_case *tc, struct t_file *f)
{
	struct t_baseline base;
	struct hb_backing b;
	struct hb_buf buf;
	char when[160];
	int ret;

	ret = t_baseline_take(&base, 0);
	if (ret)
		return ret;
	ret = t_alloc_thp(tc->c.len, tc->c.head_offset, &buf, tc->c.name);
	if (ret)
		return ret;
	tc->base_vmpin = base.vmpin_kb;
	tc->head = buf.map;
	hb_backing_parse("thp", &b);
	ret = t_check_region(&tc->c, buf.addr, &b, f);
	snprintf(when, sizeof(when), "%s: after unregistering", tc->c.name);
	if (!ret)
		ret = t_vmpin_expect(base.vmpin_kb, 0, when);
	/* every pin taken is dropped: the pages are shared at fork again */
	if (!ret)
		ret = t_expect_pinned(buf.addr, false, when);
	if (!ret)
		ret = t_expect_pinned(buf.map, false, when);
	if (!ret)
		ret = t_expect_pinned((char *)buf.addr + tc->c.len - 1, false,
				      when);
	hb_free(&buf);
	snprintf(when, sizeof(when), "after %s is unmapped", tc->c.name);
	ret = t_worst(ret, t_baseline_check(&base, when));
	if (!ret)
		t_info("%s: ok", tc->c.name);
	return ret;
}

int main(int argc, char **argv)
{
	struct thp_case cases[] = {
		{
			.c = {
				.name = "THP: 2 pages from page 1",
				.len = 2 * T_SZ_4K,
				.head_offset = T_SZ_4K,
				.requests = true,
				.registered = while_registered,
			},
			.nr_folios = 1,
		},
		{
			.c = {
				.name = "THP: page 1 to the end",
				.len = T_SZ_2M - T_SZ_4K,
				.head_offset = T_SZ_4K,
				.requests = true,
				.registered = while_registered,
			},
			.nr_folios = 1,
		},
		{
			.c = {
				.name = "2 THPs: from page 5 of the first "
					"to page 510 of the second",
				.len = 2 * T_SZ_2M - 7 * T_SZ_4K,
				.head_offset = 5 * T_SZ_4K,
				.requests = true,
				.registered = while_registered,
			},
			.nr_folios = 2,
		},
	};
	unsigned int i, ran = 0;
	struct t_file f;
	int ret = T_EXIT_PASS;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	ret = t_file_create(&f, FILE_SIZE, 0x3c3, true);
	if (ret)
		return t_done(ret);
	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		ret = run(&cases[i], &f);
		if (ret == T_EXIT_FAIL)
			break;
		ran += ret == T_EXIT_PASS;
	}
	t_file_close(&f);
	if (ret == T_EXIT_FAIL)
		return t_done(ret);
	return t_done(ran ? T_EXIT_PASS : t_skip("no THP case could run"));
}
