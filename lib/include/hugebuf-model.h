/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf's io_uring registered-buffer model: registration, import,
 * accounting and cost, pure (arrays in, tables out); each family names
 * its man3 page.
 */
#ifndef HUGEBUF_MODEL_H
#define HUGEBUF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HB_PAGE_SHIFT		12
#define HB_PAGE_SIZE		(1ULL << HB_PAGE_SHIFT)
/*
 * MAX_RW_COUNT (INT_MAX & PAGE_MASK): the most one read or write moves,
 * on every kernel; the per-buffer limit is the model's (buf_len_max)
 */
#define HB_MAX_RW_COUNT		0x7ffff000ULL
/* IORING_MAX_REG_BUFFERS */
#define HB_MAX_REG_BUFFERS	(1U << 14)
/* sizeof(struct bio_vec) on 64-bit kernels */
#define HB_BVEC_BYTES		16

/* errors and sizes: hb_errmsg(3) */

const char *hb_errmsg(void);
int hb_parse_size(const char *s, uint64_t *out);
char *hb_fmt_size(uint64_t bytes, char *buf, size_t len);

/* the kernel modelled: hb_kmodel(3) */

enum hb_kgen {
	HB_KGEN_NONE = 0,	/* < 6.3: one bvec per 4 KiB page */
	HB_KGEN_SINGLE,		/* 6.3: one folio -> one bvec (57bebf807e2a) */
	HB_KGEN_MULTI,		/* 6.12: multi-folio (a8edbb424b13) */
	HB_KGEN_MULTI_FIXED,	/* 6.16, stable: (3a3c6d61577d) */
};

/* whether a release has a known kernel bug: the model may not know */
enum hb_kbug {
	HB_KBUG_ABSENT = 0,
	HB_KBUG_PRESENT,
	HB_KBUG_UNKNOWN,
};

/*
 * What a kernel does with a user metadata buffer that comes with an
 * I/O (hb_model_md_map(3)): maps it where it can, copies it always, or
 * the model has not read that release
 */
enum hb_md_map {
	HB_MD_DIRECT = 0,	/* pinned, its bvecs in the command */
	HB_MD_COPIED,		/* a kernel bounce buffer */
	HB_MD_UNKNOWN,		/* release not read */
};

struct hb_kmodel {
	enum hb_kgen gen;
	unsigned int imu_header;	/* io_mapped_ubuf without bvecs */
	bool imu_bvecs_apart;		/* < 5.13 */
	bool fixed_bio_add_page;	/* < 5.12 */
	bool exact_nr_segs;		/* 6.15, 80c7378f94cf */
	bool nr_segs_from_head;		/* 6.1+hugebuf */
	unsigned int imu_cache_bvecs;	/* ctx->imu_cache; 0: none */
	bool pin_checks_vmas;		/* < 6.5 */
	bool first_bvec_pinned_page;
	bool acct_batch_dedup;		/* < 6.13 */
	bool acct_per_ring;		/* 7.2 */
	bool vmpin_needs_user;		/* 7.2 */
	bool vec_fixed;			/* 6.15, 9ef4cbbcb4ac */
	bool vec_offset_from_bvec;	/* e1d7727b73a1 */
	bool import_offset_le_bvlen;	/* d6fef34ee4d1 */
	bool import_nr_segs_bvlen;	/* a23800f08a60 */
	bool coalesce_nonconsecutive;	/* 6.3.0/6.3.1, CVE-2023-2598 */
	bool pt_split_check;		/* 6.12 */
	bool pt_old_bvec_checks;	/* before 2ff949441802 */
	bool plain_folio_runs;		/* 6.12 */
	bool plain_merge_test_first;	/* < 6.5 */
	bool plain_bvec_per_run;	/* 7.x */
	bool sendzc_charge_in_page;	/* 6.1+hugebuf, -hbfix-sendzc */
	uint64_t buf_len_max;		/* SZ_1G; SZ_1T from 7.2 */
	int buf_len_errno;		/* EFAULT; EINVAL from 7.2 */
	uint64_t pin_pages_max;		/* io_pin_pages(); 0: none */
	bool acct_clone_fixed;		/* 7.4, efde156d91ba */
	enum hb_kbug iowq_exit_race;	/* 7.0 - 7.3.1: io-wq idle exit */
	bool atomic_ubuf_only;		/* 6.11, c34fc6f26ab8: RWF_ATOMIC */
	/* DIRECT: bio_integrity_map_user() (6.12, 7.3.4) */
	enum hb_md_map md_user_map;
	int kmajor, kminor, ksublevel;	/* ksublevel -1: not known */
	char name[24];			/* "6.12", "6.1+hugebuf" */
};

