// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf plan: the imu a kernel builds for a buffer of a backing (pure
 * model over a synthetic page map, nothing is allocated) and, with the
 * queue limits of --dev or --queue-limits, the block requests one
 * READ_FIXED of the whole buffer takes.  --plain adds what one plain
 * O_DIRECT read of the whole buffer (no registered buffer) would do in the
 * block layer (hb_model_plain()): the synthetic map has no PFNs, so its
 * folios are taken as never physically adjacent, and the output says so.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

/* A synthetic, 1 GiB aligned user address for plans (any would do). */
#define PLAN_BASE	0x7f0000000000ULL
/* O_DIRECT's alignment of address and length that the plain model takes */
#define PLAIN_ALIGN	512U

/* What the plain output says it assumed about the page frames. */
#define PLAIN_ASSUMPTION	"no PFNs: folios never physically adjacent"

struct plan {
	struct opts o;
	struct hb_imu imu;
	unsigned int reqs;	/* with o.have_limits */
	/* --plain: under o.km, and under o.km with plain_folio_runs flipped */
	struct hb_plain_pred plain, other;
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
	if (o->bvecs)
		plan_bvecs_json(&j, imu);
	hb_json_end(&j);
	return print_json(&j);
}

/*
 * --plain models O_DIRECT, whose address and length must be aligned: the
 * nearest aligned value as the fix (the offset down, the size up).
 */
static int plain_check(const struct opts *o)
{
	uint64_t a = PLAIN_ALIGN;

	if (o->offset % a)
		return usage_error("--offset=0x%llx: not a multiple of %u, and "
				   "--plain models O_DIRECT, which needs a "
				   "%u-byte aligned address: use "
				   "--offset=0x%llx",
				   (unsigned long long)o->offset, PLAIN_ALIGN,
				   PLAIN_ALIGN,
				   (unsigned long long)(o->offset / a * a));
	if (o->size % a)
		return usage_error("--size=%llu: not a multiple of %u, and "
				   "--plain models O_DIRECT, which needs a "
				   "%u-byte aligned length: use --size=%llu",
				   (unsigned long long)o->size, PLAIN_ALIGN,
				   PLAIN_ALIGN,
				   (unsigned long long)((o->size + a - 1) / a *
							a));
	return 0;
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
