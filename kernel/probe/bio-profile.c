// SPDX-License-Identifier: GPL-2.0-only
/*
 * bio-profile: what the block layer does per plain O_DIRECT I/O (no
 * registered buffer), run inside the qemu guest by kernel/ktest.sh.
 *
 * Plain O_DIRECT pins (6.12) or references (6.1) the user pages per I/O in
 * bio_iov_iter_get_pages() and builds the bvecs itself.  6.1 adds and
 * merges one page at a time; 6.12, and 6.1 with the second series of
 * kernel/patches/, add a whole physically contiguous run of a folio at
 * once.  For pwrite() and pread() of 128 KiB and 8 MiB on the raw NVMe
 * namespace (the region past the end of the guest's ext4, which
 * nvme-profile uses too), from 2 MiB hugetlb pages, THP and 4 KiB pages,
 * it reports per case:
 *   - device requests: calls of nvme_setup_cmd(), one per request, and
 *     beside them /sys/block/<disk>/stat, after minus before, which may
 *     lag (t/helpers.h: T_NVME_REQ_SYM);
 *   - calls of the add, merge and release functions of every kernel
 *     generation (a symbol a kernel lacks, or inlined, is reported as
 *     untraceable), from kprobe events' hit counts (t_kcount_open());
 *   - the wall time per I/O seen from user space: the fastest of a pass
 *     of its own with no counter armed (a kprobe hit traps);
 *   - for reads: the data, compared byte for byte with what the write of
 *     the same case left;
 *   - lib's model of the plain path (hb_model_plain()) for the buffer's
 *     real pages (PFNs from pagemap), the running kernel's model and the
 *     disk's queue limits, against every count that stands for one of its
 *     figures: each must be the prediction exactly.
 * Each I/O is profiled in a window of its own.  A count is exact, and
 * other block I/O in a window (the guest is idle, but ext4 on vda may
 * write) can only add to it, so the figure compared is the minimum over
 * the windows, the rule lib/model/verdict.c applies to request counts
 * (hb_plain_count_matches()).  Time is, under TCG, a ratio only.
 *
 * Then the data and leak checks of the plain path, with no counter:
 * buffers that start inside a page and inside a folio, a read that ends
 * in the next hugepage, and a preadv() whose two iovecs share a page (the
 * second add merges into a page that is already held), each verified, and
 * after each: FOLL_PIN pins and free 2 MiB hugepages back where they were.
 * Two THP cases follow: a read into THPs mremap()ed to an address not
 * congruent to their physical offset, and an io_uring read (not fixed)
 * into two THPs during which half of the first is zapped (MADV_DONTNEED),
 * after 0 to 1 ms, so that some zaps come before the bio takes the pages
 * and some while it holds them.
 *
 * Output: "BIOPROF key=value ..." lines; exit 0 on success, 1 on a
 * failure, 77 when there is no device or no kprobe events.
 *
 * Usage: bio-profile [-d /dev/nvme0n1] [-n ITER] [-t TRACEFS]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../t/helpers.h"

#define KiB		1024UL
#define MiB		(1024UL * KiB)
#define REGION		(128 * MiB)
#define MAX_IO		(8 * MiB)
/*
 * How long a check waits for its pins and hugepages to come back
 * (t_settle()): a guest beside another under TCG runs its work
 * items late, and a leak never comes back, so waiting long hides none.
 */
#define SETTLE_MS	3000
/*
 * How long the profile waits for the pins held, then the free 2 MiB
 * hugepages, to stand still: the program before this one may still be
 * letting its buffers go (5.10's io_ring_exit_work() unpins a ring's
 * buffers after its process has exited, then the pages go back).
 */
#define QUIET_MS	10000

/*
 * The functions profiled, and the figure of the model each one's calls
 * per I/O stand for (-1: shown, not compared), on the kernels whose plain
 * path goes through them (@path: ANY, MERGE where runs are added and
 * merged through the bio_add functions, RUN where each run is a bvec
 * filled by iov_iter_extract_bvecs(), 7.x).  bio_add_page() and
 * bio_add_folio() serve other callers, not this path; page_is_mergeable()
 * runs only when the bio has a bvec; get_contig_folio_len() only for runs
 * of more than one page; __bio_release_pages() may run from a work item
 * after the window for reads (bio_check_pages_dirty()).
 */
