// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which registered-buffer behaviour a kernel release has.
 *
 * The generations follow io_uring/rsrc.c upstream:
 *   < 6.3        one bvec per pinned page
 *   6.3 - 6.11   57bebf807e2a: a buffer inside one folio becomes one bvec
 *   6.12 - 6.15  a8edbb424b13: one bvec per folio, first offset taken from
 *                the user address (uaddr & (folio_size - 1))
 *   6.16+        3a3c6d61577d: first offset from the first page's index
 *                inside its folio.
 * The accounting moved on its own: batch de-duplication up to 6.12, the
 * 6.13 table rework, 7.2's per-ring hugepage references (has_hpage_acct(),
 * lib/model/account.c).  7.3 changed nothing the model covers (io_uring/rsrc.c,
 * memmap.c, the block paths of lib/model/predict.c, plain.c and ptmap.c read
 * against 7.2.13; see docs/kernel-rules.md §1).
 *
 * Before 6.3 the registration is the same one-bvec-per-page walk back to
 * 5.10; what differs there is where the bvecs live (imu_bvecs_apart,
 * 41edf1a5ec96, 5.13).  5.10.y replaced its io_uring with 5.15's in
 * 5.10.162 (788d0824269b "io_uring: import 5.15-stable io_uring", in
 * io_uring/io_uring.c from then on): Debian's 5.10.262 registers, imports
 * and charges exactly as 6.1 does (io_sqe_buffer_register(),
 * io_buffer_account_pin() with headpage_already_acct() over the table
 * filled in the loop, __io_import_fixed() with "offset < bv_len",
 * IORING_MAX_REG_BUFFERS 16384, io_buffer_validate()'s SZ_1G, pinned_vm
 * charged to every ring through ctx->mm_account and RLIMIT_MEMLOCK only
 * without CAP_IPC_LOCK), except that it allocates the imu before it pins,
 * so no failure there leaves a pin behind.
 *
 * Stable series that took a fix behave like mainline from the sublevel
 * that carried it.  Which release carried which fix, and where that was
 * found, is docs/kernel-rules.md §1.1; the functions below encode that
 * list, each naming its commit.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* sizeof(struct io_mapped_ubuf) before the ublk fields (6.1 - 6.14) */
#define IMU_HEADER_OLD		32
/* 6.15 - 7.1: + release, priv, flags/is_kbuf, dir */
#define IMU_HEADER_NEW		56
/*
 * 7.2: acct_pages gone, len a size_t (7.2.13's io_uring/rsrc.h; the BTF
 * of Debian's 7.1.13 image still has acct_pages and an unsigned int len)
 */
#define IMU_HEADER_72		48
/* 6.1 with io_uring 5/5 (kernel/patches/bugfix/): no acct_pages */
#define IMU_HEADER_BACKPORT	24
#define IMU_CACHE_BVECS		32

static bool version_before(int major, int minor, int vmaj, int vmin)
{
	return major < vmaj || (major == vmaj && minor < vmin);
}

/*
 * A fix merged in mainline @fix_major.@fix_minor and taken by the stable
 * series @fix_major.@stable_minor at @stable_sub: does @major.@minor.@sub
 * have it?  An unknown sublevel (< 0) is the .0 release.
 */
static bool has_fix(int major, int minor, int sub, int fix_major,
		    int fix_minor, int stable_minor, int stable_sub)
{
	if (!version_before(major, minor, fix_major, fix_minor))
		return true;
	return major == fix_major && minor == stable_minor &&
	       sub >= stable_sub;
}

/*
 * The import quirks below are modelled only for an exact release: a bare
 * "6.3" (HUGEBUF_KERNEL, --kernel) names the 6.3 generation as its stable
 * series ships it today, without the bugs its early point releases had.
 */
static bool quirk(int sub, bool present)
{
	return sub >= 0 && present;
}

/* 3a3c6d61577d "don't rely on user vaddr alignment": 6.16, 6.15.5, 6.12.36 */
static bool has_vaddr_fix(int major, int minor, int sub)
{
	return has_fix(major, minor, sub, 6, 16, 15, 5) ||
	       has_fix(major, minor, sub, 6, 16, 12, 36);
}

/*
 * A fix a stable series took at @fix_sub (< 0: never): the series at @sub
 * has it; an unknown sublevel is the series as it ships today.
 */
