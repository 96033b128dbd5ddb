/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf's kernel model: pure, arrays in and tables out, no system
 * calls (lib/model/model.c, kmodel.c, account.c, ptmap.c, vimport.c, predict.c,
 * plain.c, verdict.c; the IOMMU model is declared in hugebuf.h).  It
 * mirrors io_uring/rsrc.c and the block layer of the kernel release it is
 * asked to model (lib/model/kmodel.c names the rules and the kernel commits).
 *
 * Installed beside hugebuf.h, which includes it; it includes only
 * system headers.  Every call returns 0 (or a count) on success and
 * -errno on failure, with one line in hb_errmsg() naming cause and fix.
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
/* io_buffer_validate(): one registered buffer is at most SZ_1G */
#define HB_MAX_BUF_LEN		(1ULL << 30)
/* IORING_MAX_REG_BUFFERS */
#define HB_MAX_REG_BUFFERS	(1U << 14)
/* sizeof(struct bio_vec) on 64-bit kernels */
#define HB_BVEC_BYTES		16

/* ------------------------------------------------------------------ */
/* errors and sizes                                                   */
/* ------------------------------------------------------------------ */

/* The message left by the last failing hb_ call of this thread. */
const char *hb_errmsg(void);


/*
 * Parse a byte count: decimal or 0x hex (a leading 0 is not octal),
 * optional suffix k/K, m/M, g/G, t/T (powers of 1024), optional trailing
 * "B"/"iB".  Junk, signs and blanks are errors.
 */
int hb_parse_size(const char *s, uint64_t *out);
/* Format bytes as "2M", "4K", "1G" or plain bytes; returns buf. */
char *hb_fmt_size(uint64_t bytes, char *buf, size_t len);

/* ------------------------------------------------------------------ */
/* kernel generations                                                   */
/* ------------------------------------------------------------------ */

enum hb_kgen {
	/* < 6.3: one bvec per pinned 4 KiB page */
	HB_KGEN_NONE = 0,
	/* 6.3 - 6.11: whole buffer inside one folio -> one bvec (57bebf807e2a) */
	HB_KGEN_SINGLE,
	/* 6.12 - 6.15: multi-folio, first offset from the vaddr (a8edbb424b13) */
	HB_KGEN_MULTI,
	/* 6.16+ and stable: first offset from the folio page index (3a3c6d61577d) */
	HB_KGEN_MULTI_FIXED,
};

struct hb_kmodel {
	enum hb_kgen gen;
	/* sizeof(struct io_mapped_ubuf) without the bvec array */
	unsigned int imu_header;
	/* bvecs apart from the imu: 16 bytes each, no header (< 5.13) */
	bool imu_bvecs_apart;
	/* fixed-buffer bios built by bio_add_page() (< 5.12; analysis.c) */
	bool fixed_bio_add_page;
	/* io_import_fixed computes an exact nr_segs (6.15, 80c7378f94cf) */
	bool exact_nr_segs;
	/* ... counted from bvec[0]'s bv_len (6.1+hugebuf, io_uring 2/5) */
	bool nr_segs_from_head;
	/* ctx->imu_cache serves imus of <= this many bvecs (0: no cache) */
	unsigned int imu_cache_bvecs;
	/* io_pin_pages() walks the VMAs itself (< 6.5; lib/model/kmodel.c) */
	bool pin_checks_vmas;
	/* bvec[0] names the pinned page, not the folio head (model.c) */
	bool first_bvec_pinned_page;
	/* a hugepage charged once per register call (< 6.13; account.c) */
	bool acct_batch_dedup;
	/* per-ring hugepage accounting (7.2; lib/model/account.c) */
	bool acct_per_ring;
	/* VmPin charged only without CAP_IPC_LOCK (7.2; account.c) */
	bool vmpin_needs_user;
	/* IORING_OP_READV_FIXED / WRITEV_FIXED exist (6.15, 9ef4cbbcb4ac) */
	bool vec_fixed;
	/* vectored offsets from bvec[0].bv_offset (e1d7727b73a1) */
	bool vec_offset_from_bvec;
	/* 6.3's "offset <= bv_len" (d6fef34ee4d1; lib/model/model.c) */
	bool import_offset_le_bvlen;
	/* nr_segs = bvec[0].bv_len for an I/O inside bvec[0] (a23800f08a60) */
	bool import_nr_segs_bvlen;
	/* 6.3.0/6.3.1: any pages of one folio coalesce (CVE-2023-2598) */
	bool coalesce_nonconsecutive;
	/* passthrough bvecs checked by bio_split_rw_at() (6.12; ptmap.c) */
	bool pt_split_check;
	/* passthrough refuses page-crossing bvecs (before 2ff949441802) */
	bool pt_old_bvec_checks;
	/* plain O_DIRECT adds a folio run per call (6.12; lib/model/plain.c) */
	bool plain_folio_runs;
	/* plain path: a bio's first add is merge-tested (< 6.5) */
	bool plain_merge_test_first;
	/* plain path: a bvec per folio run, no merge (7.x; lib/model/plain.c) */
	bool plain_bvec_per_run;
	/* SEND_ZC charges a frag the pages it spans (6.1+hugebuf; model.c) */
	bool sendzc_charge_in_page;
	/* the release modelled; sublevel -1 when not known */
	int kmajor, kminor, ksublevel;
	/* human name, e.g. "6.12", "6.12.117", "6.1+hugebuf" */
	char name[24];
};