enum { ANY, MERGE, RUN };
static const struct {
	const char *name;
	int field, path;
} prof[] = {
	{ "bio_iov_iter_get_pages", HB_PLAIN_BIOS, ANY },
	{ "__bio_iov_iter_get_pages", HB_PLAIN_BATCHES, MERGE },
	{ "iov_iter_extract_bvecs", HB_PLAIN_BATCHES, RUN },	/* 7.x */
	{ "bio_iov_folio_run", HB_PLAIN_ADDS, MERGE },	/* patched 6.1 */
	{ "get_contig_folio_len", -1, ANY },		/* 6.12, 7.x */
	{ "__bio_try_merge_page", HB_PLAIN_MERGE_TESTS, ANY }, /* 6.1 */
	{ "page_is_mergeable", -1, ANY },		/* 6.1: inline */
	{ "bvec_try_merge_page", HB_PLAIN_MERGE_TESTS, ANY }, /* 6.5+ */
	{ "bio_iov_add_page", HB_PLAIN_ADDS, MERGE },	/* 6.1 */
	{ "bio_iov_add_folio", HB_PLAIN_ADDS, MERGE },	/* 6.12 */
	{ "bio_add_page", -1, ANY },
	{ "__bio_add_page", HB_PLAIN_BVECS, MERGE },
	{ "bio_add_folio", -1, ANY },
	{ "bio_add_folio_nofail", HB_PLAIN_BVECS, MERGE },	/* 6.12 */
	{ "__bio_release_pages", -1, ANY },
	{ "unpin_user_page", -1, ANY },
	{ "unpin_user_pages", -1, ANY },
	{ "unpin_user_folio", HB_PLAIN_UNPINS, ANY },	/* 6.12+ */
	{ "__folio_put", -1, ANY },
	{ "bio_alloc_bioset", -1, ANY },	/* not on the simple path */
	{ "submit_bio", HB_PLAIN_BIOS, ANY },
	{ T_NVME_REQ_SYM, -1, ANY },	/* the requests: see t/helpers.h */
};
#define REQ_SYM (sizeof(prof) / sizeof(prof[0]) - 1)

/* whether @i's calls stand for its figure on the kernel of @km */
static bool on_path(size_t i, const struct hb_kmodel *km)
{
	if (prof[i].field < 0)
		return false;
	if (prof[i].path == MERGE)
		return !km->plain_bvec_per_run;
	if (prof[i].path == RUN)
		return km->plain_bvec_per_run;
	return true;
}
#define NSYMS (sizeof(prof) / sizeof(prof[0]))

static const char *syms[NSYMS];

static const char *tracefs = "/sys/kernel/tracing";
static const char *dev = "/dev/nvme0n1";
static int iters = 4;
/* windows measured again at most this often when the pages moved */
#define MOVED_TRIES	3
static int counted[NSYMS];

/* the whole of @len at @off, or -1 */
static int full_io(int fd, bool write, void *buf, size_t len, off_t off)
{
	ssize_t n = write ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);

	return n == (ssize_t)len ? 0 : -1;
}

/* a distinct pattern per case, so a read cannot pass on another's data */
static uint64_t seed_of(int bk, size_t size)
{
	return 0x100 + bk * 16 + (size == MAX_IO);
}

static const char *const backings[] = { "hugetlb:2M", "thp", "4k" };
#define NBK (sizeof(backings) / sizeof(backings[0]))

/*
 * One case's figures over its windows: per symbol the sum and minimum;
 * @misses, the kprobe hits that were counted as missed (each a call).
 */
struct windows {
	unsigned long sum[NSYMS], min[NSYMS];
	long req_sum, req_min;
	int nwin, stat_short;
	long misses;
	double wall_usec;
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
	w->req_sum += req;
	if (!w->nwin || req < w->req_min)
		w->req_min = req;
	/* the disk's count lagging the requests made (t/helpers.h) */
	w->stat_short += counted[REQ_SYM] && req < (long)hits[REQ_SYM];
	w->nwin++;
}

/*
 * lib's model of one plain I/O of @size from @hb: its real pages, the
 * running kernel's model (@km, NULL when there is none) and @disk's queue
 * limits.  -1 with the reason in @why when a part is missing (no PFNs
 * without root).
 */