static bool series_has_fix(int sub, int fix_sub)
{
	if (fix_sub < 0)
		return false;
	return sub < 0 || sub >= fix_sub;
}

/* The stable sublevel that took 2ff949441802, -1 for none. */
static int pt_sanity_fix_sub(int major, int minor)
{
	if (major != 6)
		return -1;
	switch (minor) {
	case 1:
		return 116;
	case 6:
		return 60;
	case 11:
		return 7;
	}
	return -1;
}

/*
 * The bvec array allocated apart from the imu, whose header is an entry of
 * ctx->user_bufs[] (5.10's io_sqe_buffer_register(): kvmalloc_array() of
 * nr_pages bio_vecs into imu->bvec): until 41edf1a5ec96 put header and
 * bvecs in one kvmalloc() (5.13), and in 5.10.y until 5.10.162 imported
 * that code with 5.15's io_uring (788d0824269b).  An unknown 5.10
 * sublevel is the series as it ships today.
 */
static bool bvecs_apart(int major, int minor, int sub)
{
	if (major == 5 && minor == 10)
		return !series_has_fix(sub, 162);
	return version_before(major, minor, 5, 13);
}

/* The passthrough mapping rules (see the comment at the top). */
static void pt_rules(int major, int minor, int sub, struct hb_kmodel *km)
{
	bool mainline_fixed = !version_before(major, minor, 6, 12);

	km->pt_split_check = mainline_fixed ||
			     (major == 6 && minor == 11 &&
			      series_has_fix(sub, 8));
	km->pt_old_bvec_checks =
		!version_before(major, minor, 6, 1) && !mainline_fixed &&
		!series_has_fix(sub, pt_sanity_fix_sub(major, minor));
}

/*
 * 7.2's per-ring hugepage accounting (lib/model/account.c): ctx->hpage_acct,
 * hpage_acct_ref()/hpage_acct_unref(), and io_buffer_account_pin()
 * returning before any charge without ctx->user (vmpin_needs_user), one
 * scheme: its un-charge, io_buffer_unaccount_pages(), also gives 0
 * without ctx->user.  In 7.2.13's source and in the BTF of Debian's
 * 7.2.12 image (struct io_ring_ctx.hpage_acct, FUNC hpage_acct_ref);
 * the BTF of 7.0.13 and 7.1.13 still shows the old scheme (imu->
 * acct_pages, io_sqe_buffer_register()'s last_hpage, no hpage_acct).
 * That the early return came with it, not in 7.0, is read from the code
 * and measured: the NVMe-only guests of 7.0.13 and 7.1.13 charge root's
 * ring VmPin (docs/kernel-lab-notes.md, "Debian's images").
 */
static bool has_hpage_acct(int major, int minor)
{
	return !version_before(major, minor, 7, 2);
}

/*
 * One buffer's length.  Up to 7.1 io_buffer_validate() (later
 * io_validate_user_buf_range()) refuses more than SZ_1G with -EFAULT.
 * b4e41050b212 ("io_uring/rsrc: raise the 1 GB per-buffer limit", 7.2)
 * caps it at SZ_1T with -EINVAL, and io_pin_pages() (io_uring/memmap.c)
 * refuses more than INT_MAX / sizeof(struct page *) pages with
 * -EOVERFLOW, so a page-aligned SZ_1T is one page too many.  Read in
 * sid's linux-source-7.2 (7.2.13) and trixie-backports' linux-source-7.3
 * (7.3.4), both the same; the BTF of 7.1.13 still has the unsigned int
 * imu->len that held at most 1 GiB.
 */
#define SZ_1G_LEN		(1ULL << 30)
#define SZ_1T_LEN		(1ULL << 40)
#define PIN_PAGES_MAX		(0x7fffffffULL / 8)

static void buf_limits(int major, int minor, struct hb_kmodel *km)
{
	if (version_before(major, minor, 7, 2)) {
		km->buf_len_max = SZ_1G_LEN;
		km->buf_len_errno = EFAULT;
		km->pin_pages_max = 0;
		return;
	}
	km->buf_len_max = SZ_1T_LEN;
	km->buf_len_errno = EINVAL;
	km->pin_pages_max = PIN_PAGES_MAX;
}

