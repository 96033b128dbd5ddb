// SPDX-License-Identifier: GPL-2.0-only
/*
 * A userspace model of io_uring/rsrc.c: the bvec table that
 * io_sqe_buffer_register() builds for a pinned page array, and what
 * io_import_fixed() makes of one I/O into it.
 *
 * Pure: arrays in, tables out.  The rules and the kernel commits behind
 * them are stated above each function; lib/model/kmodel.c says which kernel
 * release has which generation.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

#define PAGE_MASK_LOW	(HB_PAGE_SIZE - 1)

uint64_t hb_nr_pages(uint64_t uaddr, uint64_t len)
{
	uint64_t end = uaddr + len;

	return ((end + PAGE_MASK_LOW) >> HB_PAGE_SHIFT) -
	       (uaddr >> HB_PAGE_SHIFT);
}

/*
 * io_buffer_validate() (6.1) / io_validate_user_buf_range() (mainline):
 * a NULL base with a length is -EFAULT; the length limits are @km's
 * (hb_kmodel_check_buf_len(): 0 is -EFAULT, over SZ_1G -EFAULT up to 7.1,
 * over SZ_1T -EINVAL from 7.2); an end that wraps (including PAGE_ALIGN
 * of the end) is -EOVERFLOW.
 */
static int validate_user_range(const struct hb_kmodel *km, uint64_t uaddr,
			       uint64_t len)
{
	uint64_t end;

	if (!uaddr)
		return hb_seterr(EFAULT, "buffer address is NULL: the kernel "
				 "rejects a NULL base with a length (EFAULT)");
	if (!len || len > km->buf_len_max)
		return hb_kmodel_check_buf_len(km, uaddr, len);
	if (__builtin_add_overflow(uaddr, len, &end) ||
	    end > UINT64_MAX - PAGE_MASK_LOW)
		return hb_seterr(EOVERFLOW, "buffer 0x%llx + %llu wraps the "
				 "address space (EOVERFLOW)",
				 (unsigned long long)uaddr,
				 (unsigned long long)len);
	/* io_pin_pages(): the page bound after the range checks */
	return hb_kmodel_check_buf_len(km, uaddr, len);
}

static uint64_t folio_pages(const struct hb_page *p)
{
	return 1ULL << p->order;
}

/* pages[i] == pages[i - 1] + 1 for struct pages of one folio */
static bool page_follows(const struct hb_page *prev, const struct hb_page *p)
{
	return p->folio == prev->folio && p->idx == prev->idx + 1;
}

struct folio_walk {
	unsigned int nr_folios;
	uint64_t nr_pages_mid;	/* pages per folio */
	unsigned int folio_shift;
	uint64_t first_folio_page_idx;
};

/*
 * io_check_coalesce_buffer() (6.12 io_try_coalesce_buffer(), with the
 * 6.16 first_folio_page_idx): the pinned pages can become one bvec per
 * folio when
 *  - pages inside a folio are consecutive struct pages (CVE-2023-2598,
 *    776617db78c6: the same page mapped twice is not a larger folio);
 *  - the first folio, which may start anywhere, runs to its last page;
 *  - every middle folio is covered whole;
 *  - every later folio starts at its page 0 and has the first one's size;
 *  - the last folio may end anywhere.
 * The same folio may appear again after a gap (a hugepage mapped twice):
 * that is a new bvec, not a failure.
 */
static bool check_coalesce(const struct hb_page *pages, uint64_t nr,
			   struct folio_walk *w)
{
	uint64_t count = 1, i;

	w->nr_folios = 1;
	w->nr_pages_mid = folio_pages(&pages[0]);
	w->folio_shift = HB_PAGE_SHIFT + pages[0].order;
	w->first_folio_page_idx = pages[0].idx;

	for (i = 1; i < nr; i++) {
		const struct hb_page *p = &pages[i];

		if (page_follows(&pages[i - 1], p)) {
			count++;
			continue;
		}
		if (w->nr_folios == 1) {
			/* the head folio must run to its end */
			if (pages[i - 1].idx != w->nr_pages_mid - 1)
				return false;
		} else if (count != w->nr_pages_mid) {
			/* a middle folio must be covered whole */
			return false;
		}
		/* later folios: same size, starting at page 0 */
		if (folio_pages(p) != w->nr_pages_mid || p->idx != 0)
			return false;
		count = 1;
		w->nr_folios++;
	}
	return true;
}

