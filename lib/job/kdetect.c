// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which kernel generation is running: the version says one thing, small
 * experiments (first bvec, coalescing, accounting, the hole) say what the
 * kernel really does, and the behaviour wins.  Each experiment and the
 * kernel commit it tells apart: docs/lib-notes.md, "Kernel detection".
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <linux/capability.h>
#include <sys/syscall.h>

#include <liburing.h>

#include "job/job.h"

#define SZ_1M		(1ULL << 20)
#define SZ_2M		(2ULL << 20)
/* registrations per kernel memory count, and the fewest that can tell */
#define KMEM_COPIES	32
#define KMEM_MIN_COPIES	8

/* ---- the version ------------------------------------------------------ */

/* "X.Y.Z" at @s into @out (digits and dots only). */
static void copy_version(const char *s, char *out, size_t len)
{
	size_t n = strspn(s, "0123456789.");

	if (n >= len)
		n = len - 1;
	memcpy(out, s, n);
	out[n] = '\0';
	while (n && out[n - 1] == '.')
		out[--n] = '\0';
}

/*
 * Debian's build puts "Debian <upstream>-<abi>" after the "#<build>"
 * token of /proc/version; the compiler's "(Debian 12.2.0-14)" comes
 * before it and must not be taken.
 */
static bool version_from_proc_version(char *out, size_t len)
{
	char buf[512], *hash, *deb;

	if (hbi_read_file("/proc/version", buf, sizeof(buf)))
		return false;
	hash = strstr(buf, " #");
	deb = hash ? strstr(hash, " Debian ") : NULL;
	if (!deb)
		return false;
	copy_version(deb + 8, out, len);
	return strchr(out, '.') != NULL;
}

/* Ubuntu: "Ubuntu 6.8.0-45.45-generic 6.8.12": the last word. */
static bool version_from_signature(char *out, size_t len)
{
	char buf[256], *sp;

	if (hbi_read_file("/proc/version_signature", buf, sizeof(buf)))
		return false;
	buf[strcspn(buf, "\n")] = '\0';
	sp = strrchr(buf, ' ');
	if (!sp)
		return false;
	copy_version(sp + 1, out, len);
	return strchr(out, '.') != NULL;
}

static bool release_is_ours(const char *release)
{
	return strstr(release, "-hugebuf") != NULL;
}

/* The version model: upstream version, our suffix, or the release. */
static int detect_version(struct hb_kdetect *d)
{
	int major = 0, minor = 0, sub = -1;
	struct utsname u;

	if (uname(&u))
		return hb_seterr(errno, "uname failed: %s", strerror(errno));
	snprintf(d->release, sizeof(d->release), "%s", u.release);
	if (!version_from_proc_version(d->upstream, sizeof(d->upstream)) &&
	    !version_from_signature(d->upstream, sizeof(d->upstream)))
		copy_version(u.release, d->upstream, sizeof(d->upstream));
	if (sscanf(d->upstream, "%d.%d.%d", &major, &minor, &sub) < 2)
		return hb_seterr(EINVAL, "cannot parse kernel release '%s': "
				 "set HUGEBUF_KERNEL=X.Y to name the kernel "
				 "model", u.release);
	if (release_is_ours(u.release) && major == 6 && minor == 1) {
		hb_kmodel_backport(sub, &d->version_km);
	} else {
		hb_kmodel_for_release(major, minor, sub, &d->version_km);
		hbi_kmodel_release_fix(u.release, &d->version_km);
	}
	return 0;
}

int hbi_kmodel_version(struct hb_kmodel *km)
{
	struct hb_kdetect d;
	int ret;

	memset(&d, 0, sizeof(d));
	ret = detect_version(&d);
	if (!ret)
		*km = d.version_km;
	return ret;
}

/* ---- experiments -------------------------------------------------------- */

static uint64_t now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

