// SPDX-License-Identifier: GPL-2.0-only
/*
 * The DMA-mapping work of one registered-buffer I/O on NVMe PCIe behind an
 * Intel IOMMU (pure): dma-iommu (drivers/iommu/dma-iommu.c) allocating
 * IOVA space (drivers/iommu/iova.c), the IOMMU core (drivers/iommu/
 * iommu.c) cutting ranges into page sizes, intel-iommu (drivers/iommu/
 * intel/iommu.c) writing and clearing them.  Read in 6.1 and 6.12; where
 * nothing is said the two have the same code.  7.3 maps a request of more
 * than one segment through the IOVA-based DMA API instead (block/
 * blk-mq-dma.c, drivers/iommu/dma-iommu.c): a generation of its own,
 * enum hb_iommu_gen, chosen by hb_iommu_gen_of() alone.
 *
 * The I/O's bvecs come from the registration model (hb_model_register(),
 * hb_model_import()), its requests from the block split
 * (hb_split_bio_reqs()) or the passthrough model (hb_model_pt_map()).
 *
 * IOVA addresses.  Only an IOVA's alignment enters the figures: every
 * allocation is aligned to its size rounded up to a power of two
 * (alloc_iova(..., size_aligned = true): fls_long(size - 1)), so inside one
 * mapping of IOVA length L the offset modulo any page size P <= L is known.
 * A page size above L is never picked (iommu_pgsize() keeps sizes <= the
 * bytes left), so the real address, which may be more aligned, changes
 * nothing.  The model places each mapping at an address of exactly that
 * alignment.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define IO_SECTOR 512ULL
#define PTE_LEVELS 3 /* 4 KiB, 2 MiB, 1 GiB */

void hb_iommu_cfg_default(struct hb_iommu_cfg *c, bool strict)
{
	memset(c, 0, sizeof(*c));
	c->translated = true;
	c->strict = strict;
	/* SZ_4K | domain_super_pgsize_bitmap() with 2 MiB superpages */
	c->pgsize_bitmap = (1ULL << 12) | (1ULL << 21);
	/* IOVA_RANGE_CACHE_MAX_SIZE, 6.1 and 6.12 drivers/iommu/iova.c */
	c->rcache_max_order = 6;
	c->sgl = true;
}

/*
 * nvme-pci's nvme_map_data() calls blk_rq_dma_map_iter_start() from 6.17:
 * Debian's 6.17.13 image exports it (and dma_iova_try_alloc()), 6.16.12's
 * exports dma_iova_try_alloc() only, its nvme-pci still on
 * blk_rq_map_sg().  The backport (6.1+hugebuf) is 6.1 underneath.
 */
enum hb_iommu_gen hb_iommu_gen_of(const struct hb_kmodel *km)
{
	if (km->kmajor > 6 || (km->kmajor == 6 && km->kminor >= 17))
		return HB_IOMMU_GEN_IOVA;
	return HB_IOMMU_GEN_SG;
}

const char *hb_iommu_gen_name(enum hb_iommu_gen g)
{
	return g == HB_IOMMU_GEN_IOVA ? "iova" : "sg";
}

/* ------------------------------------------------------------------ */
/* bit helpers                                                          */
/* ------------------------------------------------------------------ */

static unsigned int fls64_idx(uint64_t v) /* __fls(): v != 0 */
{
	return 63 - (unsigned int)__builtin_clzll(v);
}

static unsigned int ffs64_idx(uint64_t v) /* __ffs(): v != 0 */
{
	return (unsigned int)__builtin_ctzll(v);
}

static uint64_t genmask(unsigned int hi) /* GENMASK(hi, 0) */
{
	return hi >= 63 ? ~0ULL : (2ULL << hi) - 1;
}

static unsigned int order_base_2(uint64_t n)
{
	return n <= 1 ? 0 : fls64_idx(n - 1) + 1;
}

static uint64_t roundup_pow2(uint64_t n)
{
	return 1ULL << order_base_2(n);
}

/* ------------------------------------------------------------------ */
/* the I/O's bvecs and their physical addresses                          */
/* ------------------------------------------------------------------ */

/* PFN of page @idx of @folio, found through any page of it in the buffer */
struct pfn_map {
	const struct hb_page *pages;
	const uint64_t *pfn;
	uint64_t nr;
	uint64_t hint;
};