void hb_kmodel_for_version(int major, int minor, struct hb_kmodel *km);
void hb_kmodel_for_release(int major, int minor, int sublevel,
			   struct hb_kmodel *km);
void hb_kmodel_set_gen(struct hb_kmodel *km, enum hb_kgen gen);
void hb_kmodel_backport(int sublevel, struct hb_kmodel *km);
int hb_kmodel_parse(const char *s, struct hb_kmodel *km);
unsigned int hb_kmodel_known(const char *const **names);
const char *hb_kgen_name(enum hb_kgen gen);
/* one buffer's longest length at @uaddr on @km, and its check (-errno) */
uint64_t hb_kmodel_buf_len_max(const struct hb_kmodel *km, uint64_t uaddr);
int hb_kmodel_check_buf_len(const struct hb_kmodel *km, uint64_t uaddr,
			    uint64_t len);

/* registration and import: hb_model_register(3) */

/* one pinned 4 KiB page: its folio, index in it and folio order */
struct hb_page {
	uint64_t folio;
	uint32_t idx;
	uint32_t order;
};

/* one bio_vec: the page is (folio, page_idx) */
struct hb_bvec {
	uint64_t folio;
	uint32_t page_idx;
	uint32_t offset;	/* bv_offset */
	uint32_t len;		/* bv_len */
};

/* what io_sqe_buffer_register() builds */
struct hb_imu {
	uint64_t ubuf;
	uint64_t len;
	unsigned int nr_pages;
	unsigned int nr_bvecs;
	unsigned int folio_shift;
	bool coalesced;
	uint64_t imu_bytes;	/* header + 16 bytes per bvec */
	uint64_t alloc_bytes;	/* what the allocator takes for it */
	struct hb_bvec *bvec;	/* caller's array, >= nr_pages entries */
};

uint64_t hb_nr_pages(uint64_t uaddr, uint64_t len);
int hb_model_register(const struct hb_kmodel *km, const struct hb_page *pages,
		      uint64_t uaddr, uint64_t len, struct hb_bvec *bvec,
		      struct hb_imu *imu);
int hb_imu_build(const struct hb_kmodel *km, const struct hb_page *pages,
		 uint64_t uaddr, uint64_t len, struct hb_imu *imu);
void hb_imu_free(struct hb_imu *imu);
uint64_t hb_imu_bytes(const struct hb_kmodel *km, unsigned int nr_bvecs);
uint64_t hb_kvmalloc_bytes(uint64_t bytes);
int hb_layout_synth(uint64_t folio_size, uint64_t head_offset, uint64_t len,
		    uint64_t first_folio, struct hb_page *pages);
bool hb_model_sendzc_overcharge(const struct hb_kmodel *km,
				const struct hb_imu *imu);

/* io_import_fixed() for one I/O */
struct hb_import {
	unsigned int bvec_idx;		/* first bvec the iter points at */
	uint64_t iov_offset;		/* bytes into that bvec's data */
	unsigned int nr_segs_exact;	/* bvecs the I/O really touches */
	unsigned int nr_segs_kernel;	/* what the modelled kernel stores */
};

int hb_model_import(const struct hb_kmodel *km, const struct hb_imu *imu,
		    uint64_t addr, uint64_t len, struct hb_import *out);

/* what io_vec_fill_bvec() builds for one vectored I/O */
struct hb_vimport {
	unsigned int nr_bvecs;
	uint64_t len;
};

uint64_t hb_import_vec_bound(const struct hb_imu *imu, const struct iovec *iov,
			     unsigned int nr);
int hb_model_import_vec(const struct hb_kmodel *km, const struct hb_imu *imu,
			const struct iovec *iov, unsigned int nr,
			struct hb_bvec *out, unsigned int max_out,
			struct hb_vimport *res);

/* accounting: hb_model_account(3) */

int hb_model_account(const struct hb_kmodel *km, const struct hb_page *pages,
		     const unsigned int *buf_pages, unsigned int nr_bufs,
		     uint64_t *charged_bytes);

enum hb_acct_kind {
	HB_ACCT_REGISTER,	/* IORING_REGISTER_BUFFERS, slots from 0 */
	HB_ACCT_UPDATE,		/* ..._BUFFERS_UPDATE from @slot */
	HB_ACCT_CLONE,		/* IORING_REGISTER_CLONE_BUFFERS of @src */
	HB_ACCT_UNREGISTER,	/* IORING_UNREGISTER_BUFFERS, or close */
};

#define HB_ACCT_RINGS		4

