/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf: hugepage-backed io_uring fixed buffers.
 *
 * This header is the whole public API of lib/.  Everything returns 0 (or a
 * count) on success and -errno on failure; a failing call also leaves a
 * one-line, actionable message in hb_errmsg() (cause and fix).
 *
 * The kernel model (hb_model_*) is pure: arrays in, tables out, no system
 * calls.  It mirrors io_uring/rsrc.c of the kernel generation it is asked
 * to model (see lib/model.c for the rules and the kernel commits).
 *
 * lib/ is a one-way stack (t/lib-layers.sh checks the objects): the
 * readers of /proc and /sys (sysinfo, pagemap, filelimits, numa) and the
 * pure model (model, kmodel, account, ptmap, vimport, layout, predict,
 * verdict, ringfeat) at the bottom; backings, registration, measurement,
 * the probes (of pages and of io_uring features), the preflight and the
 * allocator above them; analysis, the report and
 * the kernel's detection (hb_kmodel_running()) on top.  No file calls a
 * layer above its own.
 */
#ifndef HUGEBUF_H
#define HUGEBUF_H

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
/* errors                                                              */
/* ------------------------------------------------------------------ */

/* The message left by the last failing hb_ call of this thread. */
const char *hb_errmsg(void);
/* Set the thread's message (printf style); returns -err for chaining. */
int hb_seterr(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ------------------------------------------------------------------ */
/* parsing helpers shared by the CLI and the engine                     */
/* ------------------------------------------------------------------ */

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
	/*
	 * The bvec array is an allocation of its own (kvmalloc_array() of
	 * 16-byte bio_vecs) and the imu header sits in the ring's table of
	 * imus, so a buffer costs 16 bytes per bvec and no header: before
	 * 41edf1a5ec96 (5.13), and in 5.10.y before 788d0824269b (5.10.162
	 * took 5.15's io_uring).
	 */
	bool imu_bvecs_apart;
	/*
	 * A fixed-buffer I/O's bio is built by adding the imu's bvecs one at
	 * a time with bio_add_page() (__bio_iov_bvec_add_pages(), 5.10's
	 * block/bio.c): physically contiguous pages merge into one bvec, a
	 * bio holds at most 256 (BIO_MAX_PAGES) and a long I/O is several
	 * bios, each split on its own, as on the plain path (lib/plain.c).
	 * Since c42bca92be92 (5.12) bio_iov_bvec_set() hands the bio the
	 * imu's bvecs as they are.
	 */
	bool fixed_bio_add_page;
	/* io_import_fixed computes an exact nr_segs (6.15, 80c7378f94cf) */
	bool exact_nr_segs;
	/* ctx->imu_cache serves imus of <= this many bvecs (0: no cache) */
	unsigned int imu_cache_bvecs;
	/*
	 * io_pin_pages() walks the buffer's VMAs itself (before 6.5): a buffer
	 * over VMAs of different files, such as a hugetlb page next to
	 * anonymous memory, is -EINVAL (edd478269640, also in 6.1.y), and a
	 * hole after pinned pages can come back as -EINVAL too.
	 */
	bool pin_checks_vmas;
	/*
	 * A coalesced bvec[0] keeps the page pinned for the first byte with
	 * an in-page offset (6.3's single-folio way, our 6.1 backport)
	 * instead of the folio's head page with the offset in the folio.
	 * The same bytes either way; only bv_page/bv_offset differ.
	 */
	bool first_bvec_pinned_page;
	/*
	 * io_sqe_buffers_register() publishes each buffer in the ring's table
	 * inside its loop (up to 6.12), so headpage_already_acct() finds a
	 * hugepage charged by an earlier buffer of the same call; since the
	 * 6.13 table rework (3597f2786b68) only the previous head (last_hpage)
	 * is deduplicated within one call.
	 */
	bool acct_batch_dedup;
	/*
	 * 7.2's per-ring hugepage accounting ("io_uring/rsrc: add huge page
	 * accounting for registered buffers"): the ring counts references to
	 * each compound head in ctx->hpage_acct (hpage_acct_ref(),
	 * hpage_acct_unref()), so a hugepage is charged once per ring however
	 * many buffers, calls or clones hold it, and un-charged with its last
	 * reference; imu->acct_pages, headpage_already_acct() and last_hpage
	 * are gone.  Read in 7.2.13's io_uring/rsrc.c; absent from the BTF of
	 * Debian's 7.1.13 image, present in 7.2.12's.
	 */
	bool acct_per_ring;
	/*
	 * VmPin (mm->pinned_vm) is charged only to a ring that has ctx->user,
	 * i.e. one created without CAP_IPC_LOCK (io_buffer_account_pin()
	 * returns early otherwise): seen in 7.2.13's io_uring/rsrc.c and its
	 * guest, part of the same change as acct_per_ring; the 6.18 host
	 * charges every ring.
	 */
	bool vmpin_needs_user;
	/* IORING_OP_READV_FIXED / WRITEV_FIXED exist (6.15, 9ef4cbbcb4ac) */
	bool vec_fixed;
	/*
	 * The vectored import takes each iovec's offset from bvec[0]'s
	 * bv_offset (e1d7727b73a1, 6.16 and 6.15.y), not from the user
	 * address masked to the folio size.
	 */
	bool vec_offset_from_bvec;
	/*
	 * Historical io_import_fixed() quirks of 6.3's hand-coded advance
	 * (b000ae0ec2d7); lib/kmodel.c names the releases that fixed them.
	 * An I/O starting exactly at bvec[0]'s end stays in bvec[0] with an
	 * empty first segment ("offset <= bv_len", fixed by d6fef34ee4d1):
	 */
	bool import_offset_le_bvlen;
	/* nr_segs = bvec[0].bv_len for an I/O inside bvec[0] (a23800f08a60) */
	bool import_nr_segs_bvlen;
	/*
	 * 6.3.0/6.3.1: one bvec for any buffer inside one folio, consecutive
	 * pages or not (CVE-2023-2598, fixed by 776617db78c6).
	 */
	bool coalesce_nonconsecutive;
	/*
	 * NVMe passthrough with a fixed buffer (blk_rq_map_user_bvec(), see
	 * hb_model_pt_map() and lib/kmodel.c for the releases): the bvecs are
	 * checked by bio_split_rw_at() against every queue limit, trimmed to
	 * the I/O (be0e822bb3f5, 6.12; 6.11.8).  Without it, the 6.1 walk:
	 * max_segments against the iterator's nr_segs, whole bvecs, virt
	 * boundary gaps only.
	 */
	bool pt_split_check;
	/*
	 * Before 2ff949441802 (6.12; 6.11.7, 6.6.60, 6.1.116) that walk also
	 * refused, with -EINVAL, a bvec over a page boundary and whole bvecs
	 * adding up to more than the I/O: only an I/O from a bvec's start to
	 * the buffer's end could be mapped directly.
	 */
	bool pt_old_bvec_checks;
	/*
	 * Plain O_DIRECT (bio_iov_iter_get_pages(), no registered buffer)
	 * adds a physically contiguous run of one folio with one call
	 * (ed9832bc08db, 6.12; 6.1 with kernel/patches/0004) instead of one
	 * 4 KiB page at a time (docs/kernel-rules.md §9.2).
	 */
	bool plain_folio_runs;
	/*
	 * The plain path's merge test runs for every add, the first of a bio
	 * too (__bio_try_merge_page(), before 6.5), not only when the bio
	 * already has a bvec (bvec_try_merge_page(), 6.5 and later).
	 */
	bool plain_merge_test_first;
	/*
	 * Each folio run of a plain I/O is a bvec of its own: no merge test,
	 * no merge with the bvec before it, one release per bvec (7.x:
	 * bio_iov_iter_get_pages() fills the bvecs in iov_iter_extract_bvecs();
	 * read in 7.2's source and measured in its guest; 6.18 still merges).
	 */
	bool plain_bvec_per_run;
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
 * takes every one): a release of each set of rules in lib/kmodel.c, in
 * order, and "6.1+hugebuf".  Sets *@names to the list; returns its length.
 * The tests hold the model to every entry.
 */