/* Model for a kernel release (major, minor), sublevel not known (.0). */
void hb_kmodel_for_version(int major, int minor, struct hb_kmodel *km);
/*
 * Model for major.minor.sublevel (@sublevel < 0: not known, taken as the
 * .0 release): a stable series that took a fix gets its behaviour from
 * the sublevel that carried it (6.12.36 and 6.15.5 for 3a3c6d61577d...).
 */
void hb_kmodel_for_release(int major, int minor, int sublevel,
			   struct hb_kmodel *km);
/* @km with the coalescing rules of @gen (and the flags that follow it). */
void hb_kmodel_set_gen(struct hb_kmodel *km, enum hb_kgen gen);
/* Our series (kernel/patches) on Debian 6.1; @sublevel may be -1. */
void hb_kmodel_backport(int sublevel, struct hb_kmodel *km);
/*
 * Parse a --kernel / HUGEBUF_KERNEL value: "6.1", "6.3", "6.12", "6.16",
 * any "X.Y[.Z]" (the sublevel counts: "6.12.36" has the 6.16 rules), or
 * "6.1+hugebuf" (Debian 6.1 with kernel/patches applied).
 */
int hb_kmodel_parse(const char *s, struct hb_kmodel *km);
/*
 * The releases the model tells apart, one name each (hb_kmodel_parse()
 * takes every one): a release of each set of rules in lib/model/kmodel.c, in
 * order, and "6.1+hugebuf".  Sets *@names to the list; returns its length.
 * The tests hold the model to every entry.
 */
unsigned int hb_kmodel_known(const char *const **names);
const char *hb_kgen_name(enum hb_kgen gen);

/* ------------------------------------------------------------------ */
/* the coalescing model (pure)                                          */
/* ------------------------------------------------------------------ */

/*
 * One pinned 4 KiB page as the kernel sees it.  @folio identifies the folio
 * (the head PFN when probed; any unique number in synthetic layouts), @idx
 * is the page's index inside that folio and @order its folio order.  Two
 * entries are "consecutive struct pages" exactly when they share @folio and
 * their @idx differ by one (pages of a folio are physically contiguous).
 */
struct hb_page {
	uint64_t folio;
	uint32_t idx;
	uint32_t order;
};

/* One bio_vec of the imu: the page is (folio, page_idx). */
struct hb_bvec {
	uint64_t folio;
	uint32_t page_idx;
	uint32_t offset;	/* bv_offset */
	uint32_t len;		/* bv_len */
};

