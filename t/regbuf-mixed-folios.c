// SPDX-License-Identifier: GPL-2.0-only
/*
 * Buffers that mix folio sizes (docs/kernel-rules.md §2.2, §7.2;
 * docs/regression-matrix.md; liburing test/fixed-hugepage.c
 * test_page_mixture).
 *
 * io_check_coalesce_buffer() (a8edbb424b13, 6.12) coalesces only when
 * every folio after the first has the first one's size and starts at its
 * page 0; otherwise the kernel keeps one bvec per 4 KiB page.  Registering
 * such a buffer must still succeed and move the right bytes.  Layouts, each
 * mapped with MAP_FIXED into one reserved range:
 *  - a 2 MiB hugetlb page followed by 16 KiB of 4 KiB pages;
 *  - 16 KiB of 4 KiB pages followed by a 2 MiB hugetlb page;
 *  - a 16 KiB mTHP followed by a 2 MiB hugetlb page (when mTHP 16K can be
 *    had; as root the test sets hugepages-16kB/enabled to madvise for its
 *    run and restores it).
 * The model, run on the probed pages, must say "not coalesced"; data on
 * every path across the seam; the model's import against the probe; the
 * block request count against the model's table.
 *
 * Kernels whose io_pin_pages() checks the VMAs itself (before 6.5, and
 * Debian's 6.1 with edd478269640 "disallow multi-source reg buffers")
 * refuse these buffers outright: the hugetlb VMA has a file, the
 * anonymous one none.  There the registration must fail with -EINVAL and
 * leave no pin behind.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"

#define SMALL (16 * 1024ULL)
#define FILE_SIZE ((4ULL << 20) + (64 << 10))

enum small_kind { SMALL_4K, SMALL_MTHP16 };

static struct hb_kmodel km_running;

/*
 * mTHP 16K usable for MADV_HUGEPAGE?  As root, 16K is made the only THP
 * size for this run (t_thp_only(), restored at exit).
 */
static bool mthp16_available(void)
{
	struct hb_sysinfo si;

	if (t_thp_only(SMALL) || hb_sysinfo_read(&si))
		return false;
	return hb_mthp_usable(&si, SMALL);
}

static int map_small(char *at, enum small_kind kind)
{
	if (mmap(at, SMALL, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -errno;
	madvise(at, SMALL,
		kind == SMALL_MTHP16 ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	memset(at, 0x11, SMALL);
	return 0;
}

static int must_not_coalesce(const struct t_case *c, const struct t_model *m,
			     uint64_t (*more)[2], unsigned int *nr)
{
	(void)more;
	(void)nr;
	t_info("%s: probe: folios from %llu to %llu bytes", c->name,
	       (unsigned long long)m->probe->min_folio,
	       (unsigned long long)m->probe->max_folio);
	if (m->probe->min_folio == m->probe->max_folio)
		return t_skip("%s: the probe sees one folio size only (%s)",
			      c->name, m->probe->note);
	if (m->imu->coalesced || m->imu->nr_bvecs != m->imu->nr_pages)
		return t_fail("%s: the model coalesces mixed folio sizes into "
			      "%u bvecs (expected one per page, %u)",
			      c->name, m->imu->nr_bvecs, m->imu->nr_pages);
	return T_EXIT_PASS;
}

/* The kernel refuses a buffer over VMAs of different files (-EINVAL). */
static int must_be_refused(const char *name, void *start, uint64_t len,
			   const struct t_baseline *base)
{
	struct io_uring ring;
	int ret;

	ret = t_ring_init(&ring, 4);
	if (ret)
		return ret;
	ret = t_register_refused(&ring, start, len, -EINVAL, 0, base->vmpin_kb,
				 name,
				 "this kernel's io_pin_pages() refuses VMAs "
				 "of different files",
				 NULL);
	if (!ret)
		t_info("%s: refused with EINVAL (VMAs of different files), no "
		       "pin left",
		       name);
	io_uring_queue_exit(&ring);
	return ret;
}

static int run(const char *name, bool huge_first, enum small_kind kind,
	       struct t_file *f)
{
	struct t_case c = {
		.name = name,
		.len = T_SZ_2M + SMALL,
		.requests = true,
		.expect = must_not_coalesce,
	};
	struct t_baseline base;
	struct t_resv r;
	char *h, *start;
	int ret;

	ret = t_baseline_need(&base, T_SZ_2M, 1);
	if (ret)
		return ret;
	/* room for the small pages on either side of the hugepage */
	ret = t_resv_take(&r, SMALL, T_SZ_2M + SMALL, T_SZ_2M);
	if (ret)
		return ret;
	h = r.at;
	start = huge_first ? h : h - SMALL;
	ret = t_map_hugetlb_at(h, 0x22, name);
	if (ret)
		goto out;
	ret = map_small(huge_first ? h + T_SZ_2M : h - SMALL, kind);
	if (ret) {
		ret = t_fail("%s: mapping the small pages: %s", name,
			     strerror(-ret));
		goto out;
	}
	if (km_running.pin_checks_vmas)
		ret = must_be_refused(name, start, c.len, &base);
	else
		ret = t_check_region(&c, start, NULL, f);
out:
	t_resv_release(&r);
	ret = t_worst(ret, t_baseline_check(&base, "after unmapping"));
	if (!ret)
		t_info("%s: ok", name);
	return ret;
}

int main(int argc, char **argv)
{
	struct t_file f;
	int ret, r, ran = 0;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	if (hb_kmodel_running(&km_running))
		return t_done(t_fail("kernel model: %s", hb_errmsg()));
	ret = t_file_create(&f, FILE_SIZE, 0x8b0, true);
	if (ret)
		return t_done(ret);
	ret = run("2M hugetlb then 16K of 4K pages", true, SMALL_4K, &f);
	ran += !ret;
	if (ret != T_EXIT_FAIL) {
		r = run("16K of 4K pages then 2M hugetlb", false, SMALL_4K, &f);
		ran += !r;
		ret = t_worst(ret == T_EXIT_SKIP ? 0 : ret, r);
	}
	if (ret != T_EXIT_FAIL) {
		if (mthp16_available()) {
			r = run("16K mTHP then 2M hugetlb", false, SMALL_MTHP16,
				&f);
			ran += !r;
			ret = t_worst(ret == T_EXIT_SKIP ? 0 : ret, r);
		} else {
			t_skip_check(
				"16K mTHP then 2M hugetlb: mTHP 16K "
				"is not available (needs Linux 6.8+ and root "
				"to enable it)");
		}
	}
	t_thp_restore();
	t_file_close(&f);
	if (ret == T_EXIT_FAIL)
		return t_done(ret);
	return t_done(ran ? T_EXIT_PASS : t_skip("no layout could be mapped"));
}
