// SPDX-License-Identifier: GPL-2.0-only
/*
 * One registered region for several rings: IORING_REGISTER_CLONE_BUFFERS
 * (6.12, 7cc2a6eadcd7; offsets and counts 6.13).  A clone shares the
 * source's mapped buffers (the imus are reference counted), so it pins
 * nothing more: VmPin must not grow.  The clone's I/O must land where the
 * source's would, and tearing the source ring down while the clone still
 * has reads in flight must be safe: the reads complete with the right
 * data, and only when the last ring is gone do pins and hugepages return.
 * A clone into a ring that already has a table needs
 * IORING_REGISTER_DST_REPLACE (-EBUSY without it).  Kernels without the
 * register op: SKIP.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "base/uring-compat.h"

#define NR_BUFS		4
#define BUF_LEN		(2ULL << 20)
#define FILE_LEN	(16ULL << 20)
#define SEED		0xc10e
#define IN_FLIGHT	8

static int read_fixed_n(struct io_uring *ring, int fd, char *base,
			unsigned int n, unsigned int idx_of_base)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		unsigned int b = i % NR_BUFS;
		char *at = base + b * BUF_LEN + 0x40000 * (i / NR_BUFS);

		if (!sqe)
			return -EBUSY;
		/* buffer b, 256 KiB at +0x40000 * i, from file 1M * i */
		io_uring_prep_read_fixed(sqe, fd, at, 0x40000,
					 (uint64_t)i << 20, idx_of_base + b);
		sqe->user_data = i;
	}
	return io_uring_submit(ring);
}

static int reap_check(struct io_uring *ring, char *base, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct io_uring_cqe *cqe;
		unsigned int k;
		int ret;

		ret = io_uring_wait_cqe(ring, &cqe);
		if (ret)
			return t_fail("waiting for a cloned-buffer read: %d",
				      ret);
		k = cqe->user_data;
		if (cqe->res != 0x40000) {
			ret = cqe->res;
			io_uring_cqe_seen(ring, cqe);
			return t_fail("read %u on the clone returned %d", k,
				      ret);
		}
		io_uring_cqe_seen(ring, cqe);
		ret = t_pattern_verify("read through the clone",
				       base + (k % NR_BUFS) * BUF_LEN +
				       0x40000 * (k / NR_BUFS), 0x40000, SEED,
				       (uint64_t)k << 20);
		if (ret)
			return ret;
	}
	return T_EXIT_PASS;
}

static int check_vmpin(long want, const char *when)
{
	long now = t_settle_vmpin(want);

	if (now < 0)
		return T_EXIT_PASS;
	if (now != want)
		return t_fail("VmPin %ld kB %s, expected %ld kB", now, when,
			      want);
	t_info("VmPin %ld kB %s", now, when);
	return T_EXIT_PASS;
}