/* The registration result: what io_sqe_buffer_register() builds. */
struct hb_imu {
	uint64_t ubuf;		/* user address */
	uint64_t len;		/* user length */
	unsigned int nr_pages;	/* pages pinned */
	unsigned int nr_bvecs;
	unsigned int folio_shift;
	bool coalesced;
	uint64_t imu_bytes;	/* header + 16 bytes per bvec */
	uint64_t alloc_bytes;	/* what the allocator takes for it */
	struct hb_bvec *bvec;	/* caller's array, >= nr_pages entries */
};

/* Number of pages a buffer [uaddr, uaddr+len) pins. */
uint64_t hb_nr_pages(uint64_t uaddr, uint64_t len);

/*
 * Model io_sqe_buffer_register(): validate (len 0 or > 1 GiB -> -EFAULT,
 * address wrap -> -EOVERFLOW), then coalesce by the rules of @km->gen.
 * @pages has hb_nr_pages(uaddr, len) entries, @bvec room for as many.
 */
int hb_model_register(const struct hb_kmodel *km, const struct hb_page *pages,
		      uint64_t uaddr, uint64_t len, struct hb_bvec *bvec,
		      struct hb_imu *imu);

/*
 * hb_model_register() into a bvec table of its own (malloc'd, room for
 * every pinned page): the one place that allocates and wires imu->bvec.
 * hb_imu_free() releases it.
 */
int hb_imu_build(const struct hb_kmodel *km, const struct hb_page *pages,
		 uint64_t uaddr, uint64_t len, struct hb_imu *imu);
void hb_imu_free(struct hb_imu *imu);

/*
 * Whether a SEND_ZC from the registered buffer @imu charges its skb
 * fragments for more than the pages they span (hb_model_sendzc_overcharge
 * in model.c: a coalesced buffer on a kernel that counts a fragment's
 * charge from its bvec's first page).  Pure.
 */
bool hb_model_sendzc_overcharge(const struct hb_kmodel *km,
				const struct hb_imu *imu);

/* Result of io_import_fixed() for one I/O. */
struct hb_import {
	unsigned int bvec_idx;		/* first bvec the iter points at */
	uint64_t iov_offset;		/* bytes into that bvec's data */
	unsigned int nr_segs_exact;	/* bvecs the I/O really touches */
	unsigned int nr_segs_kernel;	/* what the modelled kernel stores */
};

/*
 * Model io_import_fixed() for an I/O of @len bytes at user address @addr
 * inside the registered buffer: -EFAULT when it is not inside.
 */
int hb_model_import(const struct hb_kmodel *km, const struct hb_imu *imu,
		    uint64_t addr, uint64_t len, struct hb_import *out);

/*
 * What registering @nr_bufs buffers in one IORING_REGISTER_BUFFERS call
 * charges to user->locked_vm (bytes).  @pages holds every buffer's pinned
 * pages back to back, @buf_pages[i] pages for buffer i, in registration
 * order.  Pure.  (io_buffer_account_pin(): a compound page whole, once per
 * head; see lib/model/account.c for the per-generation dedup.)  The same as one
 * HB_ACCT_REGISTER of hb_model_account_ops().
 */
int hb_model_account(const struct hb_kmodel *km, const struct hb_page *pages,
		     const unsigned int *buf_pages, unsigned int nr_bufs,
		     uint64_t *charged_bytes);
/*
 * One process's registrations over time, ring by ring (a pure model of
 * io_sqe_buffers_register(), io_sqe_buffers_update(), io_clone_buffers()
 * and io_buffer_unmap(); lib/model/account.c).  Every ring is created by the
 * same task without CAP_IPC_LOCK, so all charge one user->locked_vm and
 * one mm->pinned_vm.
 */
enum hb_acct_kind {
	/* IORING_REGISTER_BUFFERS: slots 0 .. nr_bufs - 1 of an empty table */
	HB_ACCT_REGISTER,
	/*
	 * IORING_REGISTER_BUFFERS_UPDATE from @slot: each buffer replaces the
	 * slot's old one; a buffer of 0 pages ({NULL, 0}) only clears it
	 */
	HB_ACCT_UPDATE,
	/* IORING_REGISTER_CLONE_BUFFERS: every slot of ring @src (6.12+) */
	HB_ACCT_CLONE,
	/* IORING_UNREGISTER_BUFFERS, or the ring's close: every slot */
	HB_ACCT_UNREGISTER,
};