static int bvec_phys(struct pfn_map *m, const struct hb_bvec *bv,
		     uint64_t *phys)
{
	uint64_t n, j;

	for (n = 0; n < m->nr; n++) {
		j = (m->hint + n) % m->nr;
		if (m->pages[j].folio != bv->folio)
			continue;
		m->hint = j;
		/* a folio's pages are physically contiguous */
		*phys = ((m->pfn[j] - m->pages[j].idx + bv->page_idx)
			 << HB_PAGE_SHIFT) +
			bv->offset;
		return 0;
	}
	return hb_seterr(EINVAL, "a bvec's folio is not among the pages");
}

/*
 * The bvecs the I/O's bio carries: io_import_fixed() leaves an iterator
 * starting iov_offset into imu->bvec[bvec_idx]; bio_iov_bvec_set() hands
 * the bio those bvecs, and mp_bvec_iter_bvec() shows each one from
 * bv_offset + bi_bvec_done, cut to the bytes left.  @io gets those views
 * (bv_offset as the kernel sees it) and @phys their physical addresses.
 */
static int io_bvecs(const struct hb_imu *imu, const struct hb_import *im,
		    uint64_t len, struct pfn_map *m, struct hb_imu *io,
		    uint64_t **phys)
{
	uint64_t skip = im->iov_offset, left = len;
	unsigned int i, n = 0;
	int ret;

	*io = *imu;
	io->bvec = calloc(imu->nr_bvecs + 1, sizeof(*io->bvec));
	*phys = calloc(imu->nr_bvecs + 1, sizeof(**phys));
	if (!io->bvec || !*phys)
		return hb_seterr(ENOMEM, "out of memory for %u bvecs",
				 imu->nr_bvecs);
	for (i = im->bvec_idx; i < imu->nr_bvecs && left; i++, skip = 0) {
		struct hb_bvec bv = imu->bvec[i];

		bv.offset += skip;
		if (bv.len - skip > left)
			bv.len = (uint32_t)(left + skip);
		bv.len -= (uint32_t)skip;
		if (!bv.len)
			continue;
		ret = bvec_phys(m, &bv, &(*phys)[n]);
		if (ret)
			return ret;
		io->bvec[n++] = bv;
		left -= bv.len;
	}
	if (left)
		return hb_seterr(EINVAL, "the I/O runs past the registered "
					 "buffer's bvecs");
	io->nr_bvecs = n;
	io->len = len;
	return 0;
}

/* ------------------------------------------------------------------ */
/* the work, counted                                                    */
/* ------------------------------------------------------------------ */

/* A scatterlist entry as blk_rq_map_sg() leaves it: sg_phys(), length. */
struct sg_ent {
	uint64_t phys;
	uint64_t len;
};

/* A range one map_pages call wrote, for the unmap's PTE lookups. */
struct map_chunk {
	uint64_t iova;
	uint64_t pgsize;
	uint64_t count;
};

struct iommu_run {
	enum hb_iommu_gen gen;
	const struct hb_iommu_cfg *cfg;
	const struct hb_queue_limits *lim;
	struct hb_iommu_pred *out;
	struct sg_ent *ent;
	size_t nent, ent_cap;
	struct map_chunk *ch;
	size_t nch, ch_cap;
};

static int grow(void **arr, size_t *cap, size_t want, size_t elem)
{
	size_t n = *cap ? *cap : 16;
	void *p;

	if (want <= *cap)
		return 0;
	while (n < want)
		n *= 2;
	p = realloc(*arr, n * elem);
	if (!p)
		return hb_seterr(ENOMEM, "out of memory for %zu entries", n);
	*arr = p;
	*cap = n;
	return 0;
}

static int add_ent(struct iommu_run *r, uint64_t phys, uint64_t len)
{
	int ret = grow((void **)&r->ent, &r->ent_cap, r->nent + 1,
		       sizeof(*r->ent));

	if (!ret)
		r->ent[r->nent++] = (struct sg_ent){ phys, len };
	return ret;
}

/*
 * get_max_segment_size() (block/blk-merge.c; 6.1 and 6.12 compute the
 * same): the bytes from @phys to the next segment boundary, capped by
 * max_segment_size.  NVMe: boundary 4 GiB, max_segment_size UINT_MAX (the
 * virt boundary lifts it), so only a 4 GiB crossing cuts.
 */