/*
 * efde156d91ba ("io_uring/rsrc: fix accounting for cloned buffers with
 * huge pages", for-7.4, 2026-09-23): 7.2's per-ring count un-charges a
 * hugepage in a ring that took it by a clone and never paid for it
 * (lib/model/account.c).  Its diff is not served by any Debian suite
 * yet; the rule the model gives 7.4 is the balance its title promises
 * (docs/kernel-rules.md §6.5).
 */
static bool has_clone_acct_fix(int major, int minor)
{
	return !version_before(major, minor, 7, 4);
}

/*
 * io-wq's idle exit race.  38aa434ab933 ("io_uring/io-wq: add exit-on-idle
 * state", 7.0; taken by 6.18.y and 6.19.y in February 2026, sublevels not
 * known) lets every worker of a task exit once its last ring is gone:
 * io_uring_del_tctx_node() (io_uring/tctx.c) sets IO_WQ_BIT_EXIT_ON_IDLE
 * and wakes the workers, the next ring clears it.  A worker that saw the
 * bit leaves io_wq_worker()'s loop (io_uring/io-wq.c) but stays on the
 * free list and in nr_running until io_worker_exit(): io_wq_enqueue() in
 * between wakes it instead of creating a worker, and the work is never
 * run.  7.3.4's io-wq.c takes the worker off the free list first and looks
 * at the work list once more (io_worker_retire()); it came with 7.3.2's
 * stable update, so mainline 7.4 is taken to have it.  Read: 7.2.13 (the
 * race) and 7.3.4 (the fix), Debian's linux-source; seen: 7.0.13 (its
 * NVMe-only guest, docs/known-issues.md).  7.1 (not read) sits between two
 * releases with the race; 6.18.y and 6.19.y have the idle exit from a
 * sublevel not known, and whether they took the fix is not known.
 */
static enum hb_kbug iowq_exit_race(int major, int minor, int sub)
{
	if (version_before(major, minor, 6, 18))
		return HB_KBUG_ABSENT;
	if (version_before(major, minor, 7, 0))
		return HB_KBUG_UNKNOWN;
	if (version_before(major, minor, 7, 3))
		return HB_KBUG_PRESENT;
	if (major == 7 && minor == 3 && !series_has_fix(sub, 2))
		return HB_KBUG_PRESENT;
	return HB_KBUG_ABSENT;
}

/*
 * RWF_ATOMIC needs a user-memory iterator.  c34fc6f26ab8 ("fs: Initial
 * atomic write support", 6.11) brought the flag with
 * generic_atomic_write_valid() (fs/read_write.c), whose first test is
 * iter_is_ubuf(): block/fops.c calls it for every atomic write, and
 * ext4 and XFS since they took atomic writes, so a registered buffer's
 * write (READ/WRITE_FIXED import an ITER_BVEC) is refused EINVAL, and so
 * is a vectored one of more than one iovec (ITER_IOVEC); IORING_OP_WRITE
 * imports ITER_UBUF (io_uring/rw.c import_ubuf()).  The test is
 * unchanged in 7.3.4's source (read); seen on 6.12 and 7.3 (NVMe) and
 * 6.18 (XFS).  Before 6.11 the flag is not known and the kernel refuses
 * it whatever the buffer (EOPNOTSUPP).
 */
static bool atomic_ubuf_only(int major, int minor)
{
	return !version_before(major, minor, 6, 11);
}

/*
 * A user metadata buffer that comes with an I/O.  6.1.192 copies every
 * one: nvme_map_user_request() hands it to nvme_add_user_metadata()
 * (drivers/nvme/host/ioctl.c), a kmalloc() bounce buffer filled by
 * copy_from_user() for a write, copied back by
 * nvme_finish_user_metadata() after a read; so does every release
 * before 6.8, which brought bio_integrity_map_user() (492c5d455969,
 * "block: bio-integrity: directly map user buffers", and d6aacee9255e
 * for NVMe).  Debian's linux-source-6.12 and 7.3.4 map it: it pins the
 * pages and copies only what the queue cannot take (lib/model/mdmap.c).
 * 6.8 to 6.11 were not read, so the model does not say for them.
 */
static enum hb_md_map md_user_map(int major, int minor)
{
	if (version_before(major, minor, 6, 8))
		return HB_MD_COPIED;
	if (version_before(major, minor, 6, 12))
		return HB_MD_UNKNOWN;
	return HB_MD_DIRECT;
}