int main(void)
{
	struct io_uring src, clone, other;
	struct t_baseline base;
	struct iovec iov[NR_BUFS];
	struct hb_buf buf = { .memfd = -1 };
	struct t_file f;
	long pinned;
	unsigned int i;
	int ret;

	ret = t_baseline_need(&base, BUF_LEN, NR_BUFS);
	if (ret)
		return t_done(ret);
	ret = t_file_create(&f, FILE_LEN, SEED, false);
	if (ret)
		return t_done(ret);
	ret = t_alloc("hugetlb:2M", NR_BUFS * BUF_LEN, 0, &buf);
	if (ret)
		goto out_file;
	for (i = 0; i < NR_BUFS; i++) {
		iov[i].iov_base = (char *)buf.addr + i * BUF_LEN;
		iov[i].iov_len = BUF_LEN;
	}
	ret = t_ring_init(&src, 32);
	if (ret)
		goto out_buf;
	ret = t_ring_init(&clone, 32);
	if (ret)
		goto out_src;
	ret = t_register(&src, iov, NR_BUFS);
	if (ret)
		goto out_clone;
	pinned = hb_vmpin_kb();

	ret = hb_clone_buffers(&clone, &src, 0, 0, 0, 0);
	if (ret == -EINVAL || ret == -EOPNOTSUPP || ret == -ENOSYS) {
		ret = t_skip("the kernel cannot clone registered buffers "
			     "(IORING_REGISTER_CLONE_BUFFERS, 6.12+): %d",
			     ret);
		goto out_clone;
	}
	if (ret) {
		ret = t_fail("cloning the buffer table: %s", strerror(-ret));
		goto out_clone;
	}
	ret = check_vmpin(pinned, "after the clone (no new pins)");
	if (ret)
		goto out_clone;

	/* a second clone into a ring with a table: -EBUSY unless REPLACE */
	ret = hb_clone_buffers(&clone, &src, 0, 0, 0, 0);
	if (ret != -EBUSY) {
		ret = t_fail_val("clone into a ring that has a table", -EBUSY,
				 ret);
		goto out_clone;
	}
	ret = hb_clone_buffers(&clone, &src, 0, 0, 0,
			       HB_IORING_REGISTER_DST_REPLACE);
	if (ret == -EBUSY || ret == -EINVAL) {
		/* DST_REPLACE came with the offsets in 6.13 */
		t_skip_check("clone with DST_REPLACE: %s (needs 6.13)",
			     strerror(-ret));
	} else if (ret) {
		ret = t_fail("clone with DST_REPLACE: %s", strerror(-ret));
		goto out_clone;
	}

	/* reads in flight on the clone while the source ring goes away */
	memset(buf.addr, 0, NR_BUFS * BUF_LEN);
	ret = read_fixed_n(&clone, f.fd, buf.addr, IN_FLIGHT, 0);
	if (ret != IN_FLIGHT) {
		ret = t_fail("submitting %d reads on the clone: %d", IN_FLIGHT,
			     ret);
		goto out_clone;
	}
	io_uring_queue_exit(&src);
	ret = reap_check(&clone, buf.addr, IN_FLIGHT);
	if (ret)
		goto out_clone_only;
	ret = check_vmpin(pinned, "with the source ring gone, clone alive");
	if (ret)
		goto out_clone_only;

	/* 6.13: one buffer at an offset into a third ring */
	ret = t_ring_init(&other, 8);
	if (ret)
		goto out_clone_only;
	ret = hb_clone_buffers(&other, &clone, 2, 1, 1, 0);
	if (ret == -EINVAL) {
		ret = t_skip_check("clone with offsets: -EINVAL (needs 6.13)");
	} else if (ret) {
		ret = t_fail("clone of buffer 2 to slot 1: %s", strerror(-ret));
	} else {
		char *b2 = (char *)buf.addr + 2 * BUF_LEN;

		memset(b2, 0, BUF_LEN);
		ret = t_io(&other, IORING_OP_READ_FIXED, f.fd, b2, BUF_LEN,
			   5ULL << 20, 1);
		if (ret != (int)BUF_LEN)
			ret = t_fail_val("READ_FIXED of cloned slot 1",
					 BUF_LEN, ret);
		else
			ret = t_pattern_verify("cloned slot 1", b2, BUF_LEN,
					       SEED, 5ULL << 20);
		if (!ret)
			t_info("buffer 2 cloned to slot 1 of a third ring: "
			       "data ok");
	}
	io_uring_queue_exit(&other);
out_clone_only:
	io_uring_queue_exit(&clone);
	hb_free(&buf);
	t_file_close(&f);
	return t_done(
		t_worst(ret, t_baseline_check(&base, "after every ring and "
						     "the buffer are gone")));
out_clone:
	io_uring_queue_exit(&clone);
out_src:
	io_uring_queue_exit(&src);
out_buf:
	hb_free(&buf);
out_file:
	t_file_close(&f);
	return t_done(
		t_worst(ret, t_baseline_check(&base, "after every ring and the "
						     "buffer are gone")));
}