struct hb_acct_op {
	enum hb_acct_kind kind;
	unsigned int ring;		/* < HB_ACCT_RINGS */
	unsigned int src;		/* HB_ACCT_CLONE */
	unsigned int slot;		/* HB_ACCT_UPDATE */
	unsigned int nr_bufs;		/* REGISTER, UPDATE */
	const struct hb_page *pages;	/* every buffer's, back to back */
	const unsigned int *buf_pages;	/* pages of each buffer */
};

int hb_model_account_ops(const struct hb_kmodel *km,
			 const struct hb_acct_op *ops, unsigned int nr_ops,
			 int64_t *charged_bytes);
/* efde156d91ba's clone sequence: VmPin per step, the reproducer's exit */
#define HB_CLONE_STEPS		5
int hb_model_clone_seq(const struct hb_kmodel *km,
		       int64_t vmpin_kb[HB_CLONE_STEPS]);
/* one line where a cloned hugepage table under-charges on @km, else 0 */
int hb_clone_acct_warning(const struct hb_kmodel *km, uint64_t folio_size,
			  bool cap_ipc_lock, char *buf, size_t len);
bool hb_model_memlock_checked(bool cap_ipc_lock);
bool hb_model_vmpin_charged(const struct hb_kmodel *km, bool cap_ipc_lock);

/* registration cost: hb_model_register_cost(3) */

struct hb_reg_buf {
	const struct hb_page *pages;	/* hb_nr_pages(uaddr, len) entries */
	uint64_t uaddr;
	uint64_t len;
};

enum hb_reg_calls {
	HB_REG_ONE_CALL,
	HB_REG_ONE_BY_ONE,
};

struct hb_reg_cost {
	uint64_t pages;		/* pinned */
	uint64_t bvecs;		/* built */
	uint64_t heads;		/* compound heads accounted */
	uint64_t scan_reads;	/* headpage_already_acct() reads (to 7.1) */
	uint64_t ring_lookups;	/* ctx->hpage_acct lookups (7.2+) */
};

int hb_model_register_cost(const struct hb_kmodel *km,
			   const struct hb_reg_buf *bufs, unsigned int nr_bufs,
			   enum hb_reg_calls calls, struct hb_reg_cost *cost);
/* scan reads from which a registration is slow (hb_reg_cost_slow()) */
#define HB_REG_SCAN_SLOW	(1ULL << 28)
bool hb_reg_cost_slow(const struct hb_reg_cost *cost);
int hb_reg_cost_warning(const struct hb_reg_cost *cost, char *buf,
			size_t len);

/* the verdict: hb_coalesce_verdict(3) */

/* kernel memory figures are within max(prediction / 4, this) (kB) */
#define HB_KMEM_SLACK_KB	256

/* one measured figure beside the model's and the two hypotheses' */
struct hb_signal {
	bool done;
	double measured;
	double model, none, multi;
};

struct hb_coalesce_evidence {
	bool can_coalesce;	/* folios above 4 KiB */
	struct hb_signal requests;
	struct hb_signal kmem;
};

struct hb_coalesce_verdict {
	int coalesced;		/* 1 yes, 0 no, -1 unknown */
	bool matches_model;
	unsigned int signals;	/* figures measured */
	const char *decided_by;	/* "block requests", "kernel memory", ... */
};

void hb_coalesce_verdict(const struct hb_coalesce_evidence *e,
			 struct hb_coalesce_verdict *v);
bool hb_kmem_near(double measured_kb, double predicted_kb);
bool hb_sendzc_ratio_matches(bool overcharge, double ratio, double ratio_4k);
const char *hb_tristate_name(int v);
unsigned int hb_job_requests_per_io(uint64_t reads, uint64_t ios,
				    uint64_t *other);
const char *hb_coalesce_advice(const struct hb_kmodel *km,
			       uint64_t folio_size, uint64_t head_offset,
			       uint64_t buffer_len);

/* io_uring features: hb_ringfeat_decide(3) */

enum hb_ringfeat {
	HB_FEAT_CQSIZE,		/* SETUP_CQSIZE + CLAMP (5.6): required */
	HB_FEAT_DEFER_TASKRUN,	/* SINGLE_ISSUER + DEFER_TASKRUN (6.1) */
	HB_FEAT_RING_FD,		/* REGISTER_RING_FDS (5.18) */
	HB_FEAT_FILES_SPARSE,	/* RSRC_REGISTER_SPARSE files (5.19) */
	HB_FEAT_URING_CMD,	/* OP_URING_CMD, SQE128, CQE32 (5.19) */
	HB_FEAT_CLONE_BUFFERS,	/* REGISTER_CLONE_BUFFERS (6.12) */
	HB_FEAT_READV_FIXED,	/* OP_READV_FIXED / WRITEV_FIXED (6.15) */
	HB_FEAT_DONTCACHE,	/* RWF_DONTCACHE buffered I/O (6.14) */
	HB_FEAT_NR
};
#define HB_FEAT_BIT(f)		(1U << (f))
#define HB_FEAT_ALL		((1U << HB_FEAT_NR) - 1)
#define HB_FEAT_LINE_MAX		320