static enum hb_kgen gen_of(int major, int minor, int sub)
{
	if (version_before(major, minor, 6, 3))
		return HB_KGEN_NONE;
	if (version_before(major, minor, 6, 12))
		return HB_KGEN_SINGLE;
	if (!has_vaddr_fix(major, minor, sub))
		return HB_KGEN_MULTI;
	return HB_KGEN_MULTI_FIXED;
}

/* The hand-coded advance of b000ae0ec2d7 (6.3) and its stable fixes. */
static void import_quirks(int major, int minor, int sub, struct hb_kmodel *km)
{
	bool advance_6_3 = !version_before(major, minor, 6, 3);

	/* d6fef34ee4d1: 6.7; the 6.6.y release is not known (see above) */
	km->import_offset_le_bvlen =
		quirk(sub, advance_6_3 && version_before(major, minor, 6, 7));
	/* a23800f08a60: 6.10, 6.9.7, 6.6.36 */
	km->import_nr_segs_bvlen =
		quirk(sub, advance_6_3 &&
			   !has_fix(major, minor, sub, 6, 10, 9, 7) &&
			   !has_fix(major, minor, sub, 6, 10, 6, 36));
	/* 776617db78c6: 6.4, 6.3.2 */
	km->coalesce_nonconsecutive =
		quirk(sub, advance_6_3 &&
			   !has_fix(major, minor, sub, 6, 4, 3, 2));
}

/*
 * The vectored import's offset rule follows the generation: e1d7727b73a1
 * (bvec[0]'s bv_offset) went to 6.15.5 and 6.16 together with
 * 3a3c6d61577d, the first offset from the page index.
 */
void hb_kmodel_set_gen(struct hb_kmodel *km, enum hb_kgen gen)
{
	km->gen = gen;
	km->vec_offset_from_bvec = km->vec_fixed &&
				   gen == HB_KGEN_MULTI_FIXED;
}

void hb_kmodel_for_release(int major, int minor, int sub, struct hb_kmodel *km)
{
	memset(km, 0, sizeof(*km));
	km->kmajor = major;
	km->kminor = minor;
	km->ksublevel = sub < 0 ? -1 : sub;
	import_quirks(major, minor, sub, km);
	pt_rules(major, minor, sub, km);
	/*
	 * km->pin_checks_vmas: io_pin_pages() walks the buffer's VMAs itself
	 * (before 6.5): a buffer over VMAs of different files, such as a
	 * hugetlb page next to anonymous memory, is -EINVAL (edd478269640, also
	 * in 6.1.y), and a hole after pinned pages can come back as -EINVAL
	 * too.
	 */
	km->pin_checks_vmas = version_before(major, minor, 6, 5);
	km->acct_batch_dedup = version_before(major, minor, 6, 13);
	km->acct_per_ring = has_hpage_acct(major, minor);
	km->vec_fixed = !version_before(major, minor, 6, 15);
	km->vmpin_needs_user = has_hpage_acct(major, minor);
	km->acct_clone_fixed = has_clone_acct_fix(major, minor);
	km->iowq_exit_race = iowq_exit_race(major, minor, sub);
	km->atomic_ubuf_only = atomic_ubuf_only(major, minor);
	km->md_user_map = md_user_map(major, minor);
	buf_limits(major, minor, km);
	/* ed9832bc08db (6.12); bvec_try_merge_page() behind vcnt > 0: 6.5 */
	km->plain_folio_runs = !version_before(major, minor, 6, 12);
	km->plain_merge_test_first = version_before(major, minor, 6, 5);
	/*
	 * iov_iter_extract_bvecs(): seen in 7.2, not in 6.18 (which merges,
	 * t/fio-plain.sh); the BTF of Debian's 7.0.13 image has the
	 * function, the 6.18 host's has not, so 7.0 (the 7.0 guest confirms
	 * it by the bio profile)
	 */
	km->plain_bvec_per_run = !version_before(major, minor, 7, 0);
	hb_kmodel_set_gen(km, gen_of(major, minor, sub));
	km->imu_bvecs_apart = bvecs_apart(major, minor, sub);
	/* c42bca92be92 (5.12); 5.10.262 still has __bio_iov_bvec_add_pages() */
	km->fixed_bio_add_page = version_before(major, minor, 5, 12);
	if (km->imu_bvecs_apart) {
		/* the header is in the table, not in the buffer's allocation */
		km->imu_header = 0;
	} else if (version_before(major, minor, 6, 15)) {
		km->imu_header = IMU_HEADER_OLD;
	} else {
		km->imu_header = has_hpage_acct(major, minor) ? IMU_HEADER_72 :
								IMU_HEADER_NEW;
		km->exact_nr_segs = true;
		km->imu_cache_bvecs = IMU_CACHE_BVECS;
	}
	if (sub >= 0)
		snprintf(km->name, sizeof(km->name), "%d.%d.%d", major, minor,
			 sub);
	else
		snprintf(km->name, sizeof(km->name), "%d.%d", major, minor);
}

