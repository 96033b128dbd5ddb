// SPDX-License-Identifier: GPL-2.0-only
/*
 * What registering buffers costs the kernel, as counts (pure): pages
 * pinned, bvecs built, and the work of the hugepage accounting.
 *
 * Up to 7.1, io_buffer_account_pin() walks the array the imu is built
 * from, one entry per page up to 6.2 and one per bvec once the buffer is
 * coalesced (6.3's single folio, 6.10's multi-folio buffers and our 6.1
 * series account after io_coalesce_buffer(), so a coalesced buffer has
 * one entry per folio).  For each compound entry whose head is not the
 * one just seen (*last_hpage, carried from buffer to buffer within one
 * IORING_REGISTER_BUFFERS and fresh for each update call) it calls
 * headpage_already_acct(), which reads
 *  - the entries of the same array before the current one, stopping at
 *    the first whose head matches;
 *  - then, if none did, every bvec of the buffers in the ring's table, in
 *    slot order, stopping at the first match.
 * A new head reads all of them, so one buffer of n folios, coalesced,
 * costs n (n - 1) / 2 reads: 2^31 for 1 GiB of 16 KiB mTHP.  The table
 * holds the earlier buffers of the same call up to 6.12 (the imu is
 * stored inside the loop) and none of them from the 6.13 table rework
 * (3597f2786b68: ctx->buf_table is published after the loop); an update
 * (IORING_REGISTER_BUFFERS_UPDATE) sees every buffer already registered
 * in every version.  Registering "one by one" is modelled as a sparse
 * table filled by one update per buffer.
 *
 * 7.2 ("io_uring/rsrc: add huge page accounting for registered buffers")
 * replaces the scans with one lookup in the ring's ctx->hpage_acct per
 * head not equal to the previous one of the same buffer: linear.
 *
 * Read in 6.1's io_uring/rsrc.c (io_sqe_buffer_register(),
 * headpage_already_acct()), 6.12's (io_coalesce_buffer() before the
 * accounting) and 7.2.13's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"


/*
 * headpage_already_acct() for the head @folio of entry @i of buffer @k:
 * the entries it reads.
 */
static uint64_t scan_reads(const struct hb_reg_walk *w, unsigned int k,
			   uint64_t i, uint64_t folio)
{
	uint64_t v = hb_foliomap_get(&w->mine, folio), g;

	if (v >> 32 == (uint64_t)k + 1)
		return (v & 0xffffffffULL) + 1;
	if (!w->table_seen)
		return i;
	g = hb_foliomap_get(&w->first, folio);
	if (g && g - 1 < w->before)
		return i + g;
	return i + w->before;
}

/* entry @i of buffer @k is a page of the compound page @folio */
static int note_entry(struct hb_reg_walk *w, unsigned int k, uint64_t i,
		      uint64_t folio)
{
	uint64_t tag = ((uint64_t)k + 1) << 32;
	size_t slot;
	int ret;

	ret = hb_foliomap_find(&w->first, folio, &slot);
	if (ret)
		return ret;
	if (!w->first.val[slot])
		w->first.val[slot] = w->before + i + 1;
	ret = hb_foliomap_find(&w->mine, folio, &slot);
	if (ret)
		return ret;
	if ((w->mine.val[slot] & ~0xffffffffULL) != tag)
		w->mine.val[slot] = tag | i;
	return 0;
}

int hb_reg_walk_add(struct hb_reg_walk *w, unsigned int k,
		    const struct hb_imu *imu, const struct hb_page *pages,
		    uint64_t nr_pages)
{
	uint64_t j = 0, i;
	int ret;

	w->cost->pages += imu->nr_pages;
	w->cost->bvecs += imu->nr_bvecs;
	if (!w->carry_last)
		w->have_last = false;
	for (i = 0; i < imu->nr_bvecs; i++) {
		uint64_t folio = imu->bvec[i].folio;

		/* the folio's order, from its pages (same order) */
		while (j < nr_pages && pages[j].folio != folio)
			j++;
		if (j == nr_pages)
			return hb_seterr(EINVAL, "buffer %u: bvec %llu is on "
					 "no page of the map", k,
					 (unsigned long long)i);
		if (!pages[j].order)
			continue;
		if (!(w->have_last && w->last == folio)) {
			w->have_last = true;
			w->last = folio;
			w->cost->heads++;
			if (w->km->acct_per_ring)
				w->cost->ring_lookups++;
			else
				w->cost->scan_reads += scan_reads(w, k, i, folio);
		}
		ret = note_entry(w, k, i, folio);
		if (ret)
			return ret;
	}
	w->before += imu->nr_bvecs;
	return 0;
}

void hb_reg_walk_init(struct hb_reg_walk *w, const struct hb_kmodel *km,
		      enum hb_reg_calls calls, struct hb_reg_cost *cost)
{
	memset(w, 0, sizeof(*w));
	memset(cost, 0, sizeof(*cost));
	w->km = km;
	w->cost = cost;
	/*
	 * km->acct_batch_dedup: up to 6.12 the table holds the earlier
	 * buffers of the same call; an update sees the table always
	 */
	w->table_seen = calls == HB_REG_ONE_BY_ONE || km->acct_batch_dedup;
	/* 7.2 carries nothing from one buffer to the next */
	w->carry_last = calls == HB_REG_ONE_CALL && !km->acct_per_ring;
}

void hb_reg_walk_free(struct hb_reg_walk *w)
{
	hb_foliomap_free(&w->first);
	hb_foliomap_free(&w->mine);
}

int hb_model_register_cost(const struct hb_kmodel *km,
			   const struct hb_reg_buf *bufs, unsigned int nr_bufs,
			   enum hb_reg_calls calls, struct hb_reg_cost *cost)
{
	struct hb_reg_walk w;
	unsigned int k;
	int ret = 0;

	if (!km || !cost || (nr_bufs && !bufs))
		return hb_seterr(EINVAL, "no buffers for the registration "
				 "cost model");
	hb_reg_walk_init(&w, km, calls, cost);
	for (k = 0; k < nr_bufs && !ret; k++) {
		const struct hb_reg_buf *b = &bufs[k];
		struct hb_imu imu;

		ret = hb_imu_build(km, b->pages, b->uaddr, b->len, &imu);
		if (ret)
			break;
		ret = hb_reg_walk_add(&w, k, &imu, b->pages,
				      hb_nr_pages(b->uaddr, b->len));
		hb_imu_free(&imu);
	}
	hb_reg_walk_free(&w);
	return ret;
}

bool hb_reg_cost_slow(const struct hb_reg_cost *cost)
{
	return cost->scan_reads >= HB_REG_SCAN_SLOW;
}

int hb_reg_cost_warning(const struct hb_reg_cost *cost, char *buf,
			size_t len)
{
	if (!hb_reg_cost_slow(cost))
		return 0;
	return snprintf(buf, len,
			"registering will take long: the kernel's hugepage "
			"accounting reads %llu page-array entries for %llu "
			"compound pages (headpage_already_acct(), quadratic "
			"up to 7.1; about 2 ns each on a 6.18 host); use a "
			"hugetlb or 2M THP backing, fewer or smaller buffers, "
			"or a 7.2+ kernel (or 6.1 with hugebuf's series)",
			(unsigned long long)cost->scan_reads,
			(unsigned long long)cost->heads) >= (int)len ?
			       -ENOSPC : 1;
}
