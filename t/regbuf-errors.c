// SPDX-License-Identifier: GPL-2.0-only
/*
 * Registration error paths (docs/kernel-rules.md §7, §4;
 * docs/regression-matrix.md).
 *
 * Validation (io_buffer_validate() in 6.1, io_validate_user_buf_range()
 * in mainline): a length of 0 or over SZ_1G is -EFAULT, a NULL base with a
 * length is -EFAULT, an end that wraps is -EOVERFLOW; more than
 * IORING_MAX_REG_BUFFERS iovecs is -EINVAL.  For each invalid iovec the
 * kernel's errno must equal what hb_model_register() returns for the same
 * input.
 *
 * Pin and accounting failures must not leak pins (e1c75831f682 "fix
 * pinned pages leak" in the 6.16 fixes; the unwind in
 * io_sqe_buffer_register()):
 *  - a hugetlb page followed by an unmapped page: pinning fails part way
 *    (-EFAULT; kernels whose io_pin_pages() walks the VMAs itself, before
 *    6.5, may answer -EINVAL: measured on Debian 6.1.192); VmPin
 *    unchanged, and once unmapped the hugepage is back in the pool;
 *  - RLIMIT_MEMLOCK exceeded by a user without CAP_IPC_LOCK (a child drops
 *    to uid/gid 65534 and a 1 MiB limit; root is never checked): a 2 MiB
 *    hugetlb buffer is charged whole and must fail with -ENOMEM, VmPin
 *    unchanged, the hugepage back in the pool after the child exits; a
 *    512 KiB buffer of 4 KiB pages under the limit registers (control).
 *    The model has no memlock rule: it accepts that buffer.
 */
#include <errno.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define NOBODY 65534
#define MAX_MODEL_PAGES ((T_SZ_1G >> 12) + 2)

static struct hb_kmodel km;
static struct hb_page *pages;
static struct hb_bvec *bvecs;

/* The model's answer for one iovec (the pages array is never read). */
static int model_errno(uint64_t base, uint64_t len)
{
	struct hb_imu imu;

	return hb_model_register(&km, pages, base, len, bvecs, &imu);
}

static int check_invalid(struct io_uring *ring, const char *what, uint64_t base,
			 uint64_t len, int want)
{
	struct iovec iov = { (void *)(uintptr_t)base, len };
	long before = hb_vmpin_kb(), vmpin;
	int kret, mret;
	char msg[200];

	kret = io_uring_register_buffers(ring, &iov, 1);
	if (!kret)
		io_uring_unregister_buffers(ring);
	mret = model_errno(base, len);
	snprintf(msg, sizeof(msg), "%s: kernel errno (%s)", what,
		 strerror(-kret));
	if (kret != want)
		return t_fail_val(msg, want, kret);
	snprintf(msg, sizeof(msg), "%s: model errno vs kernel", what);
	if (mret != kret)
		return t_fail_val(msg, kret, mret);
	vmpin = t_settle_vmpin(before);
	if (vmpin != before)
		return t_fail_val("VmPin after a rejected iovec", before,
				  vmpin);
	t_info("%s: kernel and model both %s", what, strerror(-kret));
	return T_EXIT_PASS;
}

/*
 * One byte over the running kernel's per-buffer limit: SZ_1G with
 * -EFAULT up to 7.1 (io_buffer_validate()), SZ_1T with -EINVAL from 7.2
 * (io_validate_user_buf_range(), b4e41050b212).  Both kernels refuse it
 * before pinning a page, so the memory past @ok is never touched.
 */
static int check_over_limit(struct io_uring *ring, uint64_t ok)
{
	const char *what = "length SZ_1G + 1";

	if (km.buf_len_max > T_SZ_1G)
		what = "length SZ_1T + 1";
	return check_invalid(ring, what, ok, km.buf_len_max + 1,
			     -km.buf_len_errno);
}

static int check_validation(void)
{
	static char page[4096] __attribute__((aligned(4096)));
	uint64_t ok = (uintptr_t)page;
	struct io_uring ring;
	int ret;

	ret = t_ring_init(&ring, 4);
	if (ret)
		return ret;
	ret = check_over_limit(&ring, ok);
	if (!ret)
		ret = check_invalid(&ring, "length 0", ok, 0, -EFAULT);
	if (!ret)
		ret = check_invalid(&ring, "NULL base, 4 KiB", 0, 4096,
				    -EFAULT);
	if (!ret)
		ret = check_invalid(&ring, "end wraps the address space",
				    UINT64_MAX - 4095, 8192, -EOVERFLOW);
	if (!ret) {
		unsigned int n = HB_MAX_REG_BUFFERS + 1, i;
		struct iovec *iov = calloc(n, sizeof(*iov));

		if (!iov)
			ret = t_fail("out of memory");
		for (i = 0; iov && i < n; i++) {
			iov[i].iov_base = page;
			iov[i].iov_len = sizeof(page);
		}
		if (iov) {
			int k = io_uring_register_buffers(&ring, iov, n);

			if (!k)
				io_uring_unregister_buffers(&ring);
			if (k != -EINVAL)
				ret = t_fail_val("IORING_MAX_REG_BUFFERS + 1 "
						 "iovecs",
						 -EINVAL, k);
			else
				t_info("%u iovecs: EINVAL", n);
		}
		free(iov);
	}
	io_uring_queue_exit(&ring);
	return ret;
}

