/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one helper library of every program that exercises the kernel: the
 * tests (every t/NAME.c), the guest probes (kernel/probe/, static) and
 * bench/regbench, built once as t/libthelpers.a.
 *
 * Conventions (the probes print result lines of their own, which
 * kernel/ktest.sh reads: they use the helpers of the last section, which
 * print no FAIL/SKIP line, and t_alloc_errno()):
 *  - A test exits T_EXIT_PASS (0), T_EXIT_FAIL (1) or T_EXIT_SKIP (77).
 *  - Helpers that can fail or skip print exactly one line ("FAIL: ..." or
 *    "SKIP: ...") and return the exit code to use (T_EXIT_FAIL/T_EXIT_SKIP);
 *    they return T_EXIT_PASS (0) on success.  So a test writes
 *	ret = t_something(...);
 *	if (ret)
 *		goto out;
 *    and returns ret.  Informational lines start with "  ".
 *  - Every test counts its sub-checks: each FAIL line is a failed one,
 *    each SKIP (or "  skip:") line a skipped one with its reason, and each
 *    check helper below that passes calls t_pass().  main() ends in
 *    "return t_done(ret);", which prints the closing line with the counts
 *    and gives the exit code: PASS only when at least one sub-check
 *    passed and none failed.
 *  - Data checks use offset-encoded patterns: the 8-byte word at offset o
 *    (o a multiple of 8 in "pattern space", e.g. the file offset) holds
 *    t_pattern_word(seed, o), which encodes both the seed and o, so a byte
 *    that lands at the wrong offset is detected and the report says where
 *    it came from.
 *  - Scratch files live in $HUGEBUF_TEST_DIR (default /var/tmp) and are
 *    unlinked right after they are opened, so no path leaves them behind.
 */
#ifndef HUGEBUF_T_HELPERS_H
#define HUGEBUF_T_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <liburing.h>

/* the tests reach every layer of lib/: its private headers too */
#include "hugebuf.h"
#include "hugebuf-report.h"
#include "helpers/settle.h"

enum {
	T_EXIT_PASS = 0,
	T_EXIT_FAIL = 1,
	T_EXIT_SKIP = 77,
};

#define T_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define T_SZ_4K (4096ULL)
#define T_SZ_2M (2ULL << 20)
#define T_SZ_1G (1ULL << 30)

/* ------------------------------------------------------------------ */
/* reporting                                                            */
/* ------------------------------------------------------------------ */

/*
 * "SKIP: <reason>", a skipped sub-check; returns T_EXIT_SKIP.  Inside
 * t_run_cases() a case's skip prints "  case skipped: <reason>" instead
 * (the test goes on).
 */