static void note(struct hb_kdetect *d, const char *what)
{
	size_t n = strlen(d->note);

	snprintf(d->note + n, sizeof(d->note) - n, "%s%s", n ? "; " : "",
		 what);
}

/* smaps is a kilobyte per VMA: read in this much, not /proc's 1 KiB */
#define SMAPS_BUF	(64 << 10)
#define ANON_HUGE	"AnonHugePages:"

/* A line of smaps that starts a VMA's entry: "start-end perms ...". */
static bool smaps_vma_line(const char *l)
{
	return (*l >= '0' && *l <= '9') || (*l >= 'a' && *l <= 'f');
}

/*
 * AnonHugePages (kB) in the entry that starts at @buf[0], whose complete
 * lines end at @end; -1 when the entry has none, -2 when it goes on past
 * @end.
 */
static long smaps_entry_anon_huge(const char *buf, const char *end)
{
	const char *l = memchr(buf, '\n', end - buf);

	for (; l && ++l < end; l = memchr(l, '\n', end - l)) {
		if (smaps_vma_line(l))
			return -1;
		if (!strncmp(l, ANON_HUGE, strlen(ANON_HUGE)))
			return strtol(l + strlen(ANON_HUGE), NULL, 10);
	}
	return -2;
}

/*
 * AnonHugePages (kB) of the VMA starting at @a, or -1.  Its entry is
 * found with memmem() of "\n<start>-" in 64 KiB reads (the first line
 * follows the '\n' put before it), then its lines are looked at: smaps
 * is a kilobyte per VMA, and fgets() over fio's hundreds of VMAs took
 * millions of instructions.
 */
static long smaps_anon_huge_kb(const void *a)
{
	char needle[32], *buf, *hit = NULL, *nl;
	size_t have = 1, keep;
	long kb = -1;
	ssize_t n;
	int fd, len;

	len = snprintf(needle, sizeof(needle), "\n%lx-", (unsigned long)a);
	fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	buf = malloc(SMAPS_BUF);
	if (!buf) {
		close(fd);
		return -1;
	}
	buf[0] = '\n';
	while ((n = read(fd, buf + have, SMAPS_BUF - have)) > 0) {
		have += n;
		if (!hit) {
			hit = memmem(buf, have, needle, len);
			if (!hit) {
				/* what could begin the needle stays */
				keep = (size_t)len - 1;
				if (keep > have)
					keep = have;
				memmove(buf, buf + have - keep, keep);
				have = keep;
				continue;
			}
			have -= hit + 1 - buf;
			memmove(buf, hit + 1, have);
		}
		/* up to the last complete line */
		nl = memrchr(buf, '\n', have);
		kb = nl ? smaps_entry_anon_huge(buf, nl + 1) : -2;
		if (kb != -2 || have == SMAPS_BUF)
			break;
	}
	if (kb == -2)
		kb = -1;
	free(buf);
	close(fd);
	return kb;
}

/* "AnonHugePages: 2048 kB" in the smaps entry of the VMA starting at @a */
static bool thp_mapped(const void *a)
{
	return smaps_anon_huge_kb(a) >= (long)(SZ_2M >> 10);
}

/* A PMD-mapped 2 MiB THP at a 2 MiB boundary inside a 4 MiB mapping. */
static char *thp_at_boundary(void **map)
{
	char *a;

	*map = mmap(NULL, 2 * SZ_2M, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*map == MAP_FAILED)
		return NULL;
	a = (char *)HB_ALIGN_UP((uintptr_t)*map, SZ_2M);
	madvise(a, SZ_2M, MADV_HUGEPAGE);
	/* every page faulted, as MADV_COLLAPSE below may need them */
	hbi_touch_pages(a, SZ_2M);
	/* MADV_COLLAPSE (6.1) when the fault did not get a THP */
	if (!thp_mapped(a))
		madvise(a, SZ_2M, 25);
	if (!thp_mapped(a)) {
		munmap(*map, 2 * SZ_2M);
		return NULL;
	}
	return a;
}

