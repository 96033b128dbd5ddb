// SPDX-License-Identifier: GPL-2.0-only
/*
 * Registered buffers that start inside their first folio
 * (docs/kernel-rules.md §3, §5.2; docs/regression-matrix.md): 3 x 2 MiB
 * hugetlb registered from +0x1234 (not page aligned), from +0x200 (sector
 * aligned: O_DIRECT at the device's logical block size, hb_dio_align(),
 * not at 4 KiB) and from +0x1000 (page aligned, a tail page), and 4 KiB
 * pages.
 *
 * Guards d6fef34ee4d1 "io_uring: fix off-by one bvec index" (6.7-rc3, in
 * 5.10/5.15/6.1 stable; liburing issue #994, test/fixed-buf-merge.c):
 * io_import_fixed() must skip bvec[0] when the offset equals bvec[0].bv_len
 * exactly ("offset >= bv_len"; with ">" it built an iterator whose first
 * segment was empty).  With coalescing, bvec[0] = {head folio, bv_offset =
 * start in folio, bv_len = folio size - bv_offset} and only bvec[0] may be
 * short (a8edbb424b13).  Every case does I/O exactly at bvec[0].bv_len, at
 * bv_len - 1 (1 and 2 bytes) and across bvec 0 -> 1, with the offsets taken
 * from the model's table for the running kernel, checks the data, checks
 * the model's import against the probed pages, and (when O_DIRECT can read
 * the whole buffer) the block request count.
 */
#include "helpers.h"

#define FILE_SIZE ((8ULL << 20) + (64 << 10))

static void add(uint64_t (*more)[2], unsigned int *nr, uint64_t off,
		uint64_t len)
{
	if (*nr < T_CASE_MORE) {
		more[*nr][0] = off;
		more[*nr][1] = len;
		(*nr)++;
	}
}

/* The #994 edge, from the model's bvec[0] */
static int bvec0_edges(const struct t_case *c, const struct t_model *m,
		       uint64_t (*more)[2], unsigned int *nr)
{
	uint64_t bl = m->bvec[0].len;

	if (m->imu->nr_bvecs < 2)
		return t_fail("%s: test bug: one bvec for a multi-page buffer",
			      c->name);
	t_model_print(m, 3);
	add(more, nr, bl, HB_PAGE_SIZE); /* exactly at bv_len */
	add(more, nr, bl, 1);
	add(more, nr, bl - 1, 1); /* bv_len - 1 */
	add(more, nr, bl - 1, 2); /* straddles by a byte */
	/* across bvec 0 -> 1 */
	add(more, nr, bl > HB_PAGE_SIZE ? bl - HB_PAGE_SIZE : 0,
	    2 * HB_PAGE_SIZE);
	add(more, nr, bl > 0x100 ? bl - 0x100 : 0, 0x300);
	return T_EXIT_PASS;
}

static const struct t_case cases[] = {
	{
		.name = "hugetlb 2M x3 at +0x1234",
		.backing = "hugetlb:2M",
		.len = 3 * T_SZ_2M - 0x1234,
		.head_offset = 0x1234,
		.pool_size = T_SZ_2M,
		.requests = true,
		.expect = bvec0_edges,
	},
	{
		.name = "hugetlb 2M x3 at +0x1000",
		.backing = "hugetlb:2M",
		.len = 3 * T_SZ_2M - 0x1000,
		.head_offset = 0x1000,
		.pool_size = T_SZ_2M,
		.requests = true,
		.expect = bvec0_edges,
	},
	{
		/*
		 * Sector aligned but not page aligned: O_DIRECT (and the
		 * request count) run at the device's logical block size,
		 * lib's hb_dio_align(), not at 4 KiB.
		 */
		.name = "hugetlb 2M x3 at +0x200",
		.backing = "hugetlb:2M",
		.len = 3 * T_SZ_2M - 0x200,
		.head_offset = 0x200,
		.pool_size = T_SZ_2M,
		.requests = true,
		.expect = bvec0_edges,
	},
	{
		/* the original #994 shape: 4 KiB pages, I/O at +4096 */
		.name = "4k pages 512K",
		.backing = "4k",
		.len = 128 * T_SZ_4K,
		.requests = true,
		.expect = bvec0_edges,
	},
	{
		.name = "4k pages 512K at +0x234",
		.backing = "4k",
		.len = 128 * T_SZ_4K - 0x234,
		.head_offset = 0x234,
		.expect = bvec0_edges,
	},
};

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	return t_done(
		t_run_cases(cases, T_ARRAY_SIZE(cases), FILE_SIZE, 0x2b2));
}
