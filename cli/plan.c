// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf plan: the imu a kernel builds for a buffer of a backing (pure
 * model over a synthetic page map, nothing is allocated) and, with the
 * queue limits of --dev or --queue-limits, the block requests one
 * READ_FIXED of the whole buffer takes.  --plain adds what one plain
 * O_DIRECT read of the whole buffer (no registered buffer) would do in the
 * block layer (hb_model_plain()): the synthetic map has no PFNs, so its
 * folios are taken as never physically adjacent, and the output says so.
 * --iommu adds the DMA-mapping work of that READ_FIXED on an NVMe
 * namespace behind an Intel IOMMU (hb_model_iommu_io()) over synthetic
 * page frames, the block path or, with --pt, NVMe passthrough.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* A synthetic, 1 GiB aligned user address for plans (any would do). */
#define PLAN_BASE	0x7f0000000000ULL
/* O_DIRECT's alignment of address and length that the plain model takes */
#define PLAIN_ALIGN	512U

/* What the plain output says it assumed about the page frames. */
#define PLAIN_ASSUMPTION	"no PFNs: folios never physically adjacent"

/*
 * What the --iommu output says it assumed about the page frames: the plan
 * has none, so plan_pfns() makes them up this way.
 */
#define IOMMU_ASSUMPTION                                                  \
	"synthetic PFNs: pages of one folio contiguous, folios never "     \
	"physically adjacent, each folio aligned to its size"

/*
 * NVMe on PCIe, for the limits --queue-limits does not give: nvme-pci sets
 * a virt boundary of the controller page (NVME_CTRL_PAGE_SIZE - 1,
 * nvme_set_ctrl_limits() in 6.12, nvme_set_queue_limits() in 6.1), leaves
 * the block layer's default 4 GiB segment boundary and asks for 4-byte
 * aligned buffers (blk_queue_dma_alignment(q, 3)).
 */
#define NVME_VIRT_BOUNDARY	4095ULL
#define NVME_SEG_BOUNDARY	0xffffffffULL
#define NVME_DMA_ALIGN		3U

struct plan {
	struct opts o;
	struct hb_imu imu;
	unsigned int reqs;	/* with o.have_limits */
	/* --plain: under o.km, and under o.km with plain_folio_runs flipped */
	struct hb_plain_pred plain, other;
	/*
	 * --iommu: the namespace's limits as the modelled path sees them,
	 * the IOMMU, and the I/O under o.km and under io_km (o.km with the
	 * other coalescing); io_why: the kernel's reason for a refusal
	 */
	struct hb_pt_limits lim;
	struct hb_iommu_cfg icfg;
	struct hb_kmodel io_km;
	struct hb_iommu_pred io, io_other;
	const char *io_why;
	/* the contrast could not be modelled (e.g. a bounced passthrough) */
	char other_err[256];
};

/*
 * One plain O_DIRECT read of the whole buffer (one iovec) under @km, with
 * the requests when the plan has queue limits.
 */
static int plan_plain_one(const struct opts *o, const struct hb_kmodel *km,
			  const struct hb_page *pages, uint64_t uaddr,
			  struct hb_plain_pred *out)
{
	struct iovec iov = { (void *)(uintptr_t)uaddr, o->size };
	struct hb_queue_limits q = {
		.max_bytes = o->max_bytes,
		.max_segs = o->max_segs,
		.max_seg = o->max_seg,
	};

	return hb_model_plain(km, pages, NULL, uaddr, o->size, &iov, 1,
			      o->have_limits ? &q : NULL, out);
}

/* --plain: the model as asked, and the other way of adding pages */
static int plan_plain(struct plan *p, const struct hb_page *pages,
		      uint64_t uaddr)
{
	struct hb_kmodel flip = p->o.km;

	flip.plain_folio_runs = !flip.plain_folio_runs;
	if (plan_plain_one(&p->o, &p->o.km, pages, uaddr, &p->plain) ||
	    plan_plain_one(&p->o, &flip, pages, uaddr, &p->other))
		return system_error("modelling the plain O_DIRECT read");
	return 0;
}

/*
 * Page frames for the synthetic page map: folio f (counted from the
 * buffer's first) starts at PFN 2 * (f + 1) * its pages, so each folio is
 * aligned to its size, its pages are consecutive (a folio is physically
 * contiguous) and a folio-sized hole keeps it apart from the next: no two
 * folios ever join into one IOMMU mapping run.
 */
static uint64_t *plan_pfns(const struct hb_page *pages, uint64_t nr)
{
	uint64_t *pfn = calloc(nr ? nr : 1, sizeof(*pfn));
	uint64_t j;

	if (!pfn)
		return NULL;
	for (j = 0; j < nr; j++) {
		uint64_t per = 1ULL << pages[j].order;

		pfn[j] = 2 * (pages[j].folio - pages[0].folio + 1) * per +
			 pages[j].idx;
	}
	return pfn;
}

