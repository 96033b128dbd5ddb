// SPDX-License-Identifier: GPL-2.0-only
/*
 * A partially shared THP (docs/kernel-rules.md §4; guards 5afb4bf9fc62;
 * docs/regression-matrix.md; the PARTIAL_SHARED pattern of
 * tools/testing/selftests/mm/cow.c, David Hildenbrand's reproducer for the
 * head-page unpin bug).
 *
 * Only the first page of a PMD THP is shared with a child through fork
 * (the rest is MADV_DONTFORK), so page 0 lost PageAnonExclusive while the
 * tail pages kept it.  The tail pages are registered (a buffer starting at
 * page 1: one bvec with bv_offset 0x1000 on a coalescing kernel), then:
 *  - "write, fork, verify": the parent fills the buffer, forks a child
 *    (which gets its own copies of the pinned pages), overwrites the
 *    buffer, and WRITE_FIXED must send the new bytes (the pin still points
 *    at the parent's pages: "longterm R/W pin is reliable"); READ_FIXED
 *    must land in the parent's view; the child must still see the first
 *    contents;
 *  - the usual data sweep, the model's import against the probe, and the
 *    request count;
 *  - unregister must drop every pin taken (5afb4bf9fc62): pages shared at
 *    fork again (seen through PFNs, root only), VmPin at baseline.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define FILE_SIZE ((4ULL << 20) + (64 << 10))
#define SEED_OLD 0x5e1ULL
#define SEED_NEW 0x5e2ULL

/* Share page 0 of the THP with a child that exits at once. */
static int share_first_page(char *thp)
{
	int status;
	pid_t pid;

	if (madvise(thp + T_SZ_4K, T_SZ_2M - T_SZ_4K, MADV_DONTFORK))
		return t_fail("madvise(MADV_DONTFORK): %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		return t_fail("fork: %s", strerror(errno));
	if (!pid)
		_exit(0);
	waitpid(pid, &status, 0);
	if (madvise(thp + T_SZ_4K, T_SZ_2M - T_SZ_4K, MADV_DOFORK))
		return t_fail("madvise(MADV_DOFORK): %s", strerror(errno));
	return T_EXIT_PASS;
}

/*
 * Fill, fork (the child keeps a copy and checks it at the end), refill in
 * the parent, then the pinned pages must be the parent's.
 */
static int write_fork_verify(const struct t_case *c, const struct t_regbuf *rb,
			     const struct t_model *m, struct t_file *f)
{
	char what[160];
	int go[2], status, ret;
	pid_t pid;

	(void)m;
	t_pattern_fill(rb->addr, rb->len, SEED_OLD, 0);
	if (pipe(go))
		return t_fail("pipe: %s", strerror(errno));
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return t_fail("fork: %s", strerror(errno));
	if (!pid) {
		char x;

		close(go[1]);
		if (read(go[0], &x, 1) < 0)
			_exit(2);
		/* the child's copy holds what was there at fork time */
		_exit(t_pattern_ok(rb->addr, rb->len, SEED_OLD, 0, NULL) ? 0 :
									   1);
	}
	close(go[0]);
	snprintf(what, sizeof(what), "%s: after fork, parent's new data",
		 c->name);
	ret = t_write_fixed_check(rb, f, f->dfd >= 0 ? f->dfd : f->fd, SEED_NEW,
				  0, 0, rb->len, what);
	if (!ret)
		ret = t_read_fixed_check(rb, f->fd, f->seed, 0, 0, rb->len,
					 what);
	close(go[1]);
	waitpid(pid, &status, 0);
	if (!ret && (!WIFEXITED(status) || WEXITSTATUS(status)))
		ret = t_fail("%s: the child's copy of the buffer changed after "
			     "fork (status 0x%x)",
			     c->name, status);
	if (!ret)
		t_info("%s: write, fork, verify: ok", c->name);
	return ret;
}

int main(int argc, char **argv)
{
	struct t_case c = {
		.name = "THP shared page 0, registered pages 1..511",
		.len = T_SZ_2M - T_SZ_4K,
		.requests = true,
		.registered = write_fork_verify,
	};
	struct t_baseline base;
	struct hb_backing b;
	struct hb_buf buf;
	struct t_file f;
	int ret;

	(void)argv;
	ret = t_main_begin(argc, &base, &f, FILE_SIZE, 0x5e0);
	if (ret)
		return t_done(ret);
	ret = t_alloc_thp(T_SZ_2M, 0, &buf, c.name);
	if (ret)
		goto out_file;
	ret = share_first_page(buf.map);
	if (ret)
		goto out_buf;
	hb_backing_parse("thp", &b);
	ret = t_check_region(&c, (char *)buf.map + T_SZ_4K, &b, &f);
	if (!ret)
		ret = t_vmpin_expect(base.vmpin_kb, 0, "after unregistering");
	if (!ret)
		ret = t_expect_pinned((char *)buf.map + T_SZ_4K, false,
				      "page 1 after unregistering");
	if (!ret)
		ret = t_expect_pinned(buf.map, false,
				      "page 0 after unregistering");
out_buf:
	hb_free(&buf);
out_file:
	return t_done(t_main_end(ret, &base, &f, c.name));
}
