// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of hb_model_md_map(): what the kernel makes of a metadata
 * buffer that comes with one command (issue 45, item 2).  6.1.192 copies
 * every one (nvme_add_user_metadata()); from 6.12 bio_integrity_map_user()
 * pins it, one bvec per run of pages of one folio, and copies it only
 * when it is off dma_alignment or has more bvecs than
 * max_integrity_segments (1 on NVMe without metadata SGLs, 15 with
 * them: NVME_MAX_META_SEGS).  Every expected value is worked out by hand
 * from those rules, not from the model.  Also checks which releases map
 * at all.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

#define K 1024ULL
#define M (1024ULL * 1024)
#define BASE (1ULL << 40) /* 1 GiB aligned user address */

/* NVMe without metadata SGLs, and with them; dma_alignment 3 */
static const struct hb_md_queue mptr = { 1, 3 };
static const struct hb_md_queue msds = { 15, 3 };

struct md_row {
	const char *what;
	const char *kernel;
	uint64_t folio;		/* folio size of the backing */
	uint64_t off;		/* the buffer's offset from BASE */
	uint64_t len;
	const struct hb_md_queue *q;
	bool pt;
	enum hb_md_map map;
	enum hb_md_why why;
	unsigned int bvecs, segments, dma_maps;
	bool sgl;
};

static const struct md_row rows[] = {
	{ "hugepage md inside one folio", "7.3", 2 * M, 4 * K, 16 * K,
	  &mptr, true, HB_MD_DIRECT, HB_MD_WHY_NONE, 1, 1, 1, false },
	{ "4 KiB md crossing pages, limit 1", "7.3", 4 * K, 2 * K, 8 * K,
	  &mptr, true, HB_MD_COPIED, HB_MD_WHY_SEGMENTS, 3, 1, 1, false },
	{ "6.1 copies hugepage md", "6.1", 2 * M, 4 * K, 16 * K, &mptr,
	  true, HB_MD_COPIED, HB_MD_WHY_NO_DIRECT, 1, 1, 1, false },
	{ "6.1 copies 4 KiB md", "6.1.192", 4 * K, 2 * K, 8 * K, &mptr,
	  true, HB_MD_COPIED, HB_MD_WHY_NO_DIRECT, 3, 1, 1, false },
	{ "our 6.1 series copies too", "6.1+hugebuf", 2 * M, 0, 4 * K,
	  &mptr, true, HB_MD_COPIED, HB_MD_WHY_NO_DIRECT, 1, 1, 1, false },
	{ "4 KiB md, metadata SGLs", "7.3", 4 * K, 2 * K, 8 * K, &msds,
	  true, HB_MD_DIRECT, HB_MD_WHY_NONE, 3, 3, 3, true },
	{ "hugepage md, SGL for a passthrough command", "7.3", 2 * M, 0,
	  8 * K, &msds, true, HB_MD_DIRECT, HB_MD_WHY_NONE, 1, 1, 1, true },
	{ "hugepage md, MPTR for a plain PI read", "7.3", 2 * M, 0, 8 * K,
	  &msds, false, HB_MD_DIRECT, HB_MD_WHY_NONE, 1, 1, 1, false },
	{ "off dma_alignment", "7.3", 2 * M, 2, 512, &mptr, true,
	  HB_MD_COPIED, HB_MD_WHY_ALIGN, 1, 1, 1, false },
	{ "length off dma_alignment", "6.12", 2 * M, 0, 510, &msds, true,
	  HB_MD_COPIED, HB_MD_WHY_ALIGN, 1, 1, 1, true },
	{ "4 KiB md inside one page", "6.12", 4 * K, 512, 512, &mptr,
	  true, HB_MD_DIRECT, HB_MD_WHY_NONE, 1, 1, 1, false },
	{ "hugepage md across two folios", "7.3", 2 * M, 2 * M - 4 * K,
	  8 * K, &mptr, true, HB_MD_COPIED, HB_MD_WHY_SEGMENTS, 2, 1, 1,
	  false },
	{ "16 4 KiB folios, 15 segments", "7.3", 4 * K, 0, 64 * K, &msds,
	  true, HB_MD_COPIED, HB_MD_WHY_SEGMENTS, 16, 1, 1, true },
	{ "a release not read", "6.8", 2 * M, 0, 4 * K, &mptr, true,
	  HB_MD_UNKNOWN, HB_MD_WHY_NOT_READ, 1, 0, 0, false },
};

