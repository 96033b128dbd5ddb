/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf: hugepage-backed io_uring fixed buffers.
 *
 * The library's public API: allocating a buffer (hb_alloc()), probing its
 * folios (hb_probe()), the kernel model and its tables (hugebuf-model.h,
 * included here, and the IOMMU model), the running kernel's model
 * (hb_kmodel_running()), analysis of a set of buffers (hb_analyze()), the
 * report and the advice.  libhugebuf.so exports exactly the functions of
 * these two headers (lib/libhugebuf.map; t/lib-layers.sh checks it).
 * Each layer of lib/ (base, sysread, model, resource, job: one folder
 * each) has a private header of its own, not installed.
 *
 * Everything returns 0 (or a count) on success and -errno on failure; a
 * failing call also leaves a one-line, actionable message in hb_errmsg()
 * (cause and fix).
 */
#ifndef HUGEBUF_H
#define HUGEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "hugebuf-model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* the running kernel                                                 */
/* ------------------------------------------------------------------ */

/*
 * What the running kernel is (lib/job/kdetect.c): the model its version gives
 * (the distribution's upstream version from /proc/version where it puts
 * one; a "-hugebuf" release is our series), the model its behaviour gives
 * (experiments of a few ms: where a READ_FIXED lands in an mremap'd THP,
 * kernel memory of coalesced registrations, VmPin of one batch and of a
 * cleared slot, on a ring made without CAP_IPC_LOCK), and the
 * one to use: HUGEBUF_KERNEL when set, else the behaviour when it ran,
 * else the version.
 */
struct hb_kdetect {
	char release[65];		/* uname -r */
	char upstream[32];		/* e.g. "6.1.119" (Debian's /proc/version) */
	struct hb_kmodel version_km;	/* from the version alone */
	bool behaviour_ok;		/* at least one experiment ran */
	struct hb_kmodel behaviour_km;	/* version model + what was seen */
	/* observations: 1 yes, 0 no, -1 not measured */
	int first_bvec_vaddr;		/* bvec[0] offset from the vaddr */
	int coalesce_single;		/* buffer inside one hugepage: 1 bvec */
	int coalesce_multi;		/* two hugepages: one bvec each */
	int batch_dedup;		/* a hugepage charged once per batch */
	/* a slot cleared while another still pins its hugepage: charged */
	int hole_closed;
	/* VmPin not charged to a ring created with CAP_IPC_LOCK */
	int vmpin_needs_user;
	bool agreed;			/* version and behaviour give one model */
	struct hb_kmodel chosen;	/* what hb_kmodel_running() returns */
	const char *source;		/* "HUGEBUF_KERNEL", "behaviour", "version" */
	/* "version 6.12.117 says 6.12.117, behaviour says 6.12.117" */
	char summary[160];
	/* one line when they disagree, else "" */
	char warning[200];
	char note[200];			/* experiments skipped or degraded, why */
	unsigned int usec;		/* time the detection took */
};

/* Detect now (runs the experiments every call). */
int hb_kmodel_detect(struct hb_kdetect *out);
/* The process's detection, run once on first use; NULL when it failed. */
const struct hb_kdetect *hb_kdetect_cached(void);
/* The running kernel's model: HUGEBUF_KERNEL, else hb_kdetect_cached(). */
int hb_kmodel_running(struct hb_kmodel *km);

/* ------------------------------------------------------------------ */
/* allocation                                                           */
/* ------------------------------------------------------------------ */

enum hb_backing_kind {
	HB_BACKING_4K = 0,	/* MADV_NOHUGEPAGE, the baseline */
	HB_BACKING_THP,		/* PMD THP: MADV_HUGEPAGE (+MADV_COLLAPSE) */
	HB_BACKING_MTHP,	/* a multi-size THP of folio_size */
	HB_BACKING_HUGETLB,	/* MAP_HUGETLB | MAP_HUGE_<size> */
	HB_BACKING_MEMFD,	/* memfd_create(MFD_HUGETLB), MAP_SHARED */
	HB_BACKING_LIBHUGETLBFS,/* get_huge_pages(), when built with it */
	HB_BACKING_SHM,		/* SysV shmget/shmat; SHM_HUGETLB above 4K */
	HB_BACKING_HUGETLBFS,	/* a file on a hugetlbfs mount, MAP_SHARED */
};

