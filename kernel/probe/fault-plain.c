// SPDX-License-Identifier: GPL-2.0-only
/*
 * fault-plain: make every allocation of one plain O_DIRECT I/O (no
 * registered buffer) fail in turn, and check what each failure leaves
 * behind; run in the qemu guest by kernel/ktest.sh.
 *
 * The plain path allocates per I/O: the bio and its bvec array (from the
 * block device's bioset mempools), the split bios, page tables or lookups
 * in GUP, the NVMe driver's PRP/SGL lists and scatterlist, and for more
 * iovecs than fit the stack an imported iovec array.  Most of these sit
 * behind a mempool, so nothing fails on its own.  As in fault-regbuf, the
 * kernel's per-task fault injection does it: writing N to
 * /proc/thread-self/fail-nth (t_fail_nth_arm()) makes the N-th slab
 * or page allocation of this task fail, GFP_KERNEL ones included
 * (t_fault_setup()).  N runs 1, 2, 3, ... until an I/O ends with the
 * count not used up, so each allocation the I/O makes in this task fails
 * once (allocations in interrupt context and in kernel threads, e.g. a
 * requeued request, are not counted).
 *
 * Each attempt gets a fresh buffer.  After it:
 *   - the I/O failed with -ENOMEM, -EAGAIN or -EIO, or it moved every
 *     byte; a read that completed holds the pattern the case wrote to the
 *     device first (t_pattern_fill()), and at the end of a write case the
 *     device region reads back as the pattern.  Another errno, a short
 *     count or wrong data is a failure.
 *   - the FOLL_PIN count (t_pins_held()) is back where it was.  6.12
 *     pins the user pages of plain O_DIRECT; 6.1 takes page references
 *     (FOLL_GET), which that count does not see, so:
 *   - once the buffer is unmapped, no page of it is still held.  For 2 MiB
 *     hugetlb the pool says so: a hugepage with a leaked reference never
 *     goes back to it, so HugePages_Free must be at its baseline.  For THP
 *     and 4 KiB pages the PFNs are read from pagemap before the unmap and
 *     /proc/kpageflags after it: a page that is still anonymous but mapped
 *     nowhere (KPF_ANON without KPF_MMAP) has a reference nobody will drop.
 *     A freed page has no mapping (free_pages_prepare() clears it), and a
 *     page handed to another process again is mapped there.
 *     /proc/kpagecount is not used: it reports the map count, not the
 *     reference count, so it reads 0 after the unmap either way.
 *     A page that waits in a CPU's LRU-add batch has a reference of the
 *     batch.  Up to 6.12 the unmap drains this CPU's batch before it
 *     frees (lru_add_drain() in free_pages_and_swap_cache()); 7.2's
 *     free_pages_and_swap_cache() no longer does, so a page faulted in
 *     just before stays held by the batch until something drains it.
 *     Every count of held pages therefore drains this CPU's batch first
 *     (lru_drain(): POSIX_FADV_DONTNEED on the device's raw region calls
 *     lru_add_drain() in generic_fadvise(), 6.1 to 7.2), and the program
 *     stays on one CPU so that no other CPU's batch holds a page of it.
 *     A held page or pin is looked at again for up to SETTLE_MS, since a
 *     read may release its pages from a work item after the call returns
 *     (bio_check_pages_dirty()).
 *
 * That check is itself checked first ("control" lines): vmsplice() into a
 * pipe takes page references the way 6.1's plain path does, and with the
 * buffer unmapped they must show as held until the pipe is closed.
 *
 * Cases, on the raw region of nvme0n1 past its ext4 (as bio-profile):
 * 8 MiB and 128 KiB from 2 MiB hugetlb pages, THP and 4 KiB pages, each
 * pwrite() then pread(); preadv() with two iovecs that share a 4 KiB page,
 * 8 MiB into hugetlb and 1 MiB into 4 KiB pages.  About 25 s under TCG.
 *
 * Output: "FAULTPLAIN ..." lines: a line per attempt that went wrong, one
 * summary per case, one per control, and a "done" line;
 * exit 0 when every case ran with no leak and no bad data, 1 on a leak,
 * bad data or a setup error, 77 without fault injection or device.
 *
 * Usage: fault-plain [-d /dev/nvme0n1]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "../../t/helpers.h"

#define KiB		1024UL
#define MiB		(1024UL * KiB)
#define REGION		(128 * MiB)
#define MAX_N		1000
#define SETTLE_MS	200

#define KPF_MMAP	11
#define KPF_ANON	12

enum op { OP_WRITE, OP_READ, OP_READV };

struct fcase {
	enum op op;
	const char *backing;
	size_t len;
	size_t split;		/* OP_READV: length of the first iovec */
};

