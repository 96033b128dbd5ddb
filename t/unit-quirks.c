// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the historical io_import_fixed() / registration quirks and
 * of the stable sublevel thresholds (lib/model/kmodel.c), each naming its commit:
 *  - d6fef34ee4d1 (6.7): "offset <= bv_len" kept an I/O starting exactly
 *    at bvec[0]'s end in bvec[0] with an empty first segment (6.3 - 6.6);
 *  - a23800f08a60 (6.10-rc5; 6.9.7, 6.6.36): nr_segs = bvec[0].bv_len;
 *  - 776617db78c6 (6.4; 6.3.2): CVE-2023-2598, a page mapped twice made
 *    one bvec in 6.3.0/6.3.1;
 *  - 3a3c6d61577d (6.16; 6.15.5, 6.12.36): bvec[0]'s offset from the page;
 *  - 111a12b422a8 (7.0-rc): a zero-length I/O at exactly the end of the
 *    buffer is an empty import, the table is not read past its end;
 *  - 41edf1a5ec96 (5.13; 5.10.162 through 788d0824269b, 5.15's io_uring):
 *    before it the bvec array of a buffer is an allocation of its own and
 *    the imu header sits in the ring's table; 5.10.162 and later register,
 *    import and charge as 6.1 does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define UADDR	0x7f0000000000ULL

/* The model of @s (a few live at once: a small ring of them). */
static const struct hb_kmodel *km_of(const char *s)
{
	static struct hb_kmodel ring[4];
	static unsigned int next;
	struct hb_kmodel *km = &ring[next++ % 4];

	if (hb_kmodel_parse(s, km))
		abort();
	return km;
}

/* Thresholds: the sublevel decides inside a stable series. */
static int test_thresholds(void)
{
	static const struct {
		const char *k;
		enum hb_kgen gen;
		bool le, segs, noncons;
	} cases[] = {
		{ "6.12.35", HB_KGEN_MULTI, 0, 0, 0 },	/* before 3a3c6d61577d */
		{ "6.12.36", HB_KGEN_MULTI_FIXED, 0, 0, 0 },
		{ "6.12.117", HB_KGEN_MULTI_FIXED, 0, 0, 0 },
		{ "6.15.4", HB_KGEN_MULTI, 0, 0, 0 },
		{ "6.15.5", HB_KGEN_MULTI_FIXED, 0, 0, 0 },
		{ "6.12", HB_KGEN_MULTI, 0, 0, 0 },	/* no sublevel: .0 */
		{ "6.3.1", HB_KGEN_SINGLE, 1, 1, 1 },	/* 776617db78c6 */
		{ "6.3.2", HB_KGEN_SINGLE, 1, 1, 0 },
		{ "6.6.35", HB_KGEN_SINGLE, 1, 1, 0 },	/* a23800f08a60 */
		{ "6.6.36", HB_KGEN_SINGLE, 1, 0, 0 },
		{ "6.7.0", HB_KGEN_SINGLE, 0, 1, 0 },	/* d6fef34ee4d1 */
		{ "6.9.6", HB_KGEN_SINGLE, 0, 1, 0 },
		{ "6.9.7", HB_KGEN_SINGLE, 0, 0, 0 },
		{ "6.10.0", HB_KGEN_SINGLE, 0, 0, 0 },
		{ "6.1.192", HB_KGEN_NONE, 0, 0, 0 },	/* iov_iter_advance */
		{ "6.3", HB_KGEN_SINGLE, 0, 0, 0 },	/* bare: no quirks */
	};
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		struct hb_kmodel km = *km_of(cases[i].k);

		if (km.gen != cases[i].gen ||
		    km.import_offset_le_bvlen != cases[i].le ||
		    km.import_nr_segs_bvlen != cases[i].segs ||
		    km.coalesce_nonconsecutive != cases[i].noncons)
			ret = t_fail("%s: gen %d le %d segs %d noncons %d, "
				     "expected %d %d %d %d", cases[i].k,
				     (int)km.gen, km.import_offset_le_bvlen,
				     km.import_nr_segs_bvlen,
				     km.coalesce_nonconsecutive,
				     (int)cases[i].gen, cases[i].le,
				     cases[i].segs, cases[i].noncons);
	}
	return ret;
}

/* 4 KiB pages at +0x234: bvec[0] is 0xdcc bytes, the rest whole pages. */
static void small_pages(const char *k, struct hb_imu *imu,
			struct hb_bvec *bv, struct hb_page *pages)
{
	const struct hb_kmodel *km = km_of(k);

	hb_layout_synth(4096, 0x234, 4 * 4096, 10, pages);
	if (hb_model_register(km, pages, UADDR + 0x234, 4 * 4096, bv, imu))
		abort();
}