/* One READ_FIXED of @len bytes from @fd into registered buffer 0. */
static int read_fixed(struct io_uring *ring, int fd, void *addr,
		      unsigned int len)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	io_uring_prep_read_fixed(sqe, fd, addr, len, 0, 0);
	io_uring_submit(ring);
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

/*
 * The mremap'd THP experiment: 1 when bvec[0]'s offset comes from the
 * address (6.12 - 6.15 without 3a3c6d61577d), 0 when from the page, -1
 * when it could not run.
 */
static int probe_first_bvec(struct hb_kdetect *d, struct io_uring *ring)
{
	void *src_map, *dst_map;
	bool moved = false;
	int res = -1, p[2] = { -1, -1 };
	struct iovec iov;
	char *a, *dst, chunk[4096];

	a = thp_at_boundary(&src_map);
	if (!a) {
		note(d, "no THP for the mremap experiment");
		return -1;
	}
	dst_map = mmap(NULL, 3 * SZ_2M, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dst_map == MAP_FAILED)
		goto out_src;
	dst = (char *)HB_ALIGN_UP((uintptr_t)dst_map, SZ_2M) + SZ_1M;
	if (mremap(a, SZ_2M, SZ_2M, MREMAP_MAYMOVE | MREMAP_FIXED, dst) !=
	    dst) {
		note(d, "mremap failed");
		goto out_dst;
	}
	moved = true;
	/* the two places the read can land hold anything but its bytes */
	memset(dst, 0xaa, sizeof(chunk));
	memset(dst + SZ_1M, 0xaa, sizeof(chunk));
	memset(chunk, 0x5c, sizeof(chunk));
	iov.iov_base = dst;
	iov.iov_len = SZ_1M;
	if (pipe(p) || write(p[1], chunk, sizeof(chunk)) != sizeof(chunk) ||
	    io_uring_register_buffers(ring, &iov, 1)) {
		note(d, "mremap experiment: pipe or registration failed");
		goto out_moved;
	}
	if (read_fixed(ring, p[0], dst, sizeof(chunk)) == sizeof(chunk)) {
		if (!memcmp(dst, chunk, sizeof(chunk)))
			res = 0;
		else if (!memcmp(dst + SZ_1M, chunk, sizeof(chunk)))
			res = 1;
		else
			note(d, "mremap experiment: the bytes landed nowhere "
			     "expected");
	}
	io_uring_unregister_buffers(ring);
out_moved:
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
out_dst:
	munmap(dst_map, 3 * SZ_2M);
out_src:
	if (moved) {
		/*
		 * Not the hole the THP left: another thread (fio's jobs) may
		 * have mapped something there meanwhile.
		 */
		munmap(src_map, a - (char *)src_map);
		munmap(a + SZ_2M, (char *)src_map + 2 * SZ_2M - (a + SZ_2M));
	} else {
		munmap(src_map, 2 * SZ_2M);
	}
	return res;
}

/* Two hugepages H1, H2: hugetlb when the pool has them, else THP. */
static int two_hugepages(struct hb_buf *buf)
{
	struct hb_backing b;

	memset(&b, 0, sizeof(b));
	b.kind = HB_BACKING_HUGETLB;
	b.folio_size = SZ_2M;

	if (!hb_alloc(&b, 2 * SZ_2M, 0, buf))
		return 0;
	b.kind = HB_BACKING_THP;
	if (!hb_alloc(&b, 2 * SZ_2M, 0, buf) && buf->huge_verified)
		return 0;
	if (buf->map)
		hb_free(buf);
	return -1;
}

/*
 * How many registrations charging @bytes each fit RLIMIT_MEMLOCK (at most
 * @want) on a ring whose limit is @checked (hb_model_memlock_checked()).
 */