static int predict(const struct hb_kmodel *km, const struct hb_buf *hb,
		   size_t size, const char *disk, struct hb_plain_pred *pred,
		   char *why, size_t len)
{
	struct iovec iov = { hb->addr, size };
	struct hb_queue_limits q;
	struct hb_probe p;
	int ret;

	if (!km) {
		snprintf(why, len, "no model of the running kernel");
		return -1;
	}
	if (hb_blkdev_queue_limits(disk, false, &q)) {
		snprintf(why, len, "no queue limits: %s", hb_errmsg());
		return -1;
	}
	if (hb_probe(hb->addr, size, NULL, &p)) {
		snprintf(why, len, "no probe: %s", hb_errmsg());
		return -1;
	}
	if (!p.pfn) {
		snprintf(why, len, "no PFNs: %s", p.note);
		hb_probe_free(&p);
		return -1;
	}
	ret = hb_model_plain(km, p.pages, p.pfn, (uintptr_t)hb->addr, size,
			     &iov, 1, &q, pred);
	if (ret)
		snprintf(why, len, "model: %s", hb_errmsg());
	hb_probe_free(&p);
	return ret ? -1 : 0;
}

/*
 * Whether the model, asked again after the windows, predicts other
 * figures than @pred, made before them: the buffer's physical layout
 * changed under the I/Os (a THP split or migrated by NUMA balancing,
 * compaction or khugepaged, seen once in Debian's 6.12.118 guest as one
 * bvec more than predicted), so the counts belong to no one layout.
 */
static bool pages_moved(const struct hb_kmodel *km, const struct hb_buf *hb,
			size_t size, const char *disk,
			const struct hb_plain_pred *pred)
{
	struct hb_plain_pred now;
	char why[200];

	if (predict(km, hb, size, disk, &now, why, sizeof(why)))
		return false;
	return memcmp(&now, pred, sizeof(now)) != 0;
}

static int model_line(const char *op, int bk, size_t size, const char *what,
		      const struct hb_plain_pred *pred, int field,
		      unsigned long counted, const char *from)
{
	bool ok = hb_plain_count_matches(pred, field, counted);

	printf("BIOPROF model op=%s backing=%s size=%zu sym=%s counted=%lu predicted=%llu result=%s%s%s\n",
	       op, backings[bk], size, what, counted,
	       (unsigned long long)hb_plain_figure(pred, field),
	       ok ? "ok" : "FAIL", from ? " from=" : "", from ? from : "");
	return !ok;
}

/*
 * Whether function @i, in kallsyms but never called in any window while
 * its figure is not 0, was inlined at this path's call site and kept out
 * of line for other callers (Debian's 6.12.117: bio_add_folio_nofail(),
 * exported, inlined into bio_iov_add_folio()): only when another function
 * on the path that stands for the same figure counted it exactly.
 */
static bool inlined_here(size_t i, const struct hb_kmodel *km,
			 const struct hb_plain_pred *pred,
			 const struct windows *w)
{
	uint64_t want = hb_plain_figure(pred, prof[i].field);
	size_t j;

	if (w->sum[i] || !want)
		return false;
	for (j = 0; j < NSYMS; j++)
		if (j != i && counted[j] && on_path(j, km) &&
		    prof[j].field == prof[i].field && w->min[j] == want)
			return true;
	return false;
}

/* every traced count that stands for a figure, and the requests */
static int compare_model(const char *op, int bk, size_t size,
			 const struct hb_kmodel *km,
			 const struct hb_plain_pred *pred,
			 const struct windows *w)
{
	int fail = 0;
	size_t i;

	for (i = 0; i < NSYMS; i++) {
		if (!counted[i] || !on_path(i, km))
			continue;
		if (inlined_here(i, km, pred, w)) {
			printf("BIOPROF model op=%s backing=%s size=%zu sym=%s result=skip reason=no call seen: inlined into its caller on this kernel, its figure counted by another function\n",
			       op, backings[bk], size, prof[i].name);
			continue;
		}
		fail |= model_line(op, bk, size, prof[i].name, pred,
				   prof[i].field, w->min[i], NULL);
	}
	if (counted[REQ_SYM])
		return fail | model_line(op, bk, size, "requests", pred,
					 HB_PLAIN_REQUESTS, w->min[REQ_SYM],
					 T_NVME_REQ_SYM);
	return fail | model_line(op, bk, size, "requests", pred,
				 HB_PLAIN_REQUESTS,
				 w->req_min < 0 ? 0 : w->req_min, "diskstats");
}

