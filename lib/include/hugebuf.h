/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf: hugepage-backed io_uring fixed buffers.  The system API:
 * discovery, allocation, probe, analysis, registration, measurement.
 * Calls return 0 (or a count) or -errno, with one line in hb_errmsg().
 */
#ifndef HUGEBUF_H
#define HUGEBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "hugebuf-model.h"
#include "hugebuf-blk.h"

struct io_uring;

#ifdef __cplusplus
extern "C" {
#endif

/* the running kernel: hb_kmodel_running(3) */

struct hb_kdetect {
	char release[65];		/* uname -r */
	char upstream[32];		/* e.g. "6.1.119" (Debian's) */
	struct hb_kmodel version_km;	/* from the version alone */
	bool behaviour_ok;		/* at least one experiment ran */
	struct hb_kmodel behaviour_km;	/* version model + what was seen */
	/* observations: 1 yes, 0 no, -1 not measured */
	int first_bvec_vaddr;
	int coalesce_single;
	int coalesce_multi;
	int batch_dedup;
	int hole_closed;
	int vmpin_needs_user;
	bool agreed;			/* version and behaviour agree */
	struct hb_kmodel chosen;	/* what hb_kmodel_running() returns */
	const char *source;		/* "HUGEBUF_KERNEL", "behaviour", ... */
	char summary[160];
	char warning[200];		/* "" unless they disagree */
	char note[200];			/* experiments skipped, why */
	unsigned int usec;		/* time the detection took */
};

int hb_kmodel_detect(struct hb_kdetect *out);
const struct hb_kdetect *hb_kdetect_cached(void);
int hb_kmodel_running(struct hb_kmodel *km);

/* allocation: hb_alloc(3) */

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

/* how the 4k backing's pages lie in physical memory: hb_alloc(3) */
enum hb_contig_mode {
	HB_CONTIG_GIVEN = 0,	/* as the page allocator hands them out */
	HB_CONTIG_SCATTERED,	/* no two neighbours adjacent, on purpose */
	HB_CONTIG_PIN,		/* untouched: faulted in by the registration */
};

/*
 * What the job does with a buffer before registering it, for
 * hb_contig_check(): HB_CONTIG_PIN needs every page untouched until
 * io_uring_register_buffers() faults it in.
 */
#define HB_CONTIG_UNREGISTERED	(1U << 0)	/* no fixed buffers */
#define HB_CONTIG_WRITTEN	(1U << 1)	/* written before registration */
#define HB_CONTIG_UNREG_PARTS	(1U << 2)	/* pages that are not registered */
#define HB_CONTIG_SHARED	(1U << 3)	/* another job registers them */

#define HB_BACKING_PATH_MAX	256
#define HB_BACKING_STR_MAX	(HB_BACKING_PATH_MAX + 16)

struct hb_backing {
	enum hb_backing_kind kind;
	uint64_t folio_size;		/* expected folio size in bytes */
	char path[HB_BACKING_PATH_MAX];	/* hugetlbfs: file or directory */
	enum hb_contig_mode contig;	/* 4k only; others: given */
};

const char *hb_backing_spellings(void);
int hb_backing_parse(const char *s, struct hb_backing *b);
bool hb_backing_is_hugetlb(const struct hb_backing *b);
char *hb_backing_str(const struct hb_backing *b, char *buf, size_t len);
uint64_t hb_backing_align(const struct hb_backing *b);
int hb_contig_mode_parse(const char *s, enum hb_contig_mode *m);
const char *hb_contig_mode_name(enum hb_contig_mode m);
int hb_contig_check(const struct hb_backing *b, unsigned int use);

struct hb_buf {
	struct hb_backing backing;
	void *map;		/* the whole mapping (folio aligned) */
	size_t map_len;
	void *addr;		/* map + head_offset: the I/O buffer */
	size_t len;
	size_t head_offset;
	int memfd;		/* -1 unless memfd or hugetlbfs backing */
	int shmid;		/* -1 unless shm backing (removed at attach) */
	char file[HB_BACKING_PATH_MAX + 32];	/* hugetlbfs: the file */
	bool unlink_file;	/* hb_free() unlinks it */
	bool huge_verified;	/* THP/mTHP: large folios seen */
};

int hb_alloc(const struct hb_backing *b, size_t len, size_t head_offset,
	     struct hb_buf *buf);
void hb_free(struct hb_buf *buf);
void hb_free_moved(struct hb_buf *buf, uint64_t off, uint64_t len);

/* the real folio layout of a buffer: hb_probe(3) */

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
	struct hb_contig contig;	/* physical runs; !known: no PFNs */
	char note[160];		/* why degraded, or what was seen */
};

