// SPDX-License-Identifier: GPL-2.0-only
/*
 * The coalescing model (hb_model_register) against the tests' reference
 * model, t/helpers/refmodel.c, written from the rules of
 * docs/kernel-rules.md §2 and §3 on runs of consecutive pages of one folio,
 * independently of lib/model/model.c (t/fuzz/fuzz-model.c uses the same
 * reference).  Exhaustive over every page array of up to 4 pages drawn
 * from a small universe of folios (orders 0, 2, 3, with repeats and
 * gaps) at three head offsets, whole and ending mid-page, for each kernel
 * generation; random layouts of up to 8 folios of orders {0, 2, 4, 9}; and
 * the imu sizes of the table in docs/kernel-rules.md §8.
 *
 * The reference also checks that every table except the 6.12 - 6.15 one
 * describes the same memory as the page array, byte for byte: the
 * property 3a3c6d61577d (6.16) restored for folios mapped at non-congruent
 * addresses.  The regression matrix: docs/regression-matrix.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "helpers/refmodel.h"

#define PG		4096ULL
#define MAX_PAGES	(8 * 512 + 2)

static unsigned long checks;
static int failures;

static void report(const char *what, const struct hb_kmodel *km,
		   uint64_t uaddr, uint64_t len, const struct hb_page *p)
{
	uint64_t nr = hb_nr_pages(uaddr, len), i;

	if (++failures > 5)
		return;
	printf("FAIL: %s (kernel %s, uaddr 0x%llx, len %llu, pages:", what,
	       km->name, (unsigned long long)uaddr, (unsigned long long)len);
	for (i = 0; i < nr && i < 12; i++)
		printf(" %llu/%u/o%u", (unsigned long long)p[i].folio,
		       p[i].idx, p[i].order);
	printf("%s)\n", nr > 12 ? " ..." : "");
}

/* lib's model against the reference of t/helpers/refmodel.c */
static void compare(const struct hb_kmodel *km, const struct hb_page *p,
		    uint64_t uaddr, uint64_t len)
{
	static struct hb_bvec got[MAX_PAGES], want[MAX_PAGES];
	struct t_ref ref = { .bvec = want };
	struct hb_imu imu;
	char why[256];
	int ret;

	checks++;
	ret = hb_model_register(km, p, uaddr, len, got, &imu);
	t_ref_register(km, p, uaddr, len, &ref);
	if (t_ref_compare(km, p, ret, &imu, &ref, why, sizeof(why)))
		report(why, km, uaddr, len, p);
}

/* A universe of folios: 0,1 order 2; 2,3 order 0; 4 order 3. */
static const struct {
	uint64_t folio;
	uint32_t order;
} universe_folios[] = { { 100, 2 }, { 200, 2 }, { 300, 0 }, { 400, 0 },
			{ 500, 3 } };

static unsigned int universe(struct hb_page *u)
{
	unsigned int n = 0, f, i;

	for (f = 0; f < T_ARRAY_SIZE(universe_folios); f++)
		for (i = 0; i < (1U << universe_folios[f].order); i++)
			u[n++] = (struct hb_page){ universe_folios[f].folio, i,
						   universe_folios[f].order };
	return n;
}