static const struct fcase cases[] = {
	{ OP_WRITE, "hugetlb:2M", 8 * MiB, 0 },
	{ OP_READ, "hugetlb:2M", 8 * MiB, 0 },
	{ OP_WRITE, "thp", 8 * MiB, 0 },
	{ OP_READ, "thp", 8 * MiB, 0 },
	{ OP_WRITE, "4k", 8 * MiB, 0 },
	{ OP_READ, "4k", 8 * MiB, 0 },
	{ OP_WRITE, "hugetlb:2M", 128 * KiB, 0 },
	{ OP_READ, "hugetlb:2M", 128 * KiB, 0 },
	{ OP_WRITE, "thp", 128 * KiB, 0 },
	{ OP_READ, "thp", 128 * KiB, 0 },
	{ OP_WRITE, "4k", 128 * KiB, 0 },
	{ OP_READ, "4k", 128 * KiB, 0 },
	/* the second iovec starts inside the 4 KiB page the first ends in */
	{ OP_READV, "hugetlb:2M", 8 * MiB, 2 * MiB - KiB },
	{ OP_READV, "4k", 1 * MiB, 10 * KiB + KiB / 2 },
};
#define NCASES (sizeof(cases) / sizeof(cases[0]))

static const char *const op_names[] = { "write", "read", "readv" };

