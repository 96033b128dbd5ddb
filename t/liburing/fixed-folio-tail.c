// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: registered hugetlb buffers whose last folio is only partly
 * covered.  io_check_coalesce_buffer() (a8edbb424b13, 6.12) lets the last
 * folio end anywhere, so the last bvec is short, and io_import_fixed()
 * must still cover an I/O that ends on the buffer's last byte (its
 * nr_segs, made exact by 80c7378f94cf in 6.15, must never come out one
 * short).  Buffers ending 20 KiB and 0x123 bytes into a third folio, one
 * starting at +0x1000 and ending 1 MiB into the third folio, and one folio
 * plus a page; I/O across into the partial folio and ending on the last
 * byte, both directions, O_DIRECT where 4 KiB alignment allows.  VmPin
 * counts the partial folio whole.  From hugebuf's t/regbuf-partial-tail.c.
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

/*
 * VmPin of each buffer: every folio it touches, whole.  hugebuf's
 * t/unit-liburing-figures.c checks these against hugebuf's kernel model.
 */
#define PIN_KB_TWO_AND_A_PART	6144
#define PIN_KB_ONE_AND_A_PAGE	4096

static const struct {
	const char *name;
	size_t start, len;
	long pin_kb;
} cases[] = {
	{ "2 folios + 20 KiB", 0, 2 * HUGE_SZ + 0x5000,
	  PIN_KB_TWO_AND_A_PART },
	{ "2 folios + 0x123 bytes", 0, 2 * HUGE_SZ + 0x123,
	  PIN_KB_TWO_AND_A_PART },
	{ "+0x1000 to 1 MiB into folio 3", 0x1000,
	  2 * HUGE_SZ + (1 << 20) - 0x1000, PIN_KB_TWO_AND_A_PART },
	{ "1 folio + 1 page", 0, HUGE_SZ + PG_SZ, PIN_KB_ONE_AND_A_PAGE },
};

static int test_case(struct ctx *c, char *huge, unsigned int i)
{
	struct reg r = { huge, huge + cases[i].start, cases[i].len, 0 };
	/* where the last, partial folio begins, as a buffer offset */
	long last = (cases[i].start + r.len - 1) / HUGE_SZ * HUGE_SZ -
		    cases[i].start;
	int ret, ret2;

	ret = reg_bufs(c, &r, 1, cases[i].pin_kb);
	if (ret < 0) {
		fprintf(stderr, "%s: register: %s\n", cases[i].name,
			strerror(-ret));
		return T_EXIT_FAIL;
	}
	if (ret)
		return ret;
	ret = check_edge(c, &r, last);
	if (!ret)	/* from the folio before to the last byte */
		ret = check_io(c, &r, last - PG_SZ, r.len);
	if (!ret)
		ret = check_io(c, &r, last, r.len);
	if (!ret)
		ret = check_edge(c, &r, r.len);
	if (!ret)
		ret = check_io(c, &r, r.len - 0x1234, 0x1234);
	if (!ret)
		ret = check_io(c, &r, 0, r.len);
	if (ret)
		fprintf(stderr, "case \"%s\" failed\n", cases[i].name);
	ret2 = unreg_bufs(c, cases[i].pin_kb);
	return ret ? ret : ret2;
}

int main(int argc, char *argv[])
{
	struct ctx c;
	unsigned int i;
	char *huge;
	int ret;

	ret = begin(&c, argc, "fixed-folio-tail", 3 * HUGE_SZ);
	if (ret)
		return ret;
	huge = map_huge(3);
	if (!huge)
		return end(&c, T_EXIT_SKIP);
	for (i = 0; !ret && i < ARRAY_SIZE(cases); i++)
		ret = test_case(&c, huge, i);
	munmap(huge, 3 * HUGE_SZ);
	return end(&c, ret);
}
