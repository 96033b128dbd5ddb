// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf plan's output: the models' figures (cli/plan.c) as text lines
 * or as one JSON document (the keys are hugebuf.1's "plan --json", which
 * t/docs-match.sh compares).
 */
#include <stdio.h>

#include "plan.h"

static void plan_bvecs_text(const struct hb_imu *imu)
{
	unsigned int i;

	for (i = 0; i < imu->nr_bvecs; i++)
		printf("  bvec %u: folio %llu page %u offset %u len %u\n", i,
		       (unsigned long long)imu->bvec[i].folio,
		       imu->bvec[i].page_idx, imu->bvec[i].offset,
		       imu->bvec[i].len);
}

static const char *add_unit(bool runs)
{
	return runs ? "folio runs" : "4 KiB pages";
}

static void plan_plain_text(const struct pred *p)
{
	const struct opts *o = &p->o;
	const struct hb_plain_pred *pp = &p->plain, *x = &p->other;
	bool runs = o->km.plain_folio_runs;

	printf("plain:       one O_DIRECT read of the whole buffer, not "
	       "registered (%s)\n", PLAIN_ASSUMPTION);
	printf("  bios:        %u (max_bvecs %u)\n", pp->bios,
	       pp->max_bvecs);
	printf("  batches:     %u (of pages)\n", pp->batches);
	printf("  adds:        %u (%s)\n", pp->adds, add_unit(runs));
	printf("  merge_tests: %u\n", pp->merge_tests);
	printf("  bvecs:       %u (%u same-page merges)\n", pp->bvecs,
	       pp->same_page);
	printf("  releases:    %u (per folio, at completion)\n", pp->releases);
	if (o->have_limits)
		printf("  requests:    %u\n", pp->requests);
	/* the other way of adding pages, where it makes a difference */
	if (x->adds != pp->adds || x->merge_tests != pp->merge_tests)
		printf("  contrast:    %s: %u adds, %u merge tests (here: %u, "
		       "%u)\n", runs ? "page by page" : "with folio runs",
		       x->adds, x->merge_tests, pp->adds, pp->merge_tests);
}

static const char *iommu_mode_name(enum iommu_mode m)
{
	switch (m) {
	case IOMMU_STRICT:
		return "strict";
	case IOMMU_LAZY:
		return "lazy";
	case IOMMU_DIRECT:
		return "direct";
	case IOMMU_OFF:
		break;
	}
	return "off";
}

static const char *iommu_path_name(bool pt)
{
	return pt ? "passthrough" : "block";
}

/* A figure as the counted kernel functions see it in this mode. */
static uint64_t fig(const struct pred *p, const struct hb_iommu_pred *x,
		    enum hb_iommu_field f)
{
	return hb_iommu_figure(x, &p->icfg, f);
}

static uint64_t iommu_ptes(const struct hb_iommu_pred *x)
{
	return x->ptes[0] + x->ptes[1] + x->ptes[2];
}

/*
 * strict: IOTLB syncs; lazy: IOVAs queued; both one per unmap, except
 * that the IOVA-based DMA API (7.x) syncs in lazy mode too
 */
static unsigned int iommu_flushes(const struct pred *p,
				  const struct hb_iommu_pred *x)
{
	return p->icfg.strict ? x->iotlb_syncs : x->fq_queued;
}

static bool iova_gen(const struct hb_iommu_pred *x)
{
	return x->gen == HB_IOMMU_GEN_IOVA;
}

/* The headline figures of the I/O, on one line, for the contrast. */
static void iommu_summary(const struct pred *p, const struct hb_iommu_pred *x,
			  bool units)
{
	if (x->error) {
		printf("refused");
		return;
	}
	printf("%u%s, %llu%s", x->requests, units ? " requests" : "",
	       (unsigned long long)(fig(p, x, HB_IOMMU_DMA_MAP_SG) +
				    fig(p, x, HB_IOMMU_DMA_MAP_PAGE) +
				    fig(p, x, HB_IOMMU_IOVA_TRIES)),
	       units ? " DMA API maps" : "");
	if (!p->icfg.translated)
		return;
	printf(", %llu%s (%llu 4K, %llu 2M), %u%s, %u%s",
	       (unsigned long long)iommu_ptes(x), units ? " PTEs" : "",
	       (unsigned long long)x->ptes[0], (unsigned long long)x->ptes[1],
	       iova_gen(x) ? x->iova_links : x->map_pages,
	       units ? (iova_gen(x) ? " dma_iova_link" : " map_pages") : "",
	       iommu_flushes(p, x),
	       units ? (p->icfg.strict ? " IOTLB syncs" : " IOVAs queued") :
		       "");
	if (!p->icfg.strict && x->iotlb_syncs)
		printf(", %u%s", x->iotlb_syncs, units ? " IOTLB syncs" : "");
}