/* longest hugetlbfs:PATH path kept in a backing */
#define HB_BACKING_PATH_MAX	256

struct hb_backing {
	enum hb_backing_kind kind;
	uint64_t folio_size;	/* expected folio size in bytes */
	/* hugetlbfs: the file, or a directory to create one in */
	char path[HB_BACKING_PATH_MAX];
};

/*
 * "4k, thp, mthp:64K, ... or libhugetlbfs": every spelling
 * hb_backing_parse() takes, for usage lines and messages.
 */
const char *hb_backing_spellings(void);
/*
 * Parse "4k", "thp", "mthp:64K", "hugetlb[:2M|:1G]", "memfd[:2M|:1G]",
 * "libhugetlbfs", "shm[:2M|:1G]", "hugetlbfs:PATH".  Sizes default to 2M
 * (hugetlb, memfd), the PMD size (thp) and 4K (shm: plain shared memory;
 * a larger size is SHM_HUGETLB).  hugetlbfs takes the page size of the
 * mount PATH is on; PATH must be on hugetlbfs (statfs magic), checked here.
 */
int hb_backing_parse(const char *s, struct hb_backing *b);
/* Backed by the hugetlb pool (hugetlb, memfd, libhugetlbfs, shm:SIZE, hugetlbfs). */
bool hb_backing_is_hugetlb(const struct hb_backing *b);
/* "hugetlb:2M" etc. into buf (HB_BACKING_STR_MAX holds any); returns buf. */
#define HB_BACKING_STR_MAX	(HB_BACKING_PATH_MAX + 16)
char *hb_backing_str(const struct hb_backing *b, char *buf, size_t len);
/*
 * Where a buffer of this backing is placed: its mapping starts on this
 * boundary and head_offset must be below it.  The folio size, except for
 * the 4k baseline, which is placed on 2 MiB so that it sits exactly where
 * a hugetlb:2M buffer with the same head_offset would.
 */
uint64_t hb_backing_align(const struct hb_backing *b);

struct hb_buf {
	struct hb_backing backing;
	void *map;		/* the whole mapping (folio aligned) */
	size_t map_len;
	void *addr;		/* map + head_offset: the I/O buffer */
	size_t len;
	size_t head_offset;
	int memfd;		/* -1 unless memfd or hugetlbfs backing */
	int shmid;		/* -1 unless shm backing (removed at attach) */
	/* hugetlbfs: the file mapped, and whether hb_free() unlinks it */
	char file[HB_BACKING_PATH_MAX + 32];
	bool unlink_file;
	/* THP/mTHP: the probe saw folios of the size asked for */
	bool huge_verified;
};

/*
 * Allocate @len bytes starting @head_offset bytes into the first folio,
 * fault every page in, and (THP/mTHP) check the folios are large.  Errors
 * name what is missing and how to get it.
 */
int hb_alloc(const struct hb_backing *b, size_t len, size_t head_offset,
	     struct hb_buf *buf);
void hb_free(struct hb_buf *buf);
/*
 * hb_free() for a buffer whose bytes [@off, @off + @len) of the mapping
 * were moved away by mremap(): the hole may hold someone else's mapping by
 * now (malloc's, a sanitizer's), so only what is left is unmapped.  The
 * moved part is the caller's to unmap.
 */
void hb_free_moved(struct hb_buf *buf, uint64_t off, uint64_t len);

/* ------------------------------------------------------------------ */
/* probe: the real folio layout of a buffer                             */
/* ------------------------------------------------------------------ */

