// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: transparent hugepages moved by mremap() to an address that
 * is not congruent with the pages' place in their folio: the last 3 MiB of
 * two THPs go to a 2 MiB boundary + 4 KiB, so the buffer's first page is
 * page 256 of its folio while its address says page 1.  The 6.12
 * coalescing took bvec[0]'s offset from the address and moved the wrong
 * bytes; 3a3c6d61577d ("io_uring/rsrc: don't rely on user vaddr
 * alignment", 6.16 and stable) takes it from the page.  Buffers: the moved
 * 3 MiB, the moved half THP alone, and the 3 MiB from +0x234; reads and
 * writes around the first folio's end and over the whole buffer, O_DIRECT
 * where 4 KiB alignment allows.  VmPin counts each folio whole.  Needs
 * root (to see the folios in /proc/kpageflags) and THP; skips otherwise.
 * From hugebuf's t/regbuf-thp-mremap.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/mman.h>

#include "liburing.h"
#include "helpers.h"

#define HUGE_SZ		(2UL << 20)
#define PG_SZ		4096UL
#define GUARD		4096UL
#define BACKGROUND	0xa5
#define SEED_FILE	0x51
#define SEED_WRITE	0x7b

struct ctx {
	struct io_uring ring;
	int fd;			/* the scratch file, buffered */
	int dfd;		/* the same file, O_DIRECT */
	size_t size;
	unsigned char *bounce;	/* what a write left in the file */
	unsigned int nr_direct;	/* O_DIRECT I/Os issued */
};

/* A registered buffer; file offsets mirror addresses counted from @map. */
struct reg {
	char *map;
	char *buf;
	size_t len;
	int idx;
};

/* Byte @off of the file's pattern: 8-byte words of (seed, offset). */
static unsigned char pat(unsigned int seed, size_t off)
{
	uint64_t w = ((uint64_t)seed << 56) | (off & ~7UL);

	return w >> ((off & 7) * 8);
}

static void fill(unsigned char *p, size_t len, unsigned int seed, size_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = pat(seed, off + i);
}

/* The index of the first byte that is not the pattern, or -1. */
static long bad_byte(const unsigned char *p, size_t len, unsigned int seed,
		     size_t off)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != pat(seed, off + i))
			return i;
	return -1;
}

static long not_background(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != BACKGROUND)
			return i;
	return -1;
}

