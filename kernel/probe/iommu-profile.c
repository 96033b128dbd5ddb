// SPDX-License-Identifier: GPL-2.0-only
/*
 * iommu-profile: the DMA-mapping work of registered-buffer I/O on an NVMe
 * namespace behind qemu's emulated Intel IOMMU, run inside an IOMMU guest
 * of kernel/ktest.sh (q35, "-device intel-iommu", intel_iommu=on).
 *
 * For READ_FIXED / WRITE_FIXED on the block device and NVMe passthrough
 * (IORING_OP_URING_CMD with IORING_URING_CMD_FIXED on the generic char
 * device), 128 KiB and 8 MiB, from 2 MiB hugetlb pages, THP and 4 KiB
 * pages, it counts per I/O:
 *   - device requests: nvme_setup_cmd() calls (t/helpers.h:
 *     T_NVME_REQ_SYM), and /sys/block/<disk>/stat beside them;
 *   - the calls of the DMA API, dma-iommu, the IOVA allocator, the IOMMU
 *     core and the Intel driver (kprobe events' hit counts,
 *     t_kcount_open(), one window per I/O; a symbol a kernel lacks or
 *     inlined is reported as untraceable);
 *   - the IOMMU page-table entries written, by page size: a kprobe event
 *     on intel_iommu_map_pages() records (pgsize, pgcount) in the trace
 *     buffer, in a pass of its own.  Not the unmaps: they run in the
 *     completion interrupt, where a kprobe hit that nests in another
 *     one's handler is dropped (a "miss"); a window with a miss is not
 *     compared;
 *   - the wall time per I/O seen from user space: the fastest of a pass
 *     with no kprobe armed.
 * Other I/O can only add calls to a window (the guest is idle, its ext4 is
 * on virtio-blk, which does not use the DMA API without
 * VIRTIO_F_ACCESS_PLATFORM), so the figure compared is the minimum over
 * the windows.  The program pins itself to one CPU: the IOVA caches are
 * per CPU, and an I/O completes on the CPU that submitted it.
 *
 * Each count that stands for a figure of lib's model (hb_model_iommu_io(),
 * over the buffer's real PFNs, the namespace's queue limits and the
 * running kernel's model) must be the prediction exactly: one "IOMMUPROF
 * model ... result=ok|FAIL|skip" line per figure.  Every read is compared
 * byte for byte with what the write of the same case left.
 *
 * Usage: iommu-profile -m strict|lazy|direct [-d /dev/nvme0n1] [-g /dev/ng0n1]
 *                      [-n ITER] [-t TRACEFS]
 * Output: "IOMMUPROF key=value ..." lines; exit 0 on success, 1 on a
 * failure, 77 when there is no IOMMU, device or kprobe events.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../t/helpers.h"
#include "base/uring-compat.h"

#define KiB		1024UL
#define MiB		(1024UL * KiB)
#define REGION		(128 * MiB)
#define MAX_IO		(8 * MiB)

#define F_NONE (-1)	/* shown, not compared */

#define G_ANY (-1)	/* the figure in every generation */

/*
 * The functions profiled (6.1, 6.12 and 7.3 names; each kernel lacks
 * some), the figure each one's calls per I/O stand for (F_NONE: shown
 * only) and the generation of lib's model (enum hb_iommu_gen) in which it
 * stands for it (G_ANY: every one; in another it is shown only).
 * iommu_dma_map_page() (7.3: iommu_dma_map_phys()) is what the
 * one-segment ("simple") path of nvme_map_data() reaches through
 * dma_map_bvec(); the PRP and SGL descriptor pages come from
 * dma_pool_alloc(), whose pool was mapped once when it was created.  7.3
 * maps the other requests with dma_iova_try_alloc(), dma_iova_link() per
 * segment (-> iommu_map_nosync(), which iommu_map() calls too) and
 * dma_iova_destroy().
 */
