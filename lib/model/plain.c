// SPDX-License-Identifier: GPL-2.0-only
/*
 * A userspace model of the plain O_DIRECT path of a block device (no
 * registered buffer): how blkdev_direct_IO() and bio_iov_iter_get_pages()
 * (block/bio.c, fs/block/fops.c) turn the user's iovecs into bios, and
 * the calls of the add, merge and release functions that
 * kernel/probe/bio-profile counts in each guest (docs/kernel-rules.md
 * §9.2).  Pure: pages and PFNs in, counts out.
 *
 * The steps, the same on 6.1 and 6.12 except where a flag of the kmodel
 * says otherwise:
 *  - a bio gets room for the pages the rest of the I/O spans, at most
 *    BIO_MAX_VECS (bio_iov_vecs_to_alloc(): iov_iter_npages() counts the
 *    pages of each iovec, a page shared by two iovecs twice);
 *  - bio_iov_iter_get_pages() fetches pages in batches until the I/O is
 *    done or the bio has no free bvec slot; one batch
 *    (__bio_iov_iter_get_pages()) takes at most as many pages as the bio
 *    has free slots (the page array lives in those slots), and never
 *    more than the rest of the current iovec (first_iovec_segment());
 *  - 6.1 adds the batch's pages one by one (bio_iov_add_page()); 6.12,
 *    and 6.1 with our the block patch, add each run of pages that are the
 *    next pages of one folio at once (get_contig_folio_len(),
 *    ed9832bc08db); a run never crosses a batch end or a folio end;
 *  - an add merges into the bio's last bvec when its first byte follows
 *    that bvec's last byte physically (page_is_mergeable(),
 *    bvec_try_merge_page()), else it takes a new bvec; 7.x makes every run
 *    a bvec of its own (iov_iter_extract_bvecs(), no merge test);
 *  - each bio is split by the queue limits on its own, and a bio the split
 *    leaves whole may join the previous bio's last request (bio_requests());
 *  - completion releases each bvec folio by folio (bio_for_each_folio_all()
 *    in __bio_release_pages(): folio_put_refs() on Debian's 6.1.192,
 *    unpin_user_folio() since eb1d46fcd5d6 in 6.12).
 * The trim of a batch to the logical block size never cuts anything here:
 * the iovecs are 512-byte aligned and batches end at page boundaries.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define BIO_MAX_VECS	256U
#define SECTOR		512U

/* Synthetic PFNs: folio @f's pages at f << SYNTH_SHIFT, never adjacent. */
#define SYNTH_SHIFT	21

/* The bio being built: its bvec lengths, for the request split. */
struct plain_bio {
	unsigned int max_vecs, vcnt;
	uint64_t end_phys;	/* one past the last bvec's last byte */
	uint64_t last_folio;	/* the folio that last byte is in */
	struct hb_bvec bv[BIO_MAX_VECS];
};

struct plain_ctx {
	const struct hb_kmodel *km;
	const struct hb_page *pages;
	const uint64_t *pfn;
	uint64_t base;
	struct hb_plain_pred *out;
	struct plain_bio bio;
};

static uint64_t page_pfn(const struct plain_ctx *c, uint64_t i)
{
	if (c->pfn)
		return c->pfn[i];
	return (c->pages[i].folio << SYNTH_SHIFT) + c->pages[i].idx;
}

/* index into @pages of the page holding user address @addr */
static uint64_t page_index(const struct plain_ctx *c, uint64_t addr)
{
	return (addr >> HB_PAGE_SHIFT) - (c->base >> HB_PAGE_SHIFT);
}

/* pages an iovec remainder [addr, addr + len) spans */
static uint64_t span_pages(uint64_t addr, uint64_t len)
{
	return len ? hb_nr_pages(addr, len) : 0;
}

/*
 * Add @len bytes starting at the page of index @i, offset @off in it, to
 * the bio: merge into the last bvec when physically contiguous with it
 * (the merge test is called for every add when @km says so, else only
 * when the bio has a bvec), else start a bvec.  A merge whose first byte
 * is in the page the bvec ends in is a same-page merge: the bio then
 * drops the extra reference (put_page() on 6.1, unpin_user_folio() on
 * 6.12).  A bvec holds one release per folio its bytes touch.
 */