/*
 * 57bebf807e2a (6.3) with 776617db78c6 (6.3.2, 6.4): coalesce only when
 * every page is a consecutive page of the first page's folio.  6.3.0 and
 * 6.3.1 compared page_folio() only, so the same page mapped again and
 * again (CVE-2023-2598) became one bvec over bytes past the folio.
 */
static bool all_in_first_folio(const struct hb_kmodel *km,
			       const struct hb_page *pages, uint64_t nr)
{
	uint64_t i;

	for (i = 1; i < nr; i++) {
		if (km->coalesce_nonconsecutive) {
			if (pages[i].folio != pages[0].folio)
				return false;
		} else if (!page_follows(&pages[i - 1], &pages[i])) {
			return false;
		}
	}
	return true;
}

/*
 * The bvec fill loop shared by every generation: entry i gets
 * min(remaining, (1 << folio_shift) - off) bytes; only the first has an
 * offset.  It runs over the entries the kernel allocated, so a table whose
 * lengths do not add up (the 6.12 vaddr-offset bug) is reproduced as is.
 */
static void fill_bvecs(struct hb_imu *imu, uint64_t off, uint64_t size)
{
	uint64_t chunk = 1ULL << imu->folio_shift;
	unsigned int i;

	for (i = 0; i < imu->nr_bvecs; i++) {
		uint64_t vec_len = chunk - off;

		if (vec_len > size)
			vec_len = size;
		imu->bvec[i].offset = (uint32_t)off;
		imu->bvec[i].len = (uint32_t)vec_len;
		size -= vec_len;
		off = 0;
	}
}

static void build_uncoalesced(const struct hb_page *pages, uint64_t nr,
			      struct hb_imu *imu)
{
	uint64_t i;

	imu->folio_shift = HB_PAGE_SHIFT;
	imu->nr_bvecs = (unsigned int)nr;
	for (i = 0; i < nr; i++) {
		imu->bvec[i].folio = pages[i].folio;
		imu->bvec[i].page_idx = pages[i].idx;
	}
	fill_bvecs(imu, imu->ubuf & PAGE_MASK_LOW, imu->len);
}

/*
 * 6.3 - 6.11: one bvec whose page is the first pinned page and whose
 * length is the whole buffer; folio_shift does not exist (PAGE_SHIFT).
 */
static void build_single(const struct hb_page *pages, struct hb_imu *imu)
{
	imu->folio_shift = HB_PAGE_SHIFT;
	imu->nr_bvecs = 1;
	imu->coalesced = true;
	imu->bvec[0].folio = pages[0].folio;
	imu->bvec[0].page_idx = pages[0].idx;
	imu->bvec[0].offset = (uint32_t)(imu->ubuf & PAGE_MASK_LOW);
	imu->bvec[0].len = (uint32_t)imu->len;
}

/*
 * io_coalesce_buffer(): bv_page is the head page of each folio run
 * (compound_head()), so bvec[0] needs the first page's position inside
 * its folio in bv_offset.  3a3c6d61577d (6.16) takes it from
 * first_folio_page_idx; a8edbb424b13 (6.12) took uaddr & (folio_size - 1),
 * which is wrong whenever the folio is not mapped at a congruent address.
 */
static void build_multi(const struct hb_kmodel *km, const struct hb_page *pages,
			uint64_t nr, const struct folio_walk *w,
			struct hb_imu *imu)
{
	uint64_t folio_size = 1ULL << w->folio_shift;
	uint64_t off, i;
	unsigned int j = 0;

	imu->folio_shift = w->folio_shift;
	imu->nr_bvecs = w->nr_folios;
	imu->coalesced = true;
	for (i = 0; i < nr; i++) {
		if (i && page_follows(&pages[i - 1], &pages[i]))
			continue;
		imu->bvec[j].folio = pages[i].folio;
		imu->bvec[j].page_idx = 0;
		j++;
	}
	if (km->gen == HB_KGEN_MULTI)
		off = imu->ubuf & (folio_size - 1);
	else
		off = (imu->ubuf & PAGE_MASK_LOW) +
		      (w->first_folio_page_idx << HB_PAGE_SHIFT);
	fill_bvecs(imu, off, imu->len);
	/*
	 * km->first_bvec_pinned_page: a coalesced bvec[0] keeps the page pinned
	 * for the first byte with an in-page offset (6.3's single-folio way,
	 * our 6.1 backport) instead of the folio's head page with the offset in
	 * the folio. The same bytes either way; only bv_page/bv_offset differ.
	 */
	if (km->first_bvec_pinned_page) {
		imu->bvec[0].page_idx = (uint32_t)w->first_folio_page_idx;
		imu->bvec[0].offset = (uint32_t)(imu->ubuf & PAGE_MASK_LOW);
	}
}