enum hb_probe_source {
	HB_PROBE_KPAGEFLAGS = 0, /* exact: pagemap PFNs + /proc/kpageflags */
	HB_PROBE_RECIPE,	 /* degraded: smaps + allocation recipe */
};

struct hb_probe {
	enum hb_probe_source source;
	uint64_t addr, len;
	unsigned int nr_pages;
	struct hb_page *pages;	/* malloc'd, nr_pages entries */
	uint64_t *pfn;		/* malloc'd; NULL when degraded */
	uint64_t min_folio, max_folio;	/* folio sizes seen, bytes */
	unsigned int nr_folios;	/* distinct folios (runs) seen */
	char note[160];		/* why degraded, or what was seen */
};

/*
 * Probe [addr, addr+len).  Pages must be faulted in.  @recipe (may be NULL)
 * is used for the degraded answer when PFNs are not readable.
 */
int hb_probe(const void *addr, uint64_t len, const struct hb_backing *recipe,
	     struct hb_probe *p);
void hb_probe_free(struct hb_probe *p);

/* ------------------------------------------------------------------ */
/* IOMMU mapping (pure)                                                 */
/* ------------------------------------------------------------------ */

/*
 * The DMA-mapping work one registered-buffer I/O makes an NVMe PCIe
 * controller behind an Intel IOMMU do, with dma-iommu as the DMA API
 * (6.1, 6.12 and 7.3; lib/model/iommu.c names each kernel function modelled and
 * docs/kernel-rules.md "Under an IOMMU" what each figure means).
 */

/*
 * How nvme-pci maps a request of more than one segment, by kernel
 * (hb_iommu_gen_of(), the one place that decides it):
 */
enum hb_iommu_gen {
	/*
	 * blk_rq_map_sg() into a scatterlist, dma_map_sgtable() ->
	 * iommu_dma_map_sg(): one IOVA, physically continuing entries
	 * joined into one __iommu_map() (6.1 to 6.16)
	 */
	HB_IOMMU_GEN_SG,
	/*
	 * blk_rq_dma_map_iter_start()/_next(): dma_iova_try_alloc() of one
	 * IOVA range for the request, one dma_iova_link() per segment, one
	 * dma_iova_sync(); the unmap dma_iova_destroy() syncs the IOTLB even
	 * in lazy mode.  A request whose segments leave gaps inside an IOMMU
	 * granule, or dma-direct, maps each segment with dma_map_phys()
	 * (6.17 and later; read in 7.3)
	 */
	HB_IOMMU_GEN_IOVA,
};
enum hb_iommu_gen hb_iommu_gen_of(const struct hb_kmodel *km);
/* "sg" or "iova" */
const char *hb_iommu_gen_name(enum hb_iommu_gen g);

struct hb_iommu_cfg {
	/*
	 * false: no translation (no IOMMU, or an "identity" domain): the DMA
	 * API maps directly (dma_direct_map_sg/page) and every IOMMU figure
	 * is 0; the requests and the DMA API calls are as translated
	 */
	bool translated;
	/* iommu.strict=1: IOTLB invalidated per unmap; 0: flush queue */
	bool strict;
	/* the domain's page sizes: intel-iommu 4K, | 2M | 1G superpages */
	uint64_t pgsize_bitmap;
	/* IOVA_RANGE_CACHE_MAX_SIZE (drivers/iommu/iova.c): 6 (6.1 to 7.3) */
	unsigned int rcache_max_order;
	/* the controller has SGLs (Identify SGLS != 0), sgl_threshold != 0 */
	bool sgl;
};
/*
 * Translated, 4K|2M, rcache order 6, SGLs (QEMU's NVMe has them), @strict
 * as given.
 */
void hb_iommu_cfg_default(struct hb_iommu_cfg *c, bool strict);

/*
 * What one I/O makes the kernel do; every count is a total over the I/O's
 * requests, their maps and their unmaps (one of each per request).
 */
