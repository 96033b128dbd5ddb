// SPDX-License-Identifier: GPL-2.0-only
/*
 * Physical contiguity of a buffer's pages, from their PFNs alone.
 *
 * Neighbouring pages whose frames are neighbours too can end up in one
 * DMA segment below io_uring, whatever folios they belong to: the block
 * layer merges two bvecs when biovec_phys_mergeable() finds the first
 * ending where the second starts (block/blk.h), and so does the
 * scatterlist blk_rq_map_sg() builds.  So a run is counted over PFNs,
 * across folio boundaries.
 */
#include <string.h>

#include "model/model.h"

/*
 * A PFN of 0 is what pagemap shows without CAP_SYS_ADMIN (pagemap_read()'s
 * show_pfn, 4.2, 1c90308e7a77): then nothing is known.
 */
static bool pfns_readable(const uint64_t *pfn, uint64_t nr)
{
	uint64_t i;

	if (!pfn)
		return false;
	for (i = 0; i < nr; i++)
		if (!pfn[i])
			return false;
	return true;
}

static bool pfn_follows(const uint64_t *pfn, uint64_t i)
{
	return pfn[i] == pfn[i - 1] + 1;
}

void hb_contig_measure(const uint64_t *pfn, uint64_t nr, struct hb_contig *c)
{
	uint64_t i, run = 0;

	memset(c, 0, sizeof(*c));
	c->nr_pages = nr;
	c->pairs = nr ? nr - 1 : 0;
	if (!pfns_readable(pfn, nr))
		return;
	c->known = true;
	for (i = 0; i < nr; i++) {
		if (i && pfn_follows(pfn, i)) {
			c->adjacent++;
			run++;
		} else {
			c->nr_runs++;
			run = 1;
		}
		if (run > c->longest)
			c->longest = run;
	}
}

void hb_contig_add(struct hb_contig *sum, const struct hb_contig *one,
		   bool first)
{
	if (first) {
		*sum = *one;
		return;
	}
	sum->known &= one->known;
	sum->nr_pages += one->nr_pages;
	sum->pairs += one->pairs;
	sum->nr_runs += one->nr_runs;
	sum->adjacent += one->adjacent;
	if (one->longest > sum->longest)
		sum->longest = one->longest;
}

double hb_contig_share(const struct hb_contig *c)
{
	if (!c->known || !c->nr_pages)
		return 0;
	return c->pairs ? (double)c->adjacent / c->pairs : 1;
}
