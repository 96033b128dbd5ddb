// SPDX-License-Identifier: GPL-2.0-only
/*
 * A registered buffer smaller than the one folio it lives in, starting at
 * a tail page (docs/kernel-rules.md §2.1, §3; docs/regression-matrix.md).
 *
 * Single-folio coalescing (57bebf807e2a, 6.3; multi-folio rules of
 * a8edbb424b13 in 6.12) turns such a buffer into one bvec whose bv_offset
 * is the start's position inside the folio: with 3a3c6d61577d (6.16) that
 * is first_folio_page_idx << PAGE_SHIFT plus the offset in the page, not a
 * value derived from the virtual address.  A buffer of a single page is
 * never coalesced (nr_pages > 1 is required).  Cases inside one 2 MiB
 * hugetlb page: 5 pages from page 3, 64 KiB from +0x1234, 2 KiB inside page
 * 7, and 1 MiB - 4 KiB ending on the folio's last byte; the same inside a
 * PMD THP where one can be had.  Data on every path, the model's import
 * against the probe, and the request count where O_DIRECT can read it.
 */
#include "helpers.h"

#define FILE_SIZE ((4ULL << 20) + (64 << 10))

static const struct t_case cases[] = {
	{
		.name = "hugetlb 2M: 5 pages from page 3",
		.backing = "hugetlb:2M",
		.len = 5 * T_SZ_4K,
		.head_offset = 3 * T_SZ_4K,
		.pool_size = T_SZ_2M,
		.requests = true,
	},
	{
		.name = "hugetlb 2M: 64K from +0x1234",
		.backing = "hugetlb:2M",
		.len = 64 << 10,
		.head_offset = 0x1234,
		.pool_size = T_SZ_2M,
	},
	{
		.name = "hugetlb 2M: 2K inside page 7",
		.backing = "hugetlb:2M",
		.len = 2048,
		.head_offset = 7 * T_SZ_4K + 0x400,
		.pool_size = T_SZ_2M,
	},
	{
		.name = "hugetlb 2M: the last 1M - 4K",
		.backing = "hugetlb:2M",
		.len = (1 << 20) - T_SZ_4K,
		.head_offset = T_SZ_2M - (1 << 20) + T_SZ_4K,
		.pool_size = T_SZ_2M,
		.requests = true,
	},
	{
		.name = "THP 2M: 96K from page 257",
		.backing = "thp",
		.len = 96 << 10,
		.head_offset = 257 * T_SZ_4K,
		.requests = true,
	},
};

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	return t_done(
		t_run_cases(cases, T_ARRAY_SIZE(cases), FILE_SIZE, 0xa1a));
}
