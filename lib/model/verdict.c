// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one verdict: did the kernel coalesce a registered buffer, and did it
 * do what the model of the running kernel says?  Everyone who measures a
 * registration asks here -- the behaviour detector (lib/job/kdetect.c),
 * "hugebuf check", the engine's report and the kernel harness (through
 * "hugebuf check --json") -- and no threshold about coalescing lives
 * anywhere else.
 *
 * Two measurements tell coalescing apart, each compared with what the
 * model predicts for the same probed pages under two hypotheses: no
 * coalescing (one bvec per 4 KiB page, < 6.3) and multi-folio coalescing
 * (one bvec per folio, 6.12+ and our 6.1 series):
 *
 *  - Block requests.  A bio_vec never spans two folios' worth of
 *    non-contiguous pages, so the block layer splits an I/O by the bvec
 *    table (bio_split_rw(): max_sectors, max_segments, max_segment_size).
 *    A request count is an exact integer and other I/O on the disk only
 *    adds requests, so the measurement is the minimum over rounds and the
 *    rule is equality: a hypothesis holds when the count is its
 *    prediction exactly.
 *  - Kernel memory.  An imu costs its header plus 16 bytes per bvec
 *    (io_sqe_buffer_register(), kvmalloc()), measured as the change of
 *    SUnreclaim + VmallocUsed over K registrations.  Slab and vmalloc
 *    activity elsewhere moves that figure, so it carries the tolerance
 *    below.
 *
 * Block requests decide when their two predictions differ; else kernel
 * memory, when its two predictions are told apart by the tolerance.
 */
#include <string.h>

#include "model/model.h"

/*
 * The tolerance of a kernel memory figure: a quarter of the prediction
 * (slab rounding of the imus, per-CPU slab caches), and at least
 * HB_KMEM_SLACK_KB for the rest of the system's allocations while it is
 * measured.
 */
static double absd(double x)
{
	return x < 0 ? -x : x;
}

static double kmem_tolerance(double predicted_kb)
{
	double t = absd(predicted_kb) / 4;

	return t > HB_KMEM_SLACK_KB ? t : HB_KMEM_SLACK_KB;
}

bool hb_kmem_near(double measured_kb, double predicted_kb)
{
	return absd(measured_kb - predicted_kb) <= kmem_tolerance(predicted_kb);
}

/*
 * SEND_ZC over loopback TCP (kernel/probe/sendzc-probe.c): SIOCOUTQ's
 * bytes in flight per byte of sk_wmem_queued, summed over the samples
 * with bytes in flight, each case at the send buffer's limit.
 * Frags charged for the pages they span give about 0.9 (the skb heads
 * take the rest), frags charged from the folio's start well below 0.1.
 * The bounds, a quarter and a half of the 4 KiB send's ratio, sit
 * between the two; ratios, not times, so TCG's speed does not move them.
 * The measured ratios per kernel: docs/lib-notes.md.
 */
#define SENDZC_OVER_MAX		0.25
#define SENDZC_FAIR_MIN		0.5

bool hb_sendzc_ratio_matches(bool overcharge, double ratio, double ratio_4k)
{
	if (overcharge)
		return ratio <= ratio_4k * SENDZC_OVER_MAX;
	return ratio >= ratio_4k * SENDZC_FAIR_MIN;
}

/* An exact count is a hypothesis's prediction, or it is not. */
static bool count_is(const struct hb_signal *s, double predicted)
{
	return s->measured == predicted;
}

/* 1 coalesced, 0 not, -1 the block requests cannot tell. */
static int by_requests(const struct hb_signal *s)
{
	if (!s->done || s->none == s->multi)
		return -1;
	if (count_is(s, s->multi))
		return 1;
	if (count_is(s, s->none))
		return 0;
	return -1;
}

/*
 * 1 coalesced, 0 not, -1 unknown: the nearer hypothesis when the
 * measurement lies within its tolerance, and only when the two
 * hypotheses are apart by more than the tolerance themselves.
 */
static int by_kmem(const struct hb_signal *s)
{
	bool near_multi, near_none;

	if (!s->done || hb_kmem_near(s->none, s->multi))
		return -1;
	near_multi = hb_kmem_near(s->measured, s->multi);
	near_none = hb_kmem_near(s->measured, s->none);
	if (near_multi && near_none)
		return absd(s->measured - s->multi) <=
		       absd(s->measured - s->none);
	if (near_multi)
		return 1;
	if (near_none)
		return 0;
	return -1;
}

void hb_coalesce_verdict(const struct hb_coalesce_evidence *e,
			 struct hb_coalesce_verdict *v)
{
	memset(v, 0, sizeof(*v));
	v->coalesced = -1;
	v->decided_by = "";
	v->signals = e->requests.done + e->kmem.done;
	if (!e->can_coalesce) {
		/* one 4 KiB page per folio: nothing to coalesce */
		v->coalesced = 0;
		v->decided_by = "model";
	} else {
		v->coalesced = by_requests(&e->requests);
		if (v->coalesced >= 0) {
			v->decided_by = "block requests";
		} else {
			v->coalesced = by_kmem(&e->kmem);
			if (v->coalesced >= 0)
				v->decided_by = "kernel memory";
		}
	}
	v->matches_model = true;
	if (e->requests.done && !count_is(&e->requests, e->requests.model))
		v->matches_model = false;
	if (e->kmem.done && !hb_kmem_near(e->kmem.measured, e->kmem.model))
		v->matches_model = false;
}