static const struct {
	const char *name;
	int fig;	/* enum hb_iommu_field, or F_NONE */
	int gen;	/* enum hb_iommu_gen, or G_ANY */
} prof[] = {
	{ "nvme_map_data", F_NONE, G_ANY },	/* 6.12 inlines it */
	{ "__blk_rq_map_sg", F_NONE, G_ANY },
	{ "dma_pool_alloc", F_NONE, G_ANY },
	{ "dma_map_sgtable", HB_IOMMU_DMA_MAP_SG, G_ANY },
	{ "dma_map_page_attrs", HB_IOMMU_DMA_MAP_PAGE, G_ANY },
	{ "dma_map_phys", HB_IOMMU_DMA_MAP_PHYS, HB_IOMMU_GEN_IOVA },
	{ "iommu_dma_map_page", HB_IOMMU_MAP_PAGE, G_ANY },
	{ "iommu_dma_map_phys", HB_IOMMU_MAP_PAGE, G_ANY },	/* 7.3 */
	{ "iommu_dma_map_sg", HB_IOMMU_MAP_SG, G_ANY },
	{ "dma_iova_try_alloc", HB_IOMMU_IOVA_TRIES, HB_IOMMU_GEN_IOVA },
	{ "dma_iova_link", HB_IOMMU_IOVA_LINKS, HB_IOMMU_GEN_IOVA },
	{ "dma_iova_destroy", F_NONE, G_ANY },
	{ "dma_unmap_sg_attrs", F_NONE, G_ANY },
	{ "dma_unmap_page_attrs", F_NONE, G_ANY },
	{ "iommu_dma_unmap_page", F_NONE, G_ANY },
	{ "iommu_dma_unmap_sg", F_NONE, G_ANY },
	{ "alloc_iova_fast", HB_IOMMU_IOVA_ALLOCS, G_ANY },
	{ "alloc_iova", HB_IOMMU_IOVA_UNCACHED, G_ANY },
	{ "free_iova_fast", F_NONE, G_ANY },
	{ "free_iova", F_NONE, G_ANY },
	{ "__iommu_map", HB_IOMMU_MAPS, HB_IOMMU_GEN_SG },
	{ "iommu_map_nosync", HB_IOMMU_MAPS, HB_IOMMU_GEN_IOVA },
	{ "__iommu_map_sg", F_NONE, G_ANY },		/* 6.1 */
	{ "iommu_map_sg", F_NONE, G_ANY },		/* 6.12 */
	{ "intel_iommu_map_pages", HB_IOMMU_MAP_PAGES, HB_IOMMU_GEN_SG },
	{ "intel_iommu_iotlb_sync_map", HB_IOMMU_SYNC_MAP, G_ANY },
	{ "__iommu_unmap", HB_IOMMU_UNMAPS, G_ANY },
	{ "intel_iommu_unmap_pages", HB_IOMMU_UNMAP_PAGES,
	  HB_IOMMU_GEN_SG },
	{ "intel_iommu_tlb_sync", HB_IOMMU_IOTLB_SYNCS, G_ANY },
	{ "iommu_flush_iotlb_psi", F_NONE, G_ANY },	/* 6.1 */
	{ "cache_tag_flush_range", F_NONE, G_ANY },	/* 6.12 */
	{ "qi_submit_sync", F_NONE, G_ANY },
	{ "intel_flush_iotlb_all", F_NONE, G_ANY },	/* lazy: flush queue */
	{ "fq_flush_timeout", F_NONE, G_ANY },
	{ "clflush_cache_range", F_NONE, G_ANY },
	{ T_NVME_REQ_SYM, F_NONE, G_ANY },	/* requests: t/helpers.h */
};
#define REQ_SYM (sizeof(prof) / sizeof(prof[0]) - 1)
#define NSYMS (sizeof(prof) / sizeof(prof[0]))

static const char *syms[NSYMS];
static int counted[NSYMS];
static const char *tracefs = "/sys/kernel/tracing";
static const char *dev = "/dev/nvme0n1";
static const char *ngdev = "/dev/ng0n1";
static const char *mode = "";
static int iters = 3;