int t_skip(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * "  skip: <reason>": one sub-check that cannot run here, counted as
 * skipped; returns T_EXIT_PASS so that the checks after it still run.
 */
int t_skip_check(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* One sub-check passed (the check helpers call it); returns T_EXIT_PASS. */
int t_pass(void);
/*
 * @ret of a whole sub-check (e.g. one test_*() of a unit test): counts it
 * as passed when it is T_EXIT_PASS (its FAIL or SKIP lines counted
 * themselves); returns @ret.
 */
int t_sub(int ret);
/*
 * The end of main(): prints "PASS|FAIL|SKIP: <program> (P passed, F
 * failed, S skipped: reason; ...)" and returns the exit code.  FAIL when
 * a sub-check failed or @ret is T_EXIT_FAIL; otherwise SKIP when @ret is
 * T_EXIT_SKIP or no sub-check passed (a test that checked nothing never
 * passes); PASS else.  t/runtests.sh adds up these counts.
 */
int t_done(int ret);
/* "FAIL: <what>", a failed sub-check; returns T_EXIT_FAIL. */
int t_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "FAIL: <what> (expected X, got Y)" with decimal numbers. */
int t_fail_val(const char *what, long long expected, long long got);
/* "FAIL: <what> (expected 0xX, got 0xY)" */
int t_fail_hex(const char *what, uint64_t expected, uint64_t got);
/* "  <info>" */
void t_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Combine two results: a FAIL wins over a SKIP wins over a PASS. */
int t_worst(int a, int b);

/* ------------------------------------------------------------------ */
/* offset-encoded patterns                                              */
/* ------------------------------------------------------------------ */

/*
 * The word stored at pattern offset @off (rounded down to 8): the low 48
 * bits are the offset, the high 16 bits a tag made from @seed (never zero,
 * so zero-filled memory never matches).
 */
uint64_t t_pattern_word(uint64_t seed, uint64_t off);
/* Fill @len bytes at @buf with the pattern of @seed starting at @off. */
void t_pattern_fill(void *buf, size_t len, uint64_t seed, uint64_t off);
/*
 * Check @len bytes at @buf against the pattern of @seed starting at @off.
 * Returns true if they match; otherwise false and the first bad index into
 * @buf in *@bad (may be NULL).
 */
bool t_pattern_ok(const void *buf, size_t len, uint64_t seed, uint64_t off,
		  size_t *bad);
/*
 * As t_pattern_ok() but prints "FAIL: <what>: ..." naming the first bad
 * buffer offset, the word expected and (if it is a pattern word) the
 * offset the data found there belongs to.  Returns T_EXIT_PASS/FAIL.
 */
int t_pattern_verify(const char *what, const void *buf, size_t len,
		     uint64_t seed, uint64_t off);
/* Index of the first byte that differs from the pattern, or -1. */
long t_pattern_mismatch(const void *buf, size_t len, uint64_t seed,
			uint64_t off);

/* ------------------------------------------------------------------ */
/* scratch files                                                        */
/* ------------------------------------------------------------------ */

struct t_file {
	int fd; /* buffered, read-write */
	int dfd; /* O_DIRECT, read-write; -1 if not opened */
	uint64_t size;
	uint64_t seed; /* pattern the file holds (offset = file off) */
	char dir[256];
	char blkdev[32]; /* "vda", or "" when there is none */
	/* O_DIRECT address/length/offset alignment: lib's hb_dio_align() */
	unsigned int dio_align;
};

/* $HUGEBUF_TEST_DIR or /var/tmp */
const char *t_test_dir(void);
/*
 * Create a scratch file of @size bytes in t_test_dir() holding the pattern
 * of @seed (offset = file offset), fsync it, open it buffered and (with
 * @direct) O_DIRECT, and unlink it.  O_DIRECT EINVAL -> SKIP.  Fills in
 * f->blkdev when the directory sits on a block device, and f->dio_align.
 */
int t_file_create(struct t_file *f, uint64_t size, uint64_t seed, bool direct);
void t_file_close(struct t_file *f);
/* Rewrite [off, off+len) of the file with the pattern of f->seed. */
int t_file_restore(struct t_file *f, uint64_t off, uint64_t len);
/* Overwrite [off, off+len) with a poison byte (buffered, then fdatasync). */
int t_file_poison(struct t_file *f, uint64_t off, uint64_t len);
/* Read back [off, off+len) (buffered) and verify the pattern of @seed. */
int t_file_verify(struct t_file *f, const char *what, uint64_t off,
		  uint64_t len, uint64_t seed);

/* ------------------------------------------------------------------ */
/* io_uring                                                             */
/* ------------------------------------------------------------------ */

/*
 * io_uring_queue_init(); -EINVAL/-ENOSYS/-EPERM -> SKIP.  The first call
 * of a thread opens the anchor ring where io-wq's idle exit can race
 * (t/helpers/io.c); t_ring_init_alone() does not.
 */
int t_ring_init(struct io_uring *ring, unsigned int entries);
int t_ring_init_alone(struct io_uring *ring, unsigned int entries);
/*
 * Submit one IORING_OP_{READ,WRITE}{,_FIXED} (buf_index @idx for the fixed
 * ones) and wait for it.  Returns cqe->res, or -errno when the submission
 * itself failed.
 */
int t_io(struct io_uring *ring, int op, int fd, void *addr, unsigned int len,
	 uint64_t off, int idx);
/* Submit the one SQE prepared on @ring and wait: cqe->res, or -errno. */
int t_submit_wait(struct io_uring *ring);
/* Register @nr iovecs through lib/; ENOMEM as non-root -> SKIP. */
int t_register(struct io_uring *ring, const struct iovec *iov, unsigned int nr);
/*
 * Registering [@addr, @addr + @len) on @ring must be refused with @want,
 * or with @also when that is non-zero (an errno some kernels give
 * instead), and leave VmPin at @base_kb: io_sqe_buffer_register() unpins
 * and unaccounts whatever it took before the failure (its unwind;
 * e1c75831f682 fixed a leak there).  A registration that succeeds is
 * undone and is a FAIL saying "@what: registered, but @why".  The errno
 * the kernel gave goes to *@got (may be NULL).  Prints nothing on PASS.
 */
int t_register_refused(struct io_uring *ring, void *addr, uint64_t len,
		       int want, int also, long base_kb, const char *what,
		       const char *why, int *got);

/*
 * One registered buffer: slot @idx of @ring covering [addr, addr+len).
 * The I/O checks below work on [buf_off, buf_off+len) inside it.
 */
struct t_regbuf {
	struct io_uring *ring;
	char *addr;
	uint64_t len;
	int idx;
};

/* Bytes around each checked I/O that must stay untouched. */
#define T_GUARD_BYTES 4096

/*
 * READ_FIXED @len bytes at file offset @foff of @fd (whose contents are
 * the pattern of @seed) into the registered buffer at @boff.  Before the
 * read, the target range and up to T_GUARD_BYTES either side get a
 * background pattern; after it the target must hold the file's pattern
 * and the guards their background.  @what names the case in the FAIL
 * line.
 */
int t_read_fixed_check(const struct t_regbuf *rb, int fd, uint64_t seed,
		       uint64_t foff, uint64_t boff, uint64_t len,
		       const char *what);
/*
 * WRITE_FIXED @len bytes at @boff of the registered buffer (filled with
 * the pattern of @seed for file offset @foff) to @f at @foff through
 * @fd (f->fd or f->dfd); the file range is poisoned first and read back
 * after.  The file's own pattern is restored at the end.
 */
int t_write_fixed_check(const struct t_regbuf *rb, struct t_file *f, int fd,
			uint64_t seed, uint64_t foff, uint64_t boff,
			uint64_t len, const char *what);
/*
 * READ_FIXED from /dev/zero (a non-iter file): the range must become zero
 * and the guards untouched; WRITE_FIXED of it to /dev/zero must return len.
 */
int t_devzero_check(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
		    const char *what);

/*
 * Buffers that alias themselves: rb->addr maps one piece of memory of
 * @period bytes (a page) again and again, so byte i of the buffer is
 * byte i % @period of that memory.
 *
 * READ_FIXED @len (at most @period) bytes at file offset @foff of @fd
 * (f->fd or f->dfd; f holds the pattern of f->seed) into buffer offset
 * @boff, after setting the first @period bytes to the pattern of
 * @bg_seed.  The data must show at @boff % @period of the first mapping
 * and, for the part that runs into the next alias, from its start.  The
 * name of the I/O ("@name: READ_FIXED [boff, +len)", " O_DIRECT" when
 * @fd is f->dfd) is left in @what for the caller's own checks.
 */
int t_read_fixed_alias(const struct t_regbuf *rb, const struct t_file *f,
		       int fd, uint64_t period, uint64_t bg_seed, uint64_t boff,
		       uint64_t len, uint64_t foff, const char *name,
		       char *what, size_t what_len);
/*
 * WRITE_FIXED of the whole aliased buffer (rb->len bytes) through @fd to
 * file offset 0, after filling the first @period bytes with the pattern
 * of @seed and poisoning the file range: the file must then hold that
 * memory rb->len / @period times, every copy at pattern offset 0.  The
 * file's own pattern is restored at the end.
 */
int t_write_fixed_alias(const struct t_regbuf *rb, struct t_file *f, int fd,
			uint64_t period, uint64_t seed, const char *name);

/* ------------------------------------------------------------------ */
/* allocation                                                           */
/* ------------------------------------------------------------------ */

/*
 * Skip unless the pool of @page_size has @nr free pages; the SKIP line
 * says how many pages the case needs.
 */
int t_need_hugepages(uint64_t page_size, unsigned long nr);
/*
 * t_need_hugepages() for a case that needs more than the pool may hold:
 * as root, when fewer than @nr pages of @page_size are free (settled),
 * nr_hugepages is raised by what is missing (compacting once if memory
 * is fragmented) until t_pool_restore(), which puts it back (also at
 * exit and on SIGINT/SIGTERM); one pool at a time.  SKIP as
 * t_need_hugepages() when the pages cannot be had.
 */
int t_pool_need(uint64_t page_size, unsigned long nr);
void t_pool_restore(void);
/*
 * As root, make @size the only THP size an MADV_HUGEPAGE fault may take
 * (its hugepages-<size>kB/enabled madvise, every other size's never, the
 * PMD size's included) until t_thp_restore(), which puts back every mode
 * it changed (also at exit and on SIGINT/SIGTERM).  Not root: nothing
 * changes and the machine's modes decide.  -1 when a mode cannot be set.
 */
int t_thp_only(uint64_t size);
void t_thp_restore(void);
/*
 * The PFNs of the @nr pages from @addr (page aligned), read from
 * /proc/self/pagemap here, not through lib/: 0 for a page not present or
 * a PFN hidden (no CAP_SYS_ADMIN).  0, or -errno.
 */
int t_read_pfns(const void *addr, uint64_t nr, uint64_t *pfn);
/*
 * hb_backing_parse(@backing) + hb_alloc(); a failure is a SKIP naming
 * the backing and lib's message (a missing resource, not a bug).
 */
int t_alloc(const char *backing, size_t len, size_t head_offset,
	    struct hb_buf *buf);
/*
 * t_alloc("thp") for a case that needs real PMD THPs: when lib/ could not
 * verify 2 MiB folios behind the buffer (THP disabled, memory fragmented)
 * the buffer is freed again and this is a SKIP naming @what.
 */
int t_alloc_thp(size_t len, size_t head_offset, struct hb_buf *buf,
		const char *what);
/*
 * As t_alloc(), for a program outside the tally (kernel/probe/): on
 * failure one line "<backing>: <lib's message>" on stderr, and -errno.
 */
int t_alloc_errno(const char *backing, size_t len, size_t head_offset,
		  struct hb_buf *buf);
/*
 * Whether lib's exact probe (pagemap PFNs + /proc/kpageflags) sees every
 * page of [@addr, @addr + @len) in a folio of at least 2 MiB.
 */
bool t_thp_backed(const void *addr, size_t len);

/* ------------------------------------------------------------------ */
/* hand-made layouts                                                    */
/* ------------------------------------------------------------------ */

/* A PROT_NONE range a test maps its own layout into (MAP_FIXED, mremap) */
struct t_resv {
	char *base; /* the whole reservation; NULL: none */
	uint64_t len;
	char *at; /* the aligned spot the layout goes at */
};

/*
 * Reserve address space (PROT_NONE, MAP_NORESERVE: no memory and no
 * commit charge behind it) holding at least @before bytes ahead of an
 * @align-aligned address r->at and @len bytes from it, so that mappings
 * placed in [r->at - @before, r->at + @len) with MAP_FIXED can only
 * replace parts of the reservation, never another mapping.  FAIL if mmap
 * fails.
 */
int t_resv_take(struct t_resv *r, uint64_t before, uint64_t len,
		uint64_t align);
/* munmap the reservation and everything mapped into it (none: no-op). */
void t_resv_release(struct t_resv *r);
/*
 * MAP_FIXED one private anonymous 2 MiB hugetlb page at @at (2 MiB
 * aligned, inside a t_resv) and fault it in by filling it with @fill.
 * No page to be had is a SKIP naming @what.
 */
int t_map_hugetlb_at(char *at, int fill, const char *what);

/* ------------------------------------------------------------------ */
/* resource baselines                                                   */
/* ------------------------------------------------------------------ */

struct t_baseline {
	long vmpin_kb; /* hb_vmpin_kb() */
	uint64_t hp_size; /* pool watched (0: none) */
	long hp_free; /* hb_hugepages_free(hp_size) */
};

/* Snapshot VmPin and the free pages of the @hp_size pool (0: skip it). */
int t_baseline_take(struct t_baseline *b, uint64_t hp_size);
/*
 * A test that watches the @hp_size hugetlb pool: SKIP unless it has @nr
 * free pages (t_need_hugepages), then t_baseline_take() of that pool.
 */
int t_baseline_need(struct t_baseline *b, uint64_t hp_size, unsigned long nr);
/* Both must be back at the snapshot; @when names the point checked. */
int t_baseline_check(const struct t_baseline *b, const char *when);
/* VmPin must be exactly @base + @delta_kb. */
int t_vmpin_expect(long base_kb, long delta_kb, const char *when);
/*
 * Whether this process's rings are charged to VmPin at all: not with
 * CAP_IPC_LOCK on 7.x (hb_model_vmpin_charged()).  t_vmpin_expect() then
 * expects no change; a test that measures the accounting itself skips.
 */
bool t_vmpin_charged(void);

/* ------------------------------------------------------------------ */
/* the model's view of a buffer                                         */
/* ------------------------------------------------------------------ */

struct t_model {
	struct hb_analysis a; /* lib's analysis of the one buffer (owner) */
	/* views into @a: */
	const struct hb_kmodel *km; /* running kernel (HUGEBUF_KERNEL wins) */
	const struct hb_probe *probe; /* the buffer's real folio layout */
	const struct hb_imu *imu; /* what the kernel builds at registration */
	const struct hb_bvec *bvec; /* imu->bvec */
};

/*
 * hb_analyze() [addr, addr+len) (@recipe for the degraded probe) under
 * the running kernel's model, keeping the probe and the table.  Prints
 * one info line with the expected table.  A probe or model error is a
 * FAIL (tests of the model's error returns call hb_model_register()
 * themselves).
 */
int t_model_buffer(const void *addr, uint64_t len,
		   const struct hb_backing *recipe, struct t_model *m);
void t_model_free(struct t_model *m);
/* Print the expected bvec table ("  bvec[i]: folio page off len"). */
void t_model_print(const struct t_model *m, unsigned int max_lines);
/* "absent", "present" or "not known": hb_kmodel's known-bug fields */
const char *t_kbug_name(enum hb_kbug b);
/*
 * Every release hb_kmodel_known() names is a row of a rule table: @nr
 * rows of @size bytes at @rows, each opening with its kernel's name (a
 * const char *).  FAIL naming each one that has none.
 */
int t_known_kernels_have_rows(const void *rows, size_t size,
			      unsigned int nr);
/* hb_model_import() for an I/O at buffer offset @boff; FAIL on error. */
int t_model_import(const struct t_model *m, uint64_t boff, uint64_t len,
		   struct hb_import *out);

/*
 * The model against the real layout: the I/O [boff, boff+len) imported
 * through the model's table must start and end at the physical bytes
 * (folio, byte in folio) the probe says back those buffer offsets, and
 * touch exactly nr_segs_exact bvecs.  FAIL names the first disagreement.
 */
int t_model_check_import(const struct t_model *m, uint64_t boff, uint64_t len,
			 const char *what);

/* ------------------------------------------------------------------ */
/* data checks over every path, and the block request signal            */
/* ------------------------------------------------------------------ */

/* A file offset for an I/O at @boff of @len bytes: same alignment mod 4K */
uint64_t t_foff_for(const struct t_file *f, uint64_t boff, uint64_t len);
/*
 * Everything one I/O [boff, boff+len) of a registered buffer must do:
 * the model import agrees with the probe (@m may be NULL), buffered
 * READ_FIXED and WRITE_FIXED, O_DIRECT READ_FIXED and WRITE_FIXED when
 * address, length and file offset are multiples of f->dio_align (the
 * device's logical block size, as lib decides it), and READ_FIXED /
 * WRITE_FIXED on /dev/zero.  Each checks the data (t_*_check above).
 */
int t_check_io(const struct t_regbuf *rb, const struct t_model *m,
	       struct t_file *f, uint64_t boff, uint64_t len, const char *what);
/*
 * The standard sweep for a buffer: I/O at 0, mid first folio, at/around
 * every bvec boundary of the model's table and every folio boundary of
 * the probe (first and last few), the last byte and (if it fits the
 * file) the whole buffer.  Runs t_check_io() on each.
 */
int t_check_sweep(const struct t_regbuf *rb, const struct t_model *m,
		  struct t_file *f, const char *what);
/*
 * The kernel against the model: the number of block requests (minimum of
 * a few tries) of one O_DIRECT READ_FIXED of the whole registered buffer
 * must be what hb_predict_requests() says for the model's table under the
 * device's queue limits.  Without a block device under the scratch dir,
 * or with a buffer O_DIRECT cannot take, this sub-check is a counted skip
 * (t_skip_check) and the case goes on.  The data read is verified too.
 */
int t_check_requests(const struct t_regbuf *rb, const struct t_model *m,
		     struct t_file *f, const char *what);
/*
 * The same for one I/O [@boff, @boff+@len) of the buffer (file offset
 * 0, @len at most the scratch file), predicted by
 * hb_predict_io_requests() over the probed pages: the I/O's bvecs are
 * the registration's, cut at its ends.
 */
int t_check_io_requests(const struct t_regbuf *rb, const struct t_model *m,
			struct t_file *f, uint64_t boff, uint64_t len,
			const char *what);
/* The same without the data check (for buffers that alias themselves). */
int t_check_requests_nodata(const struct t_regbuf *rb, const struct t_model *m,
			    struct t_file *f, const char *what);

/* ------------------------------------------------------------------ */
/* pins, seen through fork                                              */
/* ------------------------------------------------------------------ */

/*
 * Whether the anon page at @addr is (maybe) DMA-pinned, as fork sees it
 * (PFNs from lib's hbi_pfn_of()):
 * copy_present_pte() gives the child its own copy of a pinned anon page
 * (page_needs_cow_for_dma / folio_try_dup_anon_rmap failing) and shares an
 * unpinned one.  Forks a child that reports its PFN for @addr.  Returns 1
 * (pinned), 0 (not), or -errno (PFNs not readable: not root).
 */
int t_anon_pinned(const void *addr);
/* FAIL unless t_anon_pinned(@addr) == @want; a counted skip if unknowable */
int t_expect_pinned(const void *addr, bool want, const char *what);

/* ------------------------------------------------------------------ */
/* one whole case over a buffer lib/ allocates                          */
/* ------------------------------------------------------------------ */

#define T_CASE_MORE 16

struct t_case {
	const char *name;
	const char *backing; /* for hb_backing_parse(), e.g. "hugetlb:2M" */
	uint64_t len; /* registered length */
	uint64_t head_offset; /* start this far into the first folio */
	uint64_t pool_size; /* hugetlb pool to need and watch, 0: none */
	bool requests; /* check the block request count too */
	/* extra I/O ranges {buffer offset, length} beyond the sweep */
	const uint64_t (*extra)[2];
	unsigned int nr_extra;
	/*
	 * Optional: called with the model of the allocated buffer before
	 * registration.  May FAIL or SKIP (the layout is not what the case
	 * needs) and may add up to T_CASE_MORE I/O ranges derived from the
	 * model's table (e.g. at bvec[0].bv_len) to @more / *@nr_more.
	 */
	int (*expect)(const struct t_case *c, const struct t_model *m,
		      uint64_t (*more)[2], unsigned int *nr_more);
	/*
	 * Optional: called once the buffer is registered (slot 0), before
	 * the sweep; for checks that need the live registration (pins seen
	 * by fork, VmPin while registered, aliasing-aware data checks).
	 */
	int (*registered)(const struct t_case *c, const struct t_regbuf *rb,
			  const struct t_model *m, struct t_file *f);
	/* the buffer aliases itself: no sweep, no data check of requests */
	bool aliased;
};

/*
 * The middle of a case, for a buffer the test mapped itself at @addr
 * (c->len bytes; c->backing, head_offset and pool_size unused): probe and
 * model it (@recipe for a degraded probe, may be NULL), c->expect, a ring,
 * register, sweep + extra ranges + request count, unregister.  Baselines
 * and unmapping stay with the caller.
 */
int t_check_region(const struct t_case *c, void *addr,
		   const struct hb_backing *recipe, struct t_file *f);
/*
 * Need the hugepages, snapshot the baseline, allocate, model, register,
 * sweep the data checks, check extra ranges and the request count,
 * unregister and free, and check the baseline again.  @f is a scratch
 * file the caller made (t_file_create) large enough for the I/O.
 */
int t_run_case(const struct t_case *c, struct t_file *f);

/*
 * main() of a table-driven test: a scratch file of @file_size bytes
 * (pattern @seed, O_DIRECT), then every case in order; stops at the first
 * FAIL.  PASS if at least one case ran and none failed, SKIP if all
 * skipped (each case's skip is counted; no summary line of its own).
 */
int t_run_cases(const struct t_case *cases, unsigned int nr, uint64_t file_size,
		uint64_t seed);

/*
 * The start of main() of a test that maps its buffers itself: SKIP when
 * given arguments, then a VmPin baseline (no pool watched) and an
 * O_DIRECT scratch file of @file_size bytes holding the pattern of @seed.
 */
int t_main_begin(int argc, struct t_baseline *base, struct t_file *f,
		 uint64_t file_size, uint64_t seed);
/*
 * Its end: close the scratch file, VmPin must be back at the baseline,
 * and "@name: ok" when all passed (@name may be NULL).  Returns the
 * worst of @ret and the baseline check.
 */
int t_main_end(int ret, const struct t_baseline *base, struct t_file *f,
	       const char *name);

/* ------------------------------------------------------------------ */
/* the kernel's knobs, counters and fault injection (the guest probes)  */
/* ------------------------------------------------------------------ */

/*
 * Write @val to a sysfs/procfs/debugfs/tracefs file, opened with
 * O_WRONLY | @flags: 0 or -errno.  tracefs's set_ftrace_filter and
 * kprobe_events drop what they hold when opened with O_TRUNC
 * (ftrace_regex_open(), probes_open()) and add to it otherwise.
 */
int t_knob_write(const char *path, const char *val, int flags);
/*
 * Call counts of kernel functions, exact, on any config with
 * KPROBE_EVENTS (Debian's have no FUNCTION_PROFILER):
 * t_kcount_open() makes a kprobe event "hbprof/NAME" on each
 * /proc/kallsyms entry of @syms[0..@n) and of its compiler clones
 * ("sym.isra.0", "sym.constprop.0"); a function that kprobe events refuse
 * as notrace (no KPROBE_EVENTS_ON_NOTRACE: all of the kernel's lib/, e.g.
 * sg_next()) gets a hardware execute breakpoint on every CPU instead
 * (perf_event_open(), PERF_TYPE_BREAKPOINT), said in a line
 * "@tag counter=SYM how=breakpoint".  @counted[i]: the number of counters
 * of @syms[i], 0 when it has none, each of those with a line
 * "@tag untraceable=SYM why=not-in-kallsyms|ERRNO" (inlined, renamed, or
 * refused).  Returns the number of symbols counted, -1 without
 * kprobe_events; when it is not > 0, after one line "@tag skip=REASON".
 * t_kcount_enable(): arm or disarm them all (0 or -errno).
 * t_kcount_begin() / t_kcount_end(): one window; end puts each
 * symbol's calls since begin in @hits[0..@n) (kprobe_profile's hits plus
 * misses: a hit that nests in another kprobe's handler skips the handler
 * but is counted as missed on its own probe) and returns the misses
 * among them, -1 when the counters cannot be read.
 * t_kcount_close(): disarm and remove every counter.
 */
int t_kcount_open(const char *tracefs, const char *const *syms, size_t n,
		  int *counted, const char *tag);
int t_kcount_enable(bool on);
void t_kcount_begin(void);
long t_kcount_end(unsigned long *hits);
void t_kcount_close(void);
/*
 * The requests an I/O made, counted where the kernel makes them: the NVMe
 * driver sets up each request's command once (nvme_setup_cmd(), from
 * nvme_prep_rq(), through nvme_queue_rq() and nvme_queue_rqs(), 6.1 to
 * 7.x; again only for a requeued request, which can only add).  The disk's
 * statistics (/sys/block/<disk>/stat) are not an exact count of one I/O:
 * blk_mq_end_request() ends the request's bios (blk_update_request()),
 * which completes the I/O and wakes its reader, before it counts the
 * request (__blk_mq_end_request_acct(), blk_account_io_done(); 6.1 and
 * 6.12 block/blk-mq.c, and blk_mq_end_request_batch() likewise), so a
 * reader that reads the counter at once may miss the I/O's last request.
 */
#define T_NVME_REQ_SYM "nvme_setup_cmd"
/* CLOCK_MONOTONIC in microseconds: the user-space wall time of an I/O */
double t_now_usec(void);
/*
 * tracefs (at @tracefs):
 * t_trace_write(): @s into @file, added to what it holds (@append) or
 * replacing it (O_TRUNC); 0 or -errno.
 * t_kprobe_profile(): kprobe_profile's hits and misses of @event
 * (a miss: a hit while another kprobe ran, dropped); -1 when absent.
 */
int t_trace_write(const char *tracefs, const char *file, const char *s,
		  bool append);
int t_kprobe_profile(const char *tracefs, const char *event,
		     unsigned long *hits, unsigned long *misses);
/*
 * Identify Controller's SGLS (bytes 536-539) of the NVMe device open at
 * @fd: whether the controller offers SGLs (false when it cannot be asked)
 */
bool t_nvme_sgls(int fd);
/* Completed reads or writes of block device @disk; -1 when unreadable. */
long t_disk_ios(const char *disk, bool write);
/*
 * FOLL_PIN pins held system-wide: nr_foll_pin_acquired -
 * nr_foll_pin_released of /proc/vmstat (mm/gup.c, 5.10+), after
 * vm.stat_refresh has folded the per-CPU deltas in; read again when a
 * pin's release was folded before its acquire (a difference below zero),
 * -1 when the fields are missing.
 */
long t_pins_held(void);
/* t_pins_held() and hb_hugepages_free(2 MiB) as t_settle() readers */
long t_pins_of(void *arg);
long t_free_2m_of(void *arg);
/*
 * The kernel's per-task fault injection (CONFIG_FAULT_INJECTION, FAILSLAB,
 * FAIL_PAGE_ALLOC and their debugfs knobs): t_fault_setup() makes the
 * slab and page-allocator sites count GFP_KERNEL calls too (ignore-gfp-wait
 * off, every order) and opens this thread's fail-nth; 0, or -1 after one
 * "@tag skip=<reason>" line on stdout.  t_fail_nth_arm(@n) makes the
 * @n-th allocation of this thread from then on fail (n >= 1);
 * t_fail_nth_disarm() stops counting and returns what was left of the
 * count: 0 when the failure was injected, > 0 when fewer than @n
 * allocations came, -1 when it cannot be read.  Between the two calls
 * this thread makes no allocation of its own beyond what it measures.
 */
int t_fault_setup(const char *tag);
int t_fail_nth_arm(int n);
long t_fail_nth_disarm(void);

#endif /* HUGEBUF_T_HELPERS_H */