struct hb_iommu_pred {
	/* 0, or -EINVAL: the kernel refuses the I/O (passthrough > max_hw) */
	int error;
	/* the generation modelled (hb_iommu_gen_of() of the kernel) */
	enum hb_iommu_gen gen;
	/* device requests */
	unsigned int requests;
	/*
	 * requests mapped by dma_map_page_attrs() -> iommu_dma_map_page()
	 * (nvme_setup_prp_simple() or nvme_setup_sgl_simple())
	 */
	unsigned int map_page;
	/* requests mapped by dma_map_sgtable() -> iommu_dma_map_sg() */
	unsigned int map_sg;
	/* scatterlist entries blk_rq_map_sg() built for the map_sg requests */
	unsigned int sg_entries;
	/* alloc_iova_fast() calls: one per map (the 32-bit try finds room) */
	unsigned int iova_allocs;
	/*
	 * of those, sizes the IOVA rcache never holds (order_base_2(pages)
	 * >= rcache_max_order): alloc_iova()'s rbtree every time
	 */
	unsigned int iova_uncached;
	/*
	 * IOVA space allocated, in bytes: the pages asked for, after
	 * alloc_iova_fast()'s power-of-two round-up of the sizes below
	 * 1 << (rcache_max_order - 1) pages
	 */
	uint64_t iova_bytes;
	/*
	 * __iommu_map() calls: one per map_page, one per run of
	 * scatterlist entries whose page-aligned physical ranges continue
	 * each other in a map_sg
	 */
	unsigned int iommu_maps;
	/*
	 * ops->map_pages calls (intel_iommu_map_pages()); 0 in
	 * HB_IOMMU_GEN_IOVA, whose intel-iommu (7.3) writes through the
	 * generic page table, one pt->ops->map_range() per map
	 */
	unsigned int map_pages;
	/*
	 * leaf PTEs written: the pgcount of those calls summed by pgsize,
	 * [0] 4 KiB, [1] 2 MiB, [2] 1 GiB
	 */
	uint64_t ptes[3];
	/* ops->iotlb_sync_map calls: one per map (map_page or map_sg) */
	unsigned int sync_map;
	/* __iommu_unmap() calls: one per unmap, over its whole IOVA range */
	unsigned int unmaps;
	/* ops->unmap_pages calls (intel_iommu_unmap_pages()); 0 as map_pages */
	unsigned int unmap_pages;
	/*
	 * iommu_iotlb_sync() (intel_iommu_tlb_sync()): strict 1 per unmap;
	 * lazy 1 per dma_iova_destroy() (HB_IOMMU_GEN_IOVA), else 0
	 */
	unsigned int iotlb_syncs;
	/*
	 * lazy: queue_iova() calls (flush queue), one per unmap of
	 * __iommu_dma_unmap() (HB_IOMMU_GEN_IOVA: the map_page requests and
	 * the segments mapped one by one)
	 */
	unsigned int fq_queued;
	/*
	 * HB_IOMMU_GEN_IOVA only.  dma_iova_try_alloc() calls: one per
	 * request of more than one segment whose gaps the IOMMU granule
	 * allows (dma-direct: every such request; it returns false there)
	 */
	unsigned int iova_tries;
	/* dma_iova_link() calls: one per segment of an IOVA-mapped request */
	unsigned int iova_links;
	/* the segments blk_rq_dma_map_iter_*() gave those requests */
	unsigned int dma_vecs;
	/*
	 * dma_map_phys() calls: one per map_page request (through
	 * dma_map_page_attrs()), one per segment mapped on its own
	 */
	unsigned int map_phys;
};