#define HB_ACCT_RINGS		4

struct hb_acct_op {
	enum hb_acct_kind kind;
	unsigned int ring;		/* < HB_ACCT_RINGS */
	unsigned int src;		/* HB_ACCT_CLONE: the source ring */
	unsigned int slot;		/* HB_ACCT_UPDATE: the first slot */
	unsigned int nr_bufs;		/* REGISTER, UPDATE: the iovecs */
	/* REGISTER, UPDATE: every buffer's pages back to back */
	const struct hb_page *pages;
	const unsigned int *buf_pages;	/* pages of each buffer */
};

/*
 * The bytes charged (to locked_vm, and to VmPin where
 * hb_model_vmpin_charged()) after each of @nr_ops operations:
 * @charged_bytes[i] is the total after ops[0..i], below zero where the
 * modelled kernel un-charges more than it charged.  The pages of a
 * buffer must stay valid until the last op.  Pure.
 */
int hb_model_account_ops(const struct hb_kmodel *km,
			 const struct hb_acct_op *ops, unsigned int nr_ops,
			 int64_t *charged_bytes);
/*
 * Whether that charge is checked against RLIMIT_MEMLOCK: only for a ring
 * created without CAP_IPC_LOCK (io_uring_create() sets ctx->user then).
 */
bool hb_model_memlock_checked(bool cap_ipc_lock);
/*
 * Whether that charge shows in VmPin: always up to 7.1, only without
 * CAP_IPC_LOCK on kernels with @km->vmpin_needs_user (7.2+).
 */
bool hb_model_vmpin_charged(const struct hb_kmodel *km, bool cap_ipc_lock);

/*
 * What registering buffers costs the kernel, as counts (lib/model/regcost.c):
 * the buffers of @bufs in one IORING_REGISTER_BUFFERS call, or one by one
 * (a sparse table, one update per buffer).  Pure.
 */
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
	/* compound heads accounted: each not equal to the one just seen */
	uint64_t heads;
	/* up to 7.1: entries headpage_already_acct() reads */
	uint64_t scan_reads;
	/* 7.2+: lookups in the ring's ctx->hpage_acct */
	uint64_t ring_lookups;
};

int hb_model_register_cost(const struct hb_kmodel *km,
			   const struct hb_reg_buf *bufs, unsigned int nr_bufs,
			   enum hb_reg_calls calls, struct hb_reg_cost *cost);

/*
 * The accounting scan that makes a registration slow: 2^28 reads.  On
 * the 6.18 host one buffer of 16 KiB mTHP took 212 ms to register at
 * 2^27 reads (256 MiB) and 4.34 s at 2^31 (1 GiB), 1.6-2.0 ns a read,
 * so the bound is about half a second here, several on a slower machine.
 */
#define HB_REG_SCAN_SLOW	(1ULL << 28)
bool hb_reg_cost_slow(const struct hb_reg_cost *cost);
/*
 * The one-line warning for a slow registration (cause, scale, fixes) into
 * @buf: 1 when written, 0 when the registration is not slow, -ENOSPC.
 */
int hb_reg_cost_warning(const struct hb_reg_cost *cost, char *buf,
			size_t len);

/* Kernel memory of an imu with @nr_bvecs bvecs, and its allocation size. */
uint64_t hb_imu_bytes(const struct hb_kmodel *km, unsigned int nr_bvecs);
uint64_t hb_kvmalloc_bytes(uint64_t bytes);

/*
 * Synthetic page map for a buffer of @len bytes starting @head_offset
 * bytes into a @folio_size aligned run of folios (what an allocation of
 * that recipe produces).  @pages needs hb_nr_pages(head_offset, len)
 * entries; folio ids count from @first_folio.
 */
int hb_layout_synth(uint64_t folio_size, uint64_t head_offset, uint64_t len,
		    uint64_t first_folio, struct hb_page *pages);

/* ------------------------------------------------------------------ */
/* vectored import (pure): READV_FIXED / WRITEV_FIXED                   */
/* ------------------------------------------------------------------ */

