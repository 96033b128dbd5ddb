// SPDX-License-Identifier: GPL-2.0-only
/*
 * 1000 register/unregister cycles of a multi-folio buffer leak nothing
 * (docs/kernel-rules.md §4, §8; the unpin and accounting paths of
 * io_sqe_buffer_register() and io_buffer_unmap(): guards 5afb4bf9fc62 and
 * e1c75831f682; docs/regression-matrix.md).
 *
 * An 8 MiB buffer of four 2 MiB hugetlb folios is registered and
 * unregistered 1000 times on one ring: VmPin must be back at its baseline
 * after the cycles, and the hugepages back in the pool once it is
 * unmapped (a pin leaked per cycle would keep them).  Every 100th cycle
 * reads through the buffer across a folio seam and checks the data.
 *
 * Kernel memory: the same is done with an 8 MiB buffer of 4 KiB pages,
 * whose imu (2048 bvecs) the model sizes at hb_kvmalloc_bytes() of
 * header + 16 B per bvec.  If each cycle leaked its imu, SUnreclaim +
 * VmallocUsed would grow by 1000 times that; the test fails when the
 * growth reaches half of it, a margin far above the noise of other
 * allocations.  (A hugepage buffer's imu is too small to tell from noise,
 * and on mainline comes from ctx->imu_cache.)
 */
#include <stdio.h>
#include <stdlib.h>

#include "helpers.h"
#include "job/job.h"

#define BUF_LEN (4 * T_SZ_2M)
/*
 * 1000 by default; HB_TEST_CYCLES (100 to 1000) gives fewer: the qemu
 * guests run 250 (kernel/kboot.sh), where a cycle of 2048 pinned 4 KiB
 * pages costs TCG ~30 ms and a leak of a pin or an imu per cycle still
 * shows at once.
 */
#define CYCLES_MAX 1000
static unsigned int cycles_n = CYCLES_MAX;
#define FILE_SIZE ((1ULL << 20) + (64 << 10))

static int cycles(const char *backing, struct t_file *f, bool kmem)
{
	struct t_baseline base;
	struct io_uring ring;
	struct hb_buf buf;
	struct t_model m;
	struct iovec iov;
	long kmem_before = 0, kmem_after, bound = 0;
	char what[96];
	unsigned int i;
	int ret;

	if (!kmem) {
		ret = t_need_hugepages(T_SZ_2M, 4);
		if (ret)
			return ret;
	}
	ret = t_baseline_take(&base, kmem ? 0 : T_SZ_2M);
	if (ret)
		return ret;
	ret = t_alloc(backing, BUF_LEN, 0, &buf);
	if (ret)
		return ret;
	ret = t_model_buffer(buf.addr, BUF_LEN, NULL, &m);
	if (ret)
		goto out_buf;
	bound = (long)(m.imu->alloc_bytes * cycles_n / 2 / 1024);
	ret = t_ring_init(&ring, 4);
	if (ret)
		goto out_model;
	iov.iov_base = buf.addr;
	iov.iov_len = BUF_LEN;
	kmem_before = hbi_kernel_mem_kb();
	for (i = 0; i < cycles_n && !ret; i++) {
		ret = t_register(&ring, &iov, 1);
		if (ret)
			break;
		if (i % 100 == 0) {
			struct t_regbuf rb = { &ring, buf.addr, BUF_LEN, 0 };

			snprintf(what, sizeof(what), "%s cycle %u", backing, i);
			ret = t_read_fixed_check(&rb, f->fd, f->seed, 0x3000,
						 T_SZ_2M - 0x2345, 0x10000,
						 what);
			if (!ret)
				ret = t_model_check_import(&m, T_SZ_2M - 0x2345,
							   0x10000, what);
		}
		if (io_uring_unregister_buffers(&ring))
			ret = t_fail("unregister in cycle %u failed", i);
	}
	kmem_after = hbi_kernel_mem_kb();
	io_uring_queue_exit(&ring);
	if (!ret) {
		snprintf(what, sizeof(what), "after %u cycles of %s", cycles_n,
			 backing);
		ret = t_vmpin_expect(base.vmpin_kb, 0, what);
	}
	if (!ret && kmem) {
		long grew = kmem_after - kmem_before;

		t_info("%s: SUnreclaim + VmallocUsed grew %ld kB over %u "
		       "cycles (a leaked imu of %llu bytes per cycle would be "
		       "%ld kB)",
		       backing, grew, cycles_n,
		       (unsigned long long)m.imu->alloc_bytes, 2 * bound);
		if (bound && grew >= bound)
			ret = t_fail("kernel memory grew %ld kB over %u "
				     "register/unregister cycles of %s (half "
				     "of a per-cycle imu leak is %ld kB)",
				     grew, cycles_n, backing, bound);
	}
out_model:
	t_model_free(&m);
out_buf:
	hb_free(&buf);
	ret = t_worst(ret, t_baseline_check(&base, "after the cycles and "
						   "munmap"));
	if (!ret)
		t_info("%s: %u cycles: ok", backing, cycles_n);
	return ret;
}

int main(int argc, char **argv)
{
	struct t_file f;
	int r1, r2;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	if (getenv("HB_TEST_CYCLES")) {
		unsigned long n = strtoul(getenv("HB_TEST_CYCLES"), NULL, 10);

		if (n < 100 || n > CYCLES_MAX)
			return t_done(t_fail("HB_TEST_CYCLES=%s: give 100 to "
					     "%u, or unset it",
					     getenv("HB_TEST_CYCLES"),
					     CYCLES_MAX));
		cycles_n = (unsigned int)n;
	}
	r1 = t_file_create(&f, FILE_SIZE, 0xcc1, false);
	if (r1)
		return t_done(r1);
	r1 = cycles("hugetlb:2M", &f, false);
	r2 = r1 == T_EXIT_FAIL ? T_EXIT_SKIP : cycles("4k", &f, true);
	t_file_close(&f);
	if (r1 == T_EXIT_FAIL || r2 == T_EXIT_FAIL)
		return t_done(T_EXIT_FAIL);
	return t_done((!r1 || !r2) ? T_EXIT_PASS : T_EXIT_SKIP);
}
