// SPDX-License-Identifier: GPL-2.0-only
/*
 * 1 GiB hugetlb registered buffers (docs/kernel-rules.md §2.2, §7.3; the
 * regbuf-1g row of docs/regression-matrix.md).
 *
 * A whole 1 GiB folio is one bvec with folio_shift 30 on a coalescing
 * kernel (a8edbb424b13); bv_len and bv_offset are unsigned int, which a
 * 1 GiB folio still fits (a >= 4 GiB folio would not: docs/kernel-rules.md
 * §7.3).
 * A buffer of 512 MiB starting at +0x1234 inside the folio is also one
 * bvec with bv_offset 0x1234.  The buffer is limited to SZ_1G per
 * registration.  Skips unless the 1 GiB pool has a free page (none on the
 * usual x86 VM: no pdpe1gb).
 */
#include "helpers.h"

#define FILE_SIZE ((16ULL << 20) + (64 << 10))

static const struct t_case cases[] = {
	{
		.name = "hugetlb 1G x1",
		.backing = "hugetlb:1G",
		.len = T_SZ_1G,
		.pool_size = T_SZ_1G,
	},
	{
		.name = "hugetlb 1G: 512M from +0x1234",
		.backing = "hugetlb:1G",
		.len = T_SZ_1G / 2,
		.head_offset = 0x1234,
		.pool_size = T_SZ_1G,
	},
	{
		.name = "hugetlb 1G: 8M from +0x200000",
		.backing = "hugetlb:1G",
		.len = 8ULL << 20,
		.head_offset = T_SZ_2M,
		.pool_size = T_SZ_1G,
		.requests = true,
	},
};

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	return t_done(
		t_run_cases(cases, T_ARRAY_SIZE(cases), FILE_SIZE, 0x1e1));
}