unsigned int hb_kmodel_known(const char *const **names);
/*
 * What the running kernel is (lib/kdetect.c): the model its version gives
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
 * head; see lib/account.c for the per-generation dedup.)  The same as one
 * HB_ACCT_REGISTER of hb_model_account_ops().
 */
int hb_model_account(const struct hb_kmodel *km, const struct hb_page *pages,
		     const unsigned int *buf_pages, unsigned int nr_bufs,
		     uint64_t *charged_bytes);
/*
 * One process's registrations over time, ring by ring (a pure model of
 * io_sqe_buffers_register(), io_sqe_buffers_update(), io_clone_buffers()
 * and io_buffer_unmap(); lib/account.c).  Every ring is created by the
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
/* system information                                                   */
/* ------------------------------------------------------------------ */

#define HB_MAX_POOLS	8
/* NUMA nodes reported and checked (bits of a uint64_t mask) */
#define HB_MAX_NODES	64
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

/*
 * Read what the system offers (the bottom layer: /proc and /sys only).
 * The kernel's coalescing model is not a fact read here: ask
 * hb_kmodel_running() for it.
 */
int hb_sysinfo_read(struct hb_sysinfo *si);
/* The pool of @page_size, or NULL. */
const struct hb_pool *hb_sysinfo_pool(const struct hb_sysinfo *si,
				      uint64_t page_size);
