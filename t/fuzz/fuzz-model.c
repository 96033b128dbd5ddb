// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: hb_model_register() (io_sqe_buffer_register()) against
 * the tests' reference model, t/helpers/refmodel.c, which is written from
 * the kernel's rules on runs of pages, not from lib/model/model.c (its header
 * states the rules per kernel generation, with the upstream commits).  The
 * reference also checks that every table except the 6.12 - 6.15 one maps
 * each byte of the buffer to the (folio, offset) the page array says it
 * lives at.  t/unit-model.c holds lib's model against the same reference
 * exhaustively over small page arrays; this target reaches long arrays,
 * mixed orders and raw 64-bit addresses.
 */
#include "fuzz.h"
#include "../helpers/refmodel.h"

static struct hb_page pages[FZ_MAX_PAGES];
static struct hb_bvec got[FZ_MAX_PAGES], want[FZ_MAX_PAGES];

static void compare(const struct hb_kmodel *km, uint64_t uaddr, uint64_t len)
{
	struct t_ref ref = { .bvec = want };
	struct hb_imu imu;
	char why[256];
	int ret;

	ret = hb_model_register(km, pages, uaddr, len, got, &imu);
	if (ret && strchr(hb_errmsg(), '\n'))
		fz_finding("multi-line message: %s", hb_errmsg());
	t_ref_register(km, pages, uaddr, len, &ref);
	if (t_ref_compare(km, pages, ret, &imu, &ref, why, sizeof(why)))
		fz_finding("kernel %s: 0x%llx + %llu: %s (model says: %s)",
			   km->name, (unsigned long long)uaddr,
			   (unsigned long long)len, why,
			   ret ? hb_errmsg() : "ok");
}

/* raw 64-bit addresses and lengths: only the validation outcome matters */
static void edges(const struct hb_kmodel *km, struct fz_in *in)
{
	uint64_t uaddr = fz_bytes(in, 8), len = fz_bytes(in, 8);
	int valid = !t_ref_validate(uaddr, len);

	if (valid && t_ref_nr_pages(uaddr, len) > FZ_MAX_PAGES)
		return; /* valid but too large for the page array */
	if (valid)
		fz_pages(in, pages, t_ref_nr_pages(uaddr, len));
	compare(km, uaddr, len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct hb_kmodel km;
	uint64_t off, len, uaddr, max;

	fz_kmodel(&in, &km);
	if (fz_u8(&in) % 8 == 0) {
		edges(&km, &in);
		return 0;
	}
	/* a page-aligned base far from 0 plus an offset into page 0 */
	off = fz_bytes(&in, 2) % FZ_PG;
	uaddr = (1ULL << 40) + (fz_bytes(&in, 1) << 21) + off;
	max = FZ_MAX_PAGES * FZ_PG - off;
	len = fz_bytes(&in, 3) % max + 1;
	fz_pages(&in, pages, hb_nr_pages(uaddr, len));
	compare(&km, uaddr, len);
	return 0;
}