static unsigned int copies_allowed_on(bool checked, uint64_t bytes,
				      unsigned int want)
{
	struct rlimit rl;
	uint64_t n;

	if (!checked || getrlimit(RLIMIT_MEMLOCK, &rl) ||
	    rl.rlim_cur == RLIM_INFINITY)
		return want;
	n = rl.rlim_cur / bytes;
	return n < want ? (unsigned int)n : want;
}

/* The same on a ring this process creates as it is. */
static unsigned int copies_allowed(uint64_t bytes, unsigned int want)
{
	return copies_allowed_on(hb_model_memlock_checked(
					 hbi_sys_cap_ipc_lock()),
				 bytes, want);
}

/*
 * What @k registrations of [@addr, @addr + @len) inside 2 MiB folios cost
 * in kernel memory (kB) under the verdict's two hypotheses
 * (hb_imu_hypotheses() over the pages such a buffer pins, with the
 * version's imu header).  0, or -1 when the model could not be built.
 */
static int kmem_hypotheses_kb(const struct hb_kmodel *version,
			      const char *addr, uint64_t len, unsigned int k,
			      struct hb_signal *s)
{
	uint64_t head = (uintptr_t)addr & (SZ_2M - 1);
	struct hb_imu none, multi;
	struct hb_page *pages;
	int ret = -1;

	pages = calloc(hb_nr_pages(head, len), sizeof(*pages));
	if (!pages)
		return -1;
	if (!hb_layout_synth(SZ_2M, head, len, 0, pages) &&
	    !hb_imu_hypotheses(version, pages, (uintptr_t)addr, len, &none,
			       &multi)) {
		s->none = (double)(k * none.alloc_bytes) / 1024;
		s->multi = (double)(k * multi.alloc_bytes) / 1024;
		hb_imu_free(&none);
		hb_imu_free(&multi);
		ret = 0;
	}
	free(pages);
	return ret;
}

/*
 * 1: coalesced, 0: one bvec per page, -1: not measured or not told apart
 * (hb_coalesce_verdict() over the kernel memory of K registrations).
 */
static int probe_kmem(struct hb_kdetect *d, struct io_uring *ring, char *addr,
		      uint64_t len, uint64_t charge)
{
	/*
	 * Copies of one buffer inside one hugepage are charged once
	 * (last_hpage, every version): @charge is then the whole charge.
	 */
	unsigned int k = len < SZ_2M ?
			 (copies_allowed(charge, 1) ? KMEM_COPIES : 0) :
			 copies_allowed(charge, KMEM_COPIES);
	struct hb_coalesce_evidence e = { .can_coalesce = true };
	struct hb_coalesce_verdict v;
	long delta;
	int ret;

	if (k < KMEM_MIN_COPIES) {
		note(d, "RLIMIT_MEMLOCK too small for a kernel memory count");
		return -1;
	}
	if (kmem_hypotheses_kb(&d->version_km, addr, len, k, &e.kmem)) {
		note(d, "kernel memory model failed");
		return -1;
	}
	ret = hb_measure_reg_kmem(ring, addr, len, k, &delta);
	if (ret) {
		note(d, ret == -ENOTSUP ? hb_errmsg() :
					  "kernel memory count failed");
		return -1;
	}
	e.kmem.done = true;
	e.kmem.measured = delta;
	e.kmem.model = e.kmem.multi;
	hb_coalesce_verdict(&e, &v);
	if (v.coalesced < 0)
		note(d, "kernel memory count told nothing apart");
	return v.coalesced;
}

/*
 * VmPin after registering [H1], [H2], [H1] in one call: 2 hugepages when
 * headpage_already_acct() sees the earlier buffers (up to 6.12), 3 since
 * the 6.13 table rework.  1 / 0 / -1 (not measured).
 */