/* Whether an mTHP size can be had with MADV_HUGEPAGE right now. */
bool hb_mthp_usable(const struct hb_sysinfo *si, uint64_t size);

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
/* readers: /proc (lib/sysinfo.c) and block devices in /sys (blkdev.c) */
/* ------------------------------------------------------------------ */

/* VmPin of this process in KiB, or -errno. */
long hb_vmpin_kb(void);
/* SUnreclaim + VmallocUsed in KiB, or -errno. */
long hb_kernel_mem_kb(void);
/* Free pages in the pool of @page_size, or -errno. */
long hb_hugepages_free(uint64_t page_size);
/*
 * The whole-disk block device (e.g. "vda") under the file system holding
 * @path (or its directory, when @path does not exist yet), for
 * /sys/block/<dev>/stat.
 */
int hb_blkdev_of_path(const char *path, char *dev, size_t len);
/* Reads completed (field 1) / writes completed (field 5) of @dev. */
int hb_blkdev_ios(const char *dev, uint64_t *reads, uint64_t *writes);
/* max_sectors_kb (as bytes), max_segments, max_segment_size of @dev. */
int hb_blkdev_queue_limits(const char *dev, uint64_t *max_bytes,
			   unsigned int *max_segs, uint64_t *max_seg_size);
/*
 * Not pure: the passthrough limits of @blkdev (e.g. "nvme0n1") from
 * /sys/block/<dev>/queue/: max_hw_sectors_kb (required), max_segments,
 * max_segment_size, virt_boundary_mask, dma_alignment.  A missing optional
 * attribute takes the kernel's default (128, 65536, 0, 511).  The segment
 * boundary is not in sysfs: 0xffffffff, the default (NVMe keeps it), is
 * assumed; dma_pad_mask neither: 0 (NVMe sets none).
 */
struct hb_pt_limits;
int hb_pt_queue_limits(const char *blkdev, struct hb_pt_limits *lim);
/*
 * The block device of an NVMe generic char device: /dev/ngXnY (or a link
 * to it) -> "nvmeXnY", whose /sys/block/<dev>/queue has the namespace's
 * limits.  -EINVAL when the name is not ngXnY.
 */
int hb_nvme_ng_blkdev(const char *path, char *blkdev, size_t len);
/*
 * Not pure: the limits one I/O path of NVMe namespace @blkdev is held to,
 * for hb_model_iommu_io(): hb_pt_queue_limits(), whose max_hw_bytes a
 * passthrough request keeps (never split), and for the block path
 * (@pt false) max_sectors_kb in its place, where a bio is split.
 */
int hb_nvme_path_limits(const char *blkdev, bool pt,
			struct hb_pt_limits *lim);

/* ------------------------------------------------------------------ */
/* measurement: block requests and kernel memory of registrations      */
/* ------------------------------------------------------------------ */

struct io_uring;
struct hb_imu;

/*
 * Minimum over @tries of the reads completed on @dev for one O_DIRECT
 * READ_FIXED (@fixed, registered buffer @buf_index) or plain READ of @len
 * bytes at @file_off into @addr.  @fd must be open with O_DIRECT.
 */
int hb_count_read_requests(struct io_uring *ring, int fd, bool fixed,
			   int buf_index, void *addr, uint64_t len,
			   uint64_t file_off, const char *dev,
			   unsigned int tries, uint64_t *min_reqs);
/*
 * Register [addr, addr+len) @k times in one call, report the change of
 * SUnreclaim + VmallocUsed in KiB, unregister.  The ring must have no
 * buffers registered.
 */
int hb_measure_reg_kmem(struct io_uring *ring, void *addr, uint64_t len,
			unsigned int k, long *delta_kb);