/* A hugetlb page with an unmapped page right after it. */
static int check_pin_hole(void)
{
	const char *what = "hugetlb page + hole";
	/* kernels whose io_pin_pages() walks the VMAs may say -EINVAL */
	int also = km.pin_checks_vmas ? -EINVAL : 0;
	struct t_baseline base;
	struct io_uring ring;
	struct t_resv r;
	int ret, k;

	ret = t_baseline_need(&base, T_SZ_2M, 1);
	if (ret)
		return ret;
	ret = t_resv_take(&r, 0, T_SZ_2M + T_SZ_4K, T_SZ_2M);
	if (ret)
		return ret;
	ret = t_map_hugetlb_at(r.at, 1, what);
	if (ret) {
		t_resv_release(&r);
		return ret;
	}
	/*
	 * The ring first: its mmap()s made after the hole could land in it
	 * (seen on 6.12.117, where the range then registered whole).
	 */
	ret = t_ring_init(&ring, 4);
	if (!ret)
		munmap(r.at + T_SZ_2M, T_SZ_4K); /* the hole */
	if (!ret) {
		ret = t_register_refused(&ring, r.at, T_SZ_2M + T_SZ_4K,
					 -EFAULT, also, base.vmpin_kb, what,
					 "pinning must stop at the hole", &k);
		if (!ret)
			t_info("%s: %s", what,
			       k == -EFAULT ? "EFAULT" : "EINVAL");
		io_uring_queue_exit(&ring);
	}
	t_resv_release(&r);
	return t_worst(ret, t_baseline_check(&base, "after the failed pin "
						    "and munmap"));
}

/* In the child: drop CAP_IPC_LOCK, then exceed a 1 MiB RLIMIT_MEMLOCK. */
static int memlock_child(void)
{
	struct rlimit rl = { 1 << 20, 1 << 20 };
	struct io_uring ring;
	struct iovec iov;
	char *huge, *small;
	long before;
	int k, ret;

	huge = mmap(NULL, T_SZ_2M, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB, -1, 0);
	if (huge == MAP_FAILED)
		return t_skip("no 2 MiB hugetlb page: %s", strerror(errno));
	memset(huge, 1, T_SZ_2M);
	small = mmap(NULL, 512 << 10, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (small == MAP_FAILED)
		return t_fail("mmap: %s", strerror(errno));
	memset(small, 1, 512 << 10);
	if (setrlimit(RLIMIT_MEMLOCK, &rl))
		return t_fail("setrlimit(RLIMIT_MEMLOCK): %s", strerror(errno));
	if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
	    setresuid(NOBODY, NOBODY, NOBODY))
		return t_skip("cannot drop to uid/gid %d: %s", NOBODY,
			      strerror(errno));
	ret = t_ring_init(&ring, 4);
	if (ret)
		return ret;
	before = hb_vmpin_kb();
	ret = t_register_refused(&ring, huge, T_SZ_2M, -ENOMEM, 0, before,
				 "2 MiB hugetlb over a 1 MiB RLIMIT_MEMLOCK "
				 "as uid 65534",
				 "the hugepage is charged whole", NULL);
	if (ret)
		return ret;
	t_info("2 MiB hugetlb, 1 MiB RLIMIT_MEMLOCK, no CAP_IPC_LOCK: ENOMEM "
	       "(the model has no memlock rule: it returns %d)",
	       model_errno((uintptr_t)huge, T_SZ_2M));
	/* control: under the limit the same ring registers */
	iov.iov_base = small;
	iov.iov_len = 512 << 10;
	k = io_uring_register_buffers(&ring, &iov, 1);
	if (k)
		return t_fail_val("512 KiB under a 1 MiB RLIMIT_MEMLOCK", 0, k);
	ret = t_vmpin_expect(before, 512, "512 KiB registered");
	io_uring_unregister_buffers(&ring);
	if (!ret)
		ret = t_vmpin_expect(before, 0, "after unregistering");
	io_uring_queue_exit(&ring);
	munmap(huge, T_SZ_2M);
	munmap(small, 512 << 10);
	return ret;
}

static int check_memlock(void)
{
	struct t_baseline base;
	int status, ret;
	pid_t pid;

	if (geteuid() != 0)
		return t_skip("memlock case: needs root to drop to uid 65534 "
			      "(as a non-root user, run it with a small "
			      "ulimit -l instead)");
	ret = t_baseline_need(&base, T_SZ_2M, 1);
	if (ret)
		return ret;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return t_fail("fork: %s", strerror(errno));
	if (!pid)
		_exit(memlock_child());
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
		return t_fail("the memlock child died (status 0x%x)", status);
	ret = WEXITSTATUS(status);
	return t_worst(ret, t_baseline_check(&base, "after the memlock "
						    "child exited"));
}

int main(int argc, char **argv)
{
	int ret, r[3], i;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	if (hb_kmodel_running(&km))
		return t_done(t_fail("kernel model: %s", hb_errmsg()));
	pages = calloc(MAX_MODEL_PAGES, sizeof(*pages));
	bvecs = calloc(MAX_MODEL_PAGES, sizeof(*bvecs));
	if (!pages || !bvecs)
		return t_done(t_fail("out of memory for the model arrays"));
	r[0] = check_validation();
	r[1] = r[0] == T_EXIT_FAIL ? T_EXIT_SKIP : check_pin_hole();
	r[2] = r[1] == T_EXIT_FAIL ? T_EXIT_SKIP : check_memlock();
	ret = T_EXIT_SKIP;
	for (i = 0; i < 3; i++) {
		if (r[i] == T_EXIT_FAIL)
			ret = T_EXIT_FAIL;
		else if (r[i] == T_EXIT_PASS && ret == T_EXIT_SKIP)
			ret = T_EXIT_PASS;
	}
	free(pages);
	free(bvecs);
	return t_done(ret);
}