/* The scratch file in the current directory, holding SEED_FILE's pattern. */
static int file_setup(struct ctx *c, const char *name, size_t size)
{
	unsigned char *chunk;
	char path[80];
	size_t off, n;

	snprintf(path, sizeof(path), ".%s.%d", name, (int)getpid());
	c->fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (c->fd < 0) {
		fprintf(stderr, "create %s: %s\n", path, strerror(errno));
		return T_EXIT_FAIL;
	}
	c->dfd = open(path, O_RDWR | O_DIRECT);
	unlink(path);
	if (c->dfd < 0) {
		fprintf(stderr, "O_DIRECT open of %s: %s: skipping\n", path,
			strerror(errno));
		return T_EXIT_SKIP;
	}
	c->size = size;
	c->bounce = malloc(size + 2 * GUARD);
	chunk = malloc(1UL << 20);
	if (!c->bounce || !chunk) {
		free(chunk);
		return T_EXIT_FAIL;
	}
	for (off = 0; off < size; off += n) {
		n = size - off < (1UL << 20) ? size - off : (1UL << 20);
		fill(chunk, n, SEED_FILE, off);
		if (pwrite(c->fd, chunk, n, off) != (ssize_t)n) {
			fprintf(stderr, "writing the scratch file failed\n");
			free(chunk);
			return T_EXIT_FAIL;
		}
	}
	free(chunk);
	if (fsync(c->fd)) {
		fprintf(stderr, "fsync: %s\n", strerror(errno));
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

static void file_close(struct ctx *c)
{
	if (c->fd >= 0)
		close(c->fd);
	if (c->dfd >= 0)
		close(c->dfd);
	free(c->bounce);
}

/* O_DIRECT for what any device takes (4 KiB), buffered for the rest */
static int pick_fd(struct ctx *c, const void *addr, size_t len)
{
	if (!((uintptr_t)addr % PG_SZ) && !(len % PG_SZ)) {
		c->nr_direct++;
		return c->dfd;
	}
	return c->fd;
}

static int fixed_io(struct ctx *c, bool write, int fd, void *addr,
		    size_t len, size_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (write)
		io_uring_prep_write_fixed(sqe, fd, addr, len, off, idx);
	else
		io_uring_prep_read_fixed(sqe, fd, addr, len, off, idx);
	ret = io_uring_submit(&c->ring);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = io_uring_wait_cqe(&c->ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&c->ring, cqe);
	return ret;
}

static const char *how(const struct ctx *c, int fd)
{
	return fd == c->dfd ? "O_DIRECT" : "buffered";
}

/* READ_FIXED into [boff, boff + len) of @r: the file's bytes, nothing else */
static int check_read(struct ctx *c, const struct reg *r, size_t boff,
		      size_t len)
{
	unsigned char *a = (unsigned char *)r->buf + boff;
	size_t foff = (char *)a - r->map;
	size_t lo = boff < GUARD ? boff : GUARD;
	size_t hi = r->len - boff - len < GUARD ? r->len - boff - len : GUARD;
	int fd = pick_fd(c, a, len);
	long bad;
	int ret;

	memset(a - lo, BACKGROUND, lo + len + hi);
	ret = fixed_io(c, false, fd, a, len, foff, r->idx);
	if (ret != (int)len) {
		fprintf(stderr, "READ_FIXED %zu bytes at buffer offset 0x%zx "
			"(%s): %d\n", len, boff, how(c, fd), ret);
		return T_EXIT_FAIL;
	}
	bad = bad_byte(a, len, SEED_FILE, foff);
	if (bad >= 0) {
		fprintf(stderr, "READ_FIXED %zu bytes at buffer offset 0x%zx "
			"(%s): byte 0x%zx is 0x%02x, the file has 0x%02x\n",
			len, boff, how(c, fd), boff + bad, a[bad],
			pat(SEED_FILE, foff + bad));
		return T_EXIT_FAIL;
	}
	if (not_background(a - lo, lo) >= 0 ||
	    not_background(a + len, hi) >= 0) {
		fprintf(stderr, "READ_FIXED %zu bytes at buffer offset 0x%zx "
			"(%s) wrote outside its range\n", len, boff,
			how(c, fd));
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

/* WRITE_FIXED from [boff, boff + len) of @r: the file gets exactly those */
static int check_write(struct ctx *c, const struct reg *r, size_t boff,
		       size_t len)
{
	unsigned char *a = (unsigned char *)r->buf + boff;
	size_t foff = (char *)a - r->map;
	size_t lo = foff < GUARD ? foff : GUARD;
	size_t hi = c->size - foff - len < GUARD ? c->size - foff - len : GUARD;
	int fd = pick_fd(c, a, len);
	long bad;
	int ret;

	fill(a, len, SEED_WRITE, foff);
	ret = fixed_io(c, true, fd, a, len, foff, r->idx);
	if (ret != (int)len) {
		fprintf(stderr, "WRITE_FIXED %zu bytes at buffer offset 0x%zx "
			"(%s): %d\n", len, boff, how(c, fd), ret);
		return T_EXIT_FAIL;
	}
	if (pread(c->fd, c->bounce, lo + len + hi, foff - lo) !=
	    (ssize_t)(lo + len + hi)) {
		fprintf(stderr, "reading the file back failed\n");
		return T_EXIT_FAIL;
	}
	bad = bad_byte(c->bounce + lo, len, SEED_WRITE, foff);
	if (bad >= 0) {
		fprintf(stderr, "WRITE_FIXED %zu bytes at buffer offset 0x%zx "
			"(%s): file byte 0x%zx is 0x%02x, the buffer had "
			"0x%02x\n", len, boff, how(c, fd), foff + bad,
			c->bounce[lo + bad], pat(SEED_WRITE, foff + bad));
		return T_EXIT_FAIL;
	}
	if (bad_byte(c->bounce, lo, SEED_FILE, foff - lo) >= 0 ||
	    bad_byte(c->bounce + lo + len, hi, SEED_FILE, foff + len) >= 0) {
		fprintf(stderr, "WRITE_FIXED %zu bytes at buffer offset 0x%zx "
			"(%s) changed the file outside its range\n", len, boff,
			how(c, fd));
		return T_EXIT_FAIL;
	}
	fill(c->bounce, len, SEED_FILE, foff);
	if (pwrite(c->fd, c->bounce, len, foff) != (ssize_t)len) {
		fprintf(stderr, "restoring the file failed\n");
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

/* Both directions for [boff, boff + len), clipped to the buffer. */
static int check_io(struct ctx *c, const struct reg *r, long boff, long len)
{
	int ret;

	if (boff < 0) {
		len += boff;
		boff = 0;
	}
	if ((size_t)boff >= r->len || len <= 0)
		return T_EXIT_PASS;
	if ((size_t)(boff + len) > r->len)
		len = r->len - boff;
	ret = check_read(c, r, boff, len);
	if (!ret)
		ret = check_write(c, r, boff, len);
	return ret;
}

/* I/O on, just before, just after and across buffer offset @at. */
static int check_edge(struct ctx *c, const struct reg *r, long at)
{
	static const long io[][2] = {
		{ -1, 2 }, { -(long)PG_SZ, 2 * PG_SZ }, { 0, PG_SZ },
		{ -(long)PG_SZ, PG_SZ }, { -0x100, 0x300 }, { 0, 1 },
		{ -1, 1 },
	};
	unsigned int i;
	int ret = 0;

	for (i = 0; !ret && i < ARRAY_SIZE(io); i++)
		ret = check_io(c, r, at + io[i][0], io[i][1]);
	return ret;
}

/* VmPin of /proc/self/status in kB (what pinned_vm holds), or -1 */
static long vmpin_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/*
 * Register @nr buffers; VmPin must grow by @pin_kb (the kernel charges a
 * folio whole, once).  Returns 0, T_EXIT_SKIP on ENOMEM (RLIMIT_MEMLOCK),
 * T_EXIT_FAIL, or the -errno of any other refusal.
 */
static int reg_bufs(struct ctx *c, struct reg *r, unsigned int nr,
		    long pin_kb)
{
	struct iovec iov[4];
	long before = vmpin_kb(), after;
	unsigned int i;
	int ret;

	for (i = 0; i < nr; i++) {
		iov[i].iov_base = r[i].buf;
		iov[i].iov_len = r[i].len;
		r[i].idx = i;
	}
	ret = io_uring_register_buffers(&c->ring, iov, nr);
	if (ret == -ENOMEM) {
		fprintf(stderr, "registering %zu bytes: ENOMEM (RLIMIT_MEMLOCK "
			"too low?): skipping\n", r[0].len);
		return T_EXIT_SKIP;
	}
	if (ret)
		return ret;
	after = vmpin_kb();
	if (before >= 0 && after - before != pin_kb) {
		fprintf(stderr, "registering %zu bytes at %p added %ld kB to "
			"VmPin, expected %ld kB\n", r[0].len, (void *)r[0].buf,
			after - before, pin_kb);
		io_uring_unregister_buffers(&c->ring);
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

/* Unregister; VmPin must be back where it was before registering. */
static int unreg_bufs(struct ctx *c, long pin_kb)
{
	long before = vmpin_kb(), after;
	int ret = io_uring_unregister_buffers(&c->ring);

	if (ret) {
		fprintf(stderr, "unregister: %s\n", strerror(-ret));
		return T_EXIT_FAIL;
	}
	after = vmpin_kb();
	if (before >= 0 && before - after != pin_kb) {
		fprintf(stderr, "unregistering gave back %ld kB of VmPin, "
			"expected %ld kB\n", before - after, pin_kb);
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

static int begin(struct ctx *c, int argc, const char *name, size_t size)
{
	int ret;

	c->fd = c->dfd = -1;
	if (argc > 1)
		return T_EXIT_SKIP;
	ret = t_create_ring(8, &c->ring, 0);
	if (ret == T_SETUP_SKIP)
		return T_EXIT_SKIP;
	if (ret != T_SETUP_OK)
		return T_EXIT_FAIL;
	ret = file_setup(c, name, size);
	if (ret) {
		file_close(c);
		io_uring_queue_exit(&c->ring);
	}
	return ret;
}

static int end(struct ctx *c, int ret)
{
	if (!ret && !c->nr_direct) {
		fprintf(stderr, "test bug: no O_DIRECT I/O was made\n");
		ret = T_EXIT_FAIL;
	}
	file_close(c);
	io_uring_queue_exit(&c->ring);
	return ret;
}

#define MOVED		(3 * HUGE_SZ / 2)
#define KPF_COMPOUND_HEAD	(1ULL << 15)
#define KPF_THP		(1ULL << 22)

/*
 * VmPin of the moved 3 MiB (half of one THP and all of the next) and of
 * the moved half alone: each folio whole.  hugebuf's
 * t/unit-liburing-figures.c checks these against hugebuf's kernel model.
 */
#define PIN_KB_MOVED_BOTH	4096
#define PIN_KB_MOVED_HALF	2048

static const struct {
	const char *name;
	size_t start, len;
	long pin_kb;
} cases[] = {
	{ "the moved 3 MiB", 0, MOVED, PIN_KB_MOVED_BOTH },
	{ "the moved half THP", 0, HUGE_SZ / 2, PIN_KB_MOVED_HALF },
	{ "the moved 3 MiB from +0x234", 0x234, MOVED - 0x234,
	  PIN_KB_MOVED_BOTH },
};

/* /proc/kpageflags of the page at @addr; -1 when it cannot be read */
static long long page_flags(const void *addr)
{
	uint64_t ent, flags;
	int fd, fd2;

	fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &ent, 8, (uintptr_t)addr / PG_SZ * 8) != 8 ||
	    !(ent >> 63) || !(ent & ((1ULL << 55) - 1))) {
		close(fd);
		return -1;
	}
	close(fd);
	fd2 = open("/proc/kpageflags", O_RDONLY);
	if (fd2 < 0)
		return -1;
	if (pread(fd2, &flags, 8, (ent & ((1ULL << 55) - 1)) * 8) != 8)
		flags = -1;
	close(fd2);
	return flags;
}

static bool is_thp(const void *addr, bool head)
{
	long long f = page_flags(addr);

	return f >= 0 && (f & KPF_THP) && !!(f & KPF_COMPOUND_HEAD) == head;
}

static int test_case(struct ctx *c, char *moved, unsigned int i)
{
	struct reg r = { moved, moved + cases[i].start, cases[i].len, 0 };
	long end_of_first = HUGE_SZ / 2 - cases[i].start;
	int ret, ret2;

	ret = reg_bufs(c, &r, 1, cases[i].pin_kb);
	if (ret < 0) {
		fprintf(stderr, "%s: register: %s\n", cases[i].name,
			strerror(-ret));
		return T_EXIT_FAIL;
	}
	if (ret)
		return ret;
	ret = check_edge(c, &r, end_of_first);
	if (!ret)
		ret = check_io(c, &r, end_of_first - 0x10000, 0x20000);
	if (!ret)
		ret = check_io(c, &r, 0, PG_SZ);
	if (!ret)
		ret = check_io(c, &r, 0x123, 0x456);
	if (!ret)
		ret = check_edge(c, &r, r.len);
	if (!ret)
		ret = check_io(c, &r, 0, r.len);
	if (ret)
		fprintf(stderr, "case \"%s\" failed\n", cases[i].name);
	ret2 = unreg_bufs(c, cases[i].pin_kb);
	return ret ? ret : ret2;
}

int main(int argc, char *argv[])
{
	size_t src_len = 3 * HUGE_SZ, dst_len = MOVED + PG_SZ + HUGE_SZ;
	char *src_map, *dst_map, *thp, *moved;
	struct ctx c;
	unsigned int i;
	int ret;

	ret = begin(&c, argc, "fixed-folio-thp-mremap", 2 * HUGE_SZ);
	if (ret)
		return ret;
	src_map = mmap(NULL, src_len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	dst_map = mmap(NULL, dst_len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (src_map == MAP_FAILED || dst_map == MAP_FAILED) {
		fprintf(stderr, "mmap: %s\n", strerror(errno));
		return end(&c, T_EXIT_FAIL);
	}
	thp = (char *)(((uintptr_t)src_map + HUGE_SZ - 1) & ~(HUGE_SZ - 1));
	if (madvise(thp, 2 * HUGE_SZ, MADV_HUGEPAGE)) {
		fprintf(stderr, "MADV_HUGEPAGE: %s: skipping\n",
			strerror(errno));
		ret = T_EXIT_SKIP;
		goto out;
	}
	memset(thp, 0x11, 2 * HUGE_SZ);
	if (!is_thp(thp, true) || !is_thp(thp + HUGE_SZ, true)) {
		fprintf(stderr, "no two THPs here (THP off, memory "
			"fragmented, or not root to read /proc/kpageflags): "
			"skipping\n");
		ret = T_EXIT_SKIP;
		goto out;
	}
	moved = (char *)(((uintptr_t)dst_map + HUGE_SZ - 1) &
			 ~(HUGE_SZ - 1)) + PG_SZ;
	if (mremap(thp + HUGE_SZ / 2, MOVED, MOVED,
		   MREMAP_MAYMOVE | MREMAP_FIXED, moved) == MAP_FAILED) {
		fprintf(stderr, "mremap of 3 MiB of THP: %s\n",
			strerror(errno));
		ret = T_EXIT_FAIL;
		goto out;
	}
	/* page 256 of a THP at page 1 of a 2 MiB span, then a THP head */
	if (!is_thp(moved, false) || !is_thp(moved + HUGE_SZ / 2, true)) {
		fprintf(stderr, "the moved range is no longer two THPs "
			"(split): skipping\n");
		ret = T_EXIT_SKIP;
		goto out;
	}
	for (i = 0; !ret && i < ARRAY_SIZE(cases); i++)
		ret = test_case(&c, moved, i);
out:
	munmap(src_map, src_len);
	munmap(dst_map, dst_len);
	return end(&c, ret);
}
