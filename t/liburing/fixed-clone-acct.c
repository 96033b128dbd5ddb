// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: the memlock charge of a 2 MiB hugetlb page shared through
 * a cloned buffer table, as an unprivileged user.  7.2's per-ring
 * hugepage accounting un-charges such a page twice: ring B, whose clone
 * of A's table already holds the page, registers its own buffer on it
 * for free, A gives the page back with the shared buffer's last
 * reference, and B gives it back again with its own.  The user's
 * locked_vm (and the process's VmPin) end one hugepage below zero, read
 * as a huge unsigned count, and every later registration of that user,
 * in any process, fails with ENOMEM until reboot.  Fixed by efde156d91ba
 * ("io_uring/rsrc: fix accounting for cloned buffers with huge pages",
 * queued for 7.4); Debian's 7.2.13 and 7.3.4 have the bug.
 *
 * As root: one 2 MiB hugetlb page and RLIMIT_MEMLOCK; then uid/gid
 * 64999, a user of its own (no CAP_IPC_LOCK, so the rings charge it):
 *   1. ring A registers the page's first 1 MiB;
 *   2. ring B clones A's table (IORING_REGISTER_CLONE_BUFFERS, 6.12+);
 *   3. B's slot 0 is updated to the page's second 1 MiB;
 *   4. A unregisters;  5. B unregisters;
 * VmPin is read after each step once it holds still, then a new 1 MiB
 * buffer of 4 KiB pages must register.  Exit 1 when VmPin ends below
 * zero or that registration fails (the bug), or VmPin does not come back;
 * 0 when it comes back and the registration works; 77 without root, a
 * hugetlb page or clones.
 *
 * On a kernel with the bug this leaves that uid unable to register
 * buffers until reboot, which is why it is no other test's user
 * (they drop to 65534): run it in a throwaway machine.  From hugebuf's
 * model (docs/kernel-rules.md §6.5), which predicts VmPin 2048, 2048,
 * 2048, 0, 0 kB up to 7.1 and 2048, 2048, 2048, 0, -2048 on 7.2 and 7.3.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <linux/mman.h>

#include "liburing.h"
#include "helpers.h"

#define HUGE_SZ		(2UL << 20)
#define HALF_SZ		(1UL << 20)
#define TEST_UID		64999
#define STEPS		5
/* how long VmPin may take to hold still (ring teardown is deferred) */
#define SETTLE_MS	3000
#define SETTLE_READS	5
/* the hugepage, a 1 MiB buffer of 4 KiB pages, and room for a clone's */
#define MEMLOCK_NEED	(4UL << 20)

/* VmPin in kB as the kernel's signed counter: below zero is the bug */
static int vmpin_raw(long long *kb)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long v;
	char line[128];
	int ret = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %llu", &v) == 1) {
			*kb = (long long)v;
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/*
 * The settle rule: VmPin is taken once SETTLE_READS reads 10 ms apart
 * agree (deferred unpinning has finished), or after SETTLE_MS.
 */
static long long vmpin_settled(void)
{
	long long kb = 0, prev = 0;
	int same = 0, waited;

	for (waited = 0; waited < SETTLE_MS; waited += 10) {
		if (vmpin_raw(&kb))
			return 0;
		same = waited && kb == prev ? same + 1 : 0;
		if (same + 1 >= SETTLE_READS)
			break;
		prev = kb;
		usleep(10 * 1000);
	}
	return kb;
}

/*
 * RLIMIT_MEMLOCK of at least MEMLOCK_NEED: raised where root may
 * (CAP_SYS_RESOURCE), else the soft limit up to the hard one.
 */
static int memlock_enough(void)
{
	struct rlimit rl = { 64UL << 20, 64UL << 20 };

	if (!setrlimit(RLIMIT_MEMLOCK, &rl))
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return -1;
	rl.rlim_cur = rl.rlim_max;
	if (rl.rlim_cur < MEMLOCK_NEED || setrlimit(RLIMIT_MEMLOCK, &rl)) {
		errno = ENOMEM;
		return -1;
	}
	return 0;
}

/* Root's part: the hugetlb page, a memlock limit, then uid 64999. */
static char *setup_as_root(void)
{
	char *huge;

	if (geteuid()) {
		fprintf(stderr, "needs root to set up, then runs as uid %d: "
			"skipping\n", TEST_UID);
		return NULL;
	}
	huge = mmap(NULL, HUGE_SZ, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB,
		    -1, 0);
	if (huge == MAP_FAILED) {
		fprintf(stderr, "a 2 MiB hugetlb page: %s (vm.nr_hugepages "
			"too low?): skipping\n", strerror(errno));
		return NULL;
	}
	memset(huge, 0x5a, HUGE_SZ);
	if (memlock_enough() || setgid(TEST_UID) || setuid(TEST_UID)) {
		fprintf(stderr, "becoming uid %d with a memlock limit of 4 MiB "
			"or more: %s: skipping\n", TEST_UID, strerror(errno));
		munmap(huge, HUGE_SZ);
		return NULL;
	}
	return huge;
}

static int reg_one(struct io_uring *ring, void *buf, size_t len)
{
	struct iovec iov = { buf, len };

	return io_uring_register_buffers(ring, &iov, 1);
}

/* B's slot 0 := @buf: one update; liburing returns how many it updated */
static int update_slot0(struct io_uring *ring, void *buf, size_t len)
{
	struct iovec iov = { buf, len };
	int ret = io_uring_register_buffers_update_tag(ring, 0, &iov, NULL, 1);

	return ret == 1 ? 0 : ret < 0 ? ret : -EIO;
}

/*
 * After the sequence: a 1 MiB buffer of 4 KiB pages in a new ring.  With
 * locked_vm below zero, __io_account_mem() sees a huge unsigned count
 * and refuses it with ENOMEM.
 */
static int register_after(void)
{
	struct io_uring ring;
	void *buf;
	int ret;

	buf = mmap(NULL, HALF_SZ, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return -ENOMEM;
	memset(buf, 0, HALF_SZ);
	ret = io_uring_queue_init(8, &ring, 0);
	if (!ret) {
		ret = reg_one(&ring, buf, HALF_SZ);
		if (!ret)
			io_uring_unregister_buffers(&ring);
		io_uring_queue_exit(&ring);
	}
	munmap(buf, HALF_SZ);
	return ret;
}

static const char *const step_name[STEPS] = {
	"A registers [H 0-1M]", "B clones A", "B's slot 0 := [H 1-2M]",
	"A unregisters", "B unregisters",
};

/* Steps 1 - 5; @kb gets VmPin after each.  T_EXIT_* */
static int run_sequence(char *huge, long long *kb)
{
	struct io_uring a, b;
	int ret, step = 0;

	if (io_uring_queue_init(8, &a, 0) || io_uring_queue_init(8, &b, 0)) {
		fprintf(stderr, "two rings as uid %d failed\n", TEST_UID);
		return T_EXIT_FAIL;
	}
	ret = reg_one(&a, huge, HALF_SZ);
	if (ret == -ENOMEM) {
		fprintf(stderr, "uid %d cannot register 1 MiB before the "
			"sequence (ENOMEM): its locked_vm is already off, an "
			"earlier run on this boot?\n", TEST_UID);
		ret = T_EXIT_FAIL;
		goto out;
	}
	if (ret)
		goto fail;
	kb[step++] = vmpin_settled();
	ret = io_uring_clone_buffers(&b, &a);
	if (ret == -EINVAL || ret == -EOPNOTSUPP) {
		fprintf(stderr, "no IORING_REGISTER_CLONE_BUFFERS (%s; 6.12+): "
			"skipping\n", strerror(-ret));
		io_uring_unregister_buffers(&a);
		ret = T_EXIT_SKIP;
		goto out;
	}
	if (ret)
		goto fail;
	kb[step++] = vmpin_settled();
	ret = update_slot0(&b, huge + HALF_SZ, HALF_SZ);
	if (ret)
		goto fail;
	kb[step++] = vmpin_settled();
	ret = io_uring_unregister_buffers(&a);
	if (ret)
		goto fail;
	kb[step++] = vmpin_settled();
	ret = io_uring_unregister_buffers(&b);
	if (ret)
		goto fail;
	kb[step++] = vmpin_settled();
	ret = T_EXIT_PASS;
	goto out;
fail:
	fprintf(stderr, "%s: %s\n", step_name[step], strerror(-ret));
	ret = T_EXIT_FAIL;
out:
	io_uring_queue_exit(&a);
	io_uring_queue_exit(&b);
	return ret;
}

int main(int argc, char *argv[])
{
	long long kb[STEPS] = { 0 }, base;
	char *huge;
	int ret, i;

	(void)argv;
	if (argc > 1)
		return T_EXIT_SKIP;
	huge = setup_as_root();
	if (!huge)
		return T_EXIT_SKIP;
	base = vmpin_settled();
	ret = run_sequence(huge, kb);
	if (ret != T_EXIT_PASS)
		return ret;
	printf("VmPin (kB) after each step, from %lld:", base);
	for (i = 0; i < STEPS; i++)
		printf(" %lld", kb[i] - base);
	printf("\n");
	ret = register_after();
	if (kb[STEPS - 1] < base || ret == -ENOMEM) {
		fprintf(stderr, "the cloned hugepage was un-charged twice: "
			"VmPin %lld kB after both rings unregistered, a new "
			"1 MiB registration %s (efde156d91ba, 7.4)\n",
			kb[STEPS - 1] - base, ret ? strerror(-ret) : "worked");
		return T_EXIT_FAIL;
	}
	if (ret) {
		fprintf(stderr, "a new 1 MiB registration: %s\n",
			strerror(-ret));
		return T_EXIT_FAIL;
	}
	if (kb[STEPS - 1] != base) {
		fprintf(stderr, "VmPin %lld kB after both rings unregistered, "
			"not back to where it was\n", kb[STEPS - 1] - base);
		return T_EXIT_FAIL;
	}
	munmap(huge, HUGE_SZ);
	return T_EXIT_PASS;
}
