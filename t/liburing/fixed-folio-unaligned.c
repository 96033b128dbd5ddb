// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: registered hugetlb buffers that start inside their first
 * folio: at +0x1234 (no alignment), +0x200 (a sector) and +0x1000 (a tail
 * page).  Coalesced (6.12+), bvec[0] runs from the start to the folio end,
 * so it is the one short bvec; io_import_fixed() must skip it when an I/O
 * starts exactly at its end (d6fef34ee4d1, "io_uring: fix off-by one bvec
 * index", liburing issue #994 and test/fixed-buf-merge.c, which covers
 * 4 KiB pages).  Reads and writes exactly at bvec[0]'s end, a byte before
 * it, across it, at the next folio end, and over the whole buffer;
 * O_DIRECT where 4 KiB alignment allows, buffered fixed I/O elsewhere.
 * From hugebuf's t/regbuf-unaligned-start.c.
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
#include "folio-hugetlb.h"

#define NR_FOLIOS	3

/*
 * bvec[0]'s length on a coalescing kernel for each start (the folio size
 * less the start), and the VmPin of the buffer (its three folios, whole).
 * hugebuf's t/unit-liburing-figures.c checks these against hugebuf's
 * kernel model.
 */
#define BVEC0_LEN_AT_1234	0x1fedcc
#define BVEC0_LEN_AT_200	0x1ffe00
#define BVEC0_LEN_AT_1000	0x1ff000
#define PIN_KB_THREE_FOLIOS	6144

static const struct {
	size_t start;
	long bvec0_len;
} cases[] = {
	{ 0x1234, BVEC0_LEN_AT_1234 },
	{ 0x200, BVEC0_LEN_AT_200 },
	{ 0x1000, BVEC0_LEN_AT_1000 },
};

static int test_case(struct ctx *c, char *huge, unsigned int i)
{
	struct reg r = { huge, huge + cases[i].start,
			 NR_FOLIOS * HUGE_SZ - cases[i].start, 0 };
	long bl = cases[i].bvec0_len;
	int ret, ret2;

	ret = reg_bufs(c, &r, 1, PIN_KB_THREE_FOLIOS);
	if (ret < 0) {
		fprintf(stderr, "start +0x%zx: register: %s\n",
			cases[i].start, strerror(-ret));
		return T_EXIT_FAIL;
	}
	if (ret)
		return ret;
	ret = check_edge(c, &r, bl);
	if (!ret)
		ret = check_io(c, &r, bl, HUGE_SZ);
	if (!ret)
		ret = check_edge(c, &r, bl + HUGE_SZ);
	if (!ret)
		ret = check_io(c, &r, 0, bl);
	if (!ret)
		ret = check_io(c, &r, bl - 0x1000, 0x1000 + HUGE_SZ + 0x800);
	if (!ret)
		ret = check_io(c, &r, 0, r.len);
	if (!ret)
		ret = check_edge(c, &r, r.len);
	if (ret)
		fprintf(stderr, "buffer from +0x%zx failed\n", cases[i].start);
	ret2 = unreg_bufs(c, PIN_KB_THREE_FOLIOS);
	return ret ? ret : ret2;
}

int main(int argc, char *argv[])
{
	struct ctx c;
	unsigned int i;
	char *huge;
	int ret;

	ret = begin(&c, argc, "fixed-folio-unaligned", NR_FOLIOS * HUGE_SZ);
	if (ret)
		return ret;
	huge = map_huge(NR_FOLIOS);
	if (!huge)
		return end(&c, T_EXIT_SKIP);
	for (i = 0; !ret && i < ARRAY_SIZE(cases); i++)
		ret = test_case(&c, huge, i);
	munmap(huge, NR_FOLIOS * HUGE_SZ);
	return end(&c, ret);
}
