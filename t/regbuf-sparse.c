// SPDX-License-Identifier: GPL-2.0-only
/*
 * Hugepage buffers in a sparse table, filled, replaced and cleared through
 * IORING_REGISTER_BUFFERS_UPDATE (docs/kernel-rules.md §7.1: {NULL, 0} is
 * an empty slot; docs/regression-matrix.md; liburing test/regbuf-clone.c
 * test_merge shows the same pattern).
 *
 * Each update runs io_sqe_buffer_register() for one slot, so coalescing,
 * accounting and import work per slot exactly as for a plain
 * registration; a replaced or cleared slot's pages are unpinned and
 * un-charged (on 6.1 lazily, through the rsrc node: the test waits).
 * Steps, with data checked through each live slot (sweep, model import
 * against the probe, request count) and I/O on an empty or cleared slot
 * failing with EFAULT:
 *  1. sparse table of 8; slot 1 = 2 x 2 MiB hugetlb, slot 3 = 2 x 2 MiB
 *     hugetlb from +0x1234; VmPin = 4 whole folios;
 *  2. slot 1 replaced by 1 MiB of 4 KiB pages; I/O through slot 1 lands in
 *     the new buffer; VmPin = 2 folios + 1 MiB;
 *  3. slot 3 cleared; I/O on it fails; VmPin = 1 MiB;
 *  4. unregister: VmPin and the free hugepages back at their baseline.
 */
#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "helpers.h"

#define FILE_SIZE ((4ULL << 20) + (64 << 10))

static int settle_vmpin(long base, long delta)
{
	long want = base + (t_vmpin_charged() ? delta : 0);
	long v = t_settle_vmpin(want);

	return v == want ? T_EXIT_PASS :
			   t_fail_val("VmPin (kB) after the update", want, v);
}

static int check_slot(struct io_uring *ring, int idx, struct hb_buf *b,
		      const char *backing, struct t_file *f, const char *what)
{
	struct t_regbuf rb = { ring, b->addr, b->len, idx };
	struct hb_backing bk;
	struct t_model m;
	int ret;

	hb_backing_parse(backing, &bk);
	ret = t_model_buffer(b->addr, b->len, &bk, &m);
	if (!ret)
		ret = t_check_sweep(&rb, &m, f, what);
	if (!ret)
		ret = t_check_requests(&rb, &m, f, what);
	t_model_free(&m);
	return ret;
}

/* An empty slot imports nothing: 6.1's dummy_ubuf, mainline's NULL node. */
static int expect_efault(struct io_uring *ring, int idx, void *addr, int fd)
{
	char msg[64];
	int res = t_io(ring, IORING_OP_READ_FIXED, fd, addr, 4096, 0, idx);

	snprintf(msg, sizeof(msg), "READ_FIXED on empty slot %d", idx);
	if (res != -EFAULT)
		return t_fail_val(msg, -EFAULT, res);
	return T_EXIT_PASS;
}

int main(int argc, char **argv)
{
	struct hb_buf x = { .memfd = -1 }, y = { .memfd = -1 },
		      z = { .memfd = -1 };
	struct iovec iov, none = { NULL, 0 };
	struct t_baseline base;
	struct io_uring ring;
	struct t_file f;
	int ret;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	ret = t_baseline_need(&base, T_SZ_2M, 4);
	if (ret)
		return t_done(ret);
	ret = t_file_create(&f, FILE_SIZE, 0x5a5, true);
	if (ret)
		return t_done(ret);
	ret = t_alloc("hugetlb:2M", 2 * T_SZ_2M, 0, &x);
	if (!ret)
		ret = t_alloc("hugetlb:2M", 2 * T_SZ_2M - 0x1234, 0x1234, &y);
	if (!ret)
		ret = t_alloc("4k", 1 << 20, 0, &z);
	if (ret)
		goto out_bufs;
	ret = t_ring_init(&ring, 4);
	if (ret)
		goto out_bufs;
	if (hb_register_sparse(&ring, 8)) {
		ret = t_skip("no sparse buffer tables: %s", hb_errmsg());
		goto out_ring;
	}
	/* 1 */
	iov.iov_base = x.addr;
	iov.iov_len = x.len;
	if (hb_register_update(&ring, 1, &iov, 1)) {
		ret = t_fail("update slot 1: %s", hb_errmsg());
		goto out_unreg;
	}
	iov.iov_base = y.addr;
	iov.iov_len = y.len;
	if (hb_register_update(&ring, 3, &iov, 1)) {
		ret = t_fail("update slot 3: %s", hb_errmsg());
		goto out_unreg;
	}
	ret = t_vmpin_expect(base.vmpin_kb, 4 * 2048, "slots 1 and 3 filled");
	if (!ret)
		ret = expect_efault(&ring, 0, x.addr, f.fd);
	if (!ret)
		ret = check_slot(&ring, 1, &x, "hugetlb:2M", &f, "slot 1");
	if (!ret)
		ret = check_slot(&ring, 3, &y, "hugetlb:2M", &f,
				 "slot 3 (+0x1234)");
	/* 2 */
	iov.iov_base = z.addr;
	iov.iov_len = z.len;
	if (!ret && hb_register_update(&ring, 1, &iov, 1))
		ret = t_fail("replacing slot 1: %s", hb_errmsg());
	if (!ret)
		ret = settle_vmpin(base.vmpin_kb, 2 * 2048 + 1024);
	if (!ret)
		ret = check_slot(&ring, 1, &z, "4k", &f, "slot 1 replaced");
	/* 3 */
	if (!ret && hb_register_update(&ring, 3, &none, 1))
		ret = t_fail("clearing slot 3: %s", hb_errmsg());
	if (!ret)
		ret = settle_vmpin(base.vmpin_kb, 1024);
	if (!ret)
		ret = expect_efault(&ring, 3, y.addr, f.fd);
	if (!ret)
		t_info("sparse table: fill, replace, clear: ok");
out_unreg:
	io_uring_unregister_buffers(&ring);
out_ring:
	io_uring_queue_exit(&ring);
out_bufs:
	if (x.map)
		hb_free(&x);
	if (y.map)
		hb_free(&y);
	if (z.map)
		hb_free(&z);
	t_file_close(&f);
	return t_done(
		t_worst(ret, t_baseline_check(&base, "after unregistering and "
						     "unmapping")));
}