/* What io_vec_fill_bvec() builds for the iovecs of one vectored I/O. */
struct hb_vimport {
	unsigned int nr_bvecs;	/* segments of the iterator */
	uint64_t len;		/* bytes, the sum of the iovecs */
};

/* Room hb_model_import_vec() needs in @out for these iovecs. */
uint64_t hb_import_vec_bound(const struct hb_imu *imu, const struct iovec *iov,
			     unsigned int nr);
/*
 * Model the vectored import of @nr iovecs inside @imu: -EOPNOTSUPP before
 * 6.15, -EFAULT for an iovec outside the buffer or empty, -EOVERFLOW when
 * the lengths overflow.  @out gets one bvec per folio piece (bv_offset
 * relative to the page the bvec names, as the kernel sets it).
 */
int hb_model_import_vec(const struct hb_kmodel *km, const struct hb_imu *imu,
			const struct iovec *iov, unsigned int nr,
			struct hb_bvec *out, unsigned int max_out,
			struct hb_vimport *res);

/* ------------------------------------------------------------------ */
/* passthrough mapping (pure)                                           */
/* ------------------------------------------------------------------ */

/*
 * A request queue's limits, the one struct of them: a bio split
 * (hb_split_bio(), hb_model_plain(), hb_predict_io_requests()) looks at
 * the first three, with @max_hw_bytes the largest request the split
 * makes (max_sectors_kb * 1024 on the block path, hb_blkdev_queue_limits()
 * and hb_nvme_path_limits()); blk_rq_map_user_iov() (hb_model_pt_map())
 * at all of them, with @max_hw_bytes from max_hw_sectors_kb, which a
 * passthrough request keeps (hb_pt_queue_limits() reads them from sysfs).
 * NVMe: max_hw from MDTS, max_segments 127 (6.1) or 128 (6.12) on PCIe,
 * max_segment_size 0xffffffff (a virt boundary lifts it),
 * virt_boundary_mask 4095, seg_boundary_mask 0xffffffff, dma_align_mask
 * 3.  Masks are 2^n - 1; 0 means none.
 */
struct hb_queue_limits {
	uint64_t max_hw_bytes;		/* bytes per request (see above) */
	unsigned int max_segments;
	uint64_t max_segment_size;
	uint64_t virt_boundary_mask;
	uint64_t seg_boundary_mask;
	unsigned int dma_align_mask;	/* dma_alignment | dma_pad_mask */
};
enum hb_pt_path {
	HB_PT_DIRECT,	/* the registered pages go to the device */
	HB_PT_COPY,	/* bounce buffer (bio_copy_user_iov) */
	HB_PT_EINVAL,	/* the command fails with -EINVAL */
};

struct hb_pt_map {
	enum hb_pt_path path;
	/*
	 * direct: the DMA segments (scatterlist entries blk_rq_map_sg()
	 * builds); copy: the bounce buffer's pages; einval: 0.
	 */
	unsigned int nsegs;
	/*
	 * direct: what the request records in nr_phys_segments; 6.1 takes
	 * the iterator's nr_segs (an over-estimate), 6.12 the split walk's
	 * count.  Fewer than @nsegs means the driver's table is too small
	 * (the gap be0e822bb3f5 closed).
	 */
	unsigned int nr_phys_segments;
	/*
	 * copy: the bounce pages are more than max_segments, so appending
	 * them to the request fails (-EINVAL) unless the page allocator
	 * happens to return physically contiguous pages.
	 */
	bool bounce_over_limits;
	/* short static reason, e.g. "virt boundary gap between bvecs (copy)" */
	const char *why;
};

/*
 * Model what NVMe passthrough (IORING_OP_URING_CMD with
 * IORING_URING_CMD_FIXED) does with an I/O of @len bytes at @addr of the
 * registered buffer @imu under @km and the queue limits @lim: the import
 * is hb_model_import() (-EFAULT outside the buffer, as there), then
 * blk_rq_map_user_iov() by the rules of @km (pt_split_check,
 * pt_old_bvec_checks).  Passthrough requests are never split.  0 with
 * @out filled in, or -errno for bad arguments.
 */