static int check_row(const struct md_row *r)
{
	struct hb_page pages[64];
	struct hb_kmodel km;
	struct hb_md_cmd c;

	if (hb_kmodel_parse(r->kernel, &km))
		return t_fail("%s: %s", r->kernel, hb_errmsg());
	if (hb_nr_pages(r->off, r->len) > T_ARRAY_SIZE(pages) ||
	    hb_layout_synth(r->folio, r->off, r->len, 100, pages))
		return t_fail("%s: bad row", r->what);
	if (hb_model_md_map(&km, pages, BASE + r->off, r->len, r->q, r->pt,
			    &c))
		return t_fail("%s: %s", r->what, hb_errmsg());
	if (c.map != r->map || c.why != r->why)
		return t_fail("%s (%s): %s (%s), expected %s (%s)", r->what,
			      r->kernel, hb_md_map_name(c.map),
			      hb_md_why_name(c.why), hb_md_map_name(r->map),
			      hb_md_why_name(r->why));
	if (c.bvecs != r->bvecs || c.segments != r->segments ||
	    c.dma_maps != r->dma_maps || c.sgl != r->sgl)
		return t_fail("%s (%s): bvecs %u segments %u dma %u sgl %d, "
			      "expected %u %u %u %d", r->what, r->kernel,
			      c.bvecs, c.segments, c.dma_maps, c.sgl,
			      r->bvecs, r->segments, r->dma_maps, r->sgl);
	return T_EXIT_PASS;
}

/* BIO_MAX_VECS: 2 MiB of 4 KiB pages is 512 of them, E2BIG */
static int check_too_many_pages(void)
{
	static struct hb_page pages[513];
	struct hb_kmodel km;
	struct hb_md_cmd c;
	int ret;

	hb_kmodel_for_version(7, 3, &km);
	if (hb_layout_synth(4 * K, 0, 2 * M, 100, pages))
		return t_fail("synth: %s", hb_errmsg());
	ret = hb_model_md_map(&km, pages, BASE, 2 * M, &mptr, true, &c);
	if (ret != -E2BIG)
		return t_fail_val("2 MiB of 4 KiB pages", -E2BIG, ret);
	return T_EXIT_PASS;
}

/* which releases map a metadata buffer at all */
struct rule_row {
	const char *kernel;
	enum hb_md_map map;
};

static const struct rule_row rules[] = {
	{ "5.10", HB_MD_COPIED },
	{ "6.1", HB_MD_COPIED },
	{ "6.1+hugebuf", HB_MD_COPIED },
	{ "6.1.192-hbfix-memlock", HB_MD_COPIED },
	{ "6.3", HB_MD_COPIED },
	{ "6.7", HB_MD_COPIED },
	{ "6.8", HB_MD_UNKNOWN },
	{ "6.11", HB_MD_UNKNOWN },
	{ "6.12", HB_MD_DIRECT },
	{ "6.13", HB_MD_DIRECT },
	{ "6.15", HB_MD_DIRECT },
	{ "6.16", HB_MD_DIRECT },
	{ "6.18", HB_MD_DIRECT },
	{ "7.2", HB_MD_DIRECT },
	{ "7.3", HB_MD_DIRECT },
	{ "7.4", HB_MD_DIRECT },
};

static int check_rule(const struct rule_row *r)
{
	struct hb_kmodel km;

	if (hb_kmodel_parse(r->kernel, &km))
		return t_fail("%s: %s", r->kernel, hb_errmsg());
	if (km.md_user_map != r->map)
		return t_fail("%s: metadata %s, expected %s", r->kernel,
			      hb_md_map_name(km.md_user_map),
			      hb_md_map_name(r->map));
	return T_EXIT_PASS;
}

int main(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(rows); i++)
		ret = t_worst(ret, t_sub(check_row(&rows[i])));
	ret = t_worst(ret, t_sub(check_too_many_pages()));
	for (i = 0; i < T_ARRAY_SIZE(rules); i++)
		ret = t_worst(ret, t_sub(check_rule(&rules[i])));
	ret = t_worst(ret, t_sub(t_known_kernels_have_rows(rules,
			sizeof(rules[0]), T_ARRAY_SIZE(rules))));
	return t_done(ret);
}