uint64_t hb_imu_bytes(const struct hb_kmodel *km, unsigned int nr_bvecs)
{
	/*
	 * km->imu_bvecs_apart: the bvec array is an allocation of its own
	 * (kvmalloc_array() of 16-byte bio_vecs) and the imu header sits in the
	 * ring's table of imus, so a buffer costs 16 bytes per bvec and no
	 * header: before 41edf1a5ec96 (5.13), and in 5.10.y before 788d0824269b
	 * (5.10.162 took 5.15's io_uring).
	 */
	if (km->imu_bvecs_apart)
		return (uint64_t)nr_bvecs * HB_BVEC_BYTES;
	return km->imu_header + (uint64_t)nr_bvecs * HB_BVEC_BYTES;
}

/*
 * kvmalloc() footprint on x86_64 with SLUB: kmalloc size classes up to
 * 8 KiB (KMALLOC_MAX_CACHE_SIZE), then whole page orders up to 4 MiB
 * (kmalloc_large, order 10), then vmalloc with VM_ALLOW_HUGE_VMAP, which
 * maps 2 MiB pages once the size reaches PMD_SIZE (docs/kernel-rules.md §8):
 * 512 MiB of 4 KiB bvecs (2 MiB + 32 B) costs 4 MiB of slab, 1 GiB
 * (4 MiB + 32 B) about 6 MiB of vmalloc.
 */
uint64_t hb_kvmalloc_bytes(uint64_t bytes)
{
	static const uint64_t classes[] = { 8,   16,   32,   64,   96,
					    128, 192,  256,  512,  1024,
					    2048, 4096, 8192 };
	const uint64_t pmd = 2ULL << 20, max_kmalloc = 4ULL << 20;
	uint64_t pages;
	size_t i;

	if (!bytes)
		return 0;
	for (i = 0; i < HB_ARRAY_SIZE(classes); i++)
		if (bytes <= classes[i])
			return classes[i];
	if (bytes <= max_kmalloc) {
		pages = HB_PAGE_SIZE;
		while (pages < bytes)
			pages <<= 1;
		return pages;
	}
	if (bytes >= pmd)
		return HB_ALIGN_UP(bytes, pmd);
	return HB_ALIGN_UP(bytes, HB_PAGE_SIZE);
}

static void account_imu(const struct hb_kmodel *km, struct hb_imu *imu)
{
	imu->imu_bytes = hb_imu_bytes(km, imu->nr_bvecs);
	/* mainline serves small imus from ctx->imu_cache: no new memory */
	if (km->imu_cache_bvecs && imu->nr_bvecs <= km->imu_cache_bvecs)
		imu->alloc_bytes = 0;
	else
		imu->alloc_bytes = hb_kvmalloc_bytes(imu->imu_bytes);
}

int hb_model_register(const struct hb_kmodel *km, const struct hb_page *pages,
		      uint64_t uaddr, uint64_t len, struct hb_bvec *bvec,
		      struct hb_imu *imu)
{
	struct folio_walk w;
	uint64_t nr;
	int ret;

	memset(imu, 0, sizeof(*imu));
	ret = validate_user_range(km, uaddr, len);
	if (ret)
		return ret;
	nr = hb_nr_pages(uaddr, len);
	imu->ubuf = uaddr;
	imu->len = len;
	imu->nr_pages = (unsigned int)nr;
	imu->bvec = bvec;

	switch (km->gen) {
	case HB_KGEN_NONE:
		build_uncoalesced(pages, nr, imu);
		break;
	case HB_KGEN_SINGLE:
		if (nr > 1 && all_in_first_folio(km, pages, nr))
			build_single(pages, imu);
		else
			build_uncoalesced(pages, nr, imu);
		break;
	case HB_KGEN_MULTI:
	case HB_KGEN_MULTI_FIXED:
		/*
		 * io_sqe_buffer_register(): only when more than one page was
		 * pinned, the rules hold and the folios are larger than a
		 * page (nr_pages_mid != 1).
		 */
		if (nr > 1 && check_coalesce(pages, nr, &w) &&
		    w.nr_pages_mid != 1)
			build_multi(km, pages, nr, &w, imu);
		else
			build_uncoalesced(pages, nr, imu);
		break;
	default:
		return hb_seterr(EINVAL, "unknown kernel generation %d",
				 (int)km->gen);
	}
	account_imu(km, imu);
	return 0;
}

