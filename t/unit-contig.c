// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/model/contig.c: the physical runs of a buffer's pages
 * from their PFNs (issue 44).  Every PFN array is built from a list of
 * run lengths with a gap of at least one frame (or a step down) between
 * runs, so the runs, the longest one and the adjacent pairs are known
 * from how the array was made, and hb_contig_measure() must find them.
 */
#include <stdlib.h>

#include "helpers.h"
#include "model/model.h"

#define MAX_PAGES	4096

/* Pages of @nr runs of @len[i] frames from @base, each run @gap[i] on. */
static uint64_t build(const unsigned int *len, const int64_t *gap,
		      unsigned int nr, uint64_t base, uint64_t *pfn)
{
	uint64_t n = 0, next = base;
	unsigned int r, k;

	for (r = 0; r < nr; r++) {
		if (r)
			next += gap[r];
		for (k = 0; k < len[r]; k++)
			pfn[n++] = next++;
		next--;
	}
	return n;
}

static int expect(const char *what, const uint64_t *pfn, uint64_t n,
		  const unsigned int *len, unsigned int nr)
{
	uint64_t adjacent = 0, longest = 0;
	struct hb_contig c;
	unsigned int r;

	for (r = 0; r < nr; r++) {
		adjacent += len[r] - 1;
		if (len[r] > longest)
			longest = len[r];
	}
	hb_contig_measure(pfn, n, &c);
	if (!c.known)
		return t_fail("%s: PFNs taken as unreadable", what);
	if (c.nr_pages != n || c.pairs != (n ? n - 1 : 0))
		return t_fail("%s: %llu pages, %llu pairs", what,
			      (unsigned long long)c.nr_pages,
			      (unsigned long long)c.pairs);
	if (c.nr_runs != nr || c.longest != longest || c.adjacent != adjacent)
		return t_fail("%s: %llu runs, longest %llu, %llu adjacent; "
			      "built %u, %llu, %llu", what,
			      (unsigned long long)c.nr_runs,
			      (unsigned long long)c.longest,
			      (unsigned long long)c.adjacent, nr,
			      (unsigned long long)longest,
			      (unsigned long long)adjacent);
	return T_EXIT_PASS;
}

static int test_edges(void)
{
	static uint64_t pfn[MAX_PAGES];
	static int64_t gap[MAX_PAGES];
	unsigned int one = 1, all = 512, len[MAX_PAGES];
	struct hb_contig c;
	unsigned int i;
	int ret;

	hb_contig_measure(pfn, 0, &c);
	if (c.nr_pages || c.pairs || c.nr_runs || c.longest ||
	    hb_contig_share(&c) != 0)
		return t_fail("0 pages: runs %llu, share %.2f",
			      (unsigned long long)c.nr_runs,
			      hb_contig_share(&c));
	/* one page: one run, nothing to be apart from */
	build(&one, gap, 1, 1000, pfn);
	ret = expect("1 page", pfn, 1, &one, 1);
	hb_contig_measure(pfn, 1, &c);
	if (!ret && hb_contig_share(&c) != 1)
		return t_fail("1 page: share %.2f", hb_contig_share(&c));
	/* all contiguous: one run of every page, every pair adjacent */
	if (!ret)
		ret = expect("512 in a row", pfn, build(&all, gap, 1, 1 << 20,
							 pfn), &all, 1);
	hb_contig_measure(pfn, all, &c);
	if (!ret && hb_contig_share(&c) != 1)
		return t_fail("512 in a row: share %.2f", hb_contig_share(&c));
	/* all scattered, every other frame and descending ones */
	for (i = 0; i < 512; i++) {
		len[i] = 1;
		gap[i] = i % 3 ? 2 : -1;
	}
	if (!ret)
		ret = expect("512 apart", pfn, build(len, gap, 512, 1 << 20,
						      pfn), len, 512);
	hb_contig_measure(pfn, 512, &c);
	if (!ret && hb_contig_share(&c) != 0)
		return t_fail("512 apart: share %.2f", hb_contig_share(&c));
	return ret;
}

/*
 * Two 2 MiB folios back to back in physical memory and one elsewhere:
 * the runs go over the folios' boundary (biovec_phys_mergeable() looks
 * at addresses, not folios), so 3 folios are 2 runs.
 */
static int test_across_folios(void)
{
	static uint64_t pfn[3 * 512];
	unsigned int len[2] = { 1024, 512 };
	int64_t gap[2] = { 0, 4096 };
	uint64_t n = build(len, gap, 2, 0x40000, pfn);

	if (pfn[511] + 1 != pfn[512] || pfn[512] % 512)
		return t_fail("the two folios are not back to back");
	return expect("folios back to back", pfn, n, len, 2);
}

/* A PFN of 0 (no CAP_SYS_ADMIN) or none at all: nothing is known. */
static int test_unreadable(void)
{
	uint64_t pfn[8] = { 10, 11, 12, 0, 14, 15, 16, 17 };
	struct hb_contig c;

	hb_contig_measure(pfn, 8, &c);
	if (c.known || c.nr_runs || c.adjacent || c.nr_pages != 8 ||
	    hb_contig_share(&c) != 0)
		return t_fail("a PFN of 0: known %d, %llu runs", c.known,
			      (unsigned long long)c.nr_runs);
	hb_contig_measure(NULL, 8, &c);
	if (c.known || c.nr_runs || c.nr_pages != 8)
		return t_fail("no PFNs: known %d", c.known);
	return T_EXIT_PASS;
}

/* Random run lengths and gaps, and their sum over buffers. */
static int test_random(void)
{
	static uint64_t pfn[MAX_PAGES];
	static unsigned int len[MAX_PAGES];
	static int64_t gap[MAX_PAGES];
	struct hb_contig one, sum;
	uint64_t pages = 0, runs = 0, longest = 0;
	unsigned int round, nr, r;
	int ret;

	srand(44);
	for (round = 0; round < 200; round++) {
		uint64_t n = 0;

		nr = 1 + rand() % 64;
		for (r = 0; r < nr; r++) {
			len[r] = 1 + rand() % 48;
			/* 2.. frames on, or back: never the next frame */
			gap[r] = rand() % 2 ? 2 + rand() % 1000 :
				 -(int64_t)(1 + rand() % 30);
			n += len[r];
		}
		n = build(len, gap, nr, 1ULL << 30, pfn);
		ret = expect("random runs", pfn, n, len, nr);
		if (ret)
			return ret;
		hb_contig_measure(pfn, n, &one);
		hb_contig_add(&sum, &one, round == 0);
		pages += n;
		runs += nr;
		if (one.longest > longest)
			longest = one.longest;
	}
	if (!sum.known || sum.nr_pages != pages || sum.nr_runs != runs ||
	    sum.longest != longest || sum.pairs != pages - 200 ||
	    sum.adjacent != pages - runs)
		return t_fail("sum over 200 buffers: %llu pages, %llu runs",
			      (unsigned long long)sum.nr_pages,
			      (unsigned long long)sum.nr_runs);
	hb_contig_measure(NULL, 1, &one);
	hb_contig_add(&sum, &one, false);
	if (sum.known)
		return t_fail("a buffer without PFNs left the sum known");
	return T_EXIT_PASS;
}

int main(void)
{
	int ret = t_sub(test_edges());

	ret = t_worst(ret, t_sub(test_across_folios()));
	ret = t_worst(ret, t_sub(test_unreadable()));
	return t_done(t_worst(ret, t_sub(test_random())));
}