static void add_range(struct plain_ctx *c, uint64_t i, uint32_t off,
		      uint64_t len)
{
	struct plain_bio *b = &c->bio;
	uint64_t phys = (page_pfn(c, i) << HB_PAGE_SHIFT) + off;
	uint64_t folio = c->pages[i].folio;
	struct hb_bvec *bv;

	c->out->adds++;
	/*
	 * km->plain_merge_test_first: the plain path's merge test runs for
	 * every add, the first of a bio too (__bio_try_merge_page(), before
	 * 6.5), not only when the bio already has a bvec
	 * (bvec_try_merge_page(), 6.5 and later).  km->plain_bvec_per_run: each
	 * folio run of a plain I/O is a bvec of its own: no merge test, no
	 * merge with the bvec before it, one release per bvec (7.x:
	 * bio_iov_iter_get_pages() fills the bvecs in iov_iter_extract_bvecs();
	 * read in 7.2's source and measured in its guest; 6.18 still merges).
	 */
	if (!c->km->plain_bvec_per_run &&
	    (b->vcnt || c->km->plain_merge_test_first))
		c->out->merge_tests++;
	if (!c->km->plain_bvec_per_run && b->vcnt && b->end_phys == phys) {
		bv = &b->bv[b->vcnt - 1];
		if ((b->end_phys - 1) >> HB_PAGE_SHIFT == phys >> HB_PAGE_SHIFT)
			c->out->same_page++;
		if (folio != b->last_folio)
			c->out->releases++;
		bv->len += (uint32_t)len;
	} else {
		bv = &b->bv[b->vcnt++];
		bv->folio = folio;
		bv->page_idx = c->pages[i].idx;
		bv->offset = off;
		bv->len = (uint32_t)len;
		c->out->bvecs++;
		c->out->releases++;
	}
	b->end_phys = phys + len;
	b->last_folio = folio;
}

/*
 * The pages after @i that continue its run: next page of the same folio,
 * physically the next page (get_contig_folio_len()), at most @max in all.
 */
static uint64_t run_pages(const struct plain_ctx *c, uint64_t i, uint64_t max)
{
	uint64_t n = 1;

	while (n < max && c->pages[i + n].folio == c->pages[i].folio &&
	       c->pages[i + n].idx == c->pages[i + n - 1].idx + 1 &&
	       page_pfn(c, i + n) == page_pfn(c, i + n - 1) + 1)
		n++;
	return n;
}

/*
 * One __bio_iov_iter_get_pages(): @len bytes at user address @addr, whose
 * pages all fit the batch.  Returns nothing: a batch always adds all it
 * fetched (each page adds at most one bvec and the batch is no larger
 * than the free slots).
 */
static void add_batch(struct plain_ctx *c, uint64_t addr, uint64_t len)
{
	uint64_t i = page_index(c, addr);
	uint32_t off = addr & (HB_PAGE_SIZE - 1);

	c->out->batches++;
	while (len) {
		uint64_t in_page = HB_PAGE_SIZE - off;
		uint64_t take, folio_left, n;

		/*
		 * km->plain_folio_runs: plain O_DIRECT
		 * (bio_iov_iter_get_pages(), no registered buffer) adds a
		 * physically contiguous run of one folio with one call
		 * (ed9832bc08db, 6.12; 6.1 with our block feature) instead of
		 * one 4 KiB page at a time (docs/kernel-rules.md §9.2).
		 */
		if (!c->km->plain_folio_runs) {
			take = in_page < len ? in_page : len;
			add_range(c, i, off, take);
			i++;
		} else {
			folio_left = (HB_PAGE_SIZE << c->pages[i].order) -
				     ((uint64_t)c->pages[i].idx << HB_PAGE_SHIFT) -
				     off;
			take = folio_left < len ? folio_left : len;
			n = run_pages(c, i, span_pages(off, take));
			if (n < span_pages(off, take))
				take = n * HB_PAGE_SIZE - off;
			add_range(c, i, off, take);
			i += span_pages(off, take);
		}
		addr += take;
		len -= take;
		off = 0;
	}
}

/*
 * The device requests the bio adds under @q: the split of its bvecs, less
 * one when the whole bio joins the request before it.  The split's front
 * parts carry REQ_NOMERGE (bio_split_to_limits()); the last part of the
 * previous bio does not, and it is the last request of the I/O's plug, so
 * blk_attempt_plug_merge() appends a bio that was not split to it when
 * the sum fits max_sectors and max_segments (ll_back_merge_fn()).  @last
 * is that request (bytes 0: none yet), updated.
 */
static unsigned int bio_requests(const struct plain_bio *b,
				 const struct hb_queue_limits *q,
				 struct hb_bio_split *last)
{
	struct hb_bio_split sp;
	struct hb_imu imu;
	unsigned int i;