int hb_model_pt_map(const struct hb_kmodel *km, const struct hb_imu *imu,
		    uint64_t addr, uint64_t len,
		    const struct hb_queue_limits *lim, struct hb_pt_map *out);
/* "direct", "copy", "einval" */
const char *hb_pt_path_name(enum hb_pt_path p);

/* ------------------------------------------------------------------ */
/* the block layer: plain O_DIRECT and bio splits (pure)              */
/* ------------------------------------------------------------------ */

/*
 * Pure: block requests one bio carrying all of @imu's bvecs is split into
 * (bio_split_rw_at): at most @max_bytes (max_sectors_kb * 1024) and
 * @max_segs segments per request, each bvec at least one segment and
 * bvecs over @max_seg_size several.  0 on bad arguments.
 */
unsigned int hb_predict_requests(const struct hb_imu *imu, uint64_t max_bytes,
				 unsigned int max_segs, uint64_t max_seg_size);

/*
 * One plain (not registered) O_DIRECT I/O on a block device, as the block
 * layer builds it (hb_model_plain()): the bios, and the calls of the
 * functions kernel/probe/bio-profile counts.
 */
struct hb_plain_pred {
	unsigned int bios;	/* bios, one bio_iov_iter_get_pages() each */
	unsigned int batches;	/* page batches, __bio_iov_iter_get_pages() */
	unsigned int adds;	/* pages (or folio runs) added */
	unsigned int merge_tests; /* calls of the kernel's merge test */
	unsigned int bvecs;	/* adds that started a new bvec */
	unsigned int same_page;	/* merges into a page the bio already holds */
	unsigned int releases;	/* per-folio releases when the bios end */
	unsigned int requests;	/* device requests; 0 without queue limits */
	unsigned int max_bvecs;	/* bvecs of the bio with the most */
};

/*
 * Model the plain O_DIRECT path for the @nr_iov iovecs @iov, which lie in
 * the buffer [@base, @base + @span) whose pages are @pages
 * (hb_nr_pages(@base, @span) entries).  @pfn gives each page's PFN (from
 * hb_probe(); NULL for a synthetic layout: pages of one folio contiguous,
 * folios never physically adjacent).  @q, when not NULL, gives the queue
 * limits the requests are split by.  Every iovec must be 512-byte aligned
 * in address and length (O_DIRECT).  Pure.
 */
int hb_model_plain(const struct hb_kmodel *km, const struct hb_page *pages,
		   const uint64_t *pfn, uint64_t base, uint64_t span,
		   const struct iovec *iov, unsigned int nr_iov,
		   const struct hb_queue_limits *q, struct hb_plain_pred *out);

/*
 * The figures of struct hb_plain_pred a counted call stands for.
 * HB_PLAIN_UNPINS is unpin_user_folio() on 6.12+: one per folio release
 * and one per same-page merge (bio_iov_add_folio() drops the extra pin).
 */
enum hb_plain_field {
	HB_PLAIN_BIOS,
	HB_PLAIN_BATCHES,
	HB_PLAIN_ADDS,
	HB_PLAIN_MERGE_TESTS,
	HB_PLAIN_BVECS,
	HB_PLAIN_UNPINS,
	HB_PLAIN_REQUESTS,
};
uint64_t hb_plain_figure(const struct hb_plain_pred *p, enum hb_plain_field f);
/*
 * The verdict on one counted figure of a plain I/O: @counted is the
 * minimum over windows of one I/O each (other I/O only adds), so it must
 * be the prediction exactly (lib/model/verdict.c).  A count that can lag its
 * I/O breaks that premise: the disk's statistics count a request after
 * its bios complete the I/O, so kernel/probe/ counts requests where they
 * are made (nvme_setup_cmd()) instead.
 */
bool hb_plain_count_matches(const struct hb_plain_pred *p,
			    enum hb_plain_field f, uint64_t counted);

/*
 * One bio's split (bio_split_rw_at(), as hb_predict_requests()): its
 * requests, and the last one's bytes and segments, which a following bio
 * may join (hb_model_plain()).  -1 on bad arguments.  Pure.
 */