static uint64_t seg_room(const struct hb_queue_limits *lim, uint64_t phys)
{
	uint64_t mask = lim->seg_boundary_mask ? lim->seg_boundary_mask : ~0ULL;
	uint64_t room = mask - (mask & phys) + 1;
	uint64_t max = lim->max_segment_size ? lim->max_segment_size : ~0ULL;

	return room && room < max ? room : max;
}

/*
 * blk_rq_map_sg() -> __blk_bios_map_sg() (block/blk-merge.c, 6.1; 6.12
 * has the same code): the request is one bio here, whose bvecs are never
 * merged with each other (only the first bvec of a following bio is
 * tried against the last one): a bvec inside one page is one entry
 * (__blk_bvec_map_sg()), a larger one is cut at segment boundaries
 * (blk_bvec_map_sg()).  Physically adjacent bvecs stay separate entries;
 * iommu_map_sg() joins them later.
 */
static int map_sg_entries(struct iommu_run *r, const struct hb_imu *io,
			  const uint64_t *phys, unsigned int i, uint64_t done,
			  uint64_t bytes)
{
	int ret = 0;

	r->nent = 0;
	for (; bytes && i < io->nr_bvecs; i++, done = 0) {
		uint64_t off = io->bvec[i].offset + done;
		uint64_t p = phys[i] + done;
		uint64_t len = io->bvec[i].len - done, cut;

		if (len > bytes)
			len = bytes;
		bytes -= len;
		if (off + len <= HB_PAGE_SIZE) {
			ret = add_ent(r, p, len);
			continue;
		}
		for (; len && !ret; p += cut, len -= cut) {
			cut = seg_room(r->lim, p);
			if (cut > len)
				cut = len;
			ret = add_ent(r, p, cut);
		}
		if (ret)
			break;
	}
	return ret;
}

/*
 * iommu_pgsize() (drivers/iommu/iommu.c, 6.1 and 6.12): the largest page
 * size of the domain dividing iova | paddr and not above @size; @count of
 * them, stopping at the next larger size's boundary when iova and paddr
 * sit alike in that larger page and a whole one fits after it.
 */
static uint64_t iommu_pgsize(uint64_t bitmap, uint64_t iova, uint64_t paddr,
			     uint64_t size, uint64_t *count)
{
	uint64_t merge = iova | paddr, sizes, next, pgsize, pn, off;
	unsigned int idx;

	sizes = bitmap & genmask(fls64_idx(size));
	if (merge)
		sizes &= genmask(ffs64_idx(merge));
	if (!sizes)
		return 0; /* the kernel's BUG_ON() */
	idx = fls64_idx(sizes);
	pgsize = 1ULL << idx;
	next = bitmap & ~genmask(idx);
	if (next) {
		pn = 1ULL << ffs64_idx(next);
		if (!((iova ^ paddr) & (pn - 1))) {
			off = pn - (merge & (pn - 1));
			if (off + pn <= size)
				size = off;
		}
	}
	*count = size >> idx;
	return pgsize;
}

static void count_ptes(struct hb_iommu_pred *out, uint64_t pgsize,
		       uint64_t count)
{
	unsigned int lvl = (ffs64_idx(pgsize) - HB_PAGE_SHIFT) / 9;

	if (lvl < PTE_LEVELS)
		out->ptes[lvl] += count;
}

/*
 * __iommu_map() (drivers/iommu/iommu.c; 6.1 through __iommu_map_pages()):
 * one ops->map_pages per iommu_pgsize() chunk.  intel_iommu_map_pages()
 * writes @count leaf entries of @pgsize (__domain_mapping()).
 */
static int iommu_map(struct iommu_run *r, uint64_t iova, uint64_t paddr,
		     uint64_t size)
{
	uint64_t pgsize, count;
	int ret;

	r->out->iommu_maps++;
	while (size) {
		pgsize = iommu_pgsize(r->cfg->pgsize_bitmap, iova, paddr, size,
				      &count);
		if (!pgsize || !count)
			return hb_seterr(EINVAL,
					 "no IOMMU page size fits a "
					 "%llu-byte range",
					 (unsigned long long)size);
		ret = grow((void **)&r->ch, &r->ch_cap, r->nch + 1,
			   sizeof(*r->ch));
		if (ret)
			return ret;
		r->ch[r->nch++] = (struct map_chunk){ iova, pgsize, count };
		/* 7.3: one pt->ops->map_range() per call, no map_pages */
		if (r->gen == HB_IOMMU_GEN_SG)
			r->out->map_pages++;
		count_ptes(r->out, pgsize, count);
		iova += pgsize * count;
		paddr += pgsize * count;
		size -= pgsize * count;
	}
	return 0;
}