/*
 * One I/O of the case in a counter window of its own: the hits of each
 * symbol, the device requests, and the window's kprobe misses (-1 when
 * the counters cannot be read).
 */
static int profile_one(int fd, const char *disk, bool w, void *buf,
		       size_t size, off_t off, unsigned long *hits,
		       long *misses, long *req)
{
	long before, after;
	int ret;

	before = t_disk_ios(disk, w);
	t_kcount_begin();
	ret = full_io(fd, w, buf, size, off);
	*misses = t_kcount_end(hits);
	after = t_disk_ios(disk, w);
	*req = after - before;
	return ret;
}

/*
 * The wall time of the fastest of ITER I/Os of the case, no counter
 * armed (other work on the machine only adds time).
 */
static double time_ios(int fd, bool w, void *buf, size_t size, off_t base)
{
	double t, best = -1;
	int it;

	for (it = 0; it < iters; it++) {
		t = t_now_usec();
		if (full_io(fd, w, buf, size, base + (off_t)it * size))
			return -1;
		t = t_now_usec() - t;
		if (best < 0 || t < best)
			best = t;
	}
	return best;
}

/* ITER I/Os of @size from backing @bk: the write, then the read back */
static int profile_case(int fd, const char *disk, off_t base, int bk,
			size_t size, const struct hb_kmodel *km)
{
	unsigned long hits[NSYMS];
	struct hb_plain_pred pred;
	struct windows win;
	struct hb_buf hb;
	char why[200];
	long bad, req, misses;
	int w, it, fail = 0, have_pred = -1, tries;
	bool thp = false;
	size_t i;

	if (t_alloc_errno(backings[bk], size, 0, &hb)) {
		printf("BIOPROF backing=%s size=%zu error=alloc\n",
		       backings[bk], size);
		return 1;
	}
	if (bk == 1)
		thp = t_thp_backed(hb.addr, size);
	for (w = 1; w >= 0; w--) {
		const char *op = w ? "write" : "read";

		if (w)
			t_pattern_fill(hb.addr, size, seed_of(bk, size), 0);
		/* one I/O outside the profile: TCG translates the path once */
		if (full_io(fd, w, hb.addr, size, base)) {
			printf("BIOPROF op=%s backing=%s size=%zu error=io:%s\n",
			       op, backings[bk], size, strerror(errno));
			fail = 1;
			break;
		}
		tries = 0;
again:
		/* the pages are in: the model reads their PFNs */
		have_pred = predict(km, &hb, size, disk, &pred, why,
				    sizeof(why));
		memset(&win, 0, sizeof(win));
		win.wall_usec = time_ios(fd, w, hb.addr, size, base);
		t_kcount_enable(true);
		for (it = 0; it < iters && !fail; it++) {
			if (!w)
				memset(hb.addr, 0, size);
			if (profile_one(fd, disk, w, hb.addr, size,
					base + (off_t)it * size, hits, &misses,
					&req)) {
				printf("BIOPROF op=%s backing=%s size=%zu error=io:%s\n",
				       op, backings[bk], size,
				       strerror(errno));
				fail = 1;
			}
			window_add(&win, hits, misses, req);
		}
		t_kcount_enable(false);
		if (!fail && !have_pred && pages_moved(km, &hb, size, disk,
						       &pred) &&
		    ++tries < MOVED_TRIES) {
			printf("BIOPROF op=%s backing=%s size=%zu note=the buffer's pages moved during the windows (THP split, migration or compaction): measured again\n",
			       op, backings[bk], size);
			goto again;
		}
		if (!w && !fail) {
			bad = t_pattern_mismatch(hb.addr, size,
						 seed_of(bk, size), 0);
			if (bad >= 0) {
				printf("BIOPROF op=read backing=%s size=%zu error=data:%ld\n",
				       backings[bk], size, bad);
				fail = 1;
			}
		}
		printf("BIOPROF op=%s backing=%s size=%zu ios=%d requests=%ld requests_min=%ld thp=%s data=%s wall_usec=%.1f misses=%ld stat_short_windows=%d\n",
		       op, backings[bk], size, win.nwin, win.req_sum,
		       win.req_min, bk == 1 ? (thp ? "yes" : "no") : "-",
		       w ? "written" : (fail ? "BAD" : "verified"),
		       win.wall_usec, win.misses, win.stat_short);
		for (i = 0; i < NSYMS; i++)
			if (counted[i])
				printf("BIOPROF op=%s backing=%s size=%zu sym=%s hits=%lu min=%lu\n",
				       op, backings[bk], size, syms[i],
				       win.sum[i], win.min[i]);
		if (fail)
			continue;
		if (have_pred)
			printf("BIOPROF model op=%s backing=%s size=%zu result=skip reason=%s\n",
			       op, backings[bk], size, why);
		else
			fail |= compare_model(op, bk, size, km, &pred, &win);
	}
	hb_free(&hb);
	return fail;
}

