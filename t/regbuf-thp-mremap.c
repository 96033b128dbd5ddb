// SPDX-License-Identifier: GPL-2.0-only
/*
 * THPs mapped at a virtual address that is not congruent with the pages'
 * position in their folio (docs/kernel-rules.md §3;
 * docs/regression-matrix.md; the PARTIAL_MREMAP pattern of
 * tools/testing/selftests/mm/cow.c).
 *
 * Guards 3a3c6d61577d "io_uring/rsrc: don't rely on user vaddr alignment"
 * (6.16, stable): the 6.12 coalescing took bvec[0].bv_offset from
 * uaddr & (folio_size - 1).  That is only right when the folio is mapped
 * at a folio-aligned address; after mremap of half a THP to a 2 MiB + 4 KiB
 * address, the first page sits 1 MiB into its folio while the address
 * says 4 KiB, and every I/O moved the wrong bytes.  The fix takes the
 * offset from the first page's index in its folio.
 *
 * Two THPs are allocated; their last 3 MiB (the second half of THP 0 and
 * all of THP 1) are moved to a 2 MiB-aligned address + 4 KiB.  As root the
 * probe must confirm the non-congruent mapping (else that part is skipped
 * and only the data checks run).  Buffers: the moved 3 MiB (two folios),
 * the moved half THP alone, and a start at +0x234 inside it.  Data on
 * every path, the model's import against the probed pages, the request
 * count where O_DIRECT can read the whole buffer, VmPin back to baseline.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers.h"

#define FILE_SIZE ((8ULL << 20) + (64 << 10))
#define MOVED (3 * T_SZ_2M / 2) /* 3 MiB */

/* Confirm the buffer's first page is not where its address says. */
static int non_congruent(const struct t_case *c, const struct t_model *m,
			 uint64_t (*more)[2], unsigned int *nr)
{
	uint64_t va_off = m->imu->ubuf & (T_SZ_2M - 1) & ~(T_SZ_4K - 1);
	uint64_t pa_off = (uint64_t)m->probe->pages[0].idx << HB_PAGE_SHIFT;

	(void)more;
	(void)nr;
	if (m->probe->source != HB_PROBE_KPAGEFLAGS) {
		t_info("%s: probe degraded (%s): cannot confirm the "
		       "non-congruent mapping; data checks only",
		       c->name, m->probe->note);
		return T_EXIT_PASS;
	}
	if (m->probe->pages[0].order != 9)
		return t_skip("%s: the moved range is not a 2 MiB folio any "
			      "more (order %u): THP was split",
			      c->name, m->probe->pages[0].order);
	if (va_off == pa_off)
		return t_skip("%s: the mapping is congruent (page %llu of "
			      "its folio at address offset 0x%llx): nothing to "
			      "test",
			      c->name,
			      (unsigned long long)(pa_off >> HB_PAGE_SHIFT),
			      (unsigned long long)va_off);
	t_info("%s: first page is page %llu of its folio, mapped at folio "
	       "offset 0x%llx of the address: non-congruent",
	       c->name, (unsigned long long)(pa_off >> HB_PAGE_SHIFT),
	       (unsigned long long)va_off);
	t_model_print(m, 3);
	return T_EXIT_PASS;
}

int main(int argc, char **argv)
{
	struct t_case cases[] = {
		{
			.name = "moved 3M (half THP + THP)",
			.len = MOVED,
			.requests = true,
			.expect = non_congruent,
		},
		{
			.name = "moved half THP",
			.len = T_SZ_2M / 2,
			.requests = true,
			.expect = non_congruent,
		},
		{
			.name = "moved 3M from +0x234",
			.len = MOVED - 0x234,
			.expect = non_congruent,
		},
	};
	uint64_t offs[] = { 0, 0, 0x234 };
	struct t_baseline base;
	struct hb_backing b;
	struct hb_buf buf;
	struct t_file f;
	unsigned int i, ran = 0;
	struct t_resv resv = { 0 };
	char *dst, *moved;
	int ret;

	(void)argv;
	ret = t_main_begin(argc, &base, &f, FILE_SIZE, 0x4d4);
	if (ret)
		return t_done(ret);
	ret = t_alloc_thp(2 * T_SZ_2M, 0, &buf, "two THPs");
	if (ret)
		goto out_file;
	/* a 2 MiB-aligned + 4 KiB destination inside a reservation */
	ret = t_resv_take(&resv, 0, T_SZ_4K + MOVED, T_SZ_2M);
	if (ret)
		goto out_buf;
	dst = resv.at + T_SZ_4K;
	moved = mremap((char *)buf.map + T_SZ_2M / 2, MOVED, MOVED,
		       MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	if (moved == MAP_FAILED) {
		ret = t_fail("mremap of 3 MiB of THP to %p: %s", (void *)dst,
			     strerror(errno));
		goto out_resv;
	}
	hb_backing_parse("thp", &b);
	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		ret = t_check_region(&cases[i], moved + offs[i], &b, &f);
		if (ret == T_EXIT_FAIL)
			goto out_resv;
		if (ret == T_EXIT_PASS) {
			t_info("%s: ok", cases[i].name);
			ran++;
		}
	}
	ret = ran ? T_EXIT_PASS : T_EXIT_SKIP;
out_resv:
	t_resv_release(&resv);
out_buf:
	/* the moved part went with the reservation: not the hole */
	hb_free_moved(&buf, T_SZ_2M / 2, MOVED);
out_file:
	ret = t_main_end(ret, &base, &f, NULL);
	if (ret == T_EXIT_SKIP && !ran)
		return t_done(t_skip("no case could run (see above)"));
	return t_done(ret);
}