/*
 * alloc_iova_fast() (drivers/iommu/iova.c, 6.1 and 6.12), called once by
 * iommu_dma_alloc_iova() (dma-iommu.c) when the 32-bit (SAC) try finds
 * room: sizes below 1 << (IOVA_RANGE_CACHE_MAX_SIZE - 1) pages are rounded
 * up to a power of two; iova_rcache_get() serves none of order_base_2()
 * >= IOVA_RANGE_CACHE_MAX_SIZE, which go to alloc_iova() every time.
 * Returns the IOVA, aligned as alloc_iova() aligns (see the top).
 */
static uint64_t alloc_iova(struct iommu_run *r, uint64_t pages)
{
	unsigned int max_order = r->cfg->rcache_max_order;

	if (max_order && pages < (1ULL << (max_order - 1)))
		pages = roundup_pow2(pages);
	r->out->iova_allocs++;
	if (order_base_2(pages) >= max_order)
		r->out->iova_uncached++;
	r->out->iova_bytes += pages << HB_PAGE_SHIFT;
	return roundup_pow2(pages) << HB_PAGE_SHIFT;
}

/* The leaf size intel-iommu has at @iova (pfn_to_dma_pte()'s level). */
static uint64_t leaf_at(const struct iommu_run *r, uint64_t iova)
{
	size_t i;

	for (i = 0; i < r->nch; i++)
		if (iova >= r->ch[i].iova &&
		    iova - r->ch[i].iova < r->ch[i].pgsize * r->ch[i].count)
			return r->ch[i].pgsize;
	return HB_PAGE_SIZE;
}

/*
 * __iommu_dma_unmap() (dma-iommu.c, 6.1 and 6.12): one iommu_unmap_fast()
 * over the whole aligned IOVA range.  __iommu_unmap() cuts it with
 * iommu_pgsize(iova, iova, ...) and calls ops->unmap_pages per piece;
 * intel_iommu_unmap() widens a piece smaller than the leaf it starts in to
 * that leaf and returns what it cleared, which the loop advances by.
 * Strict (no flush queue, gather.queued false): iommu_iotlb_sync() ->
 * intel_iommu_tlb_sync() once.  Lazy: no sync; iommu_dma_free_iova()
 * hands the range to queue_iova() (the flush queue's own timer or a full
 * queue flushes later, outside this I/O).
 */
static void dma_unmap(struct iommu_run *r, uint64_t iova, uint64_t size,
		      bool destroy)
{
	uint64_t done = 0, pgsize, count, got, leaf;

	r->out->unmaps++;
	/*
	 * 7.3's __iommu_unmap(): one pt->ops->unmap_range() over the range
	 * (the generic page table), no unmap_pages
	 */
	while (r->gen == HB_IOMMU_GEN_SG && done < size) {
		pgsize = iommu_pgsize(r->cfg->pgsize_bitmap, iova, iova,
				      size - done, &count);
		if (!pgsize)
			break;
		got = pgsize * count;
		leaf = leaf_at(r, iova);
		if (got < leaf)
			got = leaf;
		r->out->unmap_pages++;
		iova += got;
		done += got;
	}
	/*
	 * dma_iova_destroy() -> dma_iova_unlink() (7.3 dma-iommu.c): its
	 * iotlb_gather is never queued, so iommu_iotlb_sync() runs in lazy
	 * mode too, and dma_iova_free() frees the IOVA with
	 * free_iova_fast(), past the flush queue
	 */
	if (r->cfg->strict || destroy)
		r->out->iotlb_syncs++;
	else
		r->out->fq_queued++;
}