/* d6fef34ee4d1: an I/O at exactly bv_len */
static int test_offset_at_bvlen(void)
{
	struct hb_page pages[8];
	struct hb_bvec bv[8];
	struct hb_imu imu;
	struct hb_import im;
	int ret = T_EXIT_PASS;

	small_pages("6.6.40", &imu, bv, pages);
	if (hb_model_import(km_of("6.6.40"), &imu, UADDR + 0x234 + 0xdcc,
			    512, &im) || im.bvec_idx != 0 ||
	    im.iov_offset != 0xdcc || im.nr_segs_exact != 1)
		ret = t_fail("6.6.40 (d6fef34ee4d1 missing): I/O at bv_len "
			     "gives bvec %u +%llu, expected bvec 0 +0xdcc",
			     im.bvec_idx, (unsigned long long)im.iov_offset);
	small_pages("6.7.0", &imu, bv, pages);
	if (hb_model_import(km_of("6.7.0"), &imu, UADDR + 0x234 + 0xdcc,
			    512, &im) || im.bvec_idx != 1 || im.iov_offset)
		ret = t_fail("6.7.0 (d6fef34ee4d1): I/O at bv_len gives bvec "
			     "%u +%llu, expected bvec 1 +0", im.bvec_idx,
			     (unsigned long long)im.iov_offset);
	return ret;
}

/* a23800f08a60: nr_segs = bv_len inside bvec[0] at a non-zero offset */
static int test_nr_segs_bvlen(void)
{
	struct hb_page pages[8];
	struct hb_bvec bv[8];
	struct hb_imu imu;
	struct hb_import im;
	int ret = T_EXIT_PASS;

	small_pages("6.9.6", &imu, bv, pages);
	if (hb_model_import(km_of("6.9.6"), &imu, UADDR + 0x300, 64, &im) ||
	    im.nr_segs_kernel != 0xdcc)
		ret = t_fail("6.9.6: nr_segs %u, expected bv_len 0xdcc "
			     "(a23800f08a60 missing)", im.nr_segs_kernel);
	small_pages("6.9.7", &imu, bv, pages);
	if (hb_model_import(km_of("6.9.7"), &imu, UADDR + 0x300, 64, &im) ||
	    im.nr_segs_kernel != imu.nr_bvecs)
		ret = t_fail("6.9.7: nr_segs %u, expected %u (all bvecs)",
			     im.nr_segs_kernel, imu.nr_bvecs);
	return ret;
}

/* 776617db78c6 / CVE-2023-2598: one page mapped four times */
static int test_nonconsecutive(void)
{
	struct hb_page pages[4];
	struct hb_bvec bv[4];
	struct hb_imu imu;
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < 4; i++) {
		pages[i].folio = 77;
		pages[i].idx = 3;
		pages[i].order = 9;
	}
	if (hb_model_register(km_of("6.3.1"), pages, UADDR, 4 * 4096, bv,
			      &imu) || imu.nr_bvecs != 1)
		ret = t_fail("6.3.1: %u bvecs for one page mapped 4 times, "
			     "expected 1 (CVE-2023-2598)", imu.nr_bvecs);
	if (hb_model_register(km_of("6.3.2"), pages, UADDR, 4 * 4096, bv,
			      &imu) || imu.nr_bvecs != 4)
		ret = t_fail("6.3.2: %u bvecs for one page mapped 4 times, "
			     "expected 4 (776617db78c6)", imu.nr_bvecs);
	return ret;
}

/*
 * 3a3c6d61577d: a THP's first page mapped 1 MiB past a 2 MiB boundary
 * (mremap): bvec[0]'s offset is the page's place in the folio (0), not
 * the address's (1 MiB), from 6.12.36 on.
 */
static int test_vaddr_offset(void)
{
	struct hb_page pages[256];
	struct hb_bvec bv[256];
	struct hb_imu imu;
	uint64_t ua = UADDR + (1ULL << 20);
	int ret = T_EXIT_PASS;

	hb_layout_synth(2ULL << 20, 0, 1ULL << 20, 5, pages);
	if (hb_model_register(km_of("6.12.35"), pages, ua, 1ULL << 20, bv,
			      &imu) || imu.bvec[0].offset != (1U << 20))
		ret = t_fail("6.12.35: bvec[0] offset 0x%x, expected the "
			     "vaddr's 0x100000", imu.bvec[0].offset);
	if (hb_model_register(km_of("6.12.36"), pages, ua, 1ULL << 20, bv,
			      &imu) || imu.bvec[0].offset != 0)
		ret = t_fail("6.12.36: bvec[0] offset 0x%x, expected 0 "
			     "(3a3c6d61577d)", imu.bvec[0].offset);
	return ret;
}