enum hb_ringfeat_want {
	HB_FEAT_NOT_USED = 0,
	HB_FEAT_BY_DEFAULT,	/* used where the kernel has it */
	HB_FEAT_ASKED,		/* the job's options ask for it */
};

enum hb_ringfeat_act {
	HB_FEAT_OFF = 0,		/* not used */
	HB_FEAT_USE,		/* the kernel has it */
	HB_FEAT_FALLBACK,		/* not asked for, missing: a line */
	HB_FEAT_REFUSE,		/* asked for (or required), missing: error */
};

struct hb_ringfeat_job {
	unsigned char want[HB_FEAT_NR];		/* enum hb_ringfeat_want */
	const char *asked_by[HB_FEAT_NR];		/* "vec_iovecs=4" */
};

struct hb_ringfeat_decision {
	unsigned char act[HB_FEAT_NR];		/* enum hb_ringfeat_act */
	unsigned int nr_fallbacks, nr_refused;
	char line[HB_FEAT_NR][HB_FEAT_LINE_MAX];	/* FALLBACK, REFUSE */
};

int hb_ringfeat_decide(const struct hb_ringfeat_job *job, unsigned int have,
		 const char *kernel, struct hb_ringfeat_decision *d);
const char *hb_ringfeat_name(enum hb_ringfeat f);
void hb_ringfeat_release(enum hb_ringfeat f, int *major, int *minor);
unsigned int hb_ringfeat_upto(int major, int minor);

/* a metadata buffer per command: hb_model_md_map(3) */

/* why a metadata buffer is copied (HB_MD_WHY_NONE: it is mapped) */
enum hb_md_why {
	HB_MD_WHY_NONE = 0,
	HB_MD_WHY_NO_DIRECT,	/* the kernel copies every one (6.1) */
	HB_MD_WHY_ALIGN,	/* address or length off dma_alignment */
	HB_MD_WHY_SEGMENTS,	/* bvecs over max_integrity_segments */
	HB_MD_WHY_NOT_READ,	/* HB_MD_UNKNOWN */
};

/* the queue's limits a metadata buffer meets (its block device's sysfs) */
struct hb_md_queue {
	unsigned int max_integrity_segments;	/* 1: no metadata SGLs */
	unsigned int dma_align_mask;		/* dma_alignment */
};

/* one command's metadata buffer, as the kernel takes it */
struct hb_md_cmd {
	enum hb_md_map map;
	enum hb_md_why why;
	unsigned int bvecs;	/* of the user pages: one per folio run */
	unsigned int segments;	/* integrity segments of the request */
	unsigned int dma_maps;	/* DMA addresses the command carries */
	bool sgl;		/* a metadata SGL, else MPTR */
};

int hb_model_md_map(const struct hb_kmodel *km, const struct hb_page *pages,
		    uint64_t uaddr, uint64_t len, const struct hb_md_queue *q,
		    bool passthrough, struct hb_md_cmd *out);
const char *hb_md_map_name(enum hb_md_map map);
const char *hb_md_why_name(enum hb_md_why why);

/* physical contiguity of a buffer's pages: hb_contig(3) */

struct hb_contig {
	bool known;		/* every PFN was readable: the counts hold */
	uint64_t nr_pages;	/* pages looked at */
	uint64_t pairs;		/* neighbouring page pairs */
	uint64_t adjacent;	/* of them, pfn[i + 1] == pfn[i] + 1 */
	uint64_t nr_runs;	/* runs of consecutive PFNs */
	uint64_t longest;	/* pages in the longest run */
};

void hb_contig_measure(const uint64_t *pfn, uint64_t nr, struct hb_contig *c);
void hb_contig_add(struct hb_contig *sum, const struct hb_contig *one,
		   bool first);
double hb_contig_share(const struct hb_contig *c);

/* where the I/O buffers sit in one mapping: hb_slot_iovecs(3) */

int hb_slot_iovecs(uintptr_t base, unsigned int nr_slots, uint64_t stride,
		   uint64_t slot_len, unsigned int per_iov, struct iovec **iov,
		   unsigned int *nr);
unsigned int hb_vec_split(void *addr, uint64_t len, unsigned int n,
			  uint64_t shift, unsigned int align,
			  struct iovec *iov);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_MODEL_H */
