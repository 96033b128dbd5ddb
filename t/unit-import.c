// SPDX-License-Identifier: GPL-2.0-only
/*
 * The import model (hb_model_import, io_import_fixed()) against a walk of
 * the bvec table: for every I/O in small tables the first byte's bvec and
 * offset found by summing bv_len must be where the model says the iter
 * starts, and the model's exact segment count must be the number of bvecs
 * the walk touches.  The kernel's own nr_segs must never undercount
 * (80c7378f94cf: an undercount "certainly blows up"); since 6.15 it is
 * exact.  The I/O at exactly bvec[0].bv_len must start at bvec 1, offset
 * 0 (d6fef34ee4d1, liburing issue #994).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define PG	4096ULL

static unsigned long checks;
static int failures;

struct table {
	struct hb_page pages[64];
	struct hb_bvec bvec[64];
	uint64_t prefix[65];	/* prefix sums of bv_len */
	struct hb_imu imu;
};

static void locate(const struct table *t, uint64_t b, unsigned int *j,
		   uint64_t *pos)
{
	unsigned int i = 0;

	while (i + 1 < t->imu.nr_bvecs && t->prefix[i + 1] <= b)
		i++;
	*j = i;
	*pos = b - t->prefix[i];
}

static void fail(const struct hb_kmodel *km, const struct table *t,
		 uint64_t off, uint64_t len, const char *what)
{
	if (++failures > 8)
		return;
	printf("FAIL: %s (kernel %s, buffer 0x%llx+%llu, %u bvecs of shift "
	       "%u, I/O at +%llu len %llu)\n", what, km->name,
	       (unsigned long long)t->imu.ubuf, (unsigned long long)t->imu.len,
	       t->imu.nr_bvecs, t->imu.folio_shift, (unsigned long long)off,
	       (unsigned long long)len);
}

static void check_io(const struct hb_kmodel *km, const struct table *t,
		     uint64_t off, uint64_t len)
{
	unsigned int j0, j1;
	uint64_t p0, p1;
	struct hb_import im;

	checks++;
	if (hb_model_import(km, &t->imu, t->imu.ubuf + off, len, &im)) {
		fail(km, t, off, len, hb_errmsg());
		return;
	}
	locate(t, off, &j0, &p0);
	locate(t, off + len - 1, &j1, &p1);
	if (im.bvec_idx != j0 || im.iov_offset != p0)
		fail(km, t, off, len, "iter start differs from the walk");
	else if (im.nr_segs_exact != j1 - j0 + 1)
		fail(km, t, off, len, "exact segment count differs");
	else if (im.nr_segs_kernel < im.nr_segs_exact)
		fail(km, t, off, len, "kernel nr_segs undercounts");
	else if (km->exact_nr_segs && im.nr_segs_kernel != im.nr_segs_exact)
		fail(km, t, off, len, "6.15+ nr_segs is not exact");
	else if (im.bvec_idx + im.nr_segs_kernel > t->imu.nr_bvecs &&
		 !km->exact_nr_segs)
		fail(km, t, off, len, "nr_segs runs past the table");
}

/* offsets: a grid plus every bvec boundary and its neighbours */
static unsigned int points(const struct table *t, uint64_t *pt,
			   unsigned int max, uint64_t step)
{
	unsigned int n = 0, j;
	uint64_t o;

	for (o = 0; o < t->imu.len && n < max; o += step)
		pt[n++] = o;
	for (j = 1; j <= t->imu.nr_bvecs && n + 3 < max; j++) {
		uint64_t b = t->prefix[j];

		if (b >= 1)
			pt[n++] = b - 1;
		if (b < t->imu.len)
			pt[n++] = b;
		if (b + 1 < t->imu.len)
			pt[n++] = b + 1;
	}
	return n;
}