/*
 * Pure: block requests one bio carrying all of @imu's bvecs is split into
 * (bio_split_rw_at): at most @max_bytes (max_sectors_kb * 1024) and
 * @max_segs segments per request, each bvec at least one segment and
 * bvecs over @max_seg_size several.  0 on bad arguments.
 */
unsigned int hb_predict_requests(const struct hb_imu *imu, uint64_t max_bytes,
				 unsigned int max_segs, uint64_t max_seg_size);

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
 * The queue limits blk_rq_map_user_iov() looks at (hb_pt_queue_limits()
 * reads them from sysfs).  NVMe: max_hw from MDTS, max_segments 127 (6.1)
 * or 128 (6.12) on PCIe, max_segment_size 0xffffffff (a virt boundary
 * lifts it), virt_boundary_mask 4095, seg_boundary_mask 0xffffffff,
 * dma_align_mask 3.  Masks are 2^n - 1; 0 means none.
 */
struct hb_pt_limits {
	uint64_t max_hw_bytes;		/* max_hw_sectors_kb * 1024 */
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
		    uint64_t addr, uint64_t len, const struct hb_pt_limits *lim,
		    struct hb_pt_map *out);
/* "direct", "copy", "einval" */
const char *hb_pt_path_name(enum hb_pt_path p);

/* ------------------------------------------------------------------ */
/* IOMMU mapping (pure)                                                 */
/* ------------------------------------------------------------------ */

/*
 * The DMA-mapping work one registered-buffer I/O makes an NVMe PCIe
 * controller behind an Intel IOMMU do, with dma-iommu as the DMA API
 * (6.1, 6.12 and 7.3; lib/iommu.c names each kernel function modelled and
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
		      const struct hb_pt_limits *lim,
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
 * (lib/verdict.c).
 */
bool hb_iommu_count_matches(const struct hb_iommu_pred *p,
			    const struct hb_iommu_cfg *c,
			    enum hb_iommu_field f, uint64_t counted);

/* ------------------------------------------------------------------ */
/* NUMA: where the folios are, and what a binding policy can have      */
/* ------------------------------------------------------------------ */

/* The calling thread's memory policy (get_mempolicy). */
struct hb_numa_policy {
	bool bind;		/* MPOL_BIND: pages only from @nodes */
	uint64_t nodes;		/* bit n = node n */
};

int hb_numa_policy(struct hb_numa_policy *p);
/*
 * Under MPOL_BIND the bound nodes' free hugepages must cover @map_len;
 * the message names the node and its knob.  0 for other policies.
 */
int hb_check_pool_policy(const struct hb_numa_policy *pol, uint64_t page_size,
			 uint64_t map_len);
/*
 * The node of every folio the probe saw (move_pages without moving):
 * @folios_per_node has HB_MAX_NODES counters, *@nr_nodes nodes were seen.
 */
int hb_numa_nodes(const struct hb_probe *p, uint32_t *folios_per_node,
		  unsigned int *nr_nodes);

/* ------------------------------------------------------------------ */
/* file limits: direct and atomic I/O (statx)                           */
/* ------------------------------------------------------------------ */

struct hb_file_limits {
	bool dio_known;			/* STATX_DIOALIGN answered (6.1+) */
	unsigned int dio_mem_align;	/* buffer address alignment */
	unsigned int dio_offset_align;	/* file offset / length alignment */
	bool atomic;			/* RWF_ATOMIC writes possible */
	unsigned int atomic_unit_min, atomic_unit_max;
	unsigned int atomic_segments_max;
};

int hb_file_limits(const char *path, struct hb_file_limits *l);
/* Whether one RWF_ATOMIC write of @len at @file_off in @nr_segs fits. */
int hb_check_atomic_write(const struct hb_file_limits *l, uint64_t len,
			  uint64_t file_off, unsigned int nr_segs);

/* ------------------------------------------------------------------ */
/* layout: where the I/O buffers sit in one mapping                     */
/* ------------------------------------------------------------------ */

/*
 * Distance between I/O slots for a largest block of @max_bs: rounded up
 * to the folio size, or (below a folio) to a power of two, which divides
 * the folio, so no buffer straddles a folio it does not need.
 */