/*
 * One DMA map of the entries r->ent and its unmap when the request ends.
 * iommu_dma_map_sg() (and __iommu_dma_map() for map_page, one entry):
 * each entry takes iova_align(offset in its 4 KiB page + length) of IOVA,
 * laid out back to back in one allocation; the segment-boundary padding
 * applies only to a mapping reaching 4 GiB, which a request (at most
 * max_hw_sectors, under 4 GiB) never does.  iommu_map_sg() (6.12;
 * __iommu_map_sg() in 6.1) then joins entries whose aligned physical
 * range continues the previous one into one __iommu_map(), and calls
 * ops->iotlb_sync_map once; map_page's iommu_map() (6.12; 6.1
 * iommu_map_atomic() -> _iommu_map()) is one __iommu_map() and one
 * iotlb_sync_map.  intel-iommu has iotlb_sync_map in both.
 */
static int dma_map(struct iommu_run *r)
{
	uint64_t iova_len = 0, iova, mapped = 0, start = 0, len = 0;
	size_t i;
	int ret;

	for (i = 0; i < r->nent; i++) {
		uint64_t off = r->ent[i].phys & (HB_PAGE_SIZE - 1);

		iova_len += HB_ALIGN_UP(r->ent[i].len + off, HB_PAGE_SIZE);
	}
	r->nch = 0;
	iova = alloc_iova(r, iova_len >> HB_PAGE_SHIFT);
	for (i = 0; i < r->nent; i++) {
		uint64_t off = r->ent[i].phys & (HB_PAGE_SIZE - 1);
		uint64_t p = r->ent[i].phys - off;
		uint64_t l = HB_ALIGN_UP(r->ent[i].len + off, HB_PAGE_SIZE);

		if (len && p != start + len) {
			ret = iommu_map(r, iova + mapped, start, len);
			if (ret)
				return ret;
			mapped += len;
			len = 0;
		}
		if (!len)
			start = p;
		len += l;
	}
	if (len) {
		ret = iommu_map(r, iova + mapped, start, len);
		if (ret)
			return ret;
	}
	r->out->sync_map++;
	dma_unmap(r, iova, iova_len, false);
	return 0;
}

/*
 * blk_map_iter_next() (7.3 block/blk-mq-dma.c): a bvec cut at the segment
 * boundary (get_max_segment_size()), and once a bvec is used up the next
 * ones joined to it while biovec_phys_mergeable() and the room to the
 * boundary allow: map_sg_entries()' entries, physically continuing ones
 * joined within seg_room().
 */
static void join_vecs(struct iommu_run *r)
{
	size_t i, n = 0;

	for (i = 0; i < r->nent; i++) {
		struct sg_ent *c = n ? &r->ent[n - 1] : NULL;

		if (c && c->phys + c->len == r->ent[i].phys &&
		    c->len + r->ent[i].len <= seg_room(r->lim, c->phys))
			c->len += r->ent[i].len;
		else
			r->ent[n++] = r->ent[i];
	}
	r->nent = n;
}

/*
 * blk_can_dma_map_iova() (7.3): req_phys_gap_mask(), the lowest bit where
 * a segment starts or the one before ends (bvec_seg_gap() of
 * bio_split_io_at(), block/blk-merge.c), must clear the merge boundary,
 * iommu_dma_get_merge_boundary(): the domain's smallest page size - 1.
 * dma-direct's boundary is 0 (dma_get_merge_boundary()): always allowed.
 */
static bool iova_allowed(const struct iommu_run *r)
{
	uint64_t gaps = 0, boundary;
	size_t i;

	if (!r->cfg->translated)
		return true;
	boundary = (r->cfg->pgsize_bitmap & -r->cfg->pgsize_bitmap) - 1;
	for (i = 1; i < r->nent; i++)
		gaps |= r->ent[i].phys |
			(r->ent[i - 1].phys + r->ent[i - 1].len);
	return !(gaps & boundary);
}

/*
 * blk_rq_dma_map_iova() (7.3): dma_iova_try_alloc() took one IOVA range of
 * iova_align(payload + the first segment's offset in its granule), as
 * __iommu_dma_map() sizes one (iommu_dma_alloc_iova(): alloc_iova_fast());
 * each segment is one dma_iova_link() -> __dma_iova_link() ->
 * iommu_map_nosync() at its offset in that range, then one dma_iova_sync()
 * -> iommu_sync_map() -> ops->iotlb_sync_map.  nvme_unmap_data() ->
 * blk_rq_dma_unmap() -> dma_iova_destroy(): one iommu_unmap_fast() over
 * the whole range (dma_unmap()).
 */
