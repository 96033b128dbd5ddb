// SPDX-License-Identifier: GPL-2.0-only
/*
 * The same 2 MiB hugepage mapped twice back to back (docs/kernel-rules.md
 * §2.2; docs/regression-matrix.md).
 *
 * A memfd hugetlb page mapped at R and again at R + 2 MiB gives the pinned
 * page array "folio F pages 0..511, then F pages 0..511 again".  The
 * coalescing rules accept that (the head folio runs to its end, the next
 * run starts at page 0 and has the same size), so a coalescing kernel
 * builds two 2 MiB bvecs that point at the same folio (a8edbb424b13);
 * 776617db78c6 only forbids non-consecutive pages inside one run.  The
 * folio is pinned 1024 times and must be unpinned 1024 times: after
 * unregistering, unmapping and closing the memfd the hugepage must be back
 * in the pool.  It is charged once while registered (io_buffer_account_pin
 * skips a compound head it has just seen), on every kernel.
 *
 * Data checks understand the aliasing: READ_FIXED across the 2 MiB seam
 * puts its halves at the end and the start of the one page; READ_FIXED into
 * the second mapping shows through the first; WRITE_FIXED of all 4 MiB
 * writes the page twice.  The model's import is checked against the probe,
 * and the block request count of a 4 MiB O_DIRECT READ_FIXED against the
 * model's table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"

#ifndef MFD_HUGETLB
#define MFD_HUGETLB 0x0004U
#endif
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21U << 26)
#endif

#define BUF_LEN (2 * T_SZ_2M)
#define FILE_SIZE (BUF_LEN + (64 << 10))
#define SEED_PAGE 0x7a1ULL

static long base_vmpin;

/*
 * READ_FIXED into [boff, boff+len): it lands in the one page, so it must
 * show through the other mapping too, and the rest of the page keeps its
 * background.
 */
static int read_seen_twice(const struct t_case *c, const struct t_regbuf *rb,
			   struct t_file *f, int fd, uint64_t boff,
			   uint64_t len, uint64_t foff)
{
	uint64_t in = boff & (T_SZ_2M - 1), first = T_SZ_2M - in;
	char what[160];
	int ret;

	if (first > len)
		first = len;
	ret = t_read_fixed_alias(rb, f, fd, T_SZ_2M, SEED_PAGE, boff, len, foff,
				 c->name, what, sizeof(what));
	/* through the second mapping */
	if (!ret)
		ret = t_pattern_verify(what, rb->addr + T_SZ_2M + in, first,
				       f->seed, foff);
	/* the bytes of the page around it keep the background */
	if (!ret && in + first < T_SZ_2M && len == first)
		ret = t_pattern_verify(what, rb->addr + in + first,
				       T_SZ_2M - in - first > 4096 ?
					       4096 :
					       T_SZ_2M - in - first,
				       SEED_PAGE, in + first);
	return ret;
}

static int aliased_io(const struct t_case *c, const struct t_regbuf *rb,
		      const struct t_model *m, struct t_file *f)
{
	int dfd = f->dfd >= 0 ? f->dfd : f->fd;
	int ret;

	t_model_print(m, 2);
	/* one compound page, charged once, on every kernel */
	ret = t_vmpin_expect(base_vmpin, 2048, "while registered");
	if (!ret)
		ret = t_model_check_import(m, 0, 64 << 10, c->name);
	if (!ret)
		ret = t_model_check_import(m, T_SZ_2M - T_SZ_4K, 2 * T_SZ_4K,
					   c->name);
	if (!ret)
		ret = t_model_check_import(m, BUF_LEN - 1, 1, c->name);
	if (!ret)
		ret = read_seen_twice(c, rb, f, dfd, T_SZ_2M - T_SZ_4K,
				      2 * T_SZ_4K, 0x20000);
	if (!ret)
		ret = read_seen_twice(c, rb, f, f->fd, T_SZ_2M - 0x123, 0x300,
				      0x5123);
	if (!ret)
		ret = read_seen_twice(c, rb, f, dfd, T_SZ_2M + (1 << 20),
				      64 << 10, 0x40000);
	if (!ret)
		ret = read_seen_twice(c, rb, f, f->fd, BUF_LEN - 10, 10, 0x77);
	/* the file holds the page twice */
	if (!ret)
		ret = t_write_fixed_alias(rb, f, dfd, T_SZ_2M, SEED_PAGE,
					  c->name);
	if (!ret)
		t_info("%s: aliasing-aware data checks: ok", c->name);
	return ret;
}

int main(int argc, char **argv)
{
	struct t_case c = {
		.name = "one 2M memfd hugepage mapped twice",
		.len = BUF_LEN,
		.requests = true,
		.aliased = true,
		.registered = aliased_io,
	};
	struct t_resv resv = { 0 };
	struct t_baseline base;
	struct t_file f;
	char *r;
	int mfd = -1, ret;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	ret = t_baseline_need(&base, T_SZ_2M, 1);
	if (ret)
		return t_done(ret);
	base_vmpin = base.vmpin_kb;
	ret = t_file_create(&f, FILE_SIZE, 0x7a0, true);
	if (ret)
		return t_done(ret);
	mfd = memfd_create("hugebuf-double",
			   MFD_CLOEXEC | MFD_HUGETLB | MFD_HUGE_2MB);
	if (mfd < 0) {
		ret = t_skip("memfd_create(MFD_HUGETLB): %s", strerror(errno));
		goto out;
	}
	if (ftruncate(mfd, T_SZ_2M)) {
		ret = t_fail("ftruncate of the hugetlb memfd: %s",
			     strerror(errno));
		goto out;
	}
	ret = t_resv_take(&resv, 0, 2 * T_SZ_2M, T_SZ_2M);
	if (ret)
		goto out;
	r = resv.at;
	if (mmap(r, T_SZ_2M, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 mfd, 0) == MAP_FAILED ||
	    mmap(r + T_SZ_2M, T_SZ_2M, PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_FIXED, mfd, 0) == MAP_FAILED) {
		ret = t_skip("mapping the hugetlb memfd twice: %s",
			     strerror(errno));
		goto out;
	}
	r[0] = 1;
	r[T_SZ_2M] = 1;
	ret = t_check_region(&c, r, NULL, &f);
out:
	t_resv_release(&resv);
	if (mfd >= 0)
		close(mfd);
	t_file_close(&f);
	/* both pins of every page dropped: the page is back in the pool */
	ret = t_worst(ret, t_baseline_check(&base, "after unmapping and "
						   "closing the memfd"));
	if (!ret)
		t_info("%s: ok", c.name);
	return t_done(ret);
}