/*
 * Pure.  One I/O of @len bytes at user address @addr inside the buffer
 * [@base, @base + @span) whose 4 KiB pages are @pages
 * (hb_nr_pages(@base, @span) entries, as hb_probe() gives) with PFNs @pfn
 * (pages of one folio must have consecutive PFNs), registered under @km
 * (hb_model_register() over the whole buffer, then hb_model_import() cuts
 * the I/O's bvecs, as io_import_fixed() does).  @pt: NVMe passthrough
 * (hb_model_pt_map(): one request, never split; a refusal is
 * @out->error = -EINVAL); else the block path (one bio carrying the I/O's
 * bvecs, split by hb_split_bio_reqs() with max_bytes = @lim->max_hw_bytes,
 * NVMe's max_sectors).  @lim: the namespace's limits
 * (hb_pt_queue_limits()).  Returns 0 with @out filled in, or -errno when it
 * cannot model the I/O: -EINVAL bad arguments (@len not a multiple of 512,
 * outside the buffer), -EOPNOTSUPP for what is not modelled (a passthrough
 * that bounces through copied pages; before 5.12, km->fixed_bio_add_page),
 * -ENOMEM.
 */
int hb_model_iommu_io(const struct hb_kmodel *km, const struct hb_page *pages,
		      const uint64_t *pfn, uint64_t base, uint64_t span,
		      uint64_t addr, uint64_t len, bool pt,
		      const struct hb_queue_limits *lim,
		      const struct hb_iommu_cfg *cfg,
		      struct hb_iommu_pred *out);

/*
 * The figures a counted kernel function stands for (kernel/probe/
 * iommu-profile.c): the DMA API's entry points count in every mode, the
 * dma-iommu ones only under translation (0 otherwise).
 */
enum hb_iommu_field {
	HB_IOMMU_REQUESTS,
	HB_IOMMU_DMA_MAP_PAGE,	/* dma_map_page_attrs() */
	HB_IOMMU_DMA_MAP_SG,	/* dma_map_sgtable() */
	HB_IOMMU_MAP_PAGE,	/* iommu_dma_map_page(); 7.x: _map_phys() */
	HB_IOMMU_MAP_SG,	/* iommu_dma_map_sg() */
	HB_IOMMU_IOVA_ALLOCS,
	HB_IOMMU_IOVA_UNCACHED,
	HB_IOMMU_MAPS,		/* __iommu_map(); 7.x iommu_map_nosync() */
	HB_IOMMU_MAP_PAGES,
	HB_IOMMU_PTES_4K,
	HB_IOMMU_PTES_2M,
	HB_IOMMU_SYNC_MAP,
	HB_IOMMU_UNMAPS,
	HB_IOMMU_UNMAP_PAGES,
	HB_IOMMU_IOTLB_SYNCS,
	HB_IOMMU_IOVA_TRIES,	/* dma_iova_try_alloc() */
	HB_IOMMU_IOVA_LINKS,	/* dma_iova_link() */
	HB_IOMMU_DMA_MAP_PHYS,	/* dma_map_phys() */
};
uint64_t hb_iommu_figure(const struct hb_iommu_pred *p,
			 const struct hb_iommu_cfg *c, enum hb_iommu_field f);
/*
 * The range a counted figure may take: one value, except the IOVA
 * allocations that reach the rbtree (alloc_iova()).  Those are exactly
 * the uncached sizes, plus the cached allocations the per-CPU caches
 * could not serve: a cache refills only from frees, and 6.8+ also trims
 * its depot from a delayed work item (iova_depot_work_func()), so how
 * many miss depends on timing, never more than all cached allocations.
 */
void hb_iommu_range(const struct hb_iommu_pred *p,
		    const struct hb_iommu_cfg *c, enum hb_iommu_field f,
		    uint64_t *lo, uint64_t *hi);
/*
 * The verdict on one counted figure: @counted is the minimum over windows
 * of one I/O each (other work only adds), so it must be within
 * hb_iommu_range(), which is one value for every figure but one
 * (lib/model/verdict.c).
 */
bool hb_iommu_count_matches(const struct hb_iommu_pred *p,
			    const struct hb_iommu_cfg *c,
			    enum hb_iommu_field f, uint64_t counted);