static int iova_map(struct iommu_run *r, uint64_t bytes)
{
	uint64_t off = r->ent[0].phys & (HB_PAGE_SIZE - 1), iova, mapped = 0;
	uint64_t len = HB_ALIGN_UP(bytes + off, HB_PAGE_SIZE);
	size_t i;
	int ret;

	r->nch = 0;
	iova = alloc_iova(r, len >> HB_PAGE_SHIFT);
	for (i = 0; i < r->nent; i++) {
		uint64_t o = r->ent[i].phys & (HB_PAGE_SIZE - 1);
		uint64_t l = HB_ALIGN_UP(r->ent[i].len + o, HB_PAGE_SIZE);

		r->out->iova_links++;
		ret = iommu_map(r, iova + mapped, r->ent[i].phys - o, l);
		if (ret)
			return ret;
		mapped += l;
	}
	r->out->sync_map++;
	dma_unmap(r, iova, len, true);
	return 0;
}

/*
 * blk_dma_map_direct() (7.3): each segment its own dma_map_phys().  Under
 * dma-direct that is all (dma_direct_map_phys()).  Translated, a request
 * lands here only when its segments leave a gap inside an IOMMU granule,
 * which a registered buffer's never do (its bvecs meet at page
 * boundaries; only the I/O's first start and last end are off one): not
 * modelled rather than guessed.
 */
static int direct_map(struct iommu_run *r)
{
	if (r->cfg->translated)
		return hb_seterr(EOPNOTSUPP, "segments with gaps inside an "
					     "IOMMU granule are not modelled");
	r->out->map_phys += (unsigned int)r->nent;
	return 0;
}

/*
 * HB_IOMMU_GEN_IOVA's request of more than one segment (or a single one
 * the simple path declines): nvme_map_data() -> blk_rq_dma_map_iter_start()
 * and _next() until the segments run out (nvme_pci_setup_data_prp() or
 * _sgl(): both walk every segment, the counts do not depend on which).
 */
static int iova_request(struct iommu_run *r, const struct hb_imu *io,
			const uint64_t *phys, unsigned int i, uint64_t done,
			uint64_t bytes)
{
	bool iova;
	int ret;

	ret = map_sg_entries(r, io, phys, i, done, bytes);
	if (ret)
		return ret;
	iova = iova_allowed(r);
	join_vecs(r);
	r->out->dma_vecs += (unsigned int)r->nent;
	if (iova)
		r->out->iova_tries++;
	if (iova && r->cfg->translated)
		return iova_map(r, bytes);
	return direct_map(r);
}

/*
 * nvme_map_data() (drivers/nvme/host/pci.c, 6.1 and 6.12; an I/O queue,
 * no metadata SGLs): a request of one physical segment whose first bvec
 * (req_bvec()) has (bv_offset & 4095) + bv_len <= 8 KiB goes to
 * nvme_setup_prp_simple(); else, with SGLs, to nvme_setup_sgl_simple():
 * both dma_map_bvec() -> dma_map_page_attrs() -> iommu_dma_map_page().
 * Anything else: blk_rq_map_sg() and dma_map_sgtable() ->
 * iommu_dma_map_sg().
 */
static bool simple_path(const struct iommu_run *r, const struct hb_imu *io,
			unsigned int i, uint64_t done, uint64_t bytes,
			unsigned int nr_phys_segments)
{
	uint64_t off = io->bvec[i].offset + done;
	uint64_t len = io->bvec[i].len - done;

	if (nr_phys_segments != 1)
		return false;
	if (len > bytes)
		len = bytes;
	return (off & (HB_PAGE_SIZE - 1)) + len <= 2 * HB_PAGE_SIZE ||
	       r->cfg->sgl;
}