struct hb_bio_split {
	unsigned int requests;
	uint64_t last_bytes;
	unsigned int last_segs;
};
int hb_split_bio(const struct hb_imu *imu, const struct hb_queue_limits *q,
		 struct hb_bio_split *out);
/*
 * The same split, each request's bytes and its nr_phys_segments (the
 * segments the split counted for it, which blk_rq_bio_prep() stores) in
 * @reqs[0 .. @max_reqs - 1]; requests past @max_reqs are counted in
 * @out->requests but not stored.  @reqs may be NULL (then hb_split_bio()).
 */
struct hb_split_req {
	uint64_t bytes;
	unsigned int nr_phys_segments;
};
int hb_split_bio_reqs(const struct hb_imu *imu, const struct hb_queue_limits *q,
		      struct hb_bio_split *out, struct hb_split_req *reqs,
		      unsigned int max_reqs);

/* Device requests one I/O makes: modelled, and under each hypothesis. */
struct hb_req_pred {
	unsigned int model, none, multi;
};

/* ------------------------------------------------------------------ */
/* the verdict: did the kernel coalesce, as the model says? (verdict.c) */
/* ------------------------------------------------------------------ */

/* kernel memory figures are within max(prediction / 4, this) (kB) */
#define HB_KMEM_SLACK_KB	256

/*
 * One measured figure of a registration beside its predictions under the
 * running kernel's model and the two hypotheses: block requests per I/O
 * (exact: the minimum over rounds) or kernel memory in kB.
 */
struct hb_signal {
	bool done;		/* measured */
	double measured;
	double model, none, multi;
};

struct hb_coalesce_evidence {
	/* the pages have folios above 4 KiB: there is something to coalesce */
	bool can_coalesce;
	struct hb_signal requests;
	struct hb_signal kmem;
};

struct hb_coalesce_verdict {
	int coalesced;		/* 1 yes, 0 no, -1 unknown */
	bool matches_model;	/* every measured figure as the model says */
	unsigned int signals;	/* figures measured (0: nothing checked) */
	const char *decided_by;	/* "block requests", "kernel memory", ... */
};

/*
 * The one rule (lib/model/verdict.c): block requests must be their prediction
 * exactly; kernel memory within hb_kmem_near() of it.  Block requests
 * decide coalescing when their hypotheses differ, else kernel memory.
 */
void hb_coalesce_verdict(const struct hb_coalesce_evidence *e,
			 struct hb_coalesce_verdict *v);
bool hb_kmem_near(double measured_kb, double predicted_kb);
/*
 * A SEND_ZC's bytes in flight per byte of sk_wmem_queued, @ratio, against
 * @ratio_4k, the same send's from 4 KiB pages, as hb_model_sendzc_overcharge()
 * says (@overcharge): far below it when fragments are over-charged,
 * near it when not (the bounds in verdict.c).
 */
bool hb_sendzc_ratio_matches(bool overcharge, double ratio, double ratio_4k);
/* "yes", "no", "unknown" for 1, 0, -1 */
const char *hb_tristate_name(int v);
/*
 * A job's block requests per I/O from its device counters over the whole
 * job: @reads over @ios I/Os of one size.  Other I/O on the device only
 * adds requests, so the job's own count is at most reads / ios, rounded
 * down; that integer is the figure the verdict takes, and *@other the
 * reads it leaves to other I/O (lib/model/verdict.c).
 */
unsigned int hb_job_requests_per_io(uint64_t reads, uint64_t ios,
				    uint64_t *other);
/*
 * One sentence on what can make buffers of @folio_size, @buffer_len bytes
 * from @head_offset into their first folio coalesce where the model @km
 * says they do not (a kernel series, a newer kernel, fixedbufs=0, another
 * backing): the engine's coalesce_check messages, its report and
 * hugebuf check print it.
 */
const char *hb_coalesce_advice(const struct hb_kmodel *km,
			       uint64_t folio_size, uint64_t head_offset,
			       uint64_t buffer_len);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_MODEL_H */
