// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: fixed I/O across the ends of the 2 MiB hugetlb folios of
 * one registered buffer.  With multi-folio coalescing (a8edbb424b13,
 * 6.12) the buffer is one bvec per folio and io_import_fixed() must step
 * from one to the next at exactly the folio end; before, one bvec per
 * 4 KiB page.  Reads and writes, O_DIRECT where 4 KiB alignment allows,
 * on, before, after and across every folio end, whole folios, the whole
 * buffer, and spans over several folios; the data must match the file on
 * every path and nothing outside the range may change.  VmPin must grow
 * by the four folios once.  From hugebuf's folio-boundary regression cases.
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

#define NR_FOLIOS	4

/*
 * VmPin of the buffer: its four 2 MiB folios.  hugebuf's
 * t/unit-liburing-figures.c checks this against hugebuf's kernel model.
 */
#define PIN_KB_FOUR_FOLIOS	8192

/* spans over folio ends: (buffer offset, length) */
static const long spans[][2] = {
	{ 0, HUGE_SZ },
	{ HUGE_SZ, HUGE_SZ },
	{ HUGE_SZ - (512 << 10), 1 << 20 },
	{ HUGE_SZ - PG_SZ, HUGE_SZ + 2 * PG_SZ },
	{ HUGE_SZ / 2, 2 * HUGE_SZ },
	{ 3 * HUGE_SZ - 0x321, 0x642 },
	{ PG_SZ, NR_FOLIOS * HUGE_SZ - 2 * PG_SZ },
	{ 0, NR_FOLIOS * HUGE_SZ },
};

int main(int argc, char *argv[])
{
	struct ctx c;
	struct reg r;
	unsigned int i;
	char *huge;
	int ret, ret2;

	ret = begin(&c, argc, "fixed-folio-cross", NR_FOLIOS * HUGE_SZ);
	if (ret)
		return ret;
	huge = map_huge(NR_FOLIOS);
	if (!huge)
		return end(&c, T_EXIT_SKIP);
	r = (struct reg){ huge, huge, NR_FOLIOS * HUGE_SZ, 0 };
	ret = reg_bufs(&c, &r, 1, PIN_KB_FOUR_FOLIOS);
	if (ret < 0) {
		fprintf(stderr, "register: %s\n", strerror(-ret));
		ret = T_EXIT_FAIL;
	}
	if (ret)
		goto out;
	for (i = 1; !ret && i < NR_FOLIOS; i++)
		ret = check_edge(&c, &r, i * HUGE_SZ);
	for (i = 0; !ret && i < ARRAY_SIZE(spans); i++)
		ret = check_io(&c, &r, spans[i][0], spans[i][1]);
	ret2 = unreg_bufs(&c, PIN_KB_FOUR_FOLIOS);
	if (!ret)
		ret = ret2;
out:
	munmap(huge, NR_FOLIOS * HUGE_SZ);
	return end(&c, ret);
}