static int one_request(struct iommu_run *r, const struct hb_imu *io,
		       const uint64_t *phys, unsigned int i, uint64_t done,
		       uint64_t bytes, unsigned int nr_phys_segments)
{
	int ret;

	r->out->requests++;
	if (simple_path(r, io, i, done, bytes, nr_phys_segments)) {
		uint64_t len = io->bvec[i].len - done;

		r->nent = 0;
		ret = add_ent(r, phys[i] + done, len < bytes ? len : bytes);
		if (ret)
			return ret;
		r->out->map_page++;
		/* 7.3: dma_map_bvec() -> dma_map_page_attrs() -> _phys() */
		if (r->gen == HB_IOMMU_GEN_IOVA)
			r->out->map_phys++;
		return r->cfg->translated ? dma_map(r) : 0;
	}
	if (r->gen == HB_IOMMU_GEN_IOVA)
		return iova_request(r, io, phys, i, done, bytes);
	ret = map_sg_entries(r, io, phys, i, done, bytes);
	if (ret)
		return ret;
	r->out->map_sg++;
	r->out->sg_entries += (unsigned int)r->nent;
	/* dma_direct_map_sg()/_page(): no IOVA, no page table */
	return r->cfg->translated ? dma_map(r) : 0;
}

/* Walk @bytes forward through the bvecs from (@i, @done). */
static void advance(const struct hb_imu *io, unsigned int *i, uint64_t *done,
		    uint64_t bytes)
{
	while (bytes && *i < io->nr_bvecs) {
		uint64_t left = io->bvec[*i].len - *done;

		if (bytes < left) {
			*done += bytes;
			return;
		}
		bytes -= left;
		*done = 0;
		(*i)++;
	}
}

/*
 * The block path: blkdev's direct I/O puts the whole bvec iterator in one
 * bio (bio_iov_bvec_set()); blk_mq_submit_bio() splits it by max_sectors
 * (NVMe: max_hw_sectors), max_segments and max_segment_size, and each
 * request records the split's segment count (hb_split_bio_reqs()).
 */
static int block_requests(struct iommu_run *r, const struct hb_imu *io,
			  const uint64_t *phys)
{
	struct hb_split_req *req;
	struct hb_bio_split sp;
	unsigned int k, i = 0;
	uint64_t done = 0;
	int ret;

	if (hb_split_bio(io, r->lim, &sp))
		return hb_seterr(EINVAL, "the queue limits cannot split the "
					 "I/O");
	req = calloc(sp.requests, sizeof(*req));
	if (!req)
		return hb_seterr(ENOMEM, "out of memory for %u requests",
				 sp.requests);
	hb_split_bio_reqs(io, r->lim, &sp, req, sp.requests);
	for (k = 0, ret = 0; k < sp.requests && !ret; k++) {
		ret = one_request(r, io, phys, i, done, req[k].bytes,
				  req[k].nr_phys_segments);
		advance(io, &i, &done, req[k].bytes);
	}
	free(req);
	return ret;
}

/*
 * Passthrough: nvme_map_user_request() -> blk_rq_map_user_iov(); the one
 * request holds the registered pages when hb_model_pt_map() says direct,
 * with its nr_phys_segments (6.1: the iterator's nr_segs).
 */
static int pt_request(struct iommu_run *r, const struct hb_kmodel *km,
		      const struct hb_imu *imu, const struct hb_imu *io,
		      const uint64_t *phys, uint64_t addr, uint64_t len)
{
	struct hb_pt_map pm;
	int ret;

	ret = hb_model_pt_map(km, imu, addr, len, r->lim, &pm);
	if (ret)
		return ret;
	if (pm.path == HB_PT_EINVAL) {
		r->out->error = -EINVAL;
		return 0;
	}
	if (pm.path == HB_PT_COPY)
		return hb_seterr(EOPNOTSUPP,
				 "passthrough copies through "
				 "bounce pages (%s): their addresses are not "
				 "known",
				 pm.why);
	return one_request(r, io, phys, 0, 0, len, pm.nr_phys_segments);
}

static int check_args(const struct hb_kmodel *km, const struct hb_page *pages,
		      const uint64_t *pfn, uint64_t base, uint64_t span,
		      uint64_t addr, uint64_t len,
		      const struct hb_queue_limits *lim,
		      const struct hb_iommu_cfg *cfg, struct hb_iommu_pred *out)
{
	if (!km || !pages || !pfn || !lim || !cfg || !out)
		return hb_seterr(EINVAL, "hb_model_iommu_io: NULL argument");
	if (!len || len % IO_SECTOR)
		return hb_seterr(EINVAL, "the I/O's length must be a non-zero "
					 "multiple of 512");
	if (addr < base || addr + len > base + span || addr + len < addr)
		return hb_seterr(EINVAL, "the I/O is not inside the buffer");
	if (!(cfg->pgsize_bitmap & HB_PAGE_SIZE) || !cfg->rcache_max_order)
		return hb_seterr(EINVAL, "the IOMMU needs 4 KiB pages and an "
					 "rcache order");
	if (lim->max_hw_bytes < IO_SECTOR || !lim->max_segments)
		return hb_seterr(EINVAL, "queue limits need max_hw and "
					 "max_segments");
	return 0;
}