/* ------------------------------------------------------------------ */
/* analysis: probe + model + statistics over a set of buffers          */
/* ------------------------------------------------------------------ */

/* NUMA nodes reported and checked (bits of a uint64_t mask) */
#define HB_MAX_NODES	64

struct hb_bufstats {
	unsigned int nr_bufs;
	unsigned int min_folios, max_folios;	/* folios per buffer */
	unsigned int min_bvecs, max_bvecs;	/* bvecs per buffer */
	unsigned int min_io_segs, max_io_segs;	/* bvecs per modelled I/O */
	unsigned int not_coalesced;	/* buffers with more bvecs than folios */
	bool all_coalesced;		/* every imu->coalesced */
	uint64_t min_folio, max_folio;	/* folio sizes the probe saw */
	uint64_t imu_bytes, imu_bytes_4k; /* kernel imu bytes, and uncoalesced */
	uint64_t charged_bytes;		/* modelled RLIMIT_MEMLOCK charge */
	/* what registering them in one call costs (hb_model_register_cost) */
	struct hb_reg_cost reg_cost;
	unsigned int nr_nodes;		/* NUMA nodes the folios are on */
	uint32_t node_folios[HB_MAX_NODES];	/* folios per node */
	enum hb_probe_source source;
	char note[160];
};

struct hb_analysis {
	struct hb_kmodel km;
	unsigned int nr;
	/* with HB_ANALYZE_KEEP: per buffer probe and imu (own bvec array) */
	struct hb_probe *probe;
	struct hb_imu *imu;
	struct hb_bufstats st;
};

#define HB_ANALYZE_KEEP		(1U << 0)	/* keep probes and imus */

/*
 * Probe each of @nr buffers, model their registration under @km (in one
 * batch, for the accounting) and, when @io_len is non-zero, the import of
 * an @io_len I/O every @io_stride bytes of each buffer.  @recipe is the
 * allocation recipe for the degraded probe (may be NULL).  Owns every
 * allocation: hb_analysis_free() releases them.
 */
int hb_analyze(const struct hb_kmodel *km, const struct iovec *iov,
	       unsigned int nr, const struct hb_backing *recipe,
	       uint64_t io_len, uint64_t io_stride, unsigned int flags,
	       struct hb_analysis *a);
void hb_analysis_free(struct hb_analysis *a);
/* The verdict's two hypotheses over @pages: none, and one bvec per folio */
int hb_imu_hypotheses(const struct hb_kmodel *km, const struct hb_page *pages,
		      uint64_t uaddr, uint64_t len, struct hb_imu *none,
		      struct hb_imu *multi);


/*
 * The requests of one O_DIRECT I/O of @len bytes at @addr inside the
 * probed buffer @p, from a buffer registered under @km, on a queue with
 * the limits @q (hb_predict_requests() over the I/O's bvecs).
 */
int hb_predict_io_requests(const struct hb_kmodel *km,
			   const struct hb_probe *p, uint64_t addr,
			   uint64_t len, const struct hb_queue_limits *q,
			   struct hb_req_pred *out);

/*
 * The same for a plain (not registered) O_DIRECT I/O of the whole probed
 * buffer @p: the model's counts in @plain, and in @out its requests and
 * those with no page merged (every PFN apart) and with one bvec per folio
 * (folios apart), the two hypotheses of hb_coalesce_verdict().
 */
int hb_predict_plain_requests(const struct hb_kmodel *km,
			      const struct hb_probe *p,
			      const struct hb_queue_limits *q,
			      struct hb_req_pred *out,
			      struct hb_plain_pred *plain);

/*
 * Whether the kernel gives these buffers one bvec per folio: large folios,
 * a generation that coalesces, and no buffer left with more bvecs.
 */
bool hb_analysis_coalesces(const struct hb_analysis *a,
			   const struct hb_backing *b);