/* The coalescing the contrast takes: none, or one bvec per folio (6.16) */
static void iommu_contrast_km(const struct hb_kmodel *km,
			      struct hb_kmodel *other)
{
	*other = *km;
	/* the verdict's two hypotheses (hb_imu_hypotheses()) */
	hb_kmodel_set_gen(other, km->gen == HB_KGEN_NONE ?
					 HB_KGEN_MULTI_FIXED :
					 HB_KGEN_NONE);
}

static int iommu_model_error(int ret)
{
	if (ret == -ENOMEM)
		return system_error("modelling the IOMMU mapping");
	return usage_error("--iommu: %s", hb_errmsg());
}

/* --iommu: one READ_FIXED of the whole buffer, both coalescings */
static int plan_iommu(struct plan *p, const struct hb_page *pages,
		      uint64_t nr, uint64_t uaddr)
{
	const struct opts *o = &p->o;
	uint64_t *pfn = plan_pfns(pages, nr);
	struct hb_pt_map pm;
	int ret;

	if (!pfn)
		return system_error("allocating the page frames");
	hb_iommu_cfg_default(&p->icfg, o->iommu != IOMMU_LAZY);
	p->icfg.translated = o->iommu != IOMMU_DIRECT;
	iommu_contrast_km(&o->km, &p->io_km);
	ret = hb_model_iommu_io(&o->km, pages, pfn, uaddr, o->size, uaddr,
				o->size, o->pt, &p->lim, &p->icfg, &p->io);
	if (ret) {
		free(pfn);
		return iommu_model_error(ret);
	}
	/*
	 * The other coalescing may take a path the model does not follow
	 * (a passthrough of 4 KiB bvecs over max_segments bounces): the
	 * contrast then says why instead of giving figures.
	 */
	ret = hb_model_iommu_io(&p->io_km, pages, pfn, uaddr, o->size, uaddr,
				o->size, o->pt, &p->lim, &p->icfg,
				&p->io_other);
	free(pfn);
	if (ret == -ENOMEM)
		return iommu_model_error(ret);
	if (ret)
		snprintf(p->other_err, sizeof(p->other_err), "%s",
			 hb_errmsg());
	/* a refused passthrough: the kernel's reason, from the same model */
	if (p->io.error && o->pt &&
	    !hb_model_pt_map(&o->km, &p->imu, uaddr, o->size, &p->lim, &pm))
		p->io_why = pm.why;
	return 0;
}

/* The model over the page map a buffer of the backing would have. */
static int plan_build(struct plan *p)
{
	const struct opts *o = &p->o;
	uint64_t uaddr = PLAN_BASE + o->offset;
	struct hb_page *pages;
	uint64_t nr;
	int ret;

	nr = hb_nr_pages(uaddr, o->size);
	pages = calloc(nr, sizeof(*pages));
	if (!pages)
		return system_error("allocating the page map");
	/* folio ids: the synthetic address / folio size */
	if (hb_layout_synth(o->backing.folio_size, o->offset, o->size,
			    PLAN_BASE / o->backing.folio_size, pages)) {
		free(pages);
		return system_error("building the page map");
	}
	ret = hb_imu_build(&o->km, pages, uaddr, o->size, &p->imu);
	if (ret) {
		free(pages);
		return system_error("modelling the registration");
	}
	if (o->plain && plan_plain(p, pages, uaddr)) {
		free(pages);
		hb_imu_free(&p->imu);
		return EXIT_SYSTEM;
	}
	if (o->iommu) {
		ret = plan_iommu(p, pages, nr, uaddr);
		if (ret) {
			free(pages);
			hb_imu_free(&p->imu);
			return ret;
		}
	}
	free(pages);
	if (o->have_limits)
		p->reqs = hb_predict_requests(&p->imu, o->max_bytes,
					      o->max_segs, o->max_seg);
	return 0;
}

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

static void plan_plain_text(const struct plan *p)
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
static uint64_t fig(const struct plan *p, const struct hb_iommu_pred *x,
		    enum hb_iommu_field f)
{
	return hb_iommu_figure(x, &p->icfg, f);
}

static uint64_t iommu_ptes(const struct hb_iommu_pred *x)
{
	return x->ptes[0] + x->ptes[1] + x->ptes[2];
}

/* strict: IOTLB syncs; lazy: IOVAs queued; both one per unmap */
static unsigned int iommu_flushes(const struct plan *p,
				  const struct hb_iommu_pred *x)
{
	return p->icfg.strict ? x->iotlb_syncs : x->fq_queued;
}

