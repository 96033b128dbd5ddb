// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: READ_FIXED and WRITE_FIXED at offsets inside registered
 * hugetlb buffers.  io_import_fixed() turns the I/O's address into an
 * offset in the buffer and from there into the first bvec and the offset
 * inside it: one 4 KiB bvec per page before 6.3, one bvec per folio when
 * coalesced (6.12+), where every bvec but the first is a whole folio and
 * the first starts at the buffer's offset in its folio.  Two buffers in
 * one registration: four folios from the folio start (slot 0) and two
 * folios from +0x1000 (slot 1); I/O at the start, at and around every
 * folio start, in the middle of a folio, on the last page and byte, in
 * both directions, O_DIRECT where 4 KiB alignment allows.  From hugebuf's
 * folio-boundary regression cases (its model of io_import_fixed()).
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
 * VmPin of the two buffers registered together: six distinct folios,
 * whole.  hugebuf's t/unit-liburing-figures.c checks this against
 * hugebuf's kernel model.
 */
#define PIN_KB_SIX_FOLIOS	12288

/* (buffer offset, length) in slot 0: 4 folios from a folio start */
static const long io0[][2] = {
	{ 0, PG_SZ }, { PG_SZ, PG_SZ }, { HUGE_SZ - PG_SZ, PG_SZ },
	{ HUGE_SZ, PG_SZ }, { HUGE_SZ + PG_SZ, HUGE_SZ },
	{ 3 * HUGE_SZ, HUGE_SZ }, { 3 * HUGE_SZ + 0x1234, 0x100 },
	{ 4 * HUGE_SZ - PG_SZ, PG_SZ }, { 4 * HUGE_SZ - 1, 1 },
	{ 2 * HUGE_SZ + 0x10, 0x10 }, { HUGE_SZ - 1, 1 }, { HUGE_SZ + 1, 3 },
	{ HUGE_SZ + (1 << 20), 2 * HUGE_SZ },
};

/* in slot 1: 2 folios less 4 KiB, from +0x1000 */
static const long io1[][2] = {
	{ 0, PG_SZ }, { 0x10, 0x20 }, { HUGE_SZ - 0x1000, PG_SZ },
	{ HUGE_SZ - 0x1000 - PG_SZ, PG_SZ }, { HUGE_SZ - 0x1000 + PG_SZ, PG_SZ },
	{ HUGE_SZ - 0x1000 - 8, 16 }, { 2 * HUGE_SZ - 0x1000 - PG_SZ, PG_SZ },
	{ 2 * HUGE_SZ - 0x1001, 1 }, { 0x800, HUGE_SZ },
};

int main(int argc, char *argv[])
{
	struct ctx c;
	struct reg r[2];
	unsigned int i;
	char *a, *b;
	int ret, ret2;

	ret = begin(&c, argc, "fixed-folio-offset", 4 * HUGE_SZ);
	if (ret)
		return ret;
	a = map_huge(4);
	if (!a)
		return end(&c, T_EXIT_SKIP);
	b = map_huge(2);
	if (!b) {
		munmap(a, 4 * HUGE_SZ);
		return end(&c, T_EXIT_SKIP);
	}
	r[0] = (struct reg){ a, a, 4 * HUGE_SZ, 0 };
	r[1] = (struct reg){ b, b + 0x1000, 2 * HUGE_SZ - 0x1000, 1 };
	ret = reg_bufs(&c, r, 2, PIN_KB_SIX_FOLIOS);
	if (ret < 0) {
		fprintf(stderr, "register: %s\n", strerror(-ret));
		ret = T_EXIT_FAIL;
	}
	if (ret)
		goto out;
	for (i = 0; !ret && i < ARRAY_SIZE(io0); i++)
		ret = check_io(&c, &r[0], io0[i][0], io0[i][1]);
	for (i = 1; !ret && i < 4; i++)
		ret = check_edge(&c, &r[0], i * HUGE_SZ);
	for (i = 0; !ret && i < ARRAY_SIZE(io1); i++)
		ret = check_io(&c, &r[1], io1[i][0], io1[i][1]);
	ret2 = unreg_bufs(&c, PIN_KB_SIX_FOLIOS);
	if (!ret)
		ret = ret2;
out:
	munmap(a, 4 * HUGE_SZ);
	munmap(b, 2 * HUGE_SZ);
	return end(&c, ret);
}