uint64_t hb_slot_stride(const struct hb_backing *b, uint64_t max_bs);
/* Slots per registered region: as many as fit 1 GiB, at most @nr_slots */
unsigned int hb_slots_per_region(uint64_t stride, unsigned int nr_slots);
/*
 * The iovecs that cover @nr_slots slots @stride apart, each @slot_len
 * long, @per_iov slots to an iovec (1: one buffer per slot, as fio's
 * io_uring engine registers them).  iov_base = @base + offset, so base 0
 * gives offsets for a plan.  *iov is malloc'd.
 */
int hb_slot_iovecs(uintptr_t base, unsigned int nr_slots, uint64_t stride,
		   uint64_t slot_len, unsigned int per_iov, struct iovec **iov,
		   unsigned int *nr);

/*
 * Cut [@addr, @addr + @len) into at most @n contiguous iovecs for one
 * vectored I/O: cut k sits at k * len / n rounded down to @align, moved
 * @shift bytes on (so cuts can start inside folios instead of on their
 * boundaries), and cuts that would leave an empty iovec are dropped.
 * Returns the number of iovecs written to @iov (at least 1).
 */
unsigned int hb_vec_split(void *addr, uint64_t len, unsigned int n,
			  uint64_t shift, unsigned int align, struct iovec *iov);

/* ------------------------------------------------------------------ */
/* pagemap: the one decoder of /proc/self/pagemap entries               */
/* ------------------------------------------------------------------ */

/* Open /proc/self/pagemap (O_CLOEXEC); fd or -errno with a message. */
int hb_pagemap_open(void);
/* Read the raw entries of @nr pages from @vaddr (page aligned down). */
int hb_pagemap_read(int fd, uint64_t vaddr, unsigned int nr, uint64_t *ent);
bool hb_pagemap_present(uint64_t entry);
/* The PFN of a present entry; 0 when absent or hidden (no CAP_SYS_ADMIN) */
uint64_t hb_pagemap_pfn(uint64_t entry);
/* PFN of the page holding @addr, 0 when unknown. */
uint64_t hb_pfn_of(const void *addr);

/* ------------------------------------------------------------------ */
/* preflight: what a buffer plan needs, checked before allocating       */
/* ------------------------------------------------------------------ */

/*
 * A buffer plan: one mapping of @backing holding @nr_iov buffers.  The
 * iovecs' iov_base are OFFSETS from the start of the mapping (which
 * hb_alloc() aligns to hb_backing_align()), not addresses.
 */
struct hb_plan {
	struct hb_backing backing;
	uint64_t map_len;		/* hb_map_len() of the allocation */
	const struct iovec *iov;	/* buffers, as offsets into the map */
	unsigned int nr_iov;
	bool registered;		/* registered with io_uring (fixed) */
};

/* Bytes hb_alloc() maps for @len bytes at @head_offset: whole folios. */
uint64_t hb_map_len(const struct hb_backing *b, uint64_t len,
		    uint64_t head_offset);
/* The knob that sizes the pool of @page_size (procfs for the default). */
void hb_pool_knob(uint64_t page_size, char *path, size_t len);
/*
 * Small checks, each named for its rule; 0 or -errno and one line in
 * hb_errmsg() naming the cause and the fix.
 */
int hb_check_pool(const struct hb_sysinfo *si, uint64_t page_size,
		  uint64_t map_len);
/* The kernel offers hugetlb pages of @page_size at all. */
int hb_check_hugepage_size(uint64_t page_size);
int hb_check_thp(const struct hb_sysinfo *si);
int hb_check_mthp(const struct hb_sysinfo *si, uint64_t size);
int hb_check_memlock(const struct hb_sysinfo *si, uint64_t charged_bytes);
/*
 * What registering the plan's buffers charges to RLIMIT_MEMLOCK under
 * @km (the accounting model over the pages the plan's layout pins).
 */
int hb_plan_charge(const struct hb_kmodel *km, const struct hb_plan *plan,
		   uint64_t *charged_bytes);
/* What the backing needs: pool (and NUMA policy), THP or mTHP. */
int hb_preflight_resources(const struct hb_sysinfo *si,
			   const struct hb_plan *plan);
/* Every check the plan needs: resources, then memlock when registered. */
int hb_preflight(const struct hb_sysinfo *si, const struct hb_kmodel *km,
		 const struct hb_plan *plan);
/*
 * O_DIRECT alignment for I/O on @path (or its directory): what statx's
 * STATX_DIOALIGN says (the larger of the memory and offset alignments),
 * else the logical block size of the device under it, else 512.  Buffer
 * addresses, offsets and lengths of direct I/O must be multiples of it.
 */