static int probe_batch_dedup(struct hb_kdetect *d, struct io_uring *ring,
			     bool checked, char *h, int *charged)
{
	struct iovec iov[3] = {
		{ h, HB_PAGE_SIZE },
		{ h + SZ_2M, HB_PAGE_SIZE },
		{ h + HB_PAGE_SIZE, HB_PAGE_SIZE },
	};
	long before, after;

	*charged = -1;
	if (copies_allowed_on(checked, 3 * SZ_2M, 1) < 1) {
		note(d, "RLIMIT_MEMLOCK too small for the accounting check");
		return -1;
	}
	before = hb_vmpin_kb();
	if (before < 0 || io_uring_register_buffers(ring, iov, 3))
		return -1;
	after = hb_vmpin_kb();
	io_uring_unregister_buffers(ring);
	if (after < 0)
		return -1;
	/*
	 * Two hugepages charged nothing at all: this ring is not charged to
	 * VmPin (7.2+ with CAP_IPC_LOCK, vmpin_needs_user), so VmPin cannot
	 * tell how the kernel de-duplicates
	 */
	*charged = after != before;
	if (!*charged)
		return -1;
	return after - before < (long)((5 * SZ_1M) >> 10) ? 1 : 0;
}

/*
 * VmPin after two neighbours [H, 4K], [H + 4K, 4K] and slot 0 cleared by
 * an update: 1 when H is still charged (7.2's last reference rule), 0
 * when it was un-charged with slot 0 (§6.4's hole, up to 7.1), -1 when
 * not measured.
 */
static int probe_hole(struct hb_kdetect *d, struct io_uring *ring,
		      bool checked, char *h)
{
	struct iovec iov[2] = {
		{ h, HB_PAGE_SIZE },
		{ h + HB_PAGE_SIZE, HB_PAGE_SIZE },
	};
	struct iovec empty = { NULL, 0 };
	__u64 tag = 0;
	long before, charged, cleared;

	if (copies_allowed_on(checked, SZ_2M, 1) < 1)
		return -1;
	before = hb_vmpin_kb();
	if (before < 0 || io_uring_register_buffers(ring, iov, 2))
		return -1;
	charged = hb_vmpin_kb();
	if (io_uring_register_buffers_update_tag(ring, 0, &empty, &tag, 1) !=
	    1) {
		io_uring_unregister_buffers(ring);
		note(d, "the hole check's update failed");
		return -1;
	}
	cleared = hb_vmpin_kb();
	io_uring_unregister_buffers(ring);
	if (charged - before < (long)(SZ_2M >> 10) || cleared < 0)
		return -1;
	return cleared - before >= (long)(SZ_2M >> 10) ? 1 : 0;
}

/*
 * The accounting checks: the batch, and from 6.13 the hole, on a ring
 * that is charged; with CAP_IPC_LOCK the batch first runs on @ring, the
 * caller's own, to see whether such a ring is charged at all.
 */
static void probe_accounting(struct hb_kdetect *d, struct io_uring *ring,
			     char *h)
{
	const struct hb_kmodel *v = &d->version_km;
	struct io_uring acct;
	int r, charged = -1;
	bool checked;

	if (hbi_sys_cap_ipc_lock()) {
		/* registered, then charged (1) or not (0) */
		r = probe_batch_dedup(d, ring, false, h, &charged);
		if (charged >= 0)
			d->vmpin_needs_user = !charged;
		if (r >= 0)
			d->batch_dedup = r;
	}
	if (hb_ring_init_charged(&acct, 4, &checked)) {
		note(d, "no charged ring for the accounting checks");
		return;
	}
	if (d->batch_dedup < 0)
		d->batch_dedup = probe_batch_dedup(d, &acct, checked, h,
						   &charged);
	if (d->batch_dedup < 0 && charged == 0)
		note(d, "VmPin is not charged to this ring: accounting not "
		     "measured");
	/* the 6.13 table rework (no batch dedup) puts a cleared node at once */
	if (!v->acct_batch_dedup)
		d->hole_closed = probe_hole(d, &acct, checked, h);
	io_uring_queue_exit(&acct);
}