static int tr_write(const char *file, const char *s, bool append)
{
	return t_trace_write(tracefs, file, s, append);
}

/*
 * The page sizes: a kprobe event on the Intel driver's map_pages (x86-64:
 * its 4th and 5th arguments, pgsize and pgcount).  0 when it is armed.
 */
#define KP_MAP "hb_iommu_map"

static int kprobes_setup(bool on)
{
	tr_write("events/kprobes/" KP_MAP "/enable", "0", false);
	tr_write("kprobe_events", "-:" KP_MAP, true);
	if (!on)
		return 0;
	return tr_write("kprobe_events", "p:" KP_MAP
			" intel_iommu_map_pages pgsize=%cx:u64 pgcount=%r8:u64",
			true);
}

static int kprobes_enable(bool on)
{
	return tr_write("events/kprobes/" KP_MAP "/enable", on ? "1" : "0",
			false);
}

/* kprobe_profile's misses of the map probe (a hit nested in another's) */
static long kprobe_misses(void)
{
	unsigned long hits, misses;

	if (t_kprobe_profile(tracefs, KP_MAP, &hits, &misses))
		return -1;
	return (long)misses;
}

/* PTEs per size: [0] 4 KiB, [1] 2 MiB, [2] 1 GiB, [3] any other */
struct ptes {
	uint64_t map[4];
	unsigned long map_calls;
	bool missed;	/* the probe missed a hit: not compared */
};

static int size_slot(uint64_t pgsize)
{
	switch (pgsize) {
	case 4 * KiB:
		return 0;
	case 2 * MiB:
		return 1;
	case 1024 * MiB:
		return 2;
	default:
		return 3;
	}
}

/* the trace buffer's map lines since it was last cleared */
static int read_ptes(struct ptes *p)
{
	char path[512], line[512];
	unsigned long long sz, cnt;
	const char *s;
	FILE *f;

	memset(p, 0, sizeof(*p));
	snprintf(path, sizeof(path), "%s/trace", tracefs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, KP_MAP ":"))
			continue;
		s = strstr(line, "pgsize=");
		if (!s || sscanf(s, "pgsize=%llu pgcount=%llu", &sz, &cnt) != 2)
			continue;
		p->map[size_slot(sz)] += cnt;
		p->map_calls++;
	}
	fclose(f);
	return 0;
}

/* the device: block fd, passthrough fd, namespace id and block size */
struct nvdev {
	int fd, ngfd;
	const char *disk;
	unsigned int nsid, lba_shift;
	struct hb_queue_limits lim;	/* passthrough: max_hw_sectors_kb */
	struct hb_queue_limits blk;	/* block path: max_sectors_kb instead */
};

/* one passthrough read or write of @len at @off from registered buffer 0 */
static int pt_io(struct io_uring *ring, const struct nvdev *d, bool write,
		 void *buf, size_t len, off_t off)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	hb_prep_nvme_io(sqe, d->ngfd,
			write ? HB_NVME_CMD_WRITE : HB_NVME_CMD_READ, d->nsid,
			buf, len, off, d->lba_shift, true, 0);
	ret = io_uring_submit_and_wait(ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret ? (ret < 0 ? ret : -EIO) : (int)len;
}

/* one I/O of the case: its byte count, or -errno */
static int one_io(struct io_uring *ring, const struct nvdev *d, bool pt,
		  bool write, void *buf, size_t len, off_t off)
{
	if (pt)
		return pt_io(ring, d, write, buf, len, off);
	return t_io(ring, write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED,
		    d->fd, buf, len, off, 0);
}

/* a distinct pattern per backing and size, written at the device offset */
static uint64_t seed_of(int bk, size_t size)
{
	return 0x300 + bk * 16 + (size == MAX_IO);
}

static const char *const backings[] = { "hugetlb:2M", "thp", "4k" };
#define NBK (sizeof(backings) / sizeof(backings[0]))

