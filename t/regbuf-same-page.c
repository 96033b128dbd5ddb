// SPDX-License-Identifier: GPL-2.0-only
/*
 * One small page mapped many times back to back (docs/kernel-rules.md
 * §2.1; docs/regression-matrix.md).
 *
 * Guards CVE-2023-2598, fixed by 776617db78c6 "io_uring/rsrc: check for
 * nonconsecutive pages" (6.4-rc1, 6.3.2): 57bebf807e2a coalesced a buffer
 * into one bvec whenever every pinned page belonged to one folio, so the
 * same page mapped 512 times became one 2 MiB bvec starting at that page,
 * and I/O reached 2 MiB of physical memory past it.  Pages of a folio may
 * only be merged when they are consecutive (pages[i] == pages[i-1] + 1).
 *
 * A memfd page is mapped 512 times (MAP_FIXED, MAP_SHARED) and registered.
 * The model, run on the probed pages, must not coalesce it: 512 bvecs.
 * Data checks understand the aliasing: a WRITE_FIXED of the whole buffer
 * must write the one page 512 times; a READ_FIXED into alias k must show
 * through alias 0; one that spans two aliases lands its halves at the
 * page's end and start.  The block request count of a 2 MiB O_DIRECT
 * READ_FIXED must match the model (3 on vda for 512 bvecs, 1 if it were one
 * 2 MiB bvec).  VmPin returns to baseline.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"

#define NR_ALIAS 512
#define BUF_LEN (NR_ALIAS * T_SZ_4K)
#define FILE_SIZE (BUF_LEN + (64 << 10))
#define SEED_PAGE 0x6f1ULL

static int must_not_coalesce(const struct t_case *c, const struct t_model *m,
			     uint64_t (*more)[2], unsigned int *nr)
{
	(void)more;
	(void)nr;
	if (m->imu->coalesced || m->imu->nr_bvecs != m->imu->nr_pages)
		return t_fail("%s: the model coalesces one page mapped %u "
			      "times into %u bvecs (expected %u: CVE-2023-2598 "
			      "rule, pages must be consecutive)",
			      c->name, NR_ALIAS, m->imu->nr_bvecs,
			      m->imu->nr_pages);
	t_info("%s: model: %u bvecs of 4 KiB, not coalesced", c->name,
	       m->imu->nr_bvecs);
	return T_EXIT_PASS;
}

/* READ_FIXED of @len at alias offset @boff; alias 511 shows it too. */
static int read_alias(const struct t_case *c, const struct t_regbuf *rb,
		      struct t_file *f, int fd, uint64_t boff, uint64_t len,
		      uint64_t foff)
{
	char what[160];
	int ret;

	ret = t_read_fixed_alias(rb, f, fd, T_SZ_4K, SEED_PAGE, boff, len, foff,
				 c->name, what, sizeof(what));
	if (!ret && !memcmp(rb->addr, rb->addr + BUF_LEN - T_SZ_4K, T_SZ_4K))
		return T_EXIT_PASS;
	return ret ? ret : t_fail("%s: alias 511 differs from alias 0", what);
}

static int aliased_io(const struct t_case *c, const struct t_regbuf *rb,
		      const struct t_model *m, struct t_file *f)
{
	int ret;

	ret = t_model_check_import(m, 0, T_SZ_4K, c->name);
	if (!ret)
		ret = t_model_check_import(m, 7 * T_SZ_4K + 2048, T_SZ_4K,
					   c->name);
	if (!ret)
		ret = t_model_check_import(m, BUF_LEN - 100, 100, c->name);
	/* the file holds the page 512 times */
	if (!ret)
		ret = t_write_fixed_alias(rb, f, f->fd, T_SZ_4K, SEED_PAGE,
					  c->name);
	if (!ret)
		ret = read_alias(c, rb, f, f->fd, 5 * T_SZ_4K, T_SZ_4K,
				 3 * T_SZ_4K);
	if (!ret && f->dfd >= 0)
		ret = read_alias(c, rb, f, f->dfd, 300 * T_SZ_4K, T_SZ_4K,
				 9 * T_SZ_4K);
	if (!ret)
		ret = read_alias(c, rb, f, f->fd, 7 * T_SZ_4K + 2048, T_SZ_4K,
				 0x10000 + 2048);
	if (!ret)
		ret = read_alias(c, rb, f, f->fd, BUF_LEN - 100, 100, 0x1234);
	if (!ret)
		t_info("%s: aliasing-aware data checks: ok", c->name);
	return ret;
}

int main(int argc, char **argv)
{
	struct t_case c = {
		.name = "one memfd page mapped 512 times",
		.len = BUF_LEN,
		.requests = true,
		.aliased = true,
		.expect = must_not_coalesce,
		.registered = aliased_io,
	};
	struct t_baseline base;
	struct t_resv r;
	struct t_file f;
	char *resv;
	unsigned int i;
	int mfd, ret;

	(void)argv;
	ret = t_main_begin(argc, &base, &f, FILE_SIZE, 0x6f0);
	if (ret)
		return t_done(ret);
	mfd = memfd_create("hugebuf-same-page", MFD_CLOEXEC);
	if (mfd < 0) {
		ret = t_skip("memfd_create: %s", strerror(errno));
		goto out_file;
	}
	if (ftruncate(mfd, T_SZ_4K)) {
		ret = t_fail("ftruncate memfd: %s", strerror(errno));
		goto out_mfd;
	}
	ret = t_resv_take(&r, 0, BUF_LEN, T_SZ_4K);
	if (ret)
		goto out_mfd;
	resv = r.at;
	for (i = 0; i < NR_ALIAS; i++) {
		if (mmap(resv + i * T_SZ_4K, T_SZ_4K, PROT_READ | PROT_WRITE,
			 MAP_SHARED | MAP_FIXED, mfd, 0) == MAP_FAILED) {
			ret = t_fail("mapping alias %u: %s", i,
				     strerror(errno));
			goto out;
		}
		resv[i * T_SZ_4K] = 0; /* fault it in */
	}
	ret = t_check_region(&c, resv, NULL, &f);
out:
	t_resv_release(&r);
out_mfd:
	close(mfd);
out_file:
	return t_done(t_main_end(ret, &base, &f, c.name));
}