/* Whether the contrast's headline figures are the same as the I/O's. */
static bool iommu_same(const struct pred *p, const struct hb_iommu_pred *x,
		       const struct hb_iommu_pred *y)
{
	return !x->error == !y->error && x->requests == y->requests &&
	       x->map_sg == y->map_sg && x->map_page == y->map_page &&
	       x->ptes[0] == y->ptes[0] && x->ptes[1] == y->ptes[1] &&
	       x->map_pages == y->map_pages &&
	       x->iova_links == y->iova_links &&
	       x->iotlb_syncs == y->iotlb_syncs &&
	       iommu_flushes(p, x) == iommu_flushes(p, y);
}

static void plan_iommu_contrast_text(const struct pred *p)
{
	const struct hb_iommu_pred *x = &p->io, *y = &p->io_other;

	if (!p->other_err[0] && iommu_same(p, x, y))
		return;
	if (p->io_km.gen == HB_KGEN_NONE)
		printf("  contrast:    without coalescing: ");
	else
		printf("  contrast:    with coalescing (%s): ",
		       hb_kgen_name(p->io_km.gen));
	if (p->other_err[0]) {
		printf("not modelled: %s\n", p->other_err);
		return;
	}
	iommu_summary(p, y, true);
	printf(" (here: ");
	iommu_summary(p, x, false);
	printf(")\n");
}

static const char *direct_note(const struct pred *p)
{
	return p->icfg.translated ? "" : " (dma-direct: no IOVA, no IOMMU "
					 "page table)";
}

/* The IOMMU's own work: IOVAs, page table, unmaps, flushes. */
static void plan_iommu_work_text(const struct pred *p,
				 const struct hb_iommu_pred *x)
{
	printf("  iova allocs: %u (%u above the IOVA cache, %llu B)\n",
	       x->iova_allocs, x->iova_uncached,
	       (unsigned long long)x->iova_bytes);
	printf("  iommu_map:   %u (%s calls)\n", x->iommu_maps,
	       iova_gen(x) ? "iommu_map_nosync" : "__iommu_map");
	if (!iova_gen(x))
		printf("  map_pages:   %u\n", x->map_pages);
	printf("  ptes:        %llu 4K, %llu 2M\n",
	       (unsigned long long)x->ptes[0], (unsigned long long)x->ptes[1]);
	if (iova_gen(x))
		printf("  unmaps:      %u (one range each, generic page "
		       "table)\n", x->unmaps);
	else
		printf("  unmaps:      %u (%u unmap_pages)\n", x->unmaps,
		       x->unmap_pages);
	if (p->icfg.strict)
		printf("  iotlb syncs: %u (strict: one per unmap)\n",
		       x->iotlb_syncs);
	else if (x->iotlb_syncs)
		printf("  iotlb syncs: %u (lazy too: dma_iova_destroy() "
		       "syncs)\n", x->iotlb_syncs);
	if (!p->icfg.strict)
		printf("  iova queued: %u (lazy: flush queue, no sync per "
		       "unmap)\n", x->fq_queued);
}