void hb_kmodel_for_version(int major, int minor, struct hb_kmodel *km)
{
	hb_kmodel_for_release(major, minor, -1, km);
}

/*
 * Debian 6.1 with kernel/patches: the 6.16 coalescing rules, the 6.1
 * header (folio_shift sits in the padding after nr_bvecs), bvec[0] on
 * the page pinned for the first byte (6.1 has no unpin_user_folio(); see
 * io_uring 4/5 in kernel/patches/features/), and an exact nr_segs counted
 * from bvec[0]'s bv_len (io_uring 2/5; 6.1's over-estimate, every bvec to
 * the table's end, made a passthrough command from the start of a buffer
 * of more folios than max_segments -EINVAL).  io_uring 5/5 charges each compound head once
 * per ring by reference count (ctx->hpage_acct, as 7.2), but keeps 6.1's
 * VmPin charge for a ring with CAP_IPC_LOCK, and drops imu->acct_pages.
 * io_uring 3/5 charges a zero-copy send's frag for the pages it spans
 * (hb_model_sendzc_overcharge()).
 */
void hb_kmodel_backport(int sub, struct hb_kmodel *km)
{
	memset(km, 0, sizeof(*km));
	km->gen = HB_KGEN_MULTI_FIXED;
	km->imu_header = IMU_HEADER_BACKPORT;
	km->pin_checks_vmas = true;
	km->first_bvec_pinned_page = true;
	km->exact_nr_segs = true;
	km->nr_segs_from_head = true;
	km->acct_per_ring = true;
	/* io_uring 3/5: a SEND_ZC frag charged for the pages it spans */
	km->sendzc_charge_in_page = true;
	/* the block patch: folio runs, through 6.1's __bio_try_merge_page() */
	km->plain_folio_runs = true;
	km->plain_merge_test_first = true;
	/* the Debian 6.1 blk-map.c and NVMe ioctl path underneath */
	pt_rules(6, 1, sub, km);
	km->md_user_map = md_user_map(6, 1);
	buf_limits(6, 1, km);
	km->kmajor = 6;
	km->kminor = 1;
	km->ksublevel = sub < 0 ? -1 : sub;
	snprintf(km->name, sizeof(km->name), "6.1+hugebuf");
}

/* the pin-leak fix (e1c75831f682): an error path only, no rule changes */
static void fix_pinleak(struct hb_kmodel *km)
{
	(void)km;
}

/* io_uring 2/5 alone: nr_segs counted from bvec[0]'s bv_len */
static void fix_nrsegs(struct hb_kmodel *km)
{
	km->exact_nr_segs = true;
	km->nr_segs_from_head = true;
}

/* io_uring 5/5 alone: per-ring head references, no imu->acct_pages */
static void fix_memlock(struct hb_kmodel *km)
{
	km->acct_per_ring = true;
	km->acct_batch_dedup = false;
	km->imu_header = IMU_HEADER_BACKPORT;
}

/*
 * kernel/patches/mainline (io_sg_from_iter(), Fixes: 57bebf807e2a): a
 * SEND_ZC frag charged PAGE_ALIGN(bv_len + offset_in_page(bv_offset)),
 * the pages it spans, as io_uring 3/5 does on 6.1+hugebuf
 * (hb_model_sendzc_overcharge())
 */
static void fix_sendzc(struct hb_kmodel *km)
{
	km->sendzc_charge_in_page = true;
}

/* the bugfix/ patches are written against Debian's 6.1 */
static bool on_debian_61(const struct hb_kmodel *km)
{
	return km->kmajor == 6 && km->kminor == 1;
}