/*
 * A job of N I/Os of one size that the kernel splits into k requests each
 * makes k x N requests; the disk's counters (/sys/block/<dev>/stat, read
 * as the job ends) add whatever else read from the device meanwhile: the
 * file system's metadata, other processes.  k is therefore at most
 * floor(reads / N), and is that figure exactly while the other reads stay
 * under N -- a long job on a busy root disk adds a few dozen to thousands
 * of I/Os (a 20 s run of the main job: 12 reads over 3124 I/Os).  The
 * verdict judges that integer with its exact rule; the report prints the
 * leftover beside it, so a busy disk shows instead of hiding.
 */
unsigned int hb_job_requests_per_io(uint64_t reads, uint64_t ios,
				    uint64_t *other)
{
	uint64_t k = ios ? reads / ios : 0;

	if (k > UINT32_MAX)
		k = UINT32_MAX;
	*other = reads - k * ios;
	return (unsigned int)k;
}

const char *hb_tristate_name(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

/*
 * What can make a registration coalesce where the model of @km says it
 * does not.  The cause decides the advice:
 *  - 4 KiB folios: nothing to merge, whatever the kernel;
 *  - < 6.3 (Debian 12's 6.1): io_sqe_buffer_register() makes one bvec per
 *    pinned page for any memory.  Coalescing came with 6.3 (57bebf807e2a,
 *    one folio) and 6.12 (a8edbb424b13, many folios); our kernel/patches
 *    bring the latter to 6.1.  Plain O_DIRECT (fixedbufs=0) is another way
 *    there: bio_iov_iter_get_pages() merges physically contiguous pages
 *    into one bvec on 6.1 already (page_is_mergeable(),
 *    __bio_try_merge_page() in block/bio.c), at a cost per 4 KiB page;
 *    Before 5.12 (fixed_bio_add_page: c42bca92be92 made the bio use the
 *    imu's bvecs as they are) the block layer builds a fixed I/O's bio
 *    with bio_add_page(), which merges those pages already: the requests
 *    are as if coalesced, and only the registration's memory and work
 *    per 4 KiB page remain, so fixedbufs=0 would gain nothing;
 *  - 6.3 - 6.11: only a buffer inside one folio becomes one bvec;
 *  - 6.12+: the pages themselves do not qualify (mixed folio sizes, a
 *    partial middle folio, pages not consecutive in their folio).
 */
const char *hb_coalesce_advice(const struct hb_kmodel *km,
			       uint64_t folio_size, uint64_t head_offset,
			       uint64_t buffer_len)
{
	if (folio_size <= HB_PAGE_SIZE)
		return "4 KiB pages have nothing to coalesce: use "
		       "backing=hugetlb, memfd or thp";
	if (km->gen == HB_KGEN_NONE && km->fixed_bio_add_page)
		return "this kernel registers one bvec per 4 KiB page, but "
		       "before 5.12 the block layer merges them again as it "
		       "builds each bio (bio_add_page()), so the requests are "
		       "as if coalesced; what is left is the table's kernel "
		       "memory and work per page: boot 6.12 or newer to "
		       "coalesce the registration itself";
	if (km->gen == HB_KGEN_NONE)
		return "this kernel registers one bvec per 4 KiB page "
		       "(coalescing came with 6.3 and 6.12): boot 6.12 or "
		       "newer, or Debian's 6.1 with hugebuf's kernel/patches, "
		       "or run fixedbufs=0 (plain O_DIRECT, merged by the "
		       "block layer page by page)";
	if (km->gen == HB_KGEN_SINGLE && head_offset + buffer_len > folio_size)
		return "6.3 to 6.11 coalesce only a buffer inside one folio: "
		       "keep head_offset + bs within the folio size, boot "
		       "6.12 or newer, or run fixedbufs=0";
	return "the pages do not qualify (mixed folio sizes or a partial "
	       "folio): use backing=hugetlb with head_offset 0";
}

uint64_t hb_plain_figure(const struct hb_plain_pred *p, enum hb_plain_field f)
{
	switch (f) {
	case HB_PLAIN_BIOS:
		return p->bios;
	case HB_PLAIN_BATCHES:
		return p->batches;
	case HB_PLAIN_ADDS:
		return p->adds;
	case HB_PLAIN_MERGE_TESTS:
		return p->merge_tests;
	case HB_PLAIN_BVECS:
		return p->bvecs;
	case HB_PLAIN_UNPINS:
		return (uint64_t)p->releases + p->same_page;
	case HB_PLAIN_REQUESTS:
		return p->requests;
	}
	return 0;
}

/*
 * Plain O_DIRECT counts (kernel/probe/bio-profile): calls and requests
 * are exact integers and other I/O in a window only adds to them, so, as
 * for the request counts above, the minimum over single-I/O windows must
 * equal the model's figure; no tolerance.
 */
bool hb_plain_count_matches(const struct hb_plain_pred *p,
			    enum hb_plain_field f, uint64_t counted)
{
	return counted == hb_plain_figure(p, f);
}

void hb_iommu_range(const struct hb_iommu_pred *p,
		    const struct hb_iommu_cfg *c, enum hb_iommu_field f,
		    uint64_t *lo, uint64_t *hi)
{
	*lo = *hi = hb_iommu_figure(p, c, f);
	if (f == HB_IOMMU_IOVA_UNCACHED)
		*hi = hb_iommu_figure(p, c, HB_IOMMU_IOVA_ALLOCS);
}

bool hb_iommu_count_matches(const struct hb_iommu_pred *p,
			    const struct hb_iommu_cfg *c,
			    enum hb_iommu_field f, uint64_t counted)
{
	uint64_t lo, hi;

	hb_iommu_range(p, c, f, &lo, &hi);
	return counted >= lo && counted <= hi;
}