static void run_experiments(struct hb_kdetect *d)
{
	struct hb_buf buf = { .memfd = -1 };
	struct io_uring ring;
	char *h;

	d->first_bvec_vaddr = d->coalesce_single = d->coalesce_multi = -1;
	d->batch_dedup = d->hole_closed = d->vmpin_needs_user = -1;
	if (io_uring_queue_init(4, &ring, 0)) {
		note(d, "io_uring unavailable");
		return;
	}
	d->first_bvec_vaddr = probe_first_bvec(d, &ring);
	if (two_hugepages(&buf)) {
		note(d, "no hugetlb pages or THP for the coalescing checks");
		goto out;
	}
	h = buf.addr;
	/* all of H1: one folio, 6.3+ coalesces it */
	d->coalesce_single = probe_kmem(d, &ring, h, SZ_2M, SZ_2M);
	/* 512 pages over H1 and H2: two folios, 6.12+ and our series */
	d->coalesce_multi = probe_kmem(d, &ring, h + SZ_1M, SZ_2M, 2 * SZ_2M);
	probe_accounting(d, &ring, h);
	hb_free(&buf);
out:
	io_uring_queue_exit(&ring);
}

/* ---- combining ---------------------------------------------------------- */

static enum hb_kgen behaviour_gen(const struct hb_kdetect *d,
				  enum hb_kgen version_gen)
{
	if (d->first_bvec_vaddr == 1)
		return HB_KGEN_MULTI;
	if (d->coalesce_multi == 1)
		return d->first_bvec_vaddr == 0 ? HB_KGEN_MULTI_FIXED :
		       version_gen >= HB_KGEN_MULTI ? version_gen :
						      HB_KGEN_MULTI_FIXED;
	if (d->coalesce_single == 1 && d->coalesce_multi == 0)
		return HB_KGEN_SINGLE;
	if (d->coalesce_single == 0)
		return HB_KGEN_NONE;
	return version_gen;
}

/*
 * The accounting flags from what was seen.  A batch charged once per
 * hugepage is the loop-filled table (up to 6.12) or the per-ring
 * references (7.2+): the hole tells them apart where it ran, else the
 * version does; a batch that charged a hugepage twice rules both out.
 */
static void behaviour_accounting(const struct hb_kdetect *d,
				 struct hb_kmodel *b)
{
	if (d->vmpin_needs_user >= 0)
		b->vmpin_needs_user = d->vmpin_needs_user;
	if (d->hole_closed >= 0)
		b->acct_per_ring = d->hole_closed;
	if (d->batch_dedup == 0) {
		b->acct_per_ring = false;
		b->acct_batch_dedup = false;
	} else if (d->batch_dedup == 1) {
		b->acct_batch_dedup = !b->acct_per_ring;
	}
}

/* The version's model with what the experiments showed. */
static void behaviour_model(struct hb_kdetect *d)
{
	const struct hb_kmodel *v = &d->version_km;
	struct hb_kmodel *b = &d->behaviour_km;
	enum hb_kgen gen;

	d->behaviour_ok = d->first_bvec_vaddr >= 0 ||
			  d->coalesce_single >= 0 || d->coalesce_multi >= 0;
	*b = *v;
	if (!d->behaviour_ok)
		return;
	gen = behaviour_gen(d, v->gen);
	if (v->kmajor == 6 && v->kminor == 1 && gen == HB_KGEN_MULTI_FIXED) {
		/* only our series coalesces on 6.1 */
		hb_kmodel_backport(v->ksublevel, b);
	} else if (gen != v->gen) {
		hb_kmodel_set_gen(b, gen);
		/* "6.12.9*": the version, behaving otherwise */
		snprintf(b->name, sizeof(b->name), "%.22s*", v->name);
	}
	behaviour_accounting(d, b);
}

