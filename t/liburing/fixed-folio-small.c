// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: registered buffers smaller than the one 2 MiB hugetlb folio
 * they sit in, starting at a tail page or inside one.  Since 6.3
 * (57bebf807e2a) such a buffer becomes one bvec whose bv_offset is the
 * start's place in the folio; 3a3c6d61577d (6.16) takes that place from
 * the page's index in its folio rather than from the address.  Each buffer
 * is read into and written from, O_DIRECT where 4 KiB alignment allows,
 * around every page boundary it holds, and must charge the whole folio to
 * VmPin once (io_buffer_account_pin()) and give it back on unregister.
 * From hugebuf's t/regbuf-small-in-folio.c.
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
 * VmPin of each buffer below: its 2 MiB folio, whole.  hugebuf's
 * t/unit-liburing-figures.c checks this against hugebuf's kernel model.
 */
#define PIN_KB_IN_ONE_FOLIO	2048

static const struct {
	const char *name;
	size_t start, len;
} cases[] = {
	{ "5 pages from page 3", 3 * PG_SZ, 5 * PG_SZ },
	{ "64 KiB from +0x1234", 0x1234, 64 << 10 },
	{ "2 KiB inside page 7", 7 * PG_SZ + 0x400, 2048 },
	{ "the last 1 MiB - 4 KiB", HUGE_SZ - (1 << 20) + PG_SZ,
	  (1 << 20) - PG_SZ },
};

static int test_case(struct ctx *c, char *huge, unsigned int i)
{
	struct reg r = { huge, huge + cases[i].start, cases[i].len, 0 };
	long b;
	int ret;

	ret = reg_bufs(c, &r, 1, PIN_KB_IN_ONE_FOLIO);
	if (ret < 0) {
		fprintf(stderr, "%s: register: %s\n", cases[i].name,
			strerror(-ret));
		return T_EXIT_FAIL;
	}
	if (ret)
		return ret;
	ret = check_io(c, &r, 0, r.len);
	/* every page boundary inside the buffer */
	b = PG_SZ - ((uintptr_t)r.buf & (PG_SZ - 1));
	for (; !ret && b < (long)r.len; b += PG_SZ)
		ret = check_edge(c, &r, b);
	if (!ret)
		ret = check_edge(c, &r, r.len);
	if (ret)
		fprintf(stderr, "case \"%s\" failed\n", cases[i].name);
	i = unreg_bufs(c, PIN_KB_IN_ONE_FOLIO);
	return ret ? ret : (int)i;
}

int main(int argc, char *argv[])
{
	struct ctx c;
	unsigned int i;
	char *huge;
	int ret;

	ret = begin(&c, argc, "fixed-folio-small", HUGE_SZ);
	if (ret)
		return ret;
	huge = map_huge(1);
	if (!huge)
		return end(&c, T_EXIT_SKIP);
	for (i = 0; !ret && i < ARRAY_SIZE(cases); i++)
		ret = test_case(&c, huge, i);
	munmap(huge, HUGE_SZ);
	return end(&c, ret);
}