static void plan_iommu_text(const struct pred *p)
{
	const struct opts *o = &p->o;
	const struct hb_iommu_pred *x = &p->io;

	printf("iommu:       %s, one READ_FIXED of the whole buffer, %s path, "
	       "NVMe behind an Intel IOMMU, %s DMA mapping\n",
	       iommu_mode_name(o->iommu), iommu_path_name(o->pt),
	       hb_iommu_gen_name(x->gen));
	printf("  assumption:  %s\n", IOMMU_ASSUMPTION);
	if (x->error) {
		printf("  refused:     -EINVAL: %s (%llu B, max_hw %llu B)\n",
		       p->io_why ? p->io_why : "the kernel refuses it",
		       (unsigned long long)o->size,
		       (unsigned long long)p->lim.max_hw_bytes);
		plan_iommu_contrast_text(p);
		return;
	}
	printf("  requests:    %u\n", x->requests);
	if (iova_gen(x))
		printf("  dma api:     %u dma_iova_try_alloc, %u dma_iova_link "
		       "(%u segments), %llu map_page, %u dma_map_phys%s\n",
		       x->iova_tries, x->iova_links, x->dma_vecs,
		       (unsigned long long)fig(p, x, HB_IOMMU_DMA_MAP_PAGE),
		       x->map_phys, direct_note(p));
	else
		printf("  dma api:     %llu map_sg (%u scatterlist entries), "
		       "%llu map_page%s\n",
		       (unsigned long long)fig(p, x, HB_IOMMU_DMA_MAP_SG),
		       x->sg_entries,
		       (unsigned long long)fig(p, x, HB_IOMMU_DMA_MAP_PAGE),
		       direct_note(p));
	if (p->icfg.translated)
		plan_iommu_work_text(p, x);
	plan_iommu_contrast_text(p);
}

/* the registration's cost (hb_model_register_cost()), and its warning */
static void plan_cost_text(const struct pred *p)
{
	const struct hb_reg_cost *c = &p->cost;
	unsigned int n = p->o.nr_bufs ? p->o.nr_bufs : 1;
	char warn[512];

	printf("register:    %u buffer%s %s: %llu pages pinned, %llu bvecs, "
	       "%llu compound heads\n", n, n > 1 ? "s" : "",
	       p->o.one_by_one ? "one by one" : "in one call",
	       (unsigned long long)c->pages, (unsigned long long)c->bvecs,
	       (unsigned long long)c->heads);
	if (p->o.km.acct_per_ring)
		printf("accounting:  %llu lookups in the ring's hpage_acct "
		       "(7.2+, 6.1+hugebuf: linear)\n",
		       (unsigned long long)c->ring_lookups);
	else
		printf("accounting:  %llu entries read by "
		       "headpage_already_acct() (up to 7.1)\n",
		       (unsigned long long)c->scan_reads);
	if (hb_reg_cost_warning(c, warn, sizeof(warn)) > 0)
		printf("warning:     %s\n", warn);
}

static void plan_cost_json(struct hb_json *j, const struct pred *p)
{
	const struct hb_reg_cost *c = &p->cost;
	char warn[512];

	hb_json_obj(j, "register");
	hb_json_u64(j, "buffers", p->o.nr_bufs ? p->o.nr_bufs : 1);
	hb_json_str(j, "calls", p->o.one_by_one ? "one_by_one" : "one_call");
	hb_json_u64(j, "pages", c->pages);
	hb_json_u64(j, "bvecs", c->bvecs);
	hb_json_u64(j, "heads", c->heads);
	hb_json_u64(j, "scan_reads", c->scan_reads);
	hb_json_u64(j, "ring_lookups", c->ring_lookups);
	hb_json_bool(j, "slow", hb_reg_cost_slow(c));
	if (hb_reg_cost_warning(c, warn, sizeof(warn)) > 0)
		hb_json_str(j, "warning", warn);
	hb_json_end(j);
}

/*
 * efde156d91ba's clone sequence on this kernel (hb_model_clone_seq()):
 * the exit t/liburing/fixed-clone-acct.c should give, for a harness to
 * judge it by, VmPin after each step, and the warning where there is one.
 */
static void plan_clone_json(struct hb_json *j, const struct pred *p)
{
	int64_t kb[HB_CLONE_STEPS] = { 0 };
	char warn[512];
	unsigned int i;
	int rc;

	rc = hb_model_clone_seq(&p->o.km, kb);
	hb_json_obj(j, "clone_sequence");
	hb_json_i64(j, "reproducer_exit", rc);
	if (rc == 0 || rc == 1) {
		hb_json_arr(j, "vmpin_kb");
		for (i = 0; i < HB_CLONE_STEPS; i++)
			hb_json_i64(j, NULL, kb[i]);
		hb_json_end(j);
	}
	if (hb_clone_acct_warning(&p->o.km, p->o.backing.folio_size, false,
				  warn, sizeof(warn)) <= 0)
		warn[0] = '\0';
	hb_json_str(j, "warning", warn);
	hb_json_end(j);
}