/*
 * One case's windows: per symbol the sum and the minimum; @misses, the
 * kprobe hits that were counted as missed (each a call).
 */
struct windows {
	unsigned long sum[NSYMS], min[NSYMS];
	long req_min;
	int nwin;
	long misses;
	double wall_usec;
	struct ptes pmin;
};

static void window_add(struct windows *w, const unsigned long *hits,
		       long misses, long req)
{
	size_t i;

	w->misses = misses < 0 || w->misses < 0 ? -1 : w->misses + misses;
	for (i = 0; i < NSYMS; i++) {
		w->sum[i] += hits[i];
		if (!w->nwin || hits[i] < w->min[i])
			w->min[i] = hits[i];
	}
	if (!w->nwin || req < w->req_min)
		w->req_min = req;
	w->nwin++;
}

static void ptes_min(struct ptes *m, const struct ptes *p, int it)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!it || p->map[i] < m->map[i])
			m->map[i] = p->map[i];
	if (!it || p->map_calls < m->map_calls)
		m->map_calls = p->map_calls;
	m->missed |= p->missed;
}

/* the label of a case in every line */
struct label {
	const char *path, *op, *bk;
	size_t size;
};

/* "IOMMUPROF[ model] mode=... size=N", the start of each line */
static void print_label(const char *kind, const struct label *l)
{
	printf("IOMMUPROF%s mode=%s path=%s op=%s backing=%s size=%zu", kind,
	       mode, l->path, l->op, l->bk, l->size);
}

/*
 * lib's model of the case: the buffer's real pages, the kernel's model and
 * the namespace's limits.  With the reason in @why: -EOPNOTSUPP when lib
 * does not model the case (a passthrough copied through bounce pages),
 * -1 when a part is missing.
 */
static int predict(const struct hb_kmodel *km, const struct nvdev *d,
		   const struct hb_buf *hb, const void *buf, size_t size,
		   bool pt, const struct hb_iommu_cfg *cfg,
		   struct hb_iommu_pred *pred, char *why, size_t len)
{
	struct hb_probe p;
	int ret;

	if (!km) {
		snprintf(why, len, "no model of the running kernel");
		return -1;
	}
	if (hb_probe(hb->addr, MAX_IO, NULL, &p)) {
		snprintf(why, len, "no probe: %s", hb_errmsg());
		return -1;
	}
	if (!p.pfn) {
		snprintf(why, len, "no PFNs: %s", p.note);
		hb_probe_free(&p);
		return -1;
	}
	ret = hb_model_iommu_io(km, p.pages, p.pfn, (uintptr_t)hb->addr,
				MAX_IO, (uintptr_t)buf, size, pt,
				pt ? &d->lim : &d->blk, cfg, pred);
	if (ret)
		snprintf(why, len, "model: %s", hb_errmsg());
	hb_probe_free(&p);
	return ret == -EOPNOTSUPP ? ret : (ret ? -1 : 0);
}

/* one compared figure: lib's verdict (hb_iommu_count_matches()) */
static int model_line(const struct label *l, const char *what,
		      const struct hb_iommu_pred *pred,
		      const struct hb_iommu_cfg *cfg, enum hb_iommu_field f,
		      uint64_t counted)
{
	bool ok = hb_iommu_count_matches(pred, cfg, f, counted);
	uint64_t lo, hi;
	char range[48];

	hb_iommu_range(pred, cfg, f, &lo, &hi);
	if (lo == hi)
		snprintf(range, sizeof(range), "%llu", (unsigned long long)lo);
	else
		snprintf(range, sizeof(range), "%llu..%llu",
			 (unsigned long long)lo, (unsigned long long)hi);
	print_label(" model", l);
	printf(" what=%s counted=%llu predicted=%s result=%s\n", what,
	       (unsigned long long)counted, range, ok ? "ok" : "FAIL");
	return !ok;
}