int hb_probe(const void *addr, uint64_t len, const struct hb_backing *recipe,
	     struct hb_probe *p);
void hb_probe_free(struct hb_probe *p);

/* probe + model + statistics over a set of buffers: hb_analyze(3) */

#define HB_MAX_NODES	64	/* NUMA nodes, bits of a uint64_t */

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
	struct hb_reg_cost reg_cost;	/* registering them in one call */
	unsigned int nr_nodes;		/* NUMA nodes the folios are on */
	uint32_t node_folios[HB_MAX_NODES];	/* folios per node */
	enum hb_probe_source source;
	struct hb_contig contig;	/* summed over the buffers */
	uint64_t min_runs, max_runs;	/* physical runs per buffer */
	char note[160];
};

struct hb_analysis {
	struct hb_kmodel km;
	unsigned int nr;
	struct hb_probe *probe;		/* HB_ANALYZE_KEEP: per buffer */
	struct hb_imu *imu;
	struct hb_bufstats st;
};

#define HB_ANALYZE_KEEP		(1U << 0)	/* keep probes and imus */

int hb_analyze(const struct hb_kmodel *km, const struct iovec *iov,
	       unsigned int nr, const struct hb_backing *recipe,
	       uint64_t io_len, uint64_t io_stride, unsigned int flags,
	       struct hb_analysis *a);
void hb_analysis_free(struct hb_analysis *a);
bool hb_analysis_coalesces(const struct hb_analysis *a,
			   const struct hb_backing *b);
int hb_imu_hypotheses(const struct hb_kmodel *km, const struct hb_page *pages,
		      uint64_t uaddr, uint64_t len, struct hb_imu *none,
		      struct hb_imu *multi);
int hb_predict_io_requests(const struct hb_kmodel *km,
			   const struct hb_probe *p, uint64_t addr,
			   uint64_t len, const struct hb_queue_limits *q,
			   struct hb_req_pred *out);
int hb_predict_plain_requests(const struct hb_kmodel *km,
			      const struct hb_probe *p,
			      const struct hb_queue_limits *q,
			      struct hb_req_pred *out,
			      struct hb_plain_pred *plain);

/* errors and the JSON writer: hb_json(3) */