void plan_text(const struct pred *p)
{
	const struct opts *o = &p->o;
	const struct hb_imu *imu = &p->imu;
	char bs[HB_BACKING_STR_MAX], sz[32], warn[512];

	hb_backing_str(&o->backing, bs, sizeof(bs));
	hb_fmt_size(o->size, sz, sizeof(sz));
	printf("buffer:      %s of %s at offset 0x%llx\n", sz, bs,
	       (unsigned long long)o->offset);
	printf("kernel:      %s: %s\n", o->km.name, hb_kgen_name(o->km.gen));
	printf("pages:       %u pinned\n", imu->nr_pages);
	printf("folio_shift: %u\n", imu->folio_shift);
	printf("nr_bvecs:    %u\n", imu->nr_bvecs);
	printf("coalesced:   %s\n", yes_no(imu->coalesced));
	printf("imu:         %llu B (header %u + %u x %u)\n",
	       (unsigned long long)imu->imu_bytes, o->km.imu_header,
	       imu->nr_bvecs, HB_BVEC_BYTES);
	printf("allocation:  %llu B%s\n", (unsigned long long)imu->alloc_bytes,
	       !imu->alloc_bytes && o->km.imu_cache_bvecs ?
	       " (served from the ring's imu cache)" : "");
	plan_cost_text(p);
	if (hb_clone_acct_warning(&o->km, o->backing.folio_size, false, warn,
				  sizeof(warn)) > 0)
		printf("clones:      warning: %s\n", warn);
	if (o->have_limits)
		printf("requests:    %u per READ_FIXED of the whole buffer%s%s "
		       "(max_sectors %llu B, max_segments %u, "
		       "max_segment_size %llu B)\n", p->reqs,
		       o->dev ? " on " : "", o->dev ? o->dev : "",
		       (unsigned long long)o->max_bytes, o->max_segs,
		       (unsigned long long)o->max_seg);
	if (o->plain)
		plan_plain_text(p);
	if (o->iommu)
		plan_iommu_text(p);
	if (o->bvecs)
		plan_bvecs_text(imu);
}

static void plan_bvecs_json(struct hb_json *j, const struct hb_imu *imu)
{
	unsigned int i;

	hb_json_arr(j, "bvecs");
	for (i = 0; i < imu->nr_bvecs; i++) {
		hb_json_obj(j, NULL);
		hb_json_u64(j, "folio", imu->bvec[i].folio);
		hb_json_u64(j, "page", imu->bvec[i].page_idx);
		hb_json_u64(j, "offset", imu->bvec[i].offset);
		hb_json_u64(j, "len", imu->bvec[i].len);
		hb_json_end(j);
	}
	hb_json_end(j);
}

static void plain_counts_json(struct hb_json *j,
			      const struct hb_plain_pred *pp)
{
	hb_json_u64(j, "bios", pp->bios);
	hb_json_u64(j, "batches", pp->batches);
	hb_json_u64(j, "adds", pp->adds);
	hb_json_u64(j, "merge_tests", pp->merge_tests);
	hb_json_u64(j, "bvecs", pp->bvecs);
	hb_json_u64(j, "same_page", pp->same_page);
	hb_json_u64(j, "releases", pp->releases);
	hb_json_u64(j, "max_bvecs", pp->max_bvecs);
}

static void plan_plain_json(struct hb_json *j, const struct pred *p)
{
	const struct opts *o = &p->o;
	bool runs = o->km.plain_folio_runs;

	hb_json_obj(j, "plain");
	hb_json_str(j, "assumption", PLAIN_ASSUMPTION);
	hb_json_bool(j, "folio_runs", runs);
	plain_counts_json(j, &p->plain);
	if (o->have_limits)
		hb_json_u64(j, "requests", p->plain.requests);
	hb_json_obj(j, "contrast");
	hb_json_bool(j, "folio_runs", !runs);
	plain_counts_json(j, &p->other);
	if (o->have_limits)
		hb_json_u64(j, "requests", p->other.requests);
	hb_json_end(j);
	hb_json_end(j);
}