unsigned int hb_dio_align(const char *path);
/* @what (e.g. "head_offset") = @value must be a multiple of @align. */
int hb_check_dio_multiple(const char *what, uint64_t value,
			  unsigned int align);

/* ------------------------------------------------------------------ */
/* analysis: probe + model + statistics over a set of buffers          */
/* ------------------------------------------------------------------ */

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

/* A block device's split limits (hb_blkdev_queue_limits()). */
struct hb_queue_limits {
	uint64_t max_bytes;		/* max_sectors_kb * 1024 */
	unsigned int max_segs;
	uint64_t max_seg;		/* max_segment_size */
};

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
 * be the prediction exactly (lib/verdict.c).  A count that can lag its
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
 * The one rule (lib/verdict.c): block requests must be their prediction
 * exactly; kernel memory within hb_kmem_near() of it.  Block requests
 * decide coalescing when their hypotheses differ, else kernel memory.
 */
void hb_coalesce_verdict(const struct hb_coalesce_evidence *e,
			 struct hb_coalesce_verdict *v);
bool hb_kmem_near(double measured_kb, double predicted_kb);
/* "yes", "no", "unknown" for 1, 0, -1 */
const char *hb_tristate_name(int v);
/*
 * A job's block requests per I/O from its device counters over the whole
 * job: @reads over @ios I/Os of one size.  Other I/O on the device only
 * adds requests, so the job's own count is at most reads / ios, rounded
 * down; that integer is the figure the verdict takes, and *@other the
 * reads it leaves to other I/O (lib/verdict.c).
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

/* ------------------------------------------------------------------ */
/* json: a growing string and the JSON writer over it (lib/json.c)      */
/* ------------------------------------------------------------------ */

/* A growing string (malloc'd); on allocation failure it stays short. */
struct hb_str {
	char *s;
	size_t len, cap;
	bool oom;
};