/*
 * One checked read of the plain path: @len bytes at @head into a buffer
 * of @backing, the pattern written first from a 4 KiB bounce buffer
 * (another path), read back with one iovec, or with two when @split is
 * not 0 (the first iovec @split bytes long, so both touch one page).
 */
static int check_case(int fd, off_t base, const char *backing, size_t head,
		      size_t len, size_t split)
{
	long pins0, pins1, free0, free1, bad = -1;
	struct hb_buf hb, src;
	struct iovec iov[2];
	uint64_t seed = 0x200 + head + split;
	int fail = 0;
	ssize_t n;

	pins0 = t_pins_held();
	free0 = hb_hugepages_free(T_SZ_2M);
	if (t_alloc_errno("4k", len, 0, &src))
		return 1;
	t_pattern_fill(src.addr, len, seed, 0);
	if (full_io(fd, true, src.addr, len, base))
		fail = 1;
	hb_free(&src);
	if (t_alloc_errno(backing, len, head, &hb)) {
		printf("BIOPROF check backing=%s head=%zu error=alloc\n",
		       backing, head);
		return 1;
	}
	memset(hb.addr, 0, len);
	iov[0].iov_base = hb.addr;
	iov[0].iov_len = split ? split : len;
	iov[1].iov_base = (char *)hb.addr + split;
	iov[1].iov_len = len - split;
	n = preadv(fd, iov, split ? 2 : 1, base);
	if (fail || n != (ssize_t)len)
		fail = 1;
	else
		bad = t_pattern_mismatch(hb.addr, len, seed, 0);
	if (bad >= 0)
		fail = 1;
	hb_free(&hb);
	t_settle(t_pins_of, NULL, pins0, T_SETTLE_EQ, SETTLE_MS, &pins1);
	t_settle(t_free_2m_of, NULL, free0, T_SETTLE_EQ, SETTLE_MS, &free1);
	if (pins1 != pins0 || free1 != free0)
		fail = 1;
	printf("BIOPROF check backing=%s head=%zu len=%zu split=%zu io=%zd first_bad=%ld pins_left=%ld free_2m_delta=%ld result=%s\n",
	       backing, head, len, split, n, bad, pins1 - pins0,
	       free1 - free0, fail ? "FAIL" : "ok");
	return fail;
}

/* the pattern of @seed at device offset @base, written from a bounce buffer */
static int put_pattern(int fd, off_t base, size_t len, uint64_t seed)
{
	struct hb_buf src;
	int ret;

	if (t_alloc_errno("4k", len, 0, &src))
		return -1;
	t_pattern_fill(src.addr, len, seed, 0);
	ret = full_io(fd, true, src.addr, len, base);
	hb_free(&src);
	return ret;
}

/*
 * The second half of THP X and all of THP Y moved to a 2 MiB aligned
 * address: every user address is 1 MiB off its byte's offset in its folio,
 * so a run length or offset taken from the address instead of the page
 * would be wrong.  One plain read of the 3 MiB, verified.
 */
