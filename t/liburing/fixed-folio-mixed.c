// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: one registered buffer over two folio sizes: a 2 MiB
 * hugetlb page next to 16 KiB of 4 KiB pages, either order, mapped into a
 * 2 MiB-aligned reservation.  io_check_coalesce_buffer() (6.12) must not
 * coalesce it (the folios differ in size), so the kernel keeps one bvec
 * per page and the I/O across the seam must move the right bytes; VmPin
 * grows by the hugepage and the four small pages.  Kernels whose
 * io_pin_pages() checks the VMAs (before 6.5, and 6.1.y with edd478269640
 * "io_uring/rsrc: disallow multi-source reg buffers") refuse the buffer
 * with -EINVAL: that refusal must leave nothing pinned, and is a skip.
 * liburing's test/fixed-hugepage.c has the same mixture; this one aligns
 * its reservation itself instead of relying on the kernel's placement of
 * large anonymous mappings (see hugebuf's t/liburing/README).  From
 * hugebuf's t/regbuf-mixed-folios.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/mman.h>

#include "liburing.h"
#include "helpers.h"

#include "folio-base.h"
#include "folio-check.h"

#define SMALL		(16UL << 10)

/*
 * VmPin of the buffer: the 2 MiB folio whole and the four 4 KiB pages.
 * hugebuf's t/unit-liburing-figures.c checks this against hugebuf's
 * kernel model.
 */
#define PIN_KB_HUGE_AND_SMALL	2064

static int map_at(char *at, size_t len, bool huge)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;

	if (huge)
		flags |= MAP_HUGETLB | MAP_HUGE_2MB;
	if (mmap(at, len, PROT_READ | PROT_WRITE, flags, -1, 0) == MAP_FAILED)
		return -errno;
	if (!huge)
		madvise(at, len, MADV_NOHUGEPAGE);
	memset(at, 0, len);
	return 0;
}

/* @huge_first: the hugepage at @x, 16 KiB after it; else 16 KiB before */
static int test_layout(struct ctx *c, char *x, bool huge_first)
{
	const char *name = huge_first ? "hugepage, then 4 KiB pages" :
					"4 KiB pages, then hugepage";
	struct reg r = { x - SMALL, huge_first ? x : x - SMALL,
			 HUGE_SZ + SMALL, 0 };
	long seam = huge_first ? HUGE_SZ : SMALL;
	long before;
	int ret, ret2;

	ret = map_at(x, HUGE_SZ, true);
	if (ret) {
		fprintf(stderr, "%s: a 2 MiB hugetlb page at %p: %s "
			"(vm.nr_hugepages too low?): skipping\n", name,
			(void *)x, strerror(-ret));
		return T_EXIT_SKIP;
	}
	ret = map_at(huge_first ? x + HUGE_SZ : x - SMALL, SMALL, false);
	if (ret) {
		fprintf(stderr, "%s: 16 KiB next to it: %s\n", name,
			strerror(-ret));
		return T_EXIT_FAIL;
	}
	before = vmpin_kb();
	ret = reg_bufs(c, &r, 1, PIN_KB_HUGE_AND_SMALL);
	if (ret == -EINVAL) {
		if (vmpin_kb() != before) {
			fprintf(stderr, "%s: the refused registration left "
				"%ld kB pinned\n", name, vmpin_kb() - before);
			return T_EXIT_FAIL;
		}
		fprintf(stderr, "%s: this kernel refuses a buffer over a "
			"hugetlb and an anonymous mapping (EINVAL, nothing "
			"left pinned): skipping\n", name);
		return T_EXIT_SKIP;
	}
	if (ret < 0) {
		fprintf(stderr, "%s: register: %s\n", name, strerror(-ret));
		return T_EXIT_FAIL;
	}
	if (ret)
		return ret;
	ret = check_edge(c, &r, seam);
	if (!ret)
		ret = check_io(c, &r, seam - 2 * PG_SZ, 3 * PG_SZ);
	if (!ret)
		ret = check_io(c, &r, seam - 0x1234, 0x2468);
	if (!ret)
		ret = check_io(c, &r, 0, r.len);
	if (ret)
		fprintf(stderr, "%s failed\n", name);
	ret2 = unreg_bufs(c, PIN_KB_HUGE_AND_SMALL);
	return ret ? ret : ret2;
}

int main(int argc, char *argv[])
{
	size_t res_len = 5 * HUGE_SZ;
	int ret, ret2 = T_EXIT_SKIP;
	struct ctx c;
	char *res, *x;

	ret = begin(&c, argc, "fixed-folio-mixed", 2 * HUGE_SZ);
	if (ret)
		return ret;
	res = mmap(NULL, res_len, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED) {
		fprintf(stderr, "reserving address space: %s\n",
			strerror(errno));
		return end(&c, T_EXIT_FAIL);
	}
	/* a 2 MiB boundary with room for 16 KiB before and after it */
	x = (char *)(((uintptr_t)res + SMALL + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	ret = test_layout(&c, x, true);
	if (ret != T_EXIT_FAIL) {
		munmap(x - SMALL, HUGE_SZ + 2 * SMALL);
		ret2 = test_layout(&c, x, false);
	}
	munmap(res, res_len);
	/* a pass when a layout passed and neither failed */
	if (ret == T_EXIT_FAIL || ret2 == T_EXIT_FAIL)
		ret = T_EXIT_FAIL;
	else if (ret == T_EXIT_PASS || ret2 == T_EXIT_PASS)
		ret = T_EXIT_PASS;
	return end(&c, ret);
}