/* the SEND_ZC over-charge it removes came with 57bebf807e2a (6.3) */
static bool on_sendzc_overcharge(const struct hb_kmodel *km)
{
	return !version_before(km->kmajor, km->kminor, 6, 3);
}

static const struct {
	const char *name;
	bool (*applies)(const struct hb_kmodel *km);
	void (*apply)(struct hb_kmodel *km);
} release_fixes[] = {
	{ "pinleak", on_debian_61, fix_pinleak },
	{ "nrsegs", on_debian_61, fix_nrsegs },
	{ "memlock", on_debian_61, fix_memlock },
	{ "sendzc", on_sendzc_overcharge, fix_sendzc },
};

bool hbi_kmodel_release_fix(const char *release, struct hb_kmodel *km)
{
	const char *tag = strstr(release, "-hbfix-");
	char base[sizeof(km->name)];
	size_t i;

	if (!tag)
		return false;
	tag += strlen("-hbfix-");
	for (i = 0; i < sizeof(release_fixes) / sizeof(release_fixes[0]); i++) {
		if (strcmp(tag, release_fixes[i].name) ||
		    !release_fixes[i].applies(km))
			continue;
		memcpy(base, km->name, sizeof(base));
		release_fixes[i].apply(km);
		/* "6.1.192+fix-memlock", "7.3.4+fix-sendzc" */
		snprintf(km->name, sizeof(km->name), "%.9s+fix-%.8s", base,
			 release_fixes[i].name);
		return true;
	}
	return false;
}

static int parse_version(const char *s, int *major, int *minor, int *sub)
{
	char *end;
	long a, b, c;

	/* strtol() would take blanks and a sign: a version starts "N." */
	if (*s < '0' || *s > '9')
		return -1;
	a = strtol(s, &end, 10);
	if (end == s || *end != '.' || a < 2 || a > 99)
		return -1;
	s = end + 1;
	if (*s < '0' || *s > '9')
		return -1;
	b = strtol(s, &end, 10);
	if (end == s || b < 0 || b > 999)
		return -1;
	/*
	 * "6.1.192", "6.18.44-fc-v657", "6.8.0+" (a dirty build): the rest is
	 * ignored; any other "+suffix" is a typo of "6.1+hugebuf".
	 */
	if (*end == '+' && end[1])
		return -1;
	if (*end && *end != '.' && *end != '-' && *end != '+')
		return -1;
	*major = (int)a;
	*minor = (int)b;
	/* the sublevel, when digits follow the second dot */
	*sub = -1;
	if (*end == '.' && end[1] >= '0' && end[1] <= '9') {
		c = strtol(end + 1, NULL, 10);
		if (c >= 0 && c < 100000)
			*sub = (int)c;
	}
	return 0;
}

/* "6.1+hugebuf", or with the sublevel: "6.1.192+hugebuf" */
static bool is_backport(const char *s)
{
	const char *plus = strchr(s, '+');
	size_t n;

	if (!plus || strcmp(plus, "+hugebuf"))
		return false;
	n = (size_t)(plus - s);
	if (n == 3)
		return !strncmp(s, "6.1", 3);
	return n > 4 && !strncmp(s, "6.1.", 4) &&
	       strspn(s + 4, "0123456789") == n - 4;
}

int hb_kmodel_parse(const char *s, struct hb_kmodel *km)
{
	int major, minor, sub;

	if (s && is_backport(s)) {
		/* "6.1.192+hugebuf": the digits after "6.1." */
		hb_kmodel_backport(s[3] == '.' ? atoi(s + 4) : -1, km);
		return 0;
	}
	if (!s || parse_version(s, &major, &minor, &sub))
		return hb_seterr(EINVAL, "unknown kernel '%s': use a version "
				 "such as 6.1, 6.3, 6.12, 6.12.36, 6.16, or "
				 "6.1+hugebuf", s ? s : "");
	hb_kmodel_for_release(major, minor, sub, km);
	hbi_kmodel_release_fix(s, km);
	return 0;
}

/*
 * The releases the tests hold the model to, oldest first, then our
 * series: one of each generation, 6.13 and 6.15 where the accounting and
 * the import changed, and the newest release modelled.  The sublevel
 * quirks (6.3.1, 6.9.6, ...) are tested by name (t/unit-quirks.c).
 */
