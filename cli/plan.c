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
 * This file checks the options and runs the models; cli/plan-output.c
 * prints the result.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plan.h"

/* A synthetic, 1 GiB aligned user address for plans (any would do). */
#define PLAN_BASE	0x7f0000000000ULL
/* O_DIRECT's alignment of address and length that the plain model takes */
#define PLAIN_ALIGN	512U

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
		.max_hw_bytes = o->max_bytes,
		.max_segments = o->max_segs,
		.max_segment_size = o->max_seg,
	};

	return hb_model_plain(km, pages, NULL, uaddr, o->size, &iov, 1,
			      o->have_limits ? &q : NULL, out);
}

/* --plain: the model as asked, and the other way of adding pages */
static int plan_plain(struct pred *p, const struct hb_page *pages,
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
static int plan_iommu(struct pred *p, const struct hb_page *pages,
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

/*
 * What registering the plan's buffers costs: o->nr_bufs of o->size back
 * to back from @uaddr (the page map @pages covers them all), in one call
 * or one by one.
 */
static int plan_cost(struct pred *p, const struct hb_page *pages,
		     uint64_t uaddr)
{
	const struct opts *o = &p->o;
	unsigned int i, n = o->nr_bufs ? o->nr_bufs : 1;
	struct hb_reg_buf *bufs = calloc(n, sizeof(*bufs));
	int ret;

	if (!bufs)
		return system_error("allocating the buffer list");
	for (i = 0; i < n; i++) {
		uint64_t at = uaddr + (uint64_t)i * o->size;

		bufs[i].pages = pages + (at / HB_PAGE_SIZE - uaddr / HB_PAGE_SIZE);
		bufs[i].uaddr = at;
		bufs[i].len = o->size;
	}
	ret = hb_model_register_cost(&o->km, bufs, n,
				     o->one_by_one ? HB_REG_ONE_BY_ONE :
						     HB_REG_ONE_CALL,
				     &p->cost);
	free(bufs);
	return ret ? system_error("modelling the registration's cost") : 0;
}

/* The model over the page map a buffer of the backing would have. */
static int plan_build(struct pred *p)
{
	const struct opts *o = &p->o;
	uint64_t uaddr = PLAN_BASE + o->offset;
	uint64_t total = o->size * (o->nr_bufs ? o->nr_bufs : 1);
	struct hb_page *pages;
	uint64_t nr;
	int ret;

	nr = hb_nr_pages(uaddr, o->size);
	pages = calloc(hb_nr_pages(uaddr, total), sizeof(*pages));
	if (!pages)
		return system_error("allocating the page map");
	/* folio ids: the synthetic address / folio size */
	if (hb_layout_synth(o->backing.folio_size, o->offset, total,
			    PLAN_BASE / o->backing.folio_size, pages)) {
		free(pages);
		return system_error("building the page map");
	}
	ret = hb_imu_build(&o->km, pages, uaddr, o->size, &p->imu);
	if (ret) {
		free(pages);
		return system_error("modelling the registration");
	}
	ret = plan_cost(p, pages, uaddr);
	if (ret) {
		free(pages);
		hb_imu_free(&p->imu);
		return ret;
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
 * (hb_blkdev_queue_limits()).  --queue-limits: its bytes for both, and
 * NVMe's boundaries and alignment.
 */
static int iommu_limits(struct pred *p)
{
	const struct opts *o = &p->o;
	struct hb_queue_limits *l = &p->lim;

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
		if (hb_blkdev_queue_limits(o->dev, o->pt, l))
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
static int iommu_check(struct pred *p)
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
	struct pred p = { 0 };
	int ret;

	ret = parse_opts("plan", argc, argv, &p.o);
	if (ret)
		return ret;
	if (!p.o.have_backing)
		return usage_error("plan needs --backing: e.g. "
				   "--backing=hugetlb:2M");
	if (!p.o.have_size)
		return usage_error("plan needs --size: e.g. --size=512M");
	if (p.o.nr_bufs && p.o.size * p.o.nr_bufs > PLAN_MAX_TOTAL)
		return usage_error("--buffers=%u of --size=%llu: more than "
				   "16G in all: use fewer or smaller buffers",
				   p.o.nr_bufs, (unsigned long long)p.o.size);
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
	ret = check_size_limit(&p.o, &p.o.km, PLAN_BASE + p.o.offset);
	if (ret)
		return ret;
	if (p.o.size > PLAN_MAX_TOTAL)
		return usage_error("--size=%llu: plan models at most 16G (its "
				   "page map): use --size=16G or less",
				   (unsigned long long)p.o.size);
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