static void exhaustive(const struct hb_kmodel *km)
{
	static const uint64_t offs[] = { 0, 0x234, PG - 1 };
	struct hb_page u[32], p[4];
	unsigned int nu = universe(u), len, o, trim;
	uint64_t idx, combos, c;

	for (len = 1; len <= 4; len++) {
		combos = 1;
		for (o = 0; o < len; o++)
			combos *= nu;
		for (c = 0; c < combos; c++) {
			idx = c;
			for (o = 0; o < len; o++) {
				p[o] = u[idx % nu];
				idx /= nu;
			}
			for (o = 0; o < T_ARRAY_SIZE(offs); o++) {
				for (trim = 0; trim < 2; trim++) {
					uint64_t l = len * PG - offs[o];
					uint64_t ua = 0x7f0000000000ULL +
						      offs[o];

					/* end mid-page, keeping len pages */
					if (trim && l > PG / 2 + 1)
						l -= PG / 2;
					if (hb_nr_pages(ua, l) != len)
						continue;
					compare(km, p, ua, l);
				}
			}
		}
	}
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(uint64_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return n ? rng_state % n : 0;
}

/*
 * Random layouts of up to 8 folios of orders {0, 2, 4, 9}: mostly the
 * shapes an allocator produces (head run to the end, whole middles, tail
 * from page 0), with a fraction of each rule broken.
 */
static uint64_t random_layout(struct hb_page *p, uint64_t *uaddr)
{
	static const uint32_t orders[] = { 0, 2, 4, 9 };
	unsigned int nfolios = 1 + (unsigned int)rnd(8), f;
	uint32_t order = orders[rnd(4)];
	uint64_t n = 0, next_folio = 1000;

	for (f = 0; f < nfolios; f++) {
		uint32_t o = rnd(8) ? order : orders[rnd(4)];
		uint32_t fp = 1U << o, start = 0, cnt = fp, i;
		uint64_t folio = next_folio++;

		if (f == 0)
			start = rnd(3) ? (uint32_t)rnd(fp) : 0;
		else if (!rnd(10))
			start = (uint32_t)rnd(fp);
		if (f + 1 == nfolios)
			cnt = 1 + (uint32_t)rnd(fp - start);
		else if (!rnd(10))
			cnt = 1 + (uint32_t)rnd(fp - start);
		else
			cnt = fp - start;
		if (f && !rnd(12)) {
			/* the previous folio again */
			folio = p[n - 1].folio;
			o = p[n - 1].order;
			fp = 1U << o;
			start = 0;
			cnt = fp;
		}
		for (i = 0; i < cnt && start + i < fp; i++) {
			p[n].folio = folio;
			p[n].idx = start + i;
			p[n].order = o;
			n++;
		}
		/* a gap inside the run */
		if (n > 2 && !rnd(20))
			p[n - 2].idx += 1;
	}
	*uaddr = 0x7f0000000000ULL + rnd(PG) + p[0].idx * PG;
	return n;
}

static void randomized(const struct hb_kmodel *km, unsigned long iters)
{
	static struct hb_page p[MAX_PAGES];
	unsigned long it;

	for (it = 0; it < iters; it++) {
		uint64_t ua, n = random_layout(p, &ua);
		uint64_t len = n * PG - ua % PG;

		if (len > PG && rnd(2))
			len -= rnd(PG - 1);
		if (hb_nr_pages(ua, len) != n)
			len = n * PG - ua % PG;
		compare(km, p, ua, len);
	}
}

struct row {
	const char *kernel;
	uint64_t folio, offset, len;
	unsigned int nr_bvecs;
	uint64_t imu_bytes;
	uint64_t alloc_bytes;
};

/* docs/kernel-rules.md §8: imu bytes, and what kvmalloc() takes for them */
static const struct row rows[] = {
	{ "6.1", PG, 0, 512ULL << 20, 131072, 2097184, 4ULL << 20 },
	{ "6.1", 2ULL << 20, 0, 512ULL << 20, 131072, 2097184, 4ULL << 20 },
	{ "6.1+hugebuf", 2ULL << 20, 0, 512ULL << 20, 256, 4120, 8192 },
	{ "6.12", 2ULL << 20, 0, 512ULL << 20, 256, 4128, 8192 },
	{ "6.16", 2ULL << 20, 0, 512ULL << 20, 256, 4152, 8192 },
	{ "6.1", 2ULL << 20, 0x1234, 512ULL << 20, 131073, 2097200,
	  4ULL << 20 },
	{ "6.1+hugebuf", 2ULL << 20, 0x1234, 512ULL << 20, 257, 4136, 8192 },
	{ "6.12", 2ULL << 20, 0x1234, 512ULL << 20, 257, 4144, 8192 },
	{ "6.16", 2ULL << 20, 0x1234, 512ULL << 20, 257, 4168, 8192 },
	{ "6.1", 2ULL << 20, 0, 1ULL << 30, 262144, 4194336, 6ULL << 20 },
	{ "6.1+hugebuf", 2ULL << 20, 0, 1ULL << 30, 512, 8216, 16384 },
	{ "6.16", 2ULL << 20, 0, 1ULL << 30, 512, 8248, 16384 },
	{ "6.1", 1ULL << 30, 0, 512ULL << 20, 131072, 2097184, 4ULL << 20 },
	{ "6.1+hugebuf", 1ULL << 30, 0, 512ULL << 20, 1, 40, 64 },
	{ "6.12", 1ULL << 30, 0, 512ULL << 20, 1, 48, 64 },
	{ "6.16", 1ULL << 30, 0, 512ULL << 20, 1, 72, 0 },
	{ "6.3", 1ULL << 30, 0, 512ULL << 20, 1, 48, 64 },
	{ "6.3", 2ULL << 20, 0, 8ULL << 20, 2048, 32800, 65536 },
	{ "6.3", 2ULL << 20, 0x1000, 4096, 1, 48, 64 },
};

static int check_rows(void)
{
	static struct hb_page p[(1 << 18) + 2];
	static struct hb_bvec bv[(1 << 18) + 2];
	struct hb_kmodel km;
	struct hb_imu imu;
	unsigned int i;
	int ret = T_EXIT_PASS;

	for (i = 0; i < T_ARRAY_SIZE(rows); i++) {
		const struct row *r = &rows[i];
		uint64_t ua = (1ULL << 40) + r->offset;

		if (hb_kmodel_parse(r->kernel, &km) ||
		    hb_layout_synth(r->folio, r->offset, r->len, 7, p) ||
		    hb_model_register(&km, p, ua, r->len, bv, &imu)) {
			ret = t_fail("row %u: %s", i, hb_errmsg());
			continue;
		}
		if (imu.nr_bvecs != r->nr_bvecs || imu.imu_bytes != r->imu_bytes ||
		    imu.alloc_bytes != r->alloc_bytes) {
			printf("FAIL: row %u (%s, folio %llu, +0x%llx, %llu): "
			       "bvecs %u imu %llu alloc %llu, expected %u %llu "
			       "%llu\n", i, r->kernel,
			       (unsigned long long)r->folio,
			       (unsigned long long)r->offset,
			       (unsigned long long)r->len, imu.nr_bvecs,
			       (unsigned long long)imu.imu_bytes,
			       (unsigned long long)imu.alloc_bytes,
			       r->nr_bvecs, (unsigned long long)r->imu_bytes,
			       (unsigned long long)r->alloc_bytes);
			ret = T_EXIT_FAIL;
		}
	}
	return ret;
}

/* The first bvec of +0x1234 on 2M: {head, 0x1234, 2M - 0x1234}. */
static int check_worked_example(void)
{
	struct hb_page p[1024];
	struct hb_bvec bv[1024];
	struct hb_kmodel km;
	struct hb_imu imu;

	hb_kmodel_parse("6.16", &km);
	hb_layout_synth(2ULL << 20, 0x1234, (4ULL << 20) - 0x1234, 1, p);
	if (hb_model_register(&km, p, (1ULL << 40) + 0x1234,
			      (4ULL << 20) - 0x1234, bv, &imu))
		return t_fail("worked example: %s", hb_errmsg());
	if (imu.nr_bvecs != 2 || bv[0].offset != 0x1234 ||
	    bv[0].len != 0x1FEDCC || bv[1].offset || bv[1].len != 2U << 20 ||
	    imu.folio_shift != 21)
		return t_fail("worked example: bvec0 {%u, %u} bvec1 {%u, %u} "
			      "shift %u", bv[0].offset, bv[0].len,
			      bv[1].offset, bv[1].len, imu.folio_shift);
	return T_EXIT_PASS;
}

/* The validation errors of io_buffer_validate(). */
static int check_validation(void)
{
	struct hb_page p[2] = { { 1, 0, 0 }, { 2, 0, 0 } };
	struct hb_bvec bv[2];
	struct hb_kmodel km;
	struct hb_imu imu;
	int ret = T_EXIT_PASS;

	hb_kmodel_parse("6.16", &km);
	if (hb_model_register(&km, p, 0x10000, 0, bv, &imu) != -EFAULT)
		ret = t_fail("length 0 must be EFAULT");
	if (hb_model_register(&km, p, 0x10000, (1ULL << 30) + 1, bv, &imu) !=
	    -EFAULT)
		ret = t_fail("1 GiB + 1 must be EFAULT");
	if (hb_model_register(&km, p, 0, 4096, bv, &imu) != -EFAULT)
		ret = t_fail("NULL base must be EFAULT");
	if (hb_model_register(&km, p, UINT64_MAX - 4096, 8192, bv, &imu) !=
	    -EOVERFLOW)
		ret = t_fail("wrapping range must be EOVERFLOW");
	if (hb_model_register(&km, p, UINT64_MAX - 8191, 4096, bv, &imu))
		ret = t_fail("a range ending one page below the top must "
			     "register: %s", hb_errmsg());
	return ret;
}

/* 6.12's vaddr offset differs from 6.16's exactly when not congruent. */
static int check_vaddr_bug(void)
{
	struct hb_page p[512];
	struct hb_bvec b12[512], b16[512];
	struct hb_kmodel k12, k16;
	struct hb_imu i12, i16;
	uint64_t ua = (1ULL << 40) + 0x1000; /* VA says page 1 */
	unsigned int i;

	hb_kmodel_parse("6.12", &k12);
	hb_kmodel_parse("6.16", &k16);
	/* a THP's second half mapped at VA page 1 (kernel-rules.md §3) */
	for (i = 0; i < 256; i++)
		p[i] = (struct hb_page){ 9, 256 + i, 9 };
	if (hb_model_register(&k12, p, ua, 256 * PG, b12, &i12) ||
	    hb_model_register(&k16, p, ua, 256 * PG, b16, &i16))
		return t_fail("vaddr example: %s", hb_errmsg());
	if (b16[0].offset != 256 * PG || b12[0].offset != PG)
		return t_fail("vaddr example: 6.16 offset %u (want %llu), "
			      "6.12 offset %u (want 4096)", b16[0].offset,
			      256 * PG, b12[0].offset);
	return T_EXIT_PASS;
}

/* One sub-check per kernel: no mismatch since @before failures. */
static void kernel_checked(const struct hb_kmodel *km, int before)
{
	if (failures == before)
		t_pass();
	else
		t_fail("kernel %s: %d layouts differ from the reference",
		       km->name, failures - before);
}

int main(int argc, char **argv)
{
	unsigned long iters = 20000;
	const char *env = getenv("HB_UNIT_ITERS");
	struct hb_kmodel km;
	const char *const *kernels;
	unsigned int k, nr;
	int ret, before;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	if (env)
		iters = strtoul(env, NULL, 0);
	nr = hb_kmodel_known(&kernels);
	for (k = 0; k < nr; k++) {
		if (hb_kmodel_parse(kernels[k], &km))
			return t_done(t_fail("kernel model %s: %s", kernels[k],
					     hb_errmsg()));
		before = failures;
		exhaustive(&km);
		randomized(&km, iters);
		kernel_checked(&km, before);
	}
	ret = t_sub(check_rows());
	ret = t_worst(ret, t_sub(check_worked_example()));
	ret = t_worst(ret, t_sub(check_validation()));
	ret = t_worst(ret, t_sub(check_vaddr_bug()));
	printf("  %lu layouts compared with the reference, %d mismatches\n",
	       checks, failures);
	if (failures)
		ret = T_EXIT_FAIL;
	return t_done(ret);
}