static int compare_model(const struct label *l,
			 const struct hb_iommu_pred *pred,
			 const struct hb_iommu_cfg *cfg,
			 const struct windows *w, bool have_ptes)
{
	int fail = 0;
	size_t i;

	for (i = 0; i < NSYMS; i++)
		if (counted[i] && prof[i].fig != F_NONE &&
		    (prof[i].gen == G_ANY || prof[i].gen == (int)pred->gen))
			fail |= model_line(l, prof[i].name, pred, cfg,
					   prof[i].fig, w->min[i]);
	/*
	 * passthrough requests are not in the disk's statistics; the block
	 * path's are counted where they are made when they can be
	 */
	if (strcmp(l->path, "pt"))
		fail |= model_line(l, "requests", pred, cfg,
				   HB_IOMMU_REQUESTS,
				   counted[REQ_SYM] ? (long)w->min[REQ_SYM] :
				   (w->req_min < 0 ? 0 : w->req_min));
	if (!have_ptes) {
		/* 7.3: the generic page table, no per-size map call */
		print_label(" model", l);
		printf(" what=ptes result=skip reason=no kprobe on intel_iommu_map_pages (pgsize, pgcount)\n");
		return fail;
	}
	if (w->pmin.missed) {
		print_label(" model", l);
		printf(" what=ptes result=skip reason=the map_pages kprobe missed hits\n");
		return fail;
	}
	fail |= model_line(l, "ptes_4k", pred, cfg, HB_IOMMU_PTES_4K,
			   w->pmin.map[0]);
	return fail | model_line(l, "ptes_2m", pred, cfg, HB_IOMMU_PTES_2M,
				 w->pmin.map[1]);
}

/* one I/O in a counter window of its own; its kprobe misses in @misses */
static int profile_one(struct io_uring *ring, const struct nvdev *d, bool pt,
		       bool w, void *buf, size_t size, off_t off,
		       unsigned long *hits, long *misses, long *req)
{
	long before, after;
	int ret;

	before = t_disk_ios(d->disk, w);
	t_kcount_begin();
	ret = one_io(ring, d, pt, w, buf, size, off);
	*misses = t_kcount_end(hits);
	after = t_disk_ios(d->disk, w);
	*req = after - before;
	return ret;
}

/*
 * The wall time of the fastest of ITER I/Os of the case, no kprobe armed
 * (other work on the machine only adds time).
 */
