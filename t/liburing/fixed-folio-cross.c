// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: fixed I/O across the ends of the 2 MiB hugetlb folios of
 * one registered buffer.  With multi-folio coalescing (a8edbb424b13,
 * 6.12) the buffer is one bvec per folio and io_import_fixed() must step
 * from one to the next at exactly the folio end; before, one bvec per
 * 4 KiB page.  Reads and writes, O_DIRECT where 4 KiB alignment allows,
 * on, before, after and across every folio end, whole folios, the whole
 * buffer, and spans over several folios; the data must match the file on
 * every path and nothing outside the range may change.  VmPin must grow
 * by the four folios once.  From hugebuf's folio-boundary regression cases.
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

/* @n 2 MiB hugetlb pages; NULL (a skip) when the pool has too few */
static char *map_huge(unsigned int n)
{
	char *p = mmap(NULL, n * HUGE_SZ, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB,
		       -1, 0);

	if (p == MAP_FAILED) {
		fprintf(stderr, "%u 2 MiB hugetlb pages: %s (vm.nr_hugepages "
			"too low?): skipping\n", n, strerror(errno));
		return NULL;
	}
	return p;
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

#define NR_FOLIOS	4

/*
 * VmPin of the buffer: its four 2 MiB folios.  hugebuf's
 * t/unit-liburing-figures.c checks this against hugebuf's kernel model.
 */
#define PIN_KB_FOUR_FOLIOS	8192

/* spans over folio ends: (buffer offset, length) */
static const long spans[][2] = {
	{ 0, HUGE_SZ },
	{ HUGE_SZ, HUGE_SZ },
	{ HUGE_SZ - (512 << 10), 1 << 20 },
	{ HUGE_SZ - PG_SZ, HUGE_SZ + 2 * PG_SZ },
	{ HUGE_SZ / 2, 2 * HUGE_SZ },
	{ 3 * HUGE_SZ - 0x321, 0x642 },
	{ PG_SZ, NR_FOLIOS * HUGE_SZ - 2 * PG_SZ },
	{ 0, NR_FOLIOS * HUGE_SZ },
};

int main(int argc, char *argv[])
{
	struct ctx c;
	struct reg r;
	unsigned int i;
	char *huge;
	int ret, ret2;

	ret = begin(&c, argc, "fixed-folio-cross", NR_FOLIOS * HUGE_SZ);
	if (ret)
		return ret;
	huge = map_huge(NR_FOLIOS);
	if (!huge)
		return end(&c, T_EXIT_SKIP);
	r = (struct reg){ huge, huge, NR_FOLIOS * HUGE_SZ, 0 };
	ret = reg_bufs(&c, &r, 1, PIN_KB_FOUR_FOLIOS);
	if (ret < 0) {
		fprintf(stderr, "register: %s\n", strerror(-ret));
		ret = T_EXIT_FAIL;
	}
	if (ret)
		goto out;
	for (i = 1; !ret && i < NR_FOLIOS; i++)
		ret = check_edge(&c, &r, i * HUGE_SZ);
	for (i = 0; !ret && i < ARRAY_SIZE(spans); i++)
		ret = check_io(&c, &r, spans[i][0], spans[i][1]);
	ret2 = unreg_bufs(&c, PIN_KB_FOUR_FOLIOS);
	if (!ret)
		ret = ret2;
out:
	munmap(huge, NR_FOLIOS * HUGE_SZ);
	return end(&c, ret);
}
