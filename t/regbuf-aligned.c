// SPDX-License-Identifier: GPL-2.0-only
/*
 * Aligned 2 MiB hugetlb registered buffers of 1, 4 and 256 folios, plus an
 * 8 MiB 4 KiB-page control (docs/kernel-rules.md §2.2, §9.1;
 * docs/regression-matrix.md).
 *
 * Guards the multi-folio coalescing of a8edbb424b13 / 3d6106aee473 (6.12):
 * one bvec per folio, bvec i = folio i from offset 0, so io_import_fixed()
 * finds an offset in bvec 1 + (off - bv_len[0]) >> folio_shift.  I/O at
 * offset 0, mid-folio, at and across every folio boundary and ending on the
 * last byte must move the right bytes (READ_FIXED / WRITE_FIXED, buffered,
 * O_DIRECT and /dev/zero), the model's import must point at the pages the
 * probe finds, and one O_DIRECT READ_FIXED of the whole buffer must take
 * the number of block requests the model's table predicts (on 6.18 and
 * vda: 8 MiB of 2 MiB folios = 2, of 4 KiB pages = 9; on 6.1 without
 * coalescing both are 9).  VmPin and the free hugepages must be back at
 * their baseline once each buffer is unregistered and unmapped.
 */
#include "helpers.h"

#define FILE_SIZE ((16ULL << 20) + (64 << 10))

static const struct t_case cases[] = {
	{
		.name = "hugetlb 2M x1",
		.backing = "hugetlb:2M",
		.len = T_SZ_2M,
		.pool_size = T_SZ_2M,
		.requests = true,
	},
	{
		.name = "hugetlb 2M x4",
		.backing = "hugetlb:2M",
		.len = 4 * T_SZ_2M,
		.pool_size = T_SZ_2M,
		.requests = true,
	},
	{
		.name = "hugetlb 2M x256",
		.backing = "hugetlb:2M",
		.len = 256 * T_SZ_2M,
		.pool_size = T_SZ_2M,
	},
	{
		/* the control: the request signal must tell the two apart */
		.name = "4k pages 8M",
		.backing = "4k",
		.len = 4 * T_SZ_2M,
		.requests = true,
	},
};

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	return t_done(
		t_run_cases(cases, T_ARRAY_SIZE(cases), FILE_SIZE, 0x1a1));
}