static double time_ios(struct io_uring *ring, const struct nvdev *d, bool pt,
		       bool w, void *buf, size_t size, off_t off)
{
	double t, best = -1;
	int it;

	for (it = 0; it < iters; it++) {
		t = t_now_usec();
		if (one_io(ring, d, pt, w, buf, size, off) != (int)size)
			return -1;
		t = t_now_usec() - t;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* one I/O with the page-size kprobes on, the trace buffer emptied first */
static int ptes_one(struct io_uring *ring, const struct nvdev *d, bool pt,
		    bool w, void *buf, size_t size, off_t off, struct ptes *p)
{
	long m0, m1;
	int ret;

	tr_write("trace", "", false);
	m0 = kprobe_misses();
	kprobes_enable(true);
	ret = one_io(ring, d, pt, w, buf, size, off);
	kprobes_enable(false);
	m1 = kprobe_misses();
	read_ptes(p);
	p->missed = m0 < 0 || m1 != m0;
	return ret;
}

static int have_kprobes;

static void print_case(const struct label *l, const struct windows *win,
		       bool have_ptes, const char *data)
{
	size_t i;

	print_label("", l);
	printf(" ios=%d requests_min=%ld data=%s wall_usec=%.1f misses=%ld\n",
	       win->nwin, win->req_min, data, win->wall_usec, win->misses);
	for (i = 0; i < NSYMS; i++) {
		if (!counted[i])
			continue;
		print_label("", l);
		printf(" sym=%s hits=%lu min=%lu\n", syms[i], win->sum[i],
		       win->min[i]);
	}
	if (!have_ptes)
		return;
	print_label("", l);
	printf(" ptes map_calls=%lu map_4k=%llu map_2m=%llu map_1g=%llu map_other=%llu missed=%d\n",
	       win->pmin.map_calls,
	       (unsigned long long)win->pmin.map[0],
	       (unsigned long long)win->pmin.map[1],
	       (unsigned long long)win->pmin.map[2],
	       (unsigned long long)win->pmin.map[3],
	       win->pmin.missed);
}

/*
 * One (path, op, size) of backing @bk, whose registered 8 MiB buffer is
 * @hb: a warm-up I/O, ITER profiled windows, ITER page-size windows, the
 * data check of reads, and the model.  The I/Os of a case go to the same
 * device offset, so each read reads what the write of its case left.
 */
static int run_case(struct io_uring *ring, const struct nvdev *d,
		    const struct hb_kmodel *km, const struct hb_iommu_cfg *cfg,
		    struct hb_buf *hb, int bk, bool pt, bool w, size_t size,
		    off_t off)
{
	struct label l = { pt ? "pt" : "block", w ? "write" : "read",
			   bk == 1 ? "thp" : (bk ? "4k" : "2M"), size };
	/* the I/O ends where the buffer does (see run_backing()) */
	uint8_t *buf = (uint8_t *)hb->addr + (MAX_IO - size);
	unsigned long hits[NSYMS];
	struct hb_iommu_pred pred;
	struct windows win;
	struct ptes p;
	char why[200];
	int it, ret, fail = 0, have_pred;
	long req, bad, misses;

	memset(&win, 0, sizeof(win));
	have_pred = predict(km, d, hb, buf, size, pt, cfg, &pred, why,
			    sizeof(why));
	if (have_pred == -EOPNOTSUPP) {
		/*
		 * A passthrough the kernel copies through bounce pages (lib's
		 * hb_model_pt_map(): more bvecs than max_segments, or not
		 * aligned): not this program's subject, and which pages the
		 * IOMMU maps is not known.  One counted skip, no I/O.
		 */
		print_label(" model", &l);
		printf(" result=skip reason=%s\n", why);
		return 0;
	}
	if (!have_pred && pred.error) {
		/* the kernel must refuse it as the model says */
		ret = one_io(ring, d, pt, w, buf, size, off);
		print_label("", &l);
		printf(" refused=%d\n", ret);
		print_label(" model", &l);
		printf(" what=refusal counted=%d predicted=%d result=%s\n",
		       ret, pred.error, ret == pred.error ? "ok" : "FAIL");
		return ret != pred.error;
	}
	if (w)
		t_pattern_fill(buf, size, seed_of(bk, size), off);
	/* one I/O outside the profile: TCG translates the path once */
	ret = one_io(ring, d, pt, w, buf, size, off);
	if (ret != (int)size) {
		print_label("", &l);
		printf(" error=io:%d\n", ret);
		return 1;
	}
	win.wall_usec = time_ios(ring, d, pt, w, buf, size, off);
	t_kcount_enable(true);
	for (it = 0; it < iters && !fail; it++) {
		if (!w)
			memset(buf, 0, size);
		ret = profile_one(ring, d, pt, w, buf, size, off, hits,
				  &misses, &req);
		if (ret != (int)size) {
			print_label("", &l);
			printf(" error=io:%d\n", ret);
			fail = 1;
		}
		window_add(&win, hits, misses, req);
	}
	t_kcount_enable(false);
	for (it = 0; it < iters && have_kprobes && !fail; it++) {
		ret = ptes_one(ring, d, pt, w, buf, size, off, &p);
		if (ret != (int)size) {
			print_label("", &l);
			printf(" error=io:%d\n", ret);
			fail = 1;
		}
		ptes_min(&win.pmin, &p, it);
	}
	if (!w && !fail) {
		bad = t_pattern_mismatch(buf, size, seed_of(bk, size), off);
		if (bad >= 0) {
			print_label("", &l);
			printf(" error=data:%ld\n", bad);
			fail = 1;
		}
	}
	print_case(&l, &win, have_kprobes,
		   w ? "written" : (fail ? "BAD" : "verified"));
	if (fail)
		return 1;
	if (have_pred) {
		print_label(" model", &l);
		printf(" result=skip reason=%s\n", why);
		return 0;
	}
	return compare_model(&l, &pred, cfg, &win, have_kprobes);
}

/*
 * Every case of backing @bk: block then passthrough, write then read.  The
 * 8 MiB buffer is registered whole; a 128 KiB I/O takes its last 128 KiB,
 * so that 6.1's passthrough, which counts every bvec from the I/O's first
 * one to the end of the buffer against max_segments (lib/model/ptmap.c), can map
 * it from 4 KiB bvecs too.
 */
static int run_backing(struct io_uring *ring, const struct nvdev *d,
		       const struct hb_kmodel *km,
		       const struct hb_iommu_cfg *cfg, off_t base, int bk)
{
	static const size_t sizes[] = { 128 * KiB, MAX_IO };
	struct iovec iov;
	struct hb_buf hb;
	int pt, w, fail = 0, ret;
	size_t s;

	if (t_alloc_errno(backings[bk], MAX_IO, 0, &hb)) {
		printf("IOMMUPROF mode=%s backing=%s error=alloc\n", mode,
		       backings[bk]);
		return 1;
	}
	iov.iov_base = hb.addr;
	iov.iov_len = MAX_IO;
	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret) {
		printf("IOMMUPROF mode=%s backing=%s error=register:%s\n",
		       mode, backings[bk], strerror(-ret));
		hb_free(&hb);
		return 1;
	}
	if (bk == 1)
		printf("IOMMUPROF mode=%s backing=thp thp=%s\n", mode,
		       t_thp_backed(hb.addr, MAX_IO) ? "yes" : "no");
	for (pt = 0; pt <= 1; pt++)
		for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
			for (w = 1; w >= 0; w--)
				fail |= run_case(ring, d, km, cfg, &hb, bk, pt,
						 w, sizes[s],
						 base + (off_t)bk * MAX_IO);
	io_uring_unregister_buffers(ring);
	hb_free(&hb);
	return fail;
}

/* the namespace: both fds, its id and block size, its queue limits */
static int open_dev(struct nvdev *d)
{
	uint64_t size = 0;
	unsigned int ssz = 0;
	int id;

	d->disk = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	d->fd = open(dev, O_RDWR | O_DIRECT);
	if (d->fd < 0 || ioctl(d->fd, BLKGETSIZE64, &size) ||
	    size < 2 * REGION || ioctl(d->fd, BLKSSZGET, &ssz) || !ssz) {
		printf("IOMMUPROF skip=no usable %s\n", dev);
		return -1;
	}
	d->ngfd = open(ngdev, O_RDWR);
	if (d->ngfd < 0) {
		printf("IOMMUPROF skip=no %s (%s)\n", ngdev, strerror(errno));
		return -1;
	}
	id = ioctl(d->ngfd, NVME_IOCTL_ID);
	if (id <= 0) {
		printf("IOMMUPROF skip=no namespace id from %s\n", ngdev);
		return -1;
	}
	d->nsid = id;
	d->lba_shift = __builtin_ctz(ssz);
	if (hb_blkdev_queue_limits(d->disk, true, &d->lim) ||
	    hb_blkdev_queue_limits(d->disk, false, &d->blk)) {
		printf("IOMMUPROF skip=no queue limits: %s\n", hb_errmsg());
		return -1;
	}
	return 0;
}

/* the IOMMU the namespace sits behind, from sysfs: 0 when there is one */
static int iommu_group_of(const char *disk, char *type, size_t len)
{
	char path[512], grp[256];
	ssize_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/device/device/iommu_group",
		 disk);
	n = readlink(path, grp, sizeof(grp) - 1);
	if (n <= 0)
		return -1;
	grp[n] = 0;
	snprintf(path, sizeof(path), "/sys/kernel/iommu_groups/%s/type",
		 strrchr(grp, '/') ? strrchr(grp, '/') + 1 : grp);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(type, len, f))
		type[0] = 0;
	fclose(f);
	type[strcspn(type, "\n")] = 0;
	return 0;
}