/* The headline figures of the I/O, on one line, for the contrast. */
static void iommu_summary(const struct plan *p, const struct hb_iommu_pred *x,
			  bool units)
{
	if (x->error) {
		printf("refused");
		return;
	}
	printf("%u%s, %llu%s", x->requests, units ? " requests" : "",
	       (unsigned long long)(fig(p, x, HB_IOMMU_DMA_MAP_SG) +
				    fig(p, x, HB_IOMMU_DMA_MAP_PAGE)),
	       units ? " DMA API maps" : "");
	if (!p->icfg.translated)
		return;
	printf(", %llu%s (%llu 4K, %llu 2M), %u%s, %u%s",
	       (unsigned long long)iommu_ptes(x), units ? " PTEs" : "",
	       (unsigned long long)x->ptes[0], (unsigned long long)x->ptes[1],
	       x->map_pages, units ? " map_pages" : "", iommu_flushes(p, x),
	       units ? (p->icfg.strict ? " IOTLB syncs" : " IOVAs queued") :
		       "");
}

/* Whether the contrast's headline figures are the same as the I/O's. */
static bool iommu_same(const struct plan *p, const struct hb_iommu_pred *x,
		       const struct hb_iommu_pred *y)
{
	return !x->error == !y->error && x->requests == y->requests &&
	       x->map_sg == y->map_sg && x->map_page == y->map_page &&
	       x->ptes[0] == y->ptes[0] && x->ptes[1] == y->ptes[1] &&
	       x->map_pages == y->map_pages &&
	       iommu_flushes(p, x) == iommu_flushes(p, y);
}

static void plan_iommu_contrast_text(const struct plan *p)
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

static void plan_iommu_text(const struct plan *p)
{
	const struct opts *o = &p->o;
	const struct hb_iommu_pred *x = &p->io;

	printf("iommu:       %s, one READ_FIXED of the whole buffer, %s path, "
	       "NVMe behind an Intel IOMMU\n", iommu_mode_name(o->iommu),
	       iommu_path_name(o->pt));
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
	printf("  dma api:     %llu map_sg (%u scatterlist entries), "
	       "%llu map_page%s\n",
	       (unsigned long long)fig(p, x, HB_IOMMU_DMA_MAP_SG),
	       x->sg_entries,
	       (unsigned long long)fig(p, x, HB_IOMMU_DMA_MAP_PAGE),
	       p->icfg.translated ? "" : " (dma-direct: no IOVA, no IOMMU "
					 "page table)");
	if (p->icfg.translated) {
		printf("  iova allocs: %u (%u above the IOVA cache, %llu B)\n",
		       x->iova_allocs, x->iova_uncached,
		       (unsigned long long)x->iova_bytes);
		printf("  iommu_map:   %u (__iommu_map calls)\n",
		       x->iommu_maps);
		printf("  map_pages:   %u\n", x->map_pages);
		printf("  ptes:        %llu 4K, %llu 2M\n",
		       (unsigned long long)x->ptes[0],
		       (unsigned long long)x->ptes[1]);
		printf("  unmaps:      %u (%u unmap_pages)\n", x->unmaps,
		       x->unmap_pages);
		if (p->icfg.strict)
			printf("  iotlb syncs: %u (strict: one per unmap)\n",
			       x->iotlb_syncs);
		else
			printf("  iova queued: %u (lazy: flush queue, no sync "
			       "per unmap)\n", x->fq_queued);
	}
	plan_iommu_contrast_text(p);
}

