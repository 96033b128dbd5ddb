// SPDX-License-Identifier: GPL-2.0-only
/*
 * Registered hugepage buffers whose last folio is only partly covered
 * (docs/kernel-rules.md §2.2, §5.3; docs/regression-matrix.md).
 *
 * io_check_coalesce_buffer() (a8edbb424b13, 6.12) lets the last folio end
 * anywhere: it is the only folio whose page count is not checked, and the
 * bvec fill loop gives the last bvec min(remaining, folio size), so it is
 * the one short entry besides bvec[0].  io_import_fixed()'s nr_segs must
 * still cover an I/O that ends on the buffer's last byte (80c7378f94cf
 * made it exact in 6.15 and must never undercount).  Cases: 2 MiB hugetlb
 * ending 20 KiB into the third folio, ending at an odd byte (0x123) into
 * it, and starting at +0x1000 as well; I/O at and across the boundary into
 * the partial folio and ending on the last byte; data checked on every
 * path, the model's import against the probe, and the request count where
 * O_DIRECT can read the whole buffer.
 */
#include "helpers.h"

#define FILE_SIZE ((8ULL << 20) + (64 << 10))

static const struct t_case cases[] = {
	{
		.name = "hugetlb 2M: 2 folios + 20K",
		.backing = "hugetlb:2M",
		.len = 2 * T_SZ_2M + 0x5000,
		.pool_size = T_SZ_2M,
		.requests = true,
	},
	{
		.name = "hugetlb 2M: 2 folios + 0x123 bytes",
		.backing = "hugetlb:2M",
		.len = 2 * T_SZ_2M + 0x123,
		.pool_size = T_SZ_2M,
	},
	{
		.name = "hugetlb 2M at +0x1000: to 1M into folio 3",
		.backing = "hugetlb:2M",
		.len = 2 * T_SZ_2M + (1 << 20) - 0x1000,
		.head_offset = 0x1000,
		.pool_size = T_SZ_2M,
		.requests = true,
	},
	{
		.name = "hugetlb 2M: 1 folio + one page",
		.backing = "hugetlb:2M",
		.len = T_SZ_2M + T_SZ_4K,
		.pool_size = T_SZ_2M,
		.requests = true,
	},
};

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	return t_done(
		t_run_cases(cases, T_ARRAY_SIZE(cases), FILE_SIZE, 0x9e9));
}