/*
 * The IOMMU group's domain type each mode needs (sysfs
 * iommu_groups/N/type): "DMA" strict, "DMA-FQ" the flush queue (lazy),
 * "identity" no translation (the DMA-direct path); NULL for another mode.
 */
static const char *expected_type(const char *m)
{
	if (!strcmp(m, "strict"))
		return "DMA";
	if (!strcmp(m, "lazy"))
		return "DMA-FQ";
	if (!strcmp(m, "direct"))
		return "identity";
	return NULL;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		printf("IOMMUPROF note=not pinned: %s\n", strerror(errno));
}

int main(int argc, char **argv)
{
	struct hb_kmodel km = { 0 };
	struct hb_iommu_cfg cfg;
	struct io_uring ring;
	struct nvdev d;
	char type[64];
	int opt, fail = 0, bk;
	size_t i;
	off_t base;
	uint64_t size = 0;

	while ((opt = getopt(argc, argv, "d:g:m:n:t:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'g':
			ngdev = optarg;
			break;
		case 'm':
			mode = optarg;
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		case 't':
			tracefs = optarg;
			break;
		default:
			goto usage;
		}
	}
	if (!expected_type(mode))
		goto usage;
	if (iters < 1 || iters > 16)
		iters = 3;
	if (open_dev(&d))
		return 77;
	if (iommu_group_of(d.disk, type, sizeof(type))) {
		printf("IOMMUPROF skip=%s is behind no IOMMU\n", d.disk);
		return 77;
	}
	printf("IOMMUPROF mode=%s group_type=%s max_hw_bytes=%llu max_sectors_bytes=%llu max_segments=%u\n",
	       mode, type, (unsigned long long)d.lim.max_hw_bytes,
	       (unsigned long long)d.blk.max_hw_bytes, d.lim.max_segments);
	if (strcmp(type, expected_type(mode))) {
		printf("IOMMUPROF mode=%s error=the group's domain is %s\n",
		       mode, type);
		return 1;
	}
	hb_iommu_cfg_default(&cfg, !strcmp(mode, "strict"));
	cfg.translated = strcmp(mode, "direct");
	cfg.sgl = t_nvme_sgls(d.fd);
	for (i = 0; i < NSYMS; i++)
		syms[i] = prof[i].name;
	if (t_kcount_open(tracefs, syms, NSYMS, counted, "IOMMUPROF") <= 0)
		return 77;
	have_kprobes = !kprobes_setup(true);
	if (!have_kprobes)
		printf("IOMMUPROF nokprobe=intel_iommu_map_pages\n");
	if (hb_kmodel_running(&km))
		printf("IOMMUPROF model result=skip reason=%s\n", hb_errmsg());
	else
		printf("IOMMUPROF model kernel=%s sgl=%d\n", km.name, cfg.sgl);
	if (io_uring_queue_init(8, &ring, IORING_SETUP_SQE128 |
				IORING_SETUP_CQE32)) {
		printf("IOMMUPROF skip=no io_uring with 128-byte SQEs\n");
		return 77;
	}
	pin_cpu0();
	ioctl(d.fd, BLKGETSIZE64, &size);
	base = (off_t)(size - REGION);
	for (bk = 0; bk < (int)NBK; bk++)
		fail |= run_backing(&ring, &d, km.name[0] ? &km : NULL, &cfg,
				    base, bk);
	t_kcount_close();
	kprobes_setup(false);
	io_uring_queue_exit(&ring);
	printf("IOMMUPROF mode=%s done fail=%d\n", mode, fail);
	return fail;
usage:
	fprintf(stderr, "usage: %s -m strict|lazy|direct [-d DEV] [-g NGDEV] [-n ITER] [-t TRACEFS]\n",
		argv[0]);
	return 2;
}