/* The figures of one I/O: the refusal, or what the text prints. */
static void iommu_counts_json(struct hb_json *j, const struct pred *p,
			      const struct hb_iommu_pred *x, const char *why)
{
	hb_json_bool(j, "refused", x->error);
	if (x->error) {
		if (why)
			hb_json_str(j, "reason", why);
		return;
	}
	hb_json_u64(j, "requests", x->requests);
	hb_json_str(j, "dma_mapping", hb_iommu_gen_name(x->gen));
	hb_json_u64(j, "map_sg", fig(p, x, HB_IOMMU_DMA_MAP_SG));
	hb_json_u64(j, "map_page", fig(p, x, HB_IOMMU_DMA_MAP_PAGE));
	hb_json_u64(j, "sg_entries", x->sg_entries);
	if (iova_gen(x)) {
		hb_json_u64(j, "iova_tries", x->iova_tries);
		hb_json_u64(j, "iova_links", x->iova_links);
		hb_json_u64(j, "dma_vecs", x->dma_vecs);
		hb_json_u64(j, "map_phys", x->map_phys);
	}
	if (!p->icfg.translated)
		return;
	hb_json_u64(j, "iova_allocs", x->iova_allocs);
	hb_json_u64(j, "iova_uncached", x->iova_uncached);
	hb_json_u64(j, "iova_bytes", x->iova_bytes);
	hb_json_u64(j, "iommu_maps", x->iommu_maps);
	hb_json_u64(j, "map_pages", x->map_pages);
	hb_json_u64(j, "ptes_4k", x->ptes[0]);
	hb_json_u64(j, "ptes_2m", x->ptes[1]);
	hb_json_u64(j, "unmaps", x->unmaps);
	hb_json_u64(j, "unmap_pages", x->unmap_pages);
	if (p->icfg.strict || x->iotlb_syncs)
		hb_json_u64(j, "iotlb_syncs", x->iotlb_syncs);
	if (!p->icfg.strict)
		hb_json_u64(j, "iova_queued", x->fq_queued);
}

static void plan_iommu_json(struct hb_json *j, const struct pred *p)
{
	const struct opts *o = &p->o;

	hb_json_obj(j, "iommu");
	hb_json_str(j, "mode", iommu_mode_name(o->iommu));
	hb_json_str(j, "path", iommu_path_name(o->pt));
	hb_json_str(j, "assumption", IOMMU_ASSUMPTION);
	hb_json_u64(j, "max_hw_bytes", p->lim.max_hw_bytes);
	iommu_counts_json(j, p, &p->io, p->io_why);
	hb_json_obj(j, "contrast");
	hb_json_str(j, "generation", hb_kgen_name(p->io_km.gen));
	if (p->other_err[0])
		hb_json_str(j, "not_modelled", p->other_err);
	else
		iommu_counts_json(j, p, &p->io_other, NULL);
	hb_json_end(j);
	hb_json_end(j);
}

int plan_json(const struct pred *p)
{
	const struct opts *o = &p->o;
	const struct hb_imu *imu = &p->imu;
	char bs[HB_BACKING_STR_MAX];
	struct hb_str out;
	struct hb_json j;

	hb_backing_str(&o->backing, bs, sizeof(bs));
	hb_str_init(&out);
	hb_json_init(&j, &out);
	hb_json_obj(&j, NULL);
	hb_json_str(&j, "backing", bs);
	hb_json_u64(&j, "size", o->size);
	hb_json_u64(&j, "offset", o->offset);
	hb_json_str(&j, "kernel", o->km.name);
	hb_json_str(&j, "generation", hb_kgen_name(o->km.gen));
	hb_json_u64(&j, "nr_pages", imu->nr_pages);
	hb_json_u64(&j, "folio_shift", imu->folio_shift);
	hb_json_u64(&j, "nr_bvecs", imu->nr_bvecs);
	hb_json_bool(&j, "coalesced", imu->coalesced);
	hb_json_u64(&j, "imu_bytes", imu->imu_bytes);
	hb_json_u64(&j, "alloc_bytes", imu->alloc_bytes);
	plan_cost_json(&j, p);
	plan_clone_json(&j, p);
	if (o->have_limits) {
		hb_json_u64(&j, "predicted_requests", p->reqs);
		hb_json_u64(&j, "max_sectors_bytes", o->max_bytes);
		hb_json_u64(&j, "max_segments", o->max_segs);
		hb_json_u64(&j, "max_segment_size", o->max_seg);
	}
	if (o->plain)
		plan_plain_json(&j, p);
	if (o->iommu)
		plan_iommu_json(&j, p);
	if (o->bvecs)
		plan_bvecs_json(&j, imu);
	hb_json_end(&j);
	return print_json(&j);
}