static const char *const known_kernels[] = {
	"5.10", /* 6.1's rules: 5.15's io_uring since 5.10.162 */
	"6.1", /* one bvec per page, io_pin_pages() checks the VMAs */
	"6.3", /* one bvec for a buffer inside one folio */
	"6.12", /* one bvec per folio, vaddr offset; table filled in the loop */
	"6.13", /* table rework: only last_hpage deduplicated (3597f2786b68) */
	"6.15", /* exact nr_segs, 56-byte imu header, READV_FIXED */
	"6.16", /* first offset from the folio page index (3a3c6d61577d) */
	"6.18", /* the newest release before the per-ring accounting */
	"7.2", /* per-ring hugepage accounting, 48-byte imu header */
	"7.3", /* 7.2's rules, the clone under-charge with them */
	"7.4", /* a cloned hugepage's charge balanced (efde156d91ba) */
	"6.1+hugebuf",
};

unsigned int hb_kmodel_known(const char *const **names)
{
	*names = known_kernels;
	return sizeof(known_kernels) / sizeof(known_kernels[0]);
}

uint64_t hb_kmodel_buf_len_max(const struct hb_kmodel *km, uint64_t uaddr)
{
	uint64_t by_pages;

	if (!km->pin_pages_max)
		return km->buf_len_max;
	/* nr_pages = PAGE_ALIGN(end) >> PAGE_SHIFT - uaddr >> PAGE_SHIFT */
	by_pages = km->pin_pages_max * HB_PAGE_SIZE -
		   (uaddr & (HB_PAGE_SIZE - 1));
	return by_pages < km->buf_len_max ? by_pages : km->buf_len_max;
}

/*
 * io_validate_user_buf_range() (io_buffer_validate() before it) and
 * io_pin_pages()'s page bound, in that order: the length limits of
 * buf_limits().  The address rules (NULL base, a wrapping end) are
 * lib/model/model.c's.
 */
/* io_pin_pages(): PAGE_ALIGN(end) >> PAGE_SHIFT - uaddr >> PAGE_SHIFT */
static uint64_t pinned_pages(uint64_t uaddr, uint64_t len)
{
	/* an end that wraps is -EOVERFLOW either way */
	if (len > UINT64_MAX - HB_PAGE_SIZE - uaddr)
		return UINT64_MAX;
	return ((uaddr + len + HB_PAGE_SIZE - 1) >> HB_PAGE_SHIFT) -
	       (uaddr >> HB_PAGE_SHIFT);
}

int hb_kmodel_check_buf_len(const struct hb_kmodel *km, uint64_t uaddr,
			    uint64_t len)
{
	char lim[16];

	if (!len)
		return hb_seterr(EFAULT, "buffer length is 0: the kernel "
				 "rejects empty buffers (EFAULT)");
	hb_fmt_size(km->buf_len_max, lim, sizeof(lim));
	if (len > km->buf_len_max)
		return hb_seterr(km->buf_len_errno, "a buffer of %llu bytes "
				 "is over kernel %s's %s limit per registered "
				 "buffer (%s): %s",
				 (unsigned long long)len, km->name, lim,
				 km->buf_len_errno == EFAULT ? "EFAULT" :
							       "EINVAL",
				 km->buf_len_max < SZ_1T_LEN ?
				 "split it, or use a 7.2+ kernel (1 TiB, "
				 "b4e41050b212)" : "split it");
	if (km->pin_pages_max && pinned_pages(uaddr, len) > km->pin_pages_max)
		return hb_seterr(EOVERFLOW, "a buffer of %llu bytes at 0x%llx "
				 "pins %llu pages, over kernel %s's %llu "
				 "(io_pin_pages(), EOVERFLOW): split it",
				 (unsigned long long)len,
				 (unsigned long long)uaddr,
				 (unsigned long long)pinned_pages(uaddr, len),
				 km->name,
				 (unsigned long long)km->pin_pages_max);
	return 0;
}

const char *hb_kgen_name(enum hb_kgen gen)
{
	switch (gen) {
	case HB_KGEN_NONE:
		return "none (one bvec per page, < 6.3)";
	case HB_KGEN_SINGLE:
		return "single-folio (6.3 - 6.11)";
	case HB_KGEN_MULTI:
		return "multi-folio, vaddr offset (6.12 - 6.15)";
	case HB_KGEN_MULTI_FIXED:
		return "multi-folio (6.16+)";
	}
	return "unknown";
}