/* ------------------------------------------------------------------ */
/* report: one writer for text and JSON                               */
/* ------------------------------------------------------------------ */

/* A growing string (malloc'd); on allocation failure it stays short. */
struct hb_str {
	char *s;
	size_t len, cap;
	bool oom;
};

void hb_str_init(struct hb_str *b);
void hb_str_free(struct hb_str *b);

/* the job's file limits (lib/sysread/filelimits.c), for the report */
struct hb_file_limits;

/* What a job (engine) or a check (CLI) learnt about its buffers. */
/*
 * NVMe passthrough (the engine's cmd_type=nvme): the namespace, the
 * commands issued, and what hb_model_pt_map() predicts for the largest
 * command from each registered buffer.  A prediction, not an observation:
 * only a tracer sees the kernel's path.
 */
struct hb_pt_report {
	const char *device;		/* "/dev/ng0n1 nsid 1, 512-byte LBAs" */
	uint64_t commands;		/* read/write commands issued */
	uint64_t cmd_len;		/* bytes of the largest command */
	bool predicted;			/* limits known and buffers registered */
	unsigned int count[3];		/* buffers per enum hb_pt_path */
	unsigned int segs_min, segs_max;	/* DMA segments, direct ones */
	const char *why;		/* first reason that is not direct */
	const struct hb_queue_limits *lim;	/* NULL: not known */
};

struct hb_report {
	const char *job;		/* job name, any bytes */
	unsigned int subjob;
	struct hb_backing backing;
	const char *layout;		/* "per-io", "region" */
	uint64_t head_offset;
	bool fixedbufs;
	const char *kernel_model;	/* model name used */
	const char *kernel_detect;	/* "version says X, behaviour says Y" */
	unsigned int nr_buffers;
	uint64_t buffer_len, bs, stride;
	struct hb_bufstats st;
	double register_usec;		/* < 0: not registered */
	long vmpin_kb;			/* < 0: not measured */
	const char *device;		/* NULL or "": no device counters */
	uint64_t dev_reads, dev_writes, ios;
	bool requests_approximate;
	/* NULL: not known; else what the job's file allows (statx) */
	const struct hb_file_limits *limits;
	/* vectored fixed I/O: iovecs per I/O (0: off), the model's bvecs */
	unsigned int vec_iovecs, vec_bvecs;
	/* "", "source" or "clone" (a table cloned from another ring) */
	const char *shared;
	double ready_usec;		/* setup until the first I/O can go */
	const struct hb_pt_report *pt;	/* NULL: not a passthrough job */
	/*
	 * Device requests one I/O of bs makes, modelled and under the two
	 * hypotheses (NULL: not predicted), and the job's write I/Os: the
	 * writer judges coalescing with the one verdict when the device
	 * counters saw this job's reads alone.
	 */
	const struct hb_req_pred *pred;
	uint64_t write_ios;
	/*
	 * fixedbufs=0: the plain O_DIRECT model (hb_model_plain()) of the
	 * I/O @pred is for (NULL: not modelled; @pred then holds its
	 * requests and the hypotheses every page apart / every folio apart),
	 * and where its PFNs came from: "probed", or "synthetic" (folios
	 * never physically adjacent).
	 */
	const struct hb_plain_pred *plain;
	const char *plain_pfn;
	/*
	 * The kernel model of the job (NULL: none): with fixed buffers that
	 * some buffer did not coalesce, the report gives
	 * hb_coalesce_advice() for it.
	 */
	const struct hb_kmodel *km;
};

/* The report as text lines, each starting with @prefix. */
void hb_report_text(const struct hb_report *r, const char *prefix,
		    struct hb_str *out);
/* The report as one JSON object on one line, with a trailing newline. */
void hb_report_json(const struct hb_report *r, struct hb_str *out);
/* Append hb_report_json() to @path (a report_json file). */
int hb_report_append(const struct hb_report *r, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_H */
