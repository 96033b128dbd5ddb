/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Fixed reads and writes of a registered buffer checked byte by byte, the
 * bytes around them included, O_DIRECT where 4 KiB alignment allows:
 * inlined by tools/liburing-export.sh into the tests that use it.
 */

static long not_background(const unsigned char *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != BACKGROUND)
			return i;
	return -1;
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

	if (write)
		io_uring_prep_write_fixed(sqe, fd, addr, len, off, idx);
	else
		io_uring_prep_read_fixed(sqe, fd, addr, len, off, idx);
	return submit_wait(c);
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