/*
 * hb_model_register() into a table of its own, one bvec per pinned page at
 * most (the uncoalesced worst case): the one place that allocates and
 * wires imu->bvec, for analysis.c, iommu.c and the CLI alike.
 */
int hb_imu_build(const struct hb_kmodel *km, const struct hb_page *pages,
		 uint64_t uaddr, uint64_t len, struct hb_imu *imu)
{
	uint64_t nr = hb_nr_pages(uaddr, len);
	struct hb_bvec *bv;
	int ret;

	memset(imu, 0, sizeof(*imu));
	bv = calloc(nr ? nr : 1, sizeof(*bv));
	if (!bv)
		return hb_seterr(ENOMEM, "out of memory for %llu bvecs",
				 (unsigned long long)nr);
	ret = hb_model_register(km, pages, uaddr, len, bv, imu);
	if (ret) {
		free(bv);
		memset(imu, 0, sizeof(*imu));
		return ret;
	}
	imu->bvec = bv;
	return 0;
}

void hb_imu_free(struct hb_imu *imu)
{
	free(imu->bvec);
	imu->bvec = NULL;
	imu->nr_bvecs = 0;
}

/*
 * IORING_OP_SEND_ZC with a fixed buffer (6.0+) builds the skb frags in
 * io_sg_from_iter() (io_uring/net.c, 6.1 and 6.12), one per
 * mp_bvec_iter_bvec() step, and charges each PAGE_ALIGN(bv_len +
 * bv_offset) to skb->truesize and sk_wmem_queued, where bv_offset counts
 * from the first page of the step's bvec.  Per-page bvecs make that the
 * pages the frag spans; the bvecs of a coalesced buffer cover a folio, so
 * a frag deep in it is charged from the folio's start (up to 2 MiB for a
 * 64 KiB frag): measured on Debian's 6.12.118, on 6.1 + the series
 * without io_uring 3/5 and on the 6.18 host alike.  io_uring 3/5 charges
 * PAGE_ALIGN(bv_len + offset_in_page(bv_offset)) instead, and so does
 * kernel/patches/mainline on 7.3.4 (km->sendzc_charge_in_page).
 */
bool hb_model_sendzc_overcharge(const struct hb_kmodel *km,
				const struct hb_imu *imu)
{
	return imu->coalesced && imu->folio_shift > HB_PAGE_SHIFT &&
	       !km->sendzc_charge_in_page;
}

/*
 * validate_fixed_range() / the 6.1 check in io_import_fixed(): the I/O
 * must lie inside [ubuf, ubuf + len), else -EFAULT.
 */
static int validate_io_range(const struct hb_imu *imu, uint64_t addr,
			     uint64_t len)
{
	uint64_t end;

	if (__builtin_add_overflow(addr, len, &end) || addr < imu->ubuf ||
	    end > imu->ubuf + imu->len)
		return hb_seterr(EFAULT, "I/O 0x%llx + %llu is outside the "
				 "registered buffer 0x%llx + %llu (EFAULT)",
				 (unsigned long long)addr,
				 (unsigned long long)len,
				 (unsigned long long)imu->ubuf,
				 (unsigned long long)imu->len);
	return 0;
}

/* Bvecs really touched by len bytes from (idx, off): a walk of the table. */
static int count_segments(const struct hb_imu *imu, unsigned int idx,
			  uint64_t off, uint64_t len, unsigned int *nr)
{
	*nr = 0;
	while (len) {
		uint64_t avail, take;

		if (idx >= imu->nr_bvecs)
			return hb_seterr(ERANGE, "the bvec table ends before "
					 "the I/O does: this kernel "
					 "generation builds a short table "
					 "for this buffer");
		avail = imu->bvec[idx].len > off ? imu->bvec[idx].len - off : 0;
		take = avail < len ? avail : len;
		if (take)
			(*nr)++;
		len -= take;
		off = 0;
		idx++;
	}
	return 0;
}

/*
 * 6.3 - 6.6.y (b000ae0ec2d7 until d6fef34ee4d1): "offset <= bv_len" kept
 * an I/O that starts exactly at bvec[0]'s end in bvec[0], with an empty
 * first segment.  Everywhere else such an I/O starts in the next bvec.
 */
static bool stays_in_first_bvec(const struct hb_kmodel *km,
				const struct hb_imu *imu, uint64_t offset)
{
	if (km->import_offset_le_bvlen)
		return offset <= imu->bvec[0].len;
	return offset < imu->bvec[0].len;
}

