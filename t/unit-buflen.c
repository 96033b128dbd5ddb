// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of one registered buffer's length limit per kernel
 * generation (docs/kernel-rules.md §7.1, lib/model/kmodel.c buf_limits()):
 *  - up to 7.1 io_buffer_validate() refuses more than SZ_1G with -EFAULT;
 *  - from 7.2 (b4e41050b212) io_validate_user_buf_range() refuses more
 *    than SZ_1T with -EINVAL, and io_pin_pages() more than
 *    INT_MAX / sizeof(struct page *) pages with -EOVERFLOW, so a
 *    page-aligned SZ_1T is one page too many.
 * Each expected errno below is worked from those two functions as read in
 * Debian's linux-source-7.2 (7.2.13) and linux-source-7.3 (7.3.4).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define G1 (1ULL << 30)
#define T1 (1ULL << 40)
#define PG 4096ULL

struct len_case {
	const char *kernel;
	uint64_t uaddr, len;
	int err;		/* 0: accepted, else the positive errno */
};

static const struct len_case cases[] = {
	{ "6.1", 0x10000, G1, 0 },
	{ "6.1", 0x10000, G1 + 1, EFAULT },
	{ "6.1+hugebuf", 0x10000, G1 + 1, EFAULT },
	{ "6.12", 0x10000, 2 * G1, EFAULT },
	{ "7.1", 0x10000, G1, 0 },
	{ "7.1", 0x10000, G1 + 1, EFAULT },
	{ "7.1.13", 0x10000, 3 * G1 / 2, EFAULT },
	{ "7.2", 0x10000, G1 + 1, 0 },
	{ "7.2.13", 0x10000, 3 * G1 / 2, 0 },
	{ "7.2", 0x10000, 0, EFAULT },
	/* 268435455 pages: the most io_pin_pages() takes */
	{ "7.2", 0x10000, T1 - PG, 0 },
	/* 268435456 pages: over INT_MAX / 8 */
	{ "7.2", 0x10000, T1, EOVERFLOW },
	/* one byte less, but a page more for the offset into the page */
	{ "7.3", 0x10010, T1 - PG, EOVERFLOW },
	{ "7.3", 0x10000, T1 + 1, EINVAL },
	{ "7.3.4", 0x10000, 2 * T1, EINVAL },
	{ "7.4", 0x10000, 4 * G1, 0 },
	{ "7.4", 0x10000, T1 + PG, EINVAL },
};

static int check_case(const struct len_case *c)
{
	struct hb_kmodel km;
	int got;

	if (hb_kmodel_parse(c->kernel, &km))
		return t_fail("%s: %s", c->kernel, hb_errmsg());
	got = hb_kmodel_check_buf_len(&km, c->uaddr, c->len);
	if (got != -c->err)
		return t_fail("kernel %s, %llu bytes at 0x%llx: %d, expected "
			      "%d", c->kernel, (unsigned long long)c->len,
			      (unsigned long long)c->uaddr, got, -c->err);
	if (got && c->len && !strstr(hb_errmsg(), km.name))
		return t_fail("kernel %s: the message does not name the "
			      "kernel: %s", c->kernel, hb_errmsg());
	return T_EXIT_PASS;
}

/* hb_kmodel_buf_len_max(): the bound a layout may fill, per generation */
static int check_max(void)
{
	static const struct {
		const char *kernel;
		uint64_t uaddr, max;
	} m[] = {
		{ "6.1", 0x1000, G1 },
		{ "7.1", 0x1234, G1 },
		{ "7.2", 0x1000, T1 - PG },
		{ "7.3", 0x1234, T1 - PG - 0x234 },
	};
	struct hb_kmodel km;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(m); i++) {
		uint64_t got;

		hb_kmodel_parse(m[i].kernel, &km);
		got = hb_kmodel_buf_len_max(&km, m[i].uaddr);
		if (got != m[i].max)
			return t_fail("%s at 0x%llx: longest buffer %llu, "
				      "expected %llu", m[i].kernel,
				      (unsigned long long)m[i].uaddr,
				      (unsigned long long)got,
				      (unsigned long long)m[i].max);
		/* the bound itself passes, a byte more does not */
		if (hb_kmodel_check_buf_len(&km, m[i].uaddr, got) ||
		    !hb_kmodel_check_buf_len(&km, m[i].uaddr, got + 1))
			return t_fail("%s: the longest buffer is not the "
				      "bound of the check", m[i].kernel);
	}
	return T_EXIT_PASS;
}

/*
 * hb_model_register() takes the same rule: 1.5 GiB of 2 MiB hugepages is
 * 768 bvecs on 7.2, -EFAULT on 7.1 (what issue 46 tried in the guests).
 */
static int check_register(void)
{
	uint64_t len = 3 * G1 / 2, nr = len / PG, i;
	struct hb_kmodel k71, k72;
	struct hb_page *p;
	struct hb_imu imu;
	int ret = T_EXIT_PASS;

	p = calloc(nr, sizeof(*p));
	if (!p)
		return t_fail("out of memory");
	for (i = 0; i < nr; i++)
		p[i] = (struct hb_page){ 100 + i / 512, i % 512, 9 };
	hb_kmodel_parse("7.1", &k71);
	hb_kmodel_parse("7.2", &k72);
	if (hb_imu_build(&k71, p, 1ULL << 40, len, &imu) != -EFAULT)
		ret = t_fail("7.1: 1.5 GiB must be EFAULT");
	else if (hb_imu_build(&k72, p, 1ULL << 40, len, &imu))
		ret = t_fail("7.2: 1.5 GiB: %s", hb_errmsg());
	else {
		if (imu.nr_bvecs != 768 || imu.folio_shift != 21)
			ret = t_fail("7.2: 1.5 GiB of 2M pages: %u bvecs, "
				     "shift %u; expected 768, 21",
				     imu.nr_bvecs, imu.folio_shift);
		hb_imu_free(&imu);
	}
	free(p);
	return ret;
}

int main(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++)
		ret = t_worst(ret, t_sub(check_case(&cases[i])));
	ret = t_worst(ret, t_sub(check_max()));
	ret = t_worst(ret, t_sub(check_register()));
	return t_done(ret);
}