static int check_mremap(int fd, off_t base)
{
	const size_t len = 3 * MiB;
	struct hb_buf src, dst;
	long pins0 = t_pins_held(), pins1, bad = -1;
	const char *res = "FAIL";
	int fail = 1;
	uint8_t *x;

	if (t_alloc_errno("thp", 2 * T_SZ_2M, 0, &src))
		return 1;
	if (!t_thp_backed(src.map, 2 * T_SZ_2M)) {
		printf("BIOPROF check case=thp-mremap result=skip reason=no THP\n");
		hb_free(&src);
		return 0;
	}
	if (t_alloc_errno("4k", 2 * T_SZ_2M, 0, &dst)) {
		hb_free(&src);
		return 1;
	}
	x = src.map;
	if (mremap(x + MiB, MiB, MiB, MREMAP_MAYMOVE | MREMAP_FIXED,
		   dst.map) == MAP_FAILED ||
	    mremap(x + T_SZ_2M, T_SZ_2M, T_SZ_2M,
		   MREMAP_MAYMOVE | MREMAP_FIXED,
		   (char *)dst.map + MiB) == MAP_FAILED) {
		printf("BIOPROF check case=thp-mremap result=FAIL error=mremap:%s\n",
		       strerror(errno));
		hb_free(&dst);
		munmap(src.map, src.map_len);
		return 1;
	}
	if (!t_thp_backed(dst.map, len)) {
		res = "skip";
		fail = 0;
	} else if (!put_pattern(fd, base, len, 0x301) &&
		   !full_io(fd, false, dst.map, len, base)) {
		bad = t_pattern_mismatch(dst.map, len, 0x301, 0);
		fail = bad >= 0;
		res = fail ? "FAIL" : "ok";
	}
	hb_free(&dst);
	hb_free_moved(&src, MiB, 3 * MiB);
	t_settle(t_pins_of, NULL, pins0, T_SETTLE_EQ, SETTLE_MS, &pins1);
	if (pins1 != pins0) {
		fail = 1;
		res = "FAIL";
	}
	printf("BIOPROF check case=thp-mremap len=%zu first_bad=%ld pins_left=%ld result=%s\n",
	       len, bad, pins1 - pins0, res);
	return fail;
}

/*
 * A plain (not registered) io_uring read of 4 MiB into two THPs, and while
 * it is in flight MADV_DONTNEED of the second half of the first THP: the
 * mapping is split under the bio, which holds its own references (pins on
 * 6.12).  The read completes in full and the bytes still mapped hold the
 * data.  A zapped page reads back as zeros when the bio had taken it before
 * the zap, or holds the data when the read (punted to a worker) took its
 * pages after the zap and faulted in new ones; each page must be one or
 * the other, and nothing may stay pinned.
 */
static int check_zap_inflight(int fd, off_t base, unsigned int delay_us)
{
	const size_t len = 2 * T_SZ_2M;
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	struct io_uring ring;
	struct hb_buf b;
	long pins0 = t_pins_held(), pins1, bad = -1, odd = -1;
	unsigned int zero_pages = 0, data_pages = 0;
	bool inflight = false;
	int res = -1, fail = 1, zap_err = -1;
	size_t i, j;
	uint8_t *p, *pg;

	if (io_uring_queue_init(4, &ring, 0))
		return 1;
	if (t_alloc_errno("thp", len, 0, &b)) {
		io_uring_queue_exit(&ring);
		return 1;
	}
	if (!t_thp_backed(b.addr, len)) {
		printf("BIOPROF check case=thp-zap-inflight result=skip reason=no THP\n");
		hb_free(&b);
		io_uring_queue_exit(&ring);
		return 0;
	}
	p = b.addr;
	memset(p, 0xa5, len);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_read(sqe, fd, p, len, base);
	if (!put_pattern(fd, base, len, 0x302) &&
	    io_uring_submit(&ring) == 1) {
		if (delay_us)
			usleep(delay_us);
		inflight = io_uring_peek_cqe(&ring, &cqe) != 0;
		zap_err = 0;
		if (madvise(p + MiB, MiB, MADV_DONTNEED))
			zap_err = errno;
		if (!io_uring_wait_cqe(&ring, &cqe)) {
			res = cqe->res;
			io_uring_cqe_seen(&ring, cqe);
		}
	}
	if (res == (int)len) {
		bad = t_pattern_mismatch(p, MiB, 0x302, 0);
		if (bad < 0) {
			bad = t_pattern_mismatch(p + T_SZ_2M, T_SZ_2M, 0x302,
						 T_SZ_2M);
			if (bad >= 0)
				bad += T_SZ_2M;
		}
		for (i = MiB; i < 2 * MiB && odd < 0; i += T_SZ_4K) {
			pg = p + i;
			for (j = 0; j < T_SZ_4K && !pg[j]; j++)
				;
			if (j == T_SZ_4K)
				zero_pages++;
			else if (t_pattern_mismatch(pg, T_SZ_4K, 0x302, i) < 0)
				data_pages++;
			else
				odd = i;
		}
		fail = bad >= 0 || odd >= 0 || zap_err;
	}
	hb_free(&b);
	io_uring_queue_exit(&ring);
	t_settle(t_pins_of, NULL, pins0, T_SETTLE_EQ, SETTLE_MS, &pins1);
	if (pins1 != pins0)
		fail = 1;
	printf("BIOPROF check case=thp-zap-inflight delay_us=%u inflight=%s zap=%s io=%d first_bad=%ld zapped_zero_pages=%u zapped_data_pages=%u zapped_bad_page=%ld pins_left=%ld result=%s\n",
	       delay_us, inflight ? "yes" : "no",
	       zap_err > 0 ? strerror(zap_err) : (zap_err ? "-" : "ok"),
	       res, bad, zero_pages, data_pages,
	       odd, pins1 - pins0, fail ? "FAIL" : "ok");
	return fail;
}

