// SPDX-License-Identifier: GPL-2.0-only
/*
 * Model of the vectored import of a registered buffer (pure): what
 * IORING_OP_READV_FIXED / WRITEV_FIXED (6.15, 9ef4cbbcb4ac) build from N
 * iovecs that all lie inside one registered buffer (io_vec_fill_bvec()).
 *
 * Each iovec is checked like a single fixed import (inside the buffer, no
 * wrap) and must not be empty; the lengths must not overflow when summed.
 * Its offset into the buffer is turned into (bvec, offset in folio) by
 * adding bvec[0]'s bv_offset, since only bvec[0] may start inside its
 * folio; then the iovec is cut at every folio boundary, one output bvec
 * per piece, on the source bvec's page.  Before e1d7727b73a1 (6.16, and
 * in 6.15.y) the offset came from the user address masked to the folio
 * size, which is the same only when the buffer's virtual address is
 * congruent to its physical place in the folio.
 */
#include <errno.h>

#include "model/model.h"

uint64_t hb_import_vec_bound(const struct hb_imu *imu, const struct iovec *iov,
			     unsigned int nr)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < nr; i++)
		n += (iov[i].iov_len >> imu->folio_shift) + 2;
	return n;
}

/* validate_fixed_range() and the checks of io_vec_fill_bvec() */
static int check_iovec(const struct hb_imu *imu, const struct iovec *iov,
		       unsigned int i, uint64_t *total)
{
	uint64_t addr = (uintptr_t)iov->iov_base, end;

	if (__builtin_add_overflow(addr, (uint64_t)iov->iov_len, &end) ||
	    addr < imu->ubuf || end > imu->ubuf + imu->len)
		return hb_seterr(EFAULT, "iovec %u [0x%llx, +%zu) is not "
				 "inside "
				 "the registered buffer", i,
				 (unsigned long long)addr, iov->iov_len);
	if (!iov->iov_len)
		return hb_seterr(EFAULT, "iovec %u is empty: the kernel "
				 "refuses zero-length iovecs", i);
	if (__builtin_add_overflow(*total, (uint64_t)iov->iov_len, total))
		return hb_seterr(EOVERFLOW, "the iovec lengths overflow");
	return 0;
}

/*
 * Offset of @addr from the start of bvec 0's page run, per generation.
 * Only bv_offset is used, as the kernel does: a coalesced bvec[0] names
 * the folio's head page with the offset into the folio, an uncoalesced
 * one the pinned page with the offset into the page.
 */
static uint64_t folio_offset(const struct hb_kmodel *km,
			     const struct hb_imu *imu, uint64_t addr)
{
	uint64_t mask = (1ULL << imu->folio_shift) - 1;

	/*
	 * km->vec_offset_from_bvec: the vectored import takes each iovec's
	 * offset from bvec[0]'s bv_offset (e1d7727b73a1, 6.16 and 6.15.y), not
	 * from the user address masked to the folio size.
	 */
	if (km->vec_offset_from_bvec)
		return addr - imu->ubuf + imu->bvec[0].offset;
	return addr - (imu->ubuf & ~mask);
}

int hb_model_import_vec(const struct hb_kmodel *km, const struct hb_imu *imu,
			const struct iovec *iov, unsigned int nr,
			struct hb_bvec *out, unsigned int max_out,
			struct hb_vimport *res)
{
	uint64_t folio = 1ULL << imu->folio_shift, total = 0;
	unsigned int i, k = 0;
	int ret;

	res->nr_bvecs = 0;
	res->len = 0;
	if (!km->vec_fixed)
		return hb_seterr(EOPNOTSUPP, "kernel %s has no READV_FIXED/"
				 "WRITEV_FIXED (6.15+)", km->name);
	for (i = 0; i < nr; i++) {
		uint64_t len = iov[i].iov_len, off;
		unsigned int src;

		ret = check_iovec(imu, &iov[i], i, &total);
		if (ret)
			return ret;
		off = folio_offset(km, imu, (uintptr_t)iov[i].iov_base);
		src = off >> imu->folio_shift;
		off &= folio - 1;
		for (; len; off = 0, src++, k++) {
			uint64_t seg = len < folio - off ? len : folio - off;

			if (k >= max_out)
				return hb_seterr(E2BIG, "more than %u bvecs: "
						 "size the table with "
						 "hb_import_vec_bound()",
						 max_out);
			if (src >= imu->nr_bvecs)
				return hb_seterr(EFAULT, "iovec %u runs past "
						 "the buffer's last bvec", i);
			out[k].folio = imu->bvec[src].folio;
			out[k].page_idx = imu->bvec[src].page_idx;
			out[k].offset = off;
			out[k].len = seg;
			len -= seg;
		}
	}
	res->nr_bvecs = k;
	res->len = total;
	return 0;
}