int hb_model_iommu_io(const struct hb_kmodel *km, const struct hb_page *pages,
		      const uint64_t *pfn, uint64_t base, uint64_t span,
		      uint64_t addr, uint64_t len, bool pt,
		      const struct hb_queue_limits *lim,
		      const struct hb_iommu_cfg *cfg, struct hb_iommu_pred *out)
{
	struct pfn_map m = { pages, pfn, hb_nr_pages(base, span), 0 };
	struct iommu_run r = { .cfg = cfg, .lim = lim, .out = out };
	struct hb_imu imu = { 0 }, io = { 0 };
	uint64_t *phys = NULL;
	struct hb_import im;
	int ret;

	ret = check_args(km, pages, pfn, base, span, addr, len, lim, cfg, out);
	if (ret)
		return ret;
	memset(out, 0, sizeof(*out));
	out->gen = r.gen = hb_iommu_gen_of(km);
	/*
	 * Before 5.12 the bio is refilled page by page (km's comment): its
	 * bvecs are not the imu's.
	 */
	if (km->fixed_bio_add_page && !pt)
		return hb_seterr(EOPNOTSUPP, "fixed I/O through bio_add_page() "
					     "(before 5.12) is not modelled");
	ret = hb_imu_build(km, pages, base, span, &imu);
	if (ret)
		return ret;
	ret = hb_model_import(km, &imu, addr, len, &im);
	if (!ret)
		ret = io_bvecs(&imu, &im, len, &m, &io, &phys);
	if (!ret && pt)
		ret = pt_request(&r, km, &imu, &io, phys, addr, len);
	else if (!ret)
		ret = block_requests(&r, &io, phys);
	free(r.ent);
	free(r.ch);
	free(phys);
	free(io.bvec);
	hb_imu_free(&imu);
	return ret;
}

/* the dma-iommu entry points run only under translation */
static uint64_t translated_only(const struct hb_iommu_cfg *c, uint64_t v)
{
	return c->translated ? v : 0;
}

uint64_t hb_iommu_figure(const struct hb_iommu_pred *p,
			 const struct hb_iommu_cfg *c, enum hb_iommu_field f)
{
	switch (f) {
	case HB_IOMMU_REQUESTS:
		return p->requests;
	case HB_IOMMU_DMA_MAP_PAGE:
		return p->map_page;
	case HB_IOMMU_DMA_MAP_SG:
		return p->map_sg;
	case HB_IOMMU_MAP_PAGE:
		/* 7.3: iommu_dma_map_phys(), every dma_map_phys() */
		return translated_only(c, p->gen == HB_IOMMU_GEN_IOVA ?
						  p->map_phys :
						  p->map_page);
	case HB_IOMMU_MAP_SG:
		return translated_only(c, p->map_sg);
	case HB_IOMMU_IOVA_ALLOCS:
		return p->iova_allocs;
	case HB_IOMMU_IOVA_UNCACHED:
		return p->iova_uncached;
	case HB_IOMMU_MAPS:
		return p->iommu_maps;
	case HB_IOMMU_MAP_PAGES:
		return p->map_pages;
	case HB_IOMMU_PTES_4K:
		return p->ptes[0];
	case HB_IOMMU_PTES_2M:
		return p->ptes[1];
	case HB_IOMMU_SYNC_MAP:
		return p->sync_map;
	case HB_IOMMU_UNMAPS:
		return p->unmaps;
	case HB_IOMMU_UNMAP_PAGES:
		return p->unmap_pages;
	case HB_IOMMU_IOTLB_SYNCS:
		return p->iotlb_syncs;
	case HB_IOMMU_IOVA_TRIES:
		return p->iova_tries;
	case HB_IOMMU_IOVA_LINKS:
		return p->iova_links;
	case HB_IOMMU_DMA_MAP_PHYS:
		return p->map_phys;
	}
	return 0;
}