static void sweep(const struct hb_kmodel *km, struct table *t)
{
	uint64_t pt[512];
	unsigned int n, a, b, j;

	t->prefix[0] = 0;
	for (j = 0; j < t->imu.nr_bvecs; j++)
		t->prefix[j + 1] = t->prefix[j] + t->bvec[j].len;
	if (t->prefix[t->imu.nr_bvecs] != t->imu.len)
		return; /* 6.12 vaddr-bug tables: checked in unit-model */
	n = points(t, pt, 512, 1536);
	for (a = 0; a < n; a++)
		for (b = 0; b < n; b++)
			if (pt[b] > pt[a] || (pt[b] == pt[a] && b == a))
				check_io(km, t, pt[a],
					 pt[b] > pt[a] ? pt[b] - pt[a] + 1 :
							 1);
}

static void layouts(const struct hb_kmodel *km)
{
	static const uint64_t folios[] = { PG, 4 * PG, 16 * PG };
	static const uint64_t heads[] = { 0, 0x10, 0x234, PG, PG + 0x1234,
					  3 * PG - 1 };
	static struct table t;
	unsigned int f, h, n;

	for (f = 0; f < T_ARRAY_SIZE(folios); f++) {
		for (h = 0; h < T_ARRAY_SIZE(heads); h++) {
			for (n = 1; n <= 40; n += 3) {
				uint64_t head = heads[h] % folios[f];
				uint64_t len = n * PG - (n > 1 ? 77 : 0);
				uint64_t ua = (1ULL << 40) + head;

				if (hb_nr_pages(ua, len) > 64)
					continue;
				hb_layout_synth(folios[f], head, len, 3,
						t.pages);
				if (hb_model_register(km, t.pages, ua, len,
						      t.bvec, &t.imu)) {
					fail(km, &t, 0, len, hb_errmsg());
					continue;
				}
				sweep(km, &t);
			}
		}
	}
}

static int check_edges(void)
{
	static struct table t;
	struct hb_kmodel km;
	struct hb_import im;
	uint64_t ua = (1ULL << 40) + 0x1234, len = (8ULL << 20) - 0x1234;
	static struct hb_page pages[2048];
	static struct hb_bvec bv[2048];
	int ret = T_EXIT_PASS;

	(void)t;
	hb_kmodel_parse("6.16", &km);
	hb_layout_synth(2ULL << 20, 0x1234, len, 1, pages);
	hb_model_register(&km, pages, ua, len, bv, &t.imu);
	/* docs/kernel-rules.md §5.1: +0x300000, 64K -> bvec 1 at 0x101234 */
	if (hb_model_import(&km, &t.imu, ua + 0x300000, 65536, &im) ||
	    im.bvec_idx != 1 || im.iov_offset != 0x101234 ||
	    im.nr_segs_exact != 1)
		ret = t_fail("worked example: bvec %u offset 0x%llx segs %u",
			     im.bvec_idx, (unsigned long long)im.iov_offset,
			     im.nr_segs_exact);
	/* #994: exactly at bv_len skips bvec 0 */
	if (hb_model_import(&km, &t.imu, ua + bv[0].len, 4096, &im) ||
	    im.bvec_idx != 1 || im.iov_offset != 0)
		ret = t_fail("offset == bv_len must start bvec 1 at 0");
	if (hb_model_import(&km, &t.imu, ua - 1, 4096, &im) != -EFAULT)
		ret = t_fail("I/O before the buffer must be EFAULT");
	if (hb_model_import(&km, &t.imu, ua + len - 4095, 4096, &im) !=
	    -EFAULT)
		ret = t_fail("I/O past the end must be EFAULT");
	return ret;
}

/* One sub-check per kernel: no mismatch since @before failures. */
static void kernel_checked(const struct hb_kmodel *km, int before)
{
	if (failures == before)
		t_pass();
	else
		t_fail("kernel %s: %d I/Os differ from the table walk",
		       km->name, failures - before);
}

int main(int argc, char **argv)
{
	const char *const *kernels;
	struct hb_kmodel km;
	unsigned int k, nr;
	int ret, before;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	nr = hb_kmodel_known(&kernels);
	for (k = 0; k < nr; k++) {
		hb_kmodel_parse(kernels[k], &km);
		before = failures;
		layouts(&km);
		kernel_checked(&km, before);
	}
	ret = t_sub(check_edges());
	printf("  %lu I/Os compared with the table walk, %d mismatches\n",
	       checks, failures);
	return t_done(failures ? T_EXIT_FAIL : ret);
}