/* 111a12b422a8: zero length at exactly the end of the buffer */
static int test_zero_len_at_end(void)
{
	static const char *const kernels[] = { "6.1", "6.3.1", "6.6.40",
					       "6.12", "6.16", "6.1+hugebuf" };
	struct hb_page pages[8];
	struct hb_bvec *bv;
	struct hb_imu imu;
	struct hb_import im;
	int ret = T_EXIT_PASS;
	unsigned int k;

	for (k = 0; k < T_ARRAY_SIZE(kernels); k++) {
		struct hb_kmodel km = *km_of(kernels[k]);

		hb_layout_synth(4096, 0x234, 4 * 4096, 10, pages);
		/* exactly as many entries as the kernel allocates */
		bv = calloc(5, sizeof(*bv));
		if (!bv || hb_model_register(&km, pages, UADDR + 0x234,
					     4 * 4096, bv, &imu))
			abort();
		imu.bvec = realloc(bv, imu.nr_bvecs * sizeof(*bv));
		if (hb_model_import(&km, &imu, UADDR + 0x234 + 4 * 4096, 0,
				    &im) ||
		    im.nr_segs_exact || im.nr_segs_kernel || im.bvec_idx)
			ret = t_fail("%s: zero-length I/O at the end: %s, "
				     "bvec %u segs %u/%u, expected an empty "
				     "import (111a12b422a8)", kernels[k],
				     hb_errmsg(), im.bvec_idx,
				     im.nr_segs_exact, im.nr_segs_kernel);
		free(imu.bvec);
	}
	return ret;
}

/*
 * 5.10: one bvec per page on every sublevel; the buffer's allocation is
 * the 16-byte bvecs alone before 5.10.162 (and before 5.13), a 32-byte
 * header plus the bvecs from 5.10.162 on (788d0824269b), as on 6.1.  A
 * bare "5.10" is the series as it ships today.  The rest of 5.10.262's
 * model is 6.1's: batch de-duplication, VMA check, VmPin for every ring,
 * no fixed-buffer passthrough, page-by-page plain O_DIRECT.
 */
static int test_510(void)
{
	static const struct {
		const char *k;
		bool apart;
		unsigned int header;
		uint64_t bytes_512;	/* one 2 MiB buffer of 4 KiB bvecs */
	} cases[] = {
		{ "5.10.0", true, 0, 8192 },
		{ "5.10.161", true, 0, 8192 },
		{ "5.10.162", false, 32, 8224 },
		{ "5.10.262", false, 32, 8224 },
		{ "5.10", false, 32, 8224 },
		{ "5.12", true, 0, 8192 },
		{ "5.13", false, 32, 8224 },
		{ "6.1", false, 32, 8224 },
	};
	const struct hb_kmodel *k61 = km_of("6.1.192");
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		struct hb_kmodel km = *km_of(cases[i].k);
		uint64_t b = hb_imu_bytes(&km, 512);

		if (km.imu_bvecs_apart != cases[i].apart ||
		    km.imu_header != cases[i].header ||
		    b != cases[i].bytes_512)
			ret = t_fail("%s: bvecs apart %d, header %u, 512 "
				     "bvecs %llu B; expected %d, %u, %llu",
				     cases[i].k, km.imu_bvecs_apart,
				     km.imu_header, (unsigned long long)b,
				     cases[i].apart, cases[i].header,
				     (unsigned long long)cases[i].bytes_512);
		if (km.gen != HB_KGEN_NONE && cases[i].k[0] == '5')
			ret = t_fail("%s: generation %d, expected one bvec "
				     "per page", cases[i].k, (int)km.gen);
	}
	/* 5.10.262 against 6.1.192, rule by rule */
	{
		struct hb_kmodel km = *km_of("5.10.262");

		if (km.acct_batch_dedup != k61->acct_batch_dedup ||
		    km.pin_checks_vmas != k61->pin_checks_vmas ||
		    km.vmpin_needs_user || km.vec_fixed ||
		    km.exact_nr_segs || km.imu_cache_bvecs ||
		    km.pt_split_check || km.pt_old_bvec_checks ||
		    km.plain_folio_runs != k61->plain_folio_runs ||
		    km.plain_merge_test_first != k61->plain_merge_test_first ||
		    km.import_offset_le_bvlen || km.import_nr_segs_bvlen)
			ret = t_fail("5.10.262 differs from 6.1.192 in a rule "
				     "788d0824269b gave it");
	}
	return ret;
}

int main(void)
{
	int ret = T_EXIT_PASS;

	ret = t_worst(ret, t_sub(test_thresholds()));
	ret = t_worst(ret, t_sub(test_offset_at_bvlen()));
	ret = t_worst(ret, t_sub(test_nr_segs_bvlen()));
	ret = t_worst(ret, t_sub(test_nonconsecutive()));
	ret = t_worst(ret, t_sub(test_vaddr_offset()));
	ret = t_worst(ret, t_sub(test_zero_len_at_end()));
	ret = t_worst(ret, t_sub(test_510()));
	return t_done(ret);
}