int hb_seterr(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* a growing string (malloc'd); on allocation failure it stays short */
struct hb_str {
	char *s;
	size_t len, cap;
	bool oom;
};

void hb_str_init(struct hb_str *b);
void hb_str_free(struct hb_str *b);

#define HB_JSON_MAX_DEPTH	8

struct hb_json {
	struct hb_str *out;
	unsigned int depth;
	char close[HB_JSON_MAX_DEPTH];	/* '}' or ']' per open level */
	bool more[HB_JSON_MAX_DEPTH];	/* the level has a member: comma */
	bool done;			/* the top-level value was begun */
	bool bad;
	bool compact;			/* "," and ":" without spaces */
};

void hb_json_init(struct hb_json *j, struct hb_str *out);
void hb_json_init_compact(struct hb_json *j, struct hb_str *out);
void hb_json_obj(struct hb_json *j, const char *key);
void hb_json_arr(struct hb_json *j, const char *key);
void hb_json_end(struct hb_json *j);
void hb_json_str(struct hb_json *j, const char *key, const char *val);
void hb_json_u64(struct hb_json *j, const char *key, uint64_t val);
void hb_json_i64(struct hb_json *j, const char *key, int64_t val);
void hb_json_fixed(struct hb_json *j, const char *key, double val,
		   unsigned int decimals);
void hb_json_bool(struct hb_json *j, const char *key, bool val);
void hb_json_tri(struct hb_json *j, const char *key, int val);
void hb_json_null(struct hb_json *j, const char *key);
bool hb_json_ok(const struct hb_json *j);

/* /proc and /sys: hb_sysinfo_read(3) */

#define HB_MAX_POOLS	8
#define HB_MAX_MTHP	16

struct hb_pool {
	uint64_t page_size;
	unsigned long nr, free, resv, surplus;
	unsigned long overcommit;	/* nr_overcommit_hugepages */
};

struct hb_mthp {
	uint64_t size;
	char enabled[16];	/* always, inherit, madvise, never */
};

struct hb_sysinfo {
	char release[65];
	int kmajor, kminor, kpatch;
	unsigned int nr_pools;
	struct hb_pool pools[HB_MAX_POOLS];
	uint64_t default_hugepage;	/* Hugepagesize from /proc/meminfo */
	char thp_enabled[16];		/* always, madvise, never */
	uint64_t thp_pmd_size;
	unsigned int nr_mthp;
	struct hb_mthp mthp[HB_MAX_MTHP];
	uint64_t memlock_cur, memlock_max;	/* RLIM_INFINITY = UINT64_MAX */
	bool cap_ipc_lock;
	bool pagemap_pfn;	/* PFNs readable from /proc/self/pagemap */
	bool kpageflags;	/* /proc/kpageflags readable */
};

int hb_sysinfo_read(struct hb_sysinfo *si);
bool hb_mthp_usable(const struct hb_sysinfo *si, uint64_t size);
int hb_check_memlock(const struct hb_sysinfo *si, uint64_t charged_bytes);
long hb_vmpin_kb(void);
long hb_hugepages_free(uint64_t page_size);
long hb_proc_kb(const char *file, const char *key);
int hb_read_bracketed(const char *path, char *out, size_t len);
int hb_pagemap_open(void);
int hb_pagemap_read(int fd, uint64_t vaddr, unsigned int nr, uint64_t *ent);
uint64_t hb_pagemap_pfn(uint64_t entry);

/* block devices: hb_blkdev(3) */

int hb_blkdev_of_path(const char *path, char *dev, size_t len);
int hb_blkdev_ios(const char *dev, uint64_t *reads, uint64_t *writes);
int hb_blkdev_ios_settled(const char *dev, uint64_t *reads, uint64_t *writes);
/* @pt: a passthrough request's limits, else the block path's */
int hb_blkdev_queue_limits(const char *dev, bool pt,
			   struct hb_queue_limits *lim);
int hb_nvme_ng_blkdev(const char *path, char *blkdev, size_t len);
bool hb_is_nvme_generic(const char *path);

/* direct and atomic I/O (statx): hb_file_limits(3) */

struct hb_file_limits {
	bool dio_known;			/* STATX_DIOALIGN answered (6.1+) */
	unsigned int dio_mem_align;	/* buffer address alignment */
	unsigned int dio_offset_align;	/* file offset / length alignment */
	bool atomic;			/* RWF_ATOMIC writes possible */
	unsigned int atomic_unit_min, atomic_unit_max;
	unsigned int atomic_segments_max;
};

int hb_file_limits(const char *path, struct hb_file_limits *l);
int hb_check_atomic_write(const struct hb_file_limits *l, uint64_t len,
			  uint64_t file_off, unsigned int nr_segs);
unsigned int hb_dio_align(const char *path);

/* registration over liburing: hb_register_buffers(3) */

int hb_register_buffers(struct io_uring *ring, const struct iovec *iov,
			unsigned int nr);
int hb_register_sparse(struct io_uring *ring, unsigned int nr);
int hb_register_update(struct io_uring *ring, unsigned int off,
		       const struct iovec *iov, unsigned int nr);
int hb_ring_init_charged(struct io_uring *ring, unsigned int entries,
			 bool *checked);
/* the ring features the kernel has: hb_ringfeat_decide(3) */
int hb_ringfeat_probe(unsigned int *have);
const char *hb_ringfeat_hidden_above(void);

/* measurement: hb_count_read_requests(3) */

int hb_count_read_requests(struct io_uring *ring, int fd, bool fixed,
			   int buf_index, void *addr, uint64_t len,
			   uint64_t file_off, const char *dev,
			   unsigned int tries, uint64_t *min_reqs);
int hb_measure_reg_kmem(struct io_uring *ring, void *addr, uint64_t len,
			unsigned int k, long *delta_kb);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_H */