/* the pins held, then the free 2 MiB hugepages, stood still (QUIET_MS) */
static bool quiet(void)
{
	long v;

	return t_settle(t_pins_of, NULL, 0, T_SETTLE_STILL, QUIET_MS, &v) &&
	       t_settle(t_free_2m_of, NULL, 0, T_SETTLE_STILL, QUIET_MS, &v);
}

int main(int argc, char **argv)
{
	static const size_t sizes[] = { 128 * KiB, MAX_IO };
	static const unsigned int zap_delays[] = { 0, 100, 200, 300, 500, 1000 };
	struct hb_kmodel km = { 0 };
	const char *disk;
	uint64_t size = 0;
	off_t base;
	int opt, fd, fail = 0;
	size_t b, s;

	while ((opt = getopt(argc, argv, "d:n:t:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		case 't':
			tracefs = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-n ITER] [-t TRACEFS]\n",
				argv[0]);
			return 2;
		}
	}
	if (iters < 1 || (uint64_t)iters * MAX_IO > REGION)
		iters = 4;
	disk = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < 2 * REGION) {
		printf("BIOPROF skip=no usable %s\n", dev);
		return 77;
	}
	base = (off_t)(size - REGION);
	for (b = 0; b < NSYMS; b++)
		syms[b] = prof[b].name;
	if (t_kcount_open(tracefs, syms, NSYMS, counted, "BIOPROF") <= 0)
		return 77;
	/* the running kernel's model, asked for outside the profile */
	if (hb_kmodel_running(&km))
		printf("BIOPROF model result=skip reason=%s\n", hb_errmsg());
	else
		printf("BIOPROF model kernel=%s folio_runs=%d merge_test_first=%d bvec_per_run=%d\n",
		       km.name, km.plain_folio_runs,
		       km.plain_merge_test_first, km.plain_bvec_per_run);
	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (b = 0; b < NBK; b++)
			fail |= profile_case(fd, disk, base, b, sizes[s],
					     km.name[0] ? &km : NULL);
	t_kcount_close();

	/* their baselines once the programs before have let go of theirs */
	if (!quiet())
		printf("BIOPROF note=pins or free hugepages still moving after 10 s\n");
	/* inside a page, inside a folio, across a hugepage, a shared page */
	fail |= check_case(fd, base, "hugetlb:2M", 512, 128 * KiB, 0);
	fail |= check_case(fd, base, "hugetlb:2M", 5 * T_SZ_4K + 512,
			   MAX_IO - T_SZ_2M, 0);
	fail |= check_case(fd, base, "hugetlb:2M", T_SZ_2M - T_SZ_4K,
			   3 * T_SZ_4K, 0);
	fail |= check_case(fd, base, "hugetlb:2M", 0, 256 * KiB, 2048);
	fail |= check_case(fd, base, "hugetlb:2M", 512, MAX_IO - T_SZ_2M,
			   T_SZ_2M - 1024);
	fail |= check_case(fd, base, "thp", 512, MAX_IO - T_SZ_2M, 3 * T_SZ_4K);
	fail |= check_case(fd, base, "4k", 512, 1 * MiB, 2560);
	fail |= check_mremap(fd, base);
	/* the zap before the worker takes the pages, then while it holds them */
	for (s = 0; s < sizeof(zap_delays) / sizeof(zap_delays[0]); s++)
		fail |= check_zap_inflight(fd, base, zap_delays[s]);
	close(fd);
	printf("BIOPROF done fail=%d\n", fail);
	return fail;
}