static bool same_model(const struct hb_kmodel *a, const struct hb_kmodel *b)
{
	return a->gen == b->gen &&
	       a->first_bvec_pinned_page == b->first_bvec_pinned_page &&
	       a->acct_batch_dedup == b->acct_batch_dedup &&
	       a->acct_per_ring == b->acct_per_ring &&
	       a->vmpin_needs_user == b->vmpin_needs_user;
}

static void summarize(struct hb_kdetect *d)
{
	const char *env = getenv("HUGEBUF_KERNEL");

	d->agreed = !d->behaviour_ok ||
		    same_model(&d->version_km, &d->behaviour_km);
	d->chosen = d->behaviour_km;
	d->source = d->behaviour_ok ? "behaviour" : "version";
	snprintf(d->summary, sizeof(d->summary),
		 "version %s says %s, behaviour says %s", d->upstream,
		 d->version_km.name,
		 d->behaviour_ok ? d->behaviour_km.name : "nothing (not run)");
	if (!d->agreed)
		snprintf(d->warning, sizeof(d->warning),
			 "warning: kernel %s behaves as %s, not as its version "
			 "%s says (%s): using the behaviour",
			 d->release, hb_kgen_name(d->behaviour_km.gen),
			 d->upstream, hb_kgen_name(d->version_km.gen));
	if (env && *env && !hb_kmodel_parse(env, &d->chosen))
		d->source = "HUGEBUF_KERNEL";
}

int hb_kmodel_detect(struct hb_kdetect *d)
{
	uint64_t t0 = now_usec();
	const char *env = getenv("HUGEBUF_KERNEL");
	struct hb_kmodel tmp;
	int ret;

	memset(d, 0, sizeof(*d));
	if (env && *env && hb_kmodel_parse(env, &tmp))
		return hb_seterr(EINVAL, "HUGEBUF_KERNEL='%s' is not a kernel "
				 "version: use e.g. 6.1, 6.12, 6.16 or "
				 "6.1+hugebuf, or unset it", env);
	ret = detect_version(d);
	if (ret)
		return ret;
	run_experiments(d);
	behaviour_model(d);
	summarize(d);
	d->usec = (unsigned int)(now_usec() - t0);
	return 0;
}

/*
 * One detection per process, for every thread: the experiments cost a few
 * milliseconds, and fio's clone_buffers jobs are threads that all ask at
 * once.  pthread_once() makes the others wait for the first; the
 * experiments allocate through hb_alloc(), which sits below this file and
 * never asks for the running model, so nothing comes back here.  The
 * failure's message is kept for every thread that asks later.
 */
static pthread_once_t cached_once = PTHREAD_ONCE_INIT;
static struct hb_kdetect cached;
static int cached_ret;
static char cached_err[256];

static void detect_once(void)
{
	cached_ret = hb_kmodel_detect(&cached);
	if (cached_ret)
		snprintf(cached_err, sizeof(cached_err), "%s", hb_errmsg());
}

const struct hb_kdetect *hb_kdetect_cached(void)
{
	pthread_once(&cached_once, detect_once);
	if (cached_ret) {
		hb_seterr(-cached_ret, "%s", cached_err);
		return NULL;
	}
	return &cached;
}

int hb_kmodel_running(struct hb_kmodel *km)
{
	const char *env = getenv("HUGEBUF_KERNEL");
	const struct hb_kdetect *d;

	/* the override needs no experiments */
	if (env && *env) {
		if (hb_kmodel_parse(env, km))
			return hb_seterr(EINVAL, "HUGEBUF_KERNEL='%s' is not a "
					 "kernel version: use e.g. 6.1, 6.12, "
					 "6.16 or 6.1+hugebuf, or unset it",
					 env);
		return 0;
	}
	d = hb_kdetect_cached();
	if (!d)
		return cached_ret;
	*km = d->chosen;
	return 0;
}