/*
 * nr_segs of 6.1 with io_uring 2/5 (kernel/patches/bugfix/): bvec[0] names
 * the page of the buffer's first byte (km->first_bvec_pinned_page), so its
 * bv_offset says nothing about the folio, and an I/O that starts in it is
 * counted from the bytes bvec[0] has left; any other I/O from its offset
 * in a whole folio.  Exact as long as every bvec after the first is a
 * whole folio.
 */
static unsigned int nr_segs_from_head(const struct hb_imu *imu,
				      const struct hb_import *im, uint64_t len)
{
	uint64_t mask = (1ULL << imu->folio_shift) - 1;
	uint64_t head;

	if (im->bvec_idx)
		return (unsigned int)((im->iov_offset + len + mask) >>
				      imu->folio_shift);
	head = imu->bvec[0].len - im->iov_offset;
	if (len <= head)
		return 1;
	return 1 + (unsigned int)((len - head + mask) >> imu->folio_shift);
}

/*
 * What nr_segs the modelled kernel stores.  Since 6.15 it is
 * (offset + len + bv_offset + mask) >> folio_shift, which must never
 * undercount (80c7378f94cf); before, "every bvec from there to the end",
 * except that 6.3 - 6.10-rc4 (6.9.7, 6.6.36 in stable) stored bvec[0]'s
 * bv_len, a byte count, for an I/O that starts inside bvec[0] at a
 * non-zero offset (a23800f08a60).
 */
static unsigned int kernel_nr_segs(const struct hb_kmodel *km,
				   const struct hb_imu *imu, uint64_t start,
				   const struct hb_import *im, uint64_t len)
{
	uint64_t mask = (1ULL << imu->folio_shift) - 1;
	const struct hb_bvec *bv = &imu->bvec[im->bvec_idx];

	if (km->nr_segs_from_head)
		return nr_segs_from_head(imu, im, len);
	if (km->exact_nr_segs)
		return (unsigned int)((im->iov_offset + len + bv->offset +
				       mask) >> imu->folio_shift);
	if (km->import_nr_segs_bvlen && start && !im->bvec_idx)
		return imu->bvec[0].len;
	return imu->nr_bvecs - im->bvec_idx;
}

/*
 * io_import_fixed(): an offset inside bvec[0] stays there; otherwise every
 * later bvec is a whole folio, so the index is 1 + (rest >> folio_shift)
 * and the offset rest & mask.  A zero-length I/O is an empty import on
 * every kernel: at exactly the end of the buffer the index would be one
 * past the table, which the kernel read until 111a12b422a8 (KASAN).
 */
int hb_model_import(const struct hb_kmodel *km, const struct hb_imu *imu,
		    uint64_t addr, uint64_t len, struct hb_import *out)
{
	uint64_t offset, start, mask = (1ULL << imu->folio_shift) - 1;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = validate_io_range(imu, addr, len);
	if (ret)
		return ret;
	if (!len)
		return 0;
	if (!imu->nr_bvecs)
		return hb_seterr(EINVAL, "empty bvec table");
	start = offset = addr - imu->ubuf;
	if (!stays_in_first_bvec(km, imu, offset)) {
		offset -= imu->bvec[0].len;
		out->bvec_idx = 1 + (unsigned int)(offset >> imu->folio_shift);
		offset &= mask;
	}
	out->iov_offset = offset;
	ret = count_segments(imu, out->bvec_idx, offset, len,
			     &out->nr_segs_exact);
	if (ret)
		return ret;
	out->nr_segs_kernel = kernel_nr_segs(km, imu, start, out, len);
	return 0;
}

/*
 * What an allocation recipe produces: folio-aligned runs of folio_size,
 * the buffer starting head_offset bytes after the start of the first.
 * Order-0 pages are each their own folio.
 */
int hb_layout_synth(uint64_t folio_size, uint64_t head_offset, uint64_t len,
		    uint64_t first_folio, struct hb_page *pages)
{
	uint64_t per_folio, nr, first, i;
	unsigned int order;

	if (!HB_IS_POW2(folio_size) || folio_size < HB_PAGE_SIZE)
		return hb_seterr(EINVAL, "folio size %llu is not a power of "
				 "two of at least 4096",
				 (unsigned long long)folio_size);
	order = hbi_ilog2(folio_size) - HB_PAGE_SHIFT;
	per_folio = 1ULL << order;
	nr = hb_nr_pages(head_offset, len);
	first = head_offset >> HB_PAGE_SHIFT;
	for (i = 0; i < nr; i++) {
		uint64_t pg = first + i;

		pages[i].folio = first_folio + pg / per_folio;
		pages[i].idx = (uint32_t)(pg % per_folio);
		pages[i].order = order;
	}
	return 0;
}