void hb_str_init(struct hb_str *b);
void hb_str_free(struct hb_str *b);
void hb_str_printf(struct hb_str *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A JSON string literal for @s: quotes, escapes, UTF-8 kept as is. */
void hb_str_json(struct hb_str *b, const char *s);

/*
 * A JSON document member by member into an hb_str: commas and closing
 * brackets are tracked per level.  @key is the member's name inside an
 * object and NULL at the top or inside an array; strings go through
 * hb_str_json().  Members are separated by ", " and keys by ": " (by ","
 * and ":" after hb_json_init_compact(), the report_json lines).  A
 * misuse (a key where none belongs, an unbalanced end, nesting deeper than
 * HB_JSON_MAX_DEPTH, a second top-level value) stops the output:
 * hb_json_ok() is false then, and also after an allocation failure.
 */
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
/* Close the innermost object or array. */
void hb_json_end(struct hb_json *j);
void hb_json_str(struct hb_json *j, const char *key, const char *val);
void hb_json_u64(struct hb_json *j, const char *key, uint64_t val);
void hb_json_i64(struct hb_json *j, const char *key, int64_t val);
/* @val with @decimals digits after the point; null when not finite */
void hb_json_fixed(struct hb_json *j, const char *key, double val,
		   unsigned int decimals);
void hb_json_bool(struct hb_json *j, const char *key, bool val);
/* null, false, true for @val < 0, 0, > 0 (a tristate) */
void hb_json_tri(struct hb_json *j, const char *key, int val);
void hb_json_null(struct hb_json *j, const char *key);
/* One complete, balanced value was written and nothing was lost. */
bool hb_json_ok(const struct hb_json *j);

/* ------------------------------------------------------------------ */
/* report: one writer for text and JSON, the JSON through hb_json      */
/* ------------------------------------------------------------------ */

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
	const struct hb_pt_limits *lim;	/* NULL: not known */
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

/* ------------------------------------------------------------------ */
/* registration helpers over liburing                                   */
/* ------------------------------------------------------------------ */

struct io_uring;

/*
 * io_uring_register_buffers() with every errno turned into a message:
 * ENOMEM = RLIMIT_MEMLOCK (ulimit -l), EFAULT = over 1 GiB, zero length or
 * file-backed memory, EOVERFLOW = address wrap, EINVAL = too many buffers.
 */
int hb_register_buffers(struct io_uring *ring, const struct iovec *iov,
			unsigned int nr);
/*
 * Register a sparse table of @nr slots, then fill slots with updates.
 * Where the kernel has no sparse flag (before 5.19) the table is @nr
 * empty iovecs (NULL, 0), which 5.13+ and 5.10.162+ take as empty slots.
 */
int hb_register_sparse(struct io_uring *ring, unsigned int nr);
int hb_register_update(struct io_uring *ring, unsigned int off,
		       const struct iovec *iov, unsigned int nr);
/* The message for a registration errno (negative or positive). */
const char *hb_register_strerror(int err);

/* ------------------------------------------------------------------ */
/* job plan: one I/O job's buffers and options, checked whole          */
/* ------------------------------------------------------------------ */

/* longest job name a shared (clone_buffers) table is found by, with NUL */
#define HB_JOB_NAME_MAX		128
/* most SQEs one I/O may be split into by chunk_size */
#define HB_JOB_MAX_PIECES	4096

enum hb_job_layout {
	HB_JOB_PER_IO = 0,	/* one registered buffer per I/O slot */
	HB_JOB_REGION,		/* slots carved from <= 1 GiB regions */
};

enum hb_job_clone {
	HB_JOB_CLONE_OFF = 0,
	HB_JOB_CLONE_SPLIT,	/* one registered table, a slice per job */
	HB_JOB_CLONE_SAME,	/* one table, all jobs on the same buffers */
};

/*
 * A job's buffer plan, in lib's words: what the engine translated from
 * its framework's options (fio's names appear only in the messages,
 * which name the option the user wrote).  The caller fills the inputs;
 * hb_jobplan_check() checks them whole and fills the results.
 */
struct hb_jobplan {
	/* --- inputs --- */
	/* backing= and hugepage_size= as written (NULL or "": unset) */
	const char *backing;
	const char *hugepage_size;
	/* fio's hugepage-size when the job sets it, else 0 */
	uint64_t fw_hugepage_size;
	/*
	 * fio's mem=, already in lib's words: @mem_name as written
	 * ("shmhuge", "mmaphuge:/mnt/f"; NULL: mem= not set), @mem_kind the
	 * backing it means ("4k", "shm", "hugetlb", "hugetlbfs:PATH") and
	 * @mem_page_size the hugepage size it takes (0: none).  A mem= that
	 * has no backing here comes with @mem_refused, its one line.
	 */
	const char *mem_name;
	const char *mem_kind;
	uint64_t mem_page_size;
	const char *mem_refused;
	uint64_t head_offset;		/* head_offset= (may be "negative") */
	unsigned int mem_align;		/* fio's iomem_align, 0: unset */
	unsigned int depth;		/* iodepth: I/O slots */
	uint64_t max_bs;		/* the largest block of any direction */
	uint64_t min_len;		/* bytes the framework's carving needs */
	enum hb_job_layout layout;
	bool fixedbufs;
	bool direct;			/* O_DIRECT */
	const char *const *files;	/* the job's files, @nr_files of them */
	unsigned int nr_files, open_files;
	bool registerfiles;
	unsigned int vec_iovecs;
	uint64_t vec_offset;
	uint64_t chunk_size;		/* 0: off (may be "negative") */
	enum hb_job_clone clone;
	bool threads;			/* the jobs share one process */
	bool verify;
	const char *job_name;
	const char *cmd_type;		/* NULL/"": by the files, "nvme", "none" */
	bool atomic_writes, uncached, nowait;
	/*
	 * fio 3.41's NVMe command variants (readfua, writefua, write_mode,
	 * verify_mode, deac, md_per_io_size): what the job asks for beyond
	 * plain Read and Write of data (@write_mode NULL: Write)
	 */
	bool read_fua, write_fua, verify_compare, deac;
	const char *write_mode;
	unsigned int md_per_io_size;

	/* --- results (valid when the check returned 0) --- */
	struct hb_kmodel km;		/* the running kernel's model */
	struct hb_backing b;		/* the backing to allocate */
	uint64_t head;			/* bytes into the first folio */
	uint64_t stride;		/* hb_slot_stride() */
	unsigned int slots_per_region;
	unsigned int nr_iovecs;		/* registered buffers */
	unsigned int max_pieces;	/* SQEs per I/O (chunk_size) */
	unsigned int dio_align;		/* direct: the strictest file's */
	uint64_t len;			/* bytes to allocate at @head */
	bool passthrough;		/* NVMe commands (cmd_type=nvme) */
	/* passthrough with direct=1: worth a note (set even on failure) */
	bool pt_direct_ignored;
};

/*
 * Check a job's plan whole: options that contradict each other or the
 * kernel's limits, the backing, the layout, and what allocating and
 * registering it needs (hb_preflight()).  0 with the results filled in,
 * or -errno and one line in hb_errmsg() naming the cause and the fix.
 * Nothing is allocated or pinned.
 */
int hb_jobplan_check(struct hb_jobplan *p);
/* An NVMe generic char device (/dev/ngXnY): its sysfs class says so. */
bool hb_is_nvme_generic(const char *path);

/* ------------------------------------------------------------------ */
/* io_uring features: what a job uses, what the kernel has             */
/* ------------------------------------------------------------------ */

/* Features some supported kernels lack (lib/ringfeat.c has the table). */
enum hb_ufeat {
	HB_UF_CQSIZE,		/* SETUP_CQSIZE + CLAMP (5.6): required */
	HB_UF_DEFER_TASKRUN,	/* SINGLE_ISSUER + DEFER_TASKRUN (6.1) */
	HB_UF_RING_FD,		/* REGISTER_RING_FDS (5.18) */
	HB_UF_FILES_SPARSE,	/* RSRC_REGISTER_SPARSE files (5.19) */
	HB_UF_URING_CMD,	/* OP_URING_CMD, SQE128, CQE32 (5.19) */
	HB_UF_CLONE_BUFFERS,	/* REGISTER_CLONE_BUFFERS (6.12) */
	HB_UF_READV_FIXED,	/* OP_READV_FIXED / WRITEV_FIXED (6.15) */
	HB_UF_DONTCACHE,	/* RWF_DONTCACHE buffered I/O (6.14) */
	HB_UF_NR
};
#define HB_UF_BIT(f)		(1U << (f))
#define HB_UF_ALL		((1U << HB_UF_NR) - 1)
#define HB_UF_LINE_MAX		320

/* How the job wants a feature. */
enum hb_uf_want {
	HB_UF_NOT_USED = 0,
	HB_UF_BY_DEFAULT,	/* used where the kernel has it */
	HB_UF_ASKED,		/* the job's options ask for it */
};

/* What the engine does about it. */
enum hb_uf_act {
	HB_UF_OFF = 0,		/* not used */
	HB_UF_USE,		/* the kernel has it */
	HB_UF_FALLBACK,		/* not asked for, missing: line[] says what */
	HB_UF_REFUSE,		/* asked for (or required), missing: error */
};

struct hb_uf_job {
	unsigned char want[HB_UF_NR];		/* enum hb_uf_want */
	/* the option that asks, as the job wrote it ("vec_iovecs=4") */
	const char *asked_by[HB_UF_NR];
};

struct hb_uf_decision {
	unsigned char act[HB_UF_NR];		/* enum hb_uf_act */
	unsigned int nr_fallbacks, nr_refused;
	char line[HB_UF_NR][HB_UF_LINE_MAX];	/* FALLBACK / REFUSE only */
};

/*
 * The one decision (pure): @have is the kernel's HB_UF_BIT()s, @kernel its
 * release for the lines.  0, or -EOPNOTSUPP with the first refusal's line
 * in hb_errmsg(); every fallback and refusal has its line in @d.
 */
int hb_uf_decide(const struct hb_uf_job *job, unsigned int have,
		 const char *kernel, struct hb_uf_decision *d);
/* The kernel's name for @f, and the upstream release that added it. */
const char *hb_uf_feature(enum hb_ufeat f);
void hb_uf_release(enum hb_ufeat f, int *major, int *minor);
/* The features upstream @major.@minor has (pure). */
unsigned int hb_uf_upto(int major, int minor);
/*
 * What the running kernel has, asked of it with small rings (setup flags,
 * register opcodes, the opcode probe), once per process.
 * $HUGEBUF_URING_FEATURES=X.Y hides what upstream X.Y did not have (a
 * test hook for the fallbacks; it never adds a feature).  0; 1 when no
 * ring can be set up at all (@have is HB_UF_ALL: nothing is judged, the
 * caller's own io_uring_setup() says why; hb_errmsg() has the reason);
 * -EINVAL with one line for a bad $HUGEBUF_URING_FEATURES.
 */
int hb_uf_probe(unsigned int *have);
/* The release hb_uf_probe() hides above ("" when none), for the lines. */
const char *hb_uf_hidden_above(void);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_H */
