// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: transparent hugepages moved by mremap() to an address that
 * is not congruent with the pages' place in their folio: the last 3 MiB of
 * two THPs go to a 2 MiB boundary + 4 KiB, so the buffer's first page is
 * page 256 of its folio while its address says page 1.  The 6.12
 * coalescing took bvec[0]'s offset from the address and moved the wrong
 * bytes; 3a3c6d61577d ("io_uring/rsrc: don't rely on user vaddr
 * alignment", 6.16 and stable) takes it from the page.  Buffers: the moved
 * 3 MiB, the moved half THP alone, and the 3 MiB from +0x234; reads and
 * writes around the first folio's end and over the whole buffer, O_DIRECT
 * where 4 KiB alignment allows.  VmPin counts each folio whole.  Needs
 * root (to see the folios in /proc/kpageflags) and THP; skips otherwise.
 * From hugebuf's t/regbuf-thp-mremap.c.
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

#define MOVED		(3 * HUGE_SZ / 2)
#define KPF_COMPOUND_HEAD	(1ULL << 15)
#define KPF_THP		(1ULL << 22)

/*
 * VmPin of the moved 3 MiB (half of one THP and all of the next) and of
 * the moved half alone: each folio whole.  hugebuf's
 * t/unit-liburing-figures.c checks these against hugebuf's kernel model.
 */
#define PIN_KB_MOVED_BOTH	4096
#define PIN_KB_MOVED_HALF	2048

static const struct {
	const char *name;
	size_t start, len;
	long pin_kb;
} cases[] = {
	{ "the moved 3 MiB", 0, MOVED, PIN_KB_MOVED_BOTH },
	{ "the moved half THP", 0, HUGE_SZ / 2, PIN_KB_MOVED_HALF },
	{ "the moved 3 MiB from +0x234", 0x234, MOVED - 0x234,
	  PIN_KB_MOVED_BOTH },
};

/* /proc/kpageflags of the page at @addr; -1 when it cannot be read */
static long long page_flags(const void *addr)
{
	uint64_t ent, flags;
	int fd, fd2;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &ent, 8, (uintptr_t)addr / PG_SZ * 8) != 8 ||
	    !(ent >> 63) || !(ent & ((1ULL << 55) - 1))) {
		close(fd);
		return -1;
	}
	close(fd);
	fd2 = open("/proc/kpageflags", O_RDONLY);
	if (fd2 < 0)
		return -1;
	if (pread(fd2, &flags, 8, (ent & ((1ULL << 55) - 1)) * 8) != 8)
		flags = -1;
	close(fd2);
	return flags;
}

static bool is_thp(const void *addr, bool head)
{
	long long f = page_flags(addr);

	return f >= 0 && (f & KPF_THP) && !!(f & KPF_COMPOUND_HEAD) == head;
}

static int test_case(struct ctx *c, char *moved, unsigned int i)
{
	struct reg r = { moved, moved + cases[i].start, cases[i].len, 0 };
	long end_of_first = HUGE_SZ / 2 - cases[i].start;
	int ret, ret2;

	ret = reg_bufs(c, &r, 1, cases[i].pin_kb);
	if (ret < 0) {
		fprintf(stderr, "%s: register: %s\n", cases[i].name,
			strerror(-ret));
		return T_EXIT_FAIL;
	}
	if (ret)
		return ret;
	ret = check_edge(c, &r, end_of_first);
	if (!ret)
		ret = check_io(c, &r, end_of_first - 0x10000, 0x20000);
	if (!ret)
		ret = check_io(c, &r, 0, PG_SZ);
	if (!ret)
		ret = check_io(c, &r, 0x123, 0x456);
	if (!ret)
		ret = check_edge(c, &r, r.len);
	if (!ret)
		ret = check_io(c, &r, 0, r.len);
	if (ret)
		fprintf(stderr, "case \"%s\" failed\n", cases[i].name);
	ret2 = unreg_bufs(c, cases[i].pin_kb);
	return ret ? ret : ret2;
}

int main(int argc, char *argv[])
{
	size_t src_len = 3 * HUGE_SZ, dst_len = MOVED + PG_SZ + HUGE_SZ;
	char *src_map, *dst_map, *thp, *moved;
	struct ctx c;
	unsigned int i;
	int ret;

	ret = begin(&c, argc, "fixed-folio-thp-mremap", 2 * HUGE_SZ);
	if (ret)
		return ret;
	src_map = mmap(NULL, src_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst_map = mmap(NULL, dst_len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (src_map == MAP_FAILED || dst_map == MAP_FAILED) {
		fprintf(stderr, "mmap: %s\n", strerror(errno));
		return end(&c, T_EXIT_FAIL);
	}
	thp = (char *)(((uintptr_t)src_map + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	if (madvise(thp, 2 * HUGE_SZ, MADV_HUGEPAGE)) {
		fprintf(stderr, "MADV_HUGEPAGE: %s: skipping\n",
			strerror(errno));
		ret = T_EXIT_SKIP;
		goto out;
	}
	memset(thp, 0x11, 2 * HUGE_SZ);
	if (!is_thp(thp, true) || !is_thp(thp + HUGE_SZ, true)) {
		fprintf(stderr, "no two THPs here (THP off, memory "
			"fragmented, or not root to read /proc/kpageflags): "
			"skipping\n");
		ret = T_EXIT_SKIP;
		goto out;
	}
	moved = (char *)(((uintptr_t)dst_map + HUGE_SZ - 1) &
			 ~(HUGE_SZ - 1)) + PG_SZ;
	if (mremap(thp + HUGE_SZ / 2, MOVED, MOVED,
		   MREMAP_MAYMOVE | MREMAP_FIXED, moved) == MAP_FAILED) {
		fprintf(stderr, "mremap of 3 MiB of THP: %s\n",
			strerror(errno));
		ret = T_EXIT_FAIL;
		goto out;
	}
	/* page 256 of a THP at page 1 of a 2 MiB span, then a THP head */
	if (!is_thp(moved, false) || !is_thp(moved + HUGE_SZ / 2, true)) {
		fprintf(stderr, "the moved range is no longer two THPs "
			"(split): skipping\n");
		ret = T_EXIT_SKIP;
		goto out;
	}
	for (i = 0; !ret && i < ARRAY_SIZE(cases); i++)
		ret = test_case(&c, moved, i);
out:
	munmap(src_map, src_len);
	munmap(dst_map, dst_len);
	return end(&c, ret);
}