struct tally {
	int attempts, done, complete, enomem, eagain, eio, other, short_io;
	int bad_data, leak_attempts, first_leak_n;
	long pins_left, pages_left, hp_left;
	const char *thp;	/* THP case: whether the buffers were THPs */
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* the whole of @len at @off from a 4 KiB bounce buffer, or -1 */
static int bounce_io(int fd, bool write, size_t len, off_t off, uint64_t seed,
		     long *bad)
{
	struct hb_buf b;
	ssize_t n;

	if (t_alloc_errno("4k", len, 0, &b))
		return -1;
	if (write)
		t_pattern_fill(b.addr, len, seed, 0);
	n = write ? pwrite(fd, b.addr, len, off) : pread(fd, b.addr, len, off);
	if (!write && n == (ssize_t)len)
		*bad = t_pattern_mismatch(b.addr, len, seed, 0);
	hb_free(&b);
	return n == (ssize_t)len ? 0 : -1;
}

/* the PFNs of the @len bytes at @addr, 0 for a page pagemap cannot name */
static int read_pfns(const void *addr, size_t len, uint64_t *pfn)
{
	unsigned int i, nr = len / T_SZ_4K;
	int fd = hb_pagemap_open(), ret;

	if (fd < 0)
		return -1;
	ret = hb_pagemap_read(fd, (uintptr_t)addr, nr, pfn);
	close(fd);
	if (ret)
		return -1;
	for (i = 0; i < nr; i++)
		pfn[i] = hb_pagemap_pfn(pfn[i]);
	return 0;
}

/* the raw region of the device: lru_drain() advises on it */
static int drain_fd = -1;
static off_t drain_off;

/*
 * Empty this CPU's LRU-add batch: generic_fadvise() calls lru_add_drain()
 * before it invalidates a range of at least one page.  The range is the
 * raw region, which only O_DIRECT touches, so nothing cached is dropped.
 */
static void lru_drain(void)
{
	if (drain_fd >= 0)
		posix_fadvise(drain_fd, drain_off, 1 * MiB,
			      POSIX_FADV_DONTNEED);
}

/* how many of @nr PFNs are anonymous pages mapped nowhere: still held */
static long pages_held(int kpf, const uint64_t *pfn, unsigned int nr)
{
	uint64_t flags;
	unsigned int i;
	long held = 0;

	lru_drain();
	for (i = 0; i < nr; i++) {
		if (!pfn[i] || pread(kpf, &flags, sizeof(flags),
				     (off_t)(pfn[i] * sizeof(flags))) !=
			       sizeof(flags))
			continue;
		if ((flags >> KPF_ANON & 1) && !(flags >> KPF_MMAP & 1))
			held++;
	}
	return held;
}

/* @probe's value once back at @want, or after SETTLE_MS: t_settle() */
static long settle(long (*probe)(void *), void *arg, long want)
{
	long v;

	t_settle(probe, arg, want, T_SETTLE_EQ, SETTLE_MS, &v);
	return v;
}

struct held_arg {
	int kpf;
	const uint64_t *pfn;
	unsigned int nr;
};

static long held_probe(void *arg)
{
	struct held_arg *h = arg;

	return pages_held(h->kpf, h->pfn, h->nr);
}

static ssize_t do_io(int fd, const struct fcase *c, void *buf, off_t off)
{
	struct iovec iov[2];

	switch (c->op) {
	case OP_WRITE:
		return pwrite(fd, buf, c->len, off);
	case OP_READ:
		return pread(fd, buf, c->len, off);
	default:
		iov[0].iov_base = buf;
		iov[0].iov_len = c->split;
		iov[1].iov_base = (char *)buf + c->split;
		iov[1].iov_len = c->len - c->split;
		return preadv(fd, iov, 2, off);
	}
}

/* one attempt with the @n-th allocation failing; -1 on a setup error */
static int attempt(int fd, int kpf, const struct fcase *c, off_t off,
		   const void *ref, uint64_t *pfn, int n, struct tally *t)
{
	bool hugetlb = !strncmp(c->backing, "hugetlb", 7);
	long pins0, hp0, pins, hp, held = 0, left, bad = -1;
	unsigned int nr = c->len / T_SZ_4K;
	struct held_arg ha = { kpf, pfn, nr };
	struct hb_buf b;
	ssize_t ret;
	int err;

	hp0 = hb_hugepages_free(T_SZ_2M);
	if (t_alloc_errno(c->backing, c->len, 0, &b))
		return -1;
	if (c->op == OP_WRITE)
		memcpy(b.addr, ref, c->len);
	else
		memset(b.addr, 0, c->len);
	if (!strcmp(c->backing, "thp") && !t->thp)
		t->thp = t_thp_backed(b.addr, c->len) ? "yes" : "no";
	pins0 = t_pins_held();
	if (t_fail_nth_arm(n)) {
		hb_free(&b);
		return -1;
	}
	ret = do_io(fd, c, b.addr, off);
	err = errno;
	left = t_fail_nth_disarm();
	t->attempts++;
	if (left > 0)
		t->done = 1;	/* the n-th allocation never came */
	if (ret == (ssize_t)c->len) {
		t->complete++;
		if (c->op != OP_WRITE && memcmp(b.addr, ref, c->len))
			bad = t_pattern_mismatch(b.addr, c->len, 0, 0);
	} else if (ret >= 0) {
		t->short_io++;
	} else if (err == ENOMEM) {
		t->enomem++;
	} else if (err == EAGAIN) {
		t->eagain++;
	} else if (err == EIO) {
		t->eio++;
	} else {
		t->other++;
	}
	pins = settle(t_pins_of, NULL, pins0);
	if (left < 0 || (!hugetlb && read_pfns(b.addr, c->len, pfn))) {
		hb_free(&b);
		return -1;
	}
	hb_free(&b);
	hp = settle(t_free_2m_of, NULL, hp0);
	if (!hugetlb)
		held = settle(held_probe, &ha, 0);
	if (bad >= 0)
		t->bad_data++;
	if (pins != pins0 || hp != hp0 || held) {
		t->leak_attempts++;
		if (!t->first_leak_n)
			t->first_leak_n = n;
		t->pins_left += pins - pins0;
		t->hp_left += hp0 - hp;
		t->pages_left += held;
	}
	if (bad >= 0 || pins != pins0 || hp != hp0 || held ||
	    (ret >= 0 && ret != (ssize_t)c->len) ||
	    (ret < 0 && err != ENOMEM && err != EAGAIN && err != EIO))
		printf("FAULTPLAIN op=%s backing=%s len=%zu n=%d ret=%zd errno=%s first_bad=%ld pins_left=%ld hugepages_held=%ld pages_held=%ld\n",
		       op_names[c->op], c->backing, c->len, n, ret,
		       ret < 0 ? strerror(err) : "-", bad, pins - pins0,
		       hp0 - hp, held);
	return 0;
}

/*
 * The leak check must see a leaked reference.  vmsplice() puts references
 * (not pins) to CTL_LEN of a buffer into a pipe, as 6.1's plain path takes
 * them; with the buffer unmapped and the pipe still open, the hugepage
 * must be missing from the pool or the pages counted as held, and with
 * the pipe closed all back.  0 when both hold.
 */
#define CTL_LEN (64 * KiB)	/* 16 pages: what a default pipe holds */

static int control(int kpf, const char *backing, uint64_t *pfn)
{
	bool hugetlb = !strncmp(backing, "hugetlb", 7);
	unsigned int nr = CTL_LEN / T_SZ_4K;
	struct held_arg ha = { kpf, pfn, nr };
	long hp0 = hb_hugepages_free(T_SZ_2M), open_held, closed_held;
	struct iovec iov;
	struct hb_buf b;
	int p[2], ok;
	ssize_t n;

	if (t_alloc_errno(backing, CTL_LEN, 0, &b))
		return 1;
	memset(b.addr, 0x5a, CTL_LEN);
	if (pipe(p)) {
		hb_free(&b);
		return 1;
	}
	iov.iov_base = b.addr;
	iov.iov_len = CTL_LEN;
	n = vmsplice(p[1], &iov, 1, 0);
	if (!hugetlb && read_pfns(b.addr, CTL_LEN, pfn))
		n = -1;
	hb_free(&b);
	if (hugetlb)
		open_held = hp0 - settle(t_free_2m_of, NULL, hp0 - 1);
	else
		open_held = settle(held_probe, &ha, nr);
	close(p[0]);
	close(p[1]);
	if (hugetlb)
		closed_held = hp0 - settle(t_free_2m_of, NULL, hp0);
	else
		closed_held = settle(held_probe, &ha, 0);
	ok = n == (ssize_t)CTL_LEN && closed_held == 0 &&
	     open_held == (hugetlb ? 1 : (long)nr);
	printf("FAULTPLAIN control backing=%s vmspliced=%zd held_while_spliced=%ld held_after_close=%ld result=%s\n",
	       backing, n, open_held, closed_held, ok ? "ok" : "FAIL");
	return !ok;
}

/* the pattern of every case: seed 0 at the start of the region */
static int run_case(int fd, int kpf, const struct fcase *c, off_t base,
		    const void *ref, uint64_t *pfn)
{
	struct tally t = { 0 };
	long bad = -1;
	double t0 = now_s();
	int n, fail = 0;
	const char *res;

	/* a read must find the pattern there, not what a write case left */
	if (c->op != OP_WRITE && bounce_io(fd, true, c->len, base, 0, &bad)) {
		printf("FAULTPLAIN op=%s backing=%s len=%zu error=pattern:%s\n",
		       op_names[c->op], c->backing, c->len, strerror(errno));
		return 1;
	}
	for (n = 1; n <= MAX_N && !t.done; n++)
		if (attempt(fd, kpf, c, base, ref, pfn, n, &t)) {
			printf("FAULTPLAIN op=%s backing=%s len=%zu n=%d error=setup\n",
			       op_names[c->op], c->backing, c->len, n);
			return 1;
		}
	/* what the writes left on the device */
	if (c->op == OP_WRITE) {
		if (bounce_io(fd, false, c->len, base, 0, &bad))
			bad = 0;
		t.bad_data += bad >= 0;
	}
	fail = !t.done || t.bad_data || t.leak_attempts || t.other ||
	       t.short_io;
	res = fail ? "FAIL" : "ok";
	printf("FAULTPLAIN summary op=%s backing=%s len=%zu attempts=%d complete=%d enomem=%d eagain=%d eio=%d other=%d short=%d bad_data=%d leak_attempts=%d first_leak_n=%d pins_left=%ld hugepages_held=%ld pages_held=%ld thp=%s swept=%s secs=%.1f result=%s\n",
	       op_names[c->op], c->backing, c->len, t.attempts, t.complete,
	       t.enomem, t.eagain, t.eio, t.other, t.short_io, t.bad_data,
	       t.leak_attempts, t.first_leak_n, t.pins_left, t.hp_left,
	       t.pages_left, t.thp ? t.thp : "-", t.done ? "yes" : "no",
	       now_s() - t0, res);
	return fail;
}

int main(int argc, char **argv)
{
	const char *dev = "/dev/nvme0n1";
	int opt, fd, kpf, fail = 0, ncase = 0;
	uint64_t size = 0, *pfn;
	struct hb_buf ref;
	cpu_set_t cpus;
	double t0 = now_s();
	off_t base;
	size_t i;

	while ((opt = getopt(argc, argv, "d:")) != -1) {
		if (opt != 'd') {
			fprintf(stderr, "usage: %s [-d DEV]\n", argv[0]);
			return 2;
		}
		dev = optarg;
	}
	if (t_fault_setup("FAULTPLAIN"))
		return 77;
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < 2 * REGION) {
		printf("FAULTPLAIN skip=no usable %s\n", dev);
		return 77;
	}
	base = (off_t)(size - REGION);
	drain_fd = fd;
	drain_off = base;
	/* one CPU: lru_drain() empties the LRU-add batch of this CPU only */
	CPU_ZERO(&cpus);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &cpus);
	kpf = open("/proc/kpageflags", O_RDONLY);
	pfn = calloc(8 * MiB / T_SZ_4K, sizeof(*pfn));
	if (sched_setaffinity(0, sizeof(cpus), &cpus) || kpf < 0 || !pfn ||
	    t_alloc_errno("4k", 8 * MiB, 0, &ref)) {
		printf("FAULTPLAIN error=setup:%s\n", strerror(errno));
		return 1;
	}
	t_pattern_fill(ref.addr, 8 * MiB, 0, 0);
	fail |= control(kpf, "hugetlb:2M", pfn);
	fail |= control(kpf, "thp", pfn);
	fail |= control(kpf, "4k", pfn);
	for (i = 0; i < NCASES; i++, ncase++)
		fail |= run_case(fd, kpf, &cases[i], base, ref.addr, pfn);
	hb_free(&ref);
	free(pfn);
	close(kpf);
	close(fd);
	printf("FAULTPLAIN done cases=%d fail=%d secs=%.1f\n", ncase, fail,
	       now_s() - t0);
	return fail;
}