	memset(&imu, 0, sizeof(imu));
	imu.nr_bvecs = b->vcnt;
	imu.bvec = (struct hb_bvec *)b->bv;
	for (i = 0; i < b->vcnt; i++)
		imu.len += b->bv[i].len;
	if (hb_split_bio(&imu, q, &sp))
		return 0;
	if (sp.requests == 1 && last->last_bytes &&
	    last->last_bytes + sp.last_bytes <= q->max_hw_bytes &&
	    last->last_segs + sp.last_segs <= q->max_segments) {
		last->last_bytes += sp.last_bytes;
		last->last_segs += sp.last_segs;
		return 0;
	}
	*last = sp;
	return sp.requests;
}

static int check_iovecs(uint64_t base, uint64_t span, const struct iovec *iov,
			unsigned int nr_iov)
{
	unsigned int k;

	if (!nr_iov)
		return hb_seterr(EINVAL, "no iovec to model");
	for (k = 0; k < nr_iov; k++) {
		uint64_t a = (uintptr_t)iov[k].iov_base, l = iov[k].iov_len;

		if (a % SECTOR || l % SECTOR)
			return hb_seterr(EINVAL, "iovec %u (%llu bytes at "
					 "0x%llx) is not 512-byte aligned: "
					 "O_DIRECT needs aligned address and "
					 "length", k, (unsigned long long)l,
					 (unsigned long long)a);
		if (a < base || l > span || a - base > span - l)
			return hb_seterr(EINVAL, "iovec %u lies outside the "
					 "buffer it is modelled in", k);
	}
	return 0;
}

/*
 * iov_iter_npages() of what is left: the rest of iovec @k from @addr
 * (@seg_left bytes), then the later iovecs, each counted on its own
 */
static uint64_t iter_npages(const struct iovec *iov, unsigned int nr_iov,
			    unsigned int k, uint64_t addr, uint64_t seg_left)
{
	uint64_t n = span_pages(addr, seg_left);

	for (k++; k < nr_iov; k++)
		n += span_pages((uintptr_t)iov[k].iov_base, iov[k].iov_len);
	return n;
}

/*
 * One bio: batches until the I/O is done or the bio has no free slot
 * (bio_iov_iter_get_pages() and bio_full()).  Advances the iterator
 * (@k, @addr, @seg_left).
 */
static void build_bio(struct plain_ctx *c, const struct iovec *iov,
		      unsigned int nr_iov, unsigned int *k, uint64_t *addr,
		      uint64_t *seg_left)
{
	struct plain_bio *b = &c->bio;
	uint64_t npages = iter_npages(iov, nr_iov, *k, *addr, *seg_left);

	b->max_vecs = npages < BIO_MAX_VECS ? npages : BIO_MAX_VECS;
	b->vcnt = 0;
	c->out->bios++;
	while (b->vcnt < b->max_vecs) {
		uint64_t room = b->max_vecs - b->vcnt, pages_n, bytes;

		while (!*seg_left && *k + 1 < nr_iov) {
			(*k)++;
			*addr = (uintptr_t)iov[*k].iov_base;
			*seg_left = iov[*k].iov_len;
		}
		if (!*seg_left)
			break;
		pages_n = span_pages(*addr, *seg_left);
		if (pages_n > room)
			pages_n = room;
		bytes = pages_n * HB_PAGE_SIZE - (*addr & (HB_PAGE_SIZE - 1));
		if (bytes > *seg_left)
			bytes = *seg_left;
		add_batch(c, *addr, bytes);
		*addr += bytes;
		*seg_left -= bytes;
	}
}

int hb_model_plain(const struct hb_kmodel *km, const struct hb_page *pages,
		   const uint64_t *pfn, uint64_t base, uint64_t span,
		   const struct iovec *iov, unsigned int nr_iov,
		   const struct hb_queue_limits *q, struct hb_plain_pred *out)
{
	struct hb_bio_split last = { 0 };
	struct plain_ctx *c;
	uint64_t addr, seg_left;
	unsigned int k = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = check_iovecs(base, span, iov, nr_iov);
	if (ret)
		return ret;
	c = calloc(1, sizeof(*c));
	if (!c)
		return hb_seterr(ENOMEM, "out of memory for the plain model");
	c->km = km;
	c->pages = pages;
	c->pfn = pfn;
	c->base = base;
	c->out = out;
	addr = (uintptr_t)iov[0].iov_base;
	seg_left = iov[0].iov_len;
	while (iter_npages(iov, nr_iov, k, addr, seg_left)) {
		build_bio(c, iov, nr_iov, &k, &addr, &seg_left);
		if (c->bio.vcnt > out->max_bvecs)
			out->max_bvecs = c->bio.vcnt;
		if (q)
			out->requests += bio_requests(&c->bio, q, &last);
	}
	free(c);
	return 0;
}