static void plan_text(const struct plan *p)
{
	const struct opts *o = &p->o;
	const struct hb_imu *imu = &p->imu;
	char bs[HB_BACKING_STR_MAX], sz[32];

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

static void plan_plain_json(struct hb_json *j, const struct plan *p)
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
static void iommu_counts_json(struct hb_json *j, const struct plan *p,
			      const struct hb_iommu_pred *x, const char *why)
{
	hb_json_bool(j, "refused", x->error);
	if (x->error) {
		if (why)
			hb_json_str(j, "reason", why);
		return;
	}
	hb_json_u64(j, "requests", x->requests);
	hb_json_u64(j, "map_sg", fig(p, x, HB_IOMMU_DMA_MAP_SG));
	hb_json_u64(j, "map_page", fig(p, x, HB_IOMMU_DMA_MAP_PAGE));
	hb_json_u64(j, "sg_entries", x->sg_entries);
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
	if (p->icfg.strict)
		hb_json_u64(j, "iotlb_syncs", x->iotlb_syncs);
	else
		hb_json_u64(j, "iova_queued", x->fq_queued);
}

static void plan_iommu_json(struct hb_json *j, const struct plan *p)
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

static int plan_json(const struct plan *p)
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

/*
 * --plain models O_DIRECT, whose address and length must be aligned: the
 * nearest aligned value as the fix (the offset down, the size up).
 */
#define PLAIN_WHY	"--plain models O_DIRECT"
/*
 * --iommu models one READ_FIXED of the whole buffer on a block device:
 * its length is whole 512-byte sectors (blkdev_dio_unaligned() refuses
 * others; hb_model_iommu_io() takes no other length).
 */
#define IOMMU_WHY	"--iommu models a READ_FIXED on a block device"

static int offset_check(const struct opts *o, const char *why)
{
	uint64_t a = PLAIN_ALIGN;

	if (o->offset % a)
		return usage_error("--offset=0x%llx: not a multiple of %u, and "
				   "%s, which needs a %u-byte aligned address: "
				   "use --offset=0x%llx",
				   (unsigned long long)o->offset, PLAIN_ALIGN,
				   why, PLAIN_ALIGN,
				   (unsigned long long)(o->offset / a * a));
	return 0;
}

static int size_check(const struct opts *o, const char *why)
{
	uint64_t a = PLAIN_ALIGN;

	if (o->size % a)
		return usage_error("--size=%llu: not a multiple of %u, and "
				   "%s, which needs a %u-byte aligned length: "
				   "use --size=%llu",
				   (unsigned long long)o->size, PLAIN_ALIGN,
				   why, PLAIN_ALIGN,
				   (unsigned long long)((o->size + a - 1) / a *
							a));
	return 0;
}

static int plain_check(const struct opts *o)
{
	int ret = offset_check(o, PLAIN_WHY);

	return ret ? ret : size_check(o, PLAIN_WHY);
}

/*
 * --iommu: the namespace's limits for the path modelled.  --dev: sysfs
 * (hb_nvme_path_limits()).  --queue-limits: its bytes for both, and
 * NVMe's boundaries and alignment.
 */
static int iommu_limits(struct plan *p)
{
	const struct opts *o = &p->o;
	struct hb_pt_limits *l = &p->lim;

	if (!o->have_limits)
		return usage_error("--iommu needs the namespace's queue limits:"
				   " add --dev=nvmeXnY or --queue-limits="
				   "BYTES,SEGS,SEGSIZE (e.g. 4M,127,4G)");
	if (o->dev) {
		if (strncmp(o->dev, "nvme", 4))
			return usage_error("--dev=%s: --iommu models an NVMe "
					   "namespace: use --dev=nvmeXnY, or "
					   "--queue-limits=BYTES,SEGS,SEGSIZE",
					   o->dev);
		if (hb_nvme_path_limits(o->dev, o->pt, l))
			return usage_error("--dev=%s: %s", o->dev,
					   hb_errmsg());
		return 0;
	}
	l->max_hw_bytes = o->max_bytes;
	l->max_segments = o->max_segs;
	l->max_segment_size = o->max_seg;
	l->virt_boundary_mask = NVME_VIRT_BOUNDARY;
	l->seg_boundary_mask = NVME_SEG_BOUNDARY;
	l->dma_align_mask = NVME_DMA_ALIGN;
	return 0;
}

/* --iommu and --pt: what they need before anything is modelled */
static int iommu_check(struct plan *p)
{
	int ret;

	if (p->o.pt && !p->o.iommu)
		return usage_error("--pt models NVMe passthrough under an "
				   "IOMMU: add --iommu, or leave out --pt");
	if (!p->o.iommu)
		return 0;
	ret = size_check(&p->o, IOMMU_WHY);
	return ret ? ret : iommu_limits(p);
}

int cmd_plan(int argc, char **argv)
{
	struct plan p = { 0 };
	int ret;

	ret = parse_opts("plan", argc, argv, &p.o);
	if (ret)
		return ret;
	if (!p.o.have_backing)
		return usage_error("plan needs --backing: e.g. "
				   "--backing=hugetlb:2M");
	if (!p.o.have_size)
		return usage_error("plan needs --size: e.g. --size=512M");
	if (p.o.plain) {
		ret = plain_check(&p.o);
		if (ret)
			return ret;
	}
	ret = iommu_check(&p);
	if (ret)
		return ret;
	if (!p.o.have_kernel && hb_kmodel_running(&p.o.km))
		return usage_error("%s", hb_errmsg());
	ret = plan_build(&p);
	if (ret)
		return ret;
	if (p.o.json) {
		ret = plan_json(&p);
	} else {
		plan_text(&p);
		ret = EXIT_MATCH;
	}
	hb_imu_free(&p.imu);
	return ret;
}
