// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared helpers of the hugebuf tests: reporting, offset-encoded patterns,
 * scratch files, one-shot io_uring I/O with data checks, resource
 * baselines and the model's view of a buffer.  See t/helpers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

/* ------------------------------------------------------------------ */
/* reporting                                                            */
/* ------------------------------------------------------------------ */

static void vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* inside t_run_cases(): a case's SKIP is an info line, not the test's */
static int t_in_cases;

int t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(t_in_cases ? "  case skipped: " : "SKIP: ", fmt, ap);
	va_end(ap);
	return T_EXIT_SKIP;
}

int t_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("FAIL: ", fmt, ap);
	va_end(ap);
	return T_EXIT_FAIL;
}

void t_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("  ", fmt, ap);
	va_end(ap);
}

int t_fail_val(const char *what, long long expected, long long got)
{
	return t_fail("%s (expected %lld, got %lld)", what, expected, got);
}

int t_fail_hex(const char *what, uint64_t expected, uint64_t got)
{
	return t_fail("%s (expected 0x%llx, got 0x%llx)", what,
		      (unsigned long long)expected, (unsigned long long)got);
}

int t_worst(int a, int b)
{
	if (a == T_EXIT_FAIL || b == T_EXIT_FAIL)
		return T_EXIT_FAIL;
	if (a == T_EXIT_SKIP || b == T_EXIT_SKIP)
		return T_EXIT_SKIP;
	return a ? a : b;
}

/* ------------------------------------------------------------------ */
/* offset-encoded patterns                                              */
/* ------------------------------------------------------------------ */

#define T_OFF_MASK ((1ULL << 48) - 1)

static uint64_t seed_tag(uint64_t seed)
{
	/* bit 15 set: a pattern word is never zero */
	return ((seed * 0x9e37ULL) & 0x7fff) | 0x8000;
}

uint64_t t_pattern_word(uint64_t seed, uint64_t off)
{
	return (seed_tag(seed) << 48) | (off & T_OFF_MASK & ~7ULL);
}

static uint8_t pattern_byte(uint64_t seed, uint64_t off)
{
	return t_pattern_word(seed, off) >> ((off & 7) * 8);
}

void t_pattern_fill(void *buf, size_t len, uint64_t seed, uint64_t off)
{
	uint8_t *p = buf;
	size_t i = 0;

	for (; i < len && ((off + i) & 7); i++)
		p[i] = pattern_byte(seed, off + i);
	for (; i + 8 <= len; i += 8) {
		uint64_t w = t_pattern_word(seed, off + i);

		memcpy(p + i, &w, 8);
	}
	for (; i < len; i++)
		p[i] = pattern_byte(seed, off + i);
}

bool t_pattern_ok(const void *buf, size_t len, uint64_t seed, uint64_t off,
		  size_t *bad)
{
	const uint8_t *p = buf;
	size_t i = 0;

	for (; i < len && ((off + i) & 7); i++)
		if (p[i] != pattern_byte(seed, off + i))
			goto mismatch;
	for (; i + 8 <= len; i += 8) {
		uint64_t w = t_pattern_word(seed, off + i), got;

		memcpy(&got, p + i, 8);
		if (got != w)
			break;
	}
	for (; i < len; i++)
		if (p[i] != pattern_byte(seed, off + i))
			goto mismatch;
	return true;
mismatch:
	if (bad)
		*bad = i;
	return false;
}

/* Describe the 8 bytes found at a bad position: whose pattern word are they? */
static void describe_word(char *out, size_t len, const uint8_t *p, size_t avail,
			  uint64_t seed)
{
	uint64_t w = 0;

	memcpy(&w, p, avail < 8 ? avail : 8);
	if (avail < 8)
		snprintf(out, len, "bytes 0x%llx", (unsigned long long)w);
	else if (!w)
		snprintf(out, len, "zeroes");
	else if ((w >> 48) == seed_tag(seed))
		snprintf(out, len, "the data of pattern offset 0x%llx",
			 (unsigned long long)(w & T_OFF_MASK));
	else if ((w >> 63) & 1)
		snprintf(out, len,
			 "0x%016llx: another pattern's word for "
			 "offset 0x%llx, or corrupted",
			 (unsigned long long)w,
			 (unsigned long long)(w & T_OFF_MASK));
	else
		snprintf(out, len, "foreign bytes 0x%016llx",
			 (unsigned long long)w);
}

int t_pattern_verify(const char *what, const void *buf, size_t len,
		     uint64_t seed, uint64_t off)
{
	const uint8_t *p = buf;
	char desc[96];
	size_t bad, back, start;

	if (t_pattern_ok(buf, len, seed, off, &bad))
		return T_EXIT_PASS;
	/* report the whole pattern word around the first bad byte */
	back = (off + bad) & 7;
	start = back <= bad ? bad - back : bad;
	describe_word(desc, sizeof(desc), p + start, len - start, seed);
	return t_fail("%s: wrong data at offset 0x%zx of %zu bytes (expected "
		      "the data of pattern offset 0x%llx, got %s)",
		      what, bad, len,
		      (unsigned long long)((off + start) & ~7ULL), desc);
}

/* ------------------------------------------------------------------ */
/* scratch files                                                        */
/* ------------------------------------------------------------------ */

#define T_CHUNK (1ULL << 20)

const char *t_test_dir(void)
{
	const char *d = getenv("HUGEBUF_TEST_DIR");

	return d && *d ? d : "/var/tmp";
}

static int write_pattern(int fd, uint64_t off, uint64_t len, uint64_t seed)
{
	char *chunk = malloc(T_CHUNK);
	uint64_t done = 0;

	if (!chunk)
		return t_fail("out of memory for a 1 MiB write buffer");
	while (done < len) {
		size_t n = len - done < T_CHUNK ? len - done : T_CHUNK;
		ssize_t w;

		t_pattern_fill(chunk, n, seed, off + done);
		w = pwrite(fd, chunk, n, off + done);
		if (w != (ssize_t)n) {
			free(chunk);
			return t_fail("writing the scratch file: %s",
				      w < 0 ? strerror(errno) : "short write");
		}
		done += n;
	}
	free(chunk);
	if (fdatasync(fd))
		return t_fail("fdatasync of the scratch file: %s",
			      strerror(errno));
	return T_EXIT_PASS;
}

int t_file_create(struct t_file *f, uint64_t size, uint64_t seed, bool direct)
{
	char path[512];
	int ret;

	memset(f, 0, sizeof(*f));
	f->fd = f->dfd = -1;
	f->size = size;
	f->seed = seed;
	snprintf(f->dir, sizeof(f->dir), "%s", t_test_dir());
	snprintf(path, sizeof(path), "%s/hugebuf-t.XXXXXX", f->dir);
	f->fd = mkostemp(path, O_CLOEXEC);
	if (f->fd < 0)
		return t_skip("cannot create a scratch file in %s (%s): set "
			      "HUGEBUF_TEST_DIR to a writable directory",
			      f->dir, strerror(errno));
	if (direct) {
		f->dfd = open(path, O_RDWR | O_DIRECT | O_CLOEXEC);
		if (f->dfd < 0) {
			int err = errno;

			unlink(path);
			t_file_close(f);
			if (err == EINVAL)
				return t_skip("%s does not support O_DIRECT: "
					      "set HUGEBUF_TEST_DIR to a "
					      "directory on ext4/xfs",
					      f->dir);
			return t_fail("open O_DIRECT %s: %s", path,
				      strerror(err));
		}
	}
	/* no scratch file survives the test, whatever path it takes */
	unlink(path);
	/* one extent if the file system can: steadier request counts */
	if (posix_fallocate(f->fd, 0, size) && ftruncate(f->fd, size)) {
		ret = t_fail("cannot size the scratch file in %s to %llu "
			     "bytes: %s",
			     f->dir, (unsigned long long)size, strerror(errno));
		t_file_close(f);
		return ret;
	}
	ret = write_pattern(f->fd, 0, size, seed);
	if (ret) {
		t_file_close(f);
		return ret;
	}
	if (hb_blkdev_of_path(f->dir, f->blkdev, sizeof(f->blkdev)))
		f->blkdev[0] = '\0';
	return T_EXIT_PASS;
}

void t_file_close(struct t_file *f)
{
	if (f->fd >= 0)
		close(f->fd);
	if (f->dfd >= 0)
		close(f->dfd);
	f->fd = f->dfd = -1;
}

int t_file_restore(struct t_file *f, uint64_t off, uint64_t len)
{
	return write_pattern(f->fd, off, len, f->seed);
}

int t_file_poison(struct t_file *f, uint64_t off, uint64_t len)
{
	char *chunk = malloc(T_CHUNK);
	uint64_t done = 0;

	if (!chunk)
		return t_fail("out of memory for a 1 MiB poison buffer");
	memset(chunk, 0xdb, T_CHUNK);
	while (done < len) {
		size_t n = len - done < T_CHUNK ? len - done : T_CHUNK;

		if (pwrite(f->fd, chunk, n, off + done) != (ssize_t)n) {
			free(chunk);
			return t_fail("poisoning the scratch file: %s",
				      strerror(errno));
		}
		done += n;
	}
	free(chunk);
	if (fdatasync(f->fd))
		return t_fail("fdatasync: %s", strerror(errno));
	return T_EXIT_PASS;
}

int t_file_verify(struct t_file *f, const char *what, uint64_t off,
		  uint64_t len, uint64_t seed)
{
	char *chunk = malloc(T_CHUNK);
	uint64_t done = 0;
	int ret = T_EXIT_PASS;

	if (!chunk)
		return t_fail("out of memory for a 1 MiB read buffer");
	while (done < len && !ret) {
		size_t n = len - done < T_CHUNK ? len - done : T_CHUNK;
		ssize_t r = pread(f->fd, chunk, n, off + done);

		if (r != (ssize_t)n) {
			ret = t_fail("%s: reading the file back: %s", what,
				     r < 0 ? strerror(errno) : "short read");
			break;
		}
		ret = t_pattern_verify(what, chunk, n, seed, off + done);
		done += n;
	}
	free(chunk);
	return ret;
}

/* ------------------------------------------------------------------ */
/* io_uring                                                             */
/* ------------------------------------------------------------------ */

int t_ring_init(struct io_uring *ring, unsigned int entries)
{
	int ret = io_uring_queue_init(entries, ring, 0);

	if (ret == -EINVAL || ret == -ENOSYS || ret == -EPERM)
		return t_skip("io_uring is not available (%s): enable "
			      "CONFIG_IO_URING / kernel.io_uring_disabled=0",
			      strerror(-ret));
	if (ret)
		return t_fail("io_uring_queue_init: %s", strerror(-ret));
	return T_EXIT_PASS;
}

int t_io(struct io_uring *ring, int op, int fd, void *addr, unsigned int len,
	 uint64_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	switch (op) {
	case IORING_OP_READ_FIXED:
		io_uring_prep_read_fixed(sqe, fd, addr, len, off, idx);
		break;
	case IORING_OP_WRITE_FIXED:
		io_uring_prep_write_fixed(sqe, fd, addr, len, off, idx);
		break;
	case IORING_OP_READ:
		io_uring_prep_read(sqe, fd, addr, len, off);
		break;
	case IORING_OP_WRITE:
		io_uring_prep_write(sqe, fd, addr, len, off);
		break;
	default:
		return -EINVAL;
	}
	ret = io_uring_submit(ring);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

int t_register(struct io_uring *ring, const struct iovec *iov, unsigned int nr)
{
	int ret = hb_register_buffers(ring, iov, nr);

	if (!ret)
		return T_EXIT_PASS;
	if (ret == -ENOMEM && geteuid() != 0)
		return t_skip("registration needs more RLIMIT_MEMLOCK: %s",
			      hb_errmsg());
	return t_fail("registering %u buffer(s): %s (%s)", nr, hb_errmsg(),
		      strerror(-ret));
}

int t_register_refused(struct io_uring *ring, void *addr, uint64_t len,
		       int want, int also, long base_kb, const char *what,
		       const char *why, int *got)
{
	struct iovec iov = { addr, len };
	char when[128]; /* leaves room in t_vmpin_expect()'s message */
	int k;

	k = io_uring_register_buffers(ring, &iov, 1);
	if (got)
		*got = k;
	if (!k) {
		io_uring_unregister_buffers(ring);
		return t_fail("%s: registered, but %s", what, why);
	}
	/* k is never 0 here, so an @also of 0 matches nothing */
	if (k != want && k != also)
		return t_fail_val(what, want, k);
	snprintf(when, sizeof(when), "%s: after the refusal", what);
	return t_vmpin_expect(base_kb, 0, when);
}

static int check_range(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
		       const char *what)
{
	if (boff > rb->len || len > rb->len - boff || len > (1U << 31))
		return t_fail("%s: test bug: I/O [0x%llx, +0x%llx) is not "
			      "inside the 0x%llx-byte buffer",
			      what, (unsigned long long)boff,
			      (unsigned long long)len,
			      (unsigned long long)rb->len);
	return T_EXIT_PASS;
}

/* Guard sizes below and above [boff, boff+len) inside the buffer. */
static void guards(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
		   uint64_t *lo, uint64_t *hi)
{
	uint64_t after = rb->len - boff - len;

	*lo = boff < T_GUARD_BYTES ? boff : T_GUARD_BYTES;
	*hi = after < T_GUARD_BYTES ? after : T_GUARD_BYTES;
}

/* the background pattern: buffer offsets under a seed no file uses */
#define T_BG_SEED 0xb6b6b6ULL

static int check_guards(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
			const char *what)
{
	uint64_t lo, hi;
	char msg[160];
	int ret;

	guards(rb, boff, len, &lo, &hi);
	snprintf(msg, sizeof(msg), "%s: guard below the I/O", what);
	ret = t_pattern_verify(msg, rb->addr + boff - lo, lo, T_BG_SEED,
			       boff - lo);
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg), "%s: guard above the I/O", what);
	return t_pattern_verify(msg, rb->addr + boff + len, hi, T_BG_SEED,
				boff + len);
}

static void fill_background(const struct t_regbuf *rb, uint64_t boff,
			    uint64_t len)
{
	uint64_t lo, hi;

	guards(rb, boff, len, &lo, &hi);
	t_pattern_fill(rb->addr + boff - lo, lo + len + hi, T_BG_SEED,
		       boff - lo);
}

int t_read_fixed_check(const struct t_regbuf *rb, int fd, uint64_t seed,
		       uint64_t foff, uint64_t boff, uint64_t len,
		       const char *what)
{
	char msg[160];
	int ret, res;

	ret = check_range(rb, boff, len, what);
	if (ret)
		return ret;
	fill_background(rb, boff, len);
	res = t_io(rb->ring, IORING_OP_READ_FIXED, fd, rb->addr + boff, len,
		   foff, rb->idx);
	if (res != (int)len) {
		snprintf(msg, sizeof(msg),
			 "%s: READ_FIXED of %llu bytes at "
			 "buffer offset 0x%llx returned %s",
			 what, (unsigned long long)len,
			 (unsigned long long)boff,
			 res < 0 ? strerror(-res) : "a short count");
		return t_fail_val(msg, len, res);
	}
	snprintf(msg, sizeof(msg), "%s: READ_FIXED data", what);
	ret = t_pattern_verify(msg, rb->addr + boff, len, seed, foff);
	if (ret)
		return ret;
	return check_guards(rb, boff, len, what);
}

/* The file bytes next to a written range must be untouched. */
static int check_file_neighbours(struct t_file *f, uint64_t foff, uint64_t len,
				 const char *what)
{
	uint64_t lo = foff < T_GUARD_BYTES ? foff : T_GUARD_BYTES;
	uint64_t end = foff + len;
	uint64_t hi =
		f->size - end < T_GUARD_BYTES ? f->size - end : T_GUARD_BYTES;
	char msg[160];
	int ret;

	snprintf(msg, sizeof(msg), "%s: file bytes before the write", what);
	ret = t_file_verify(f, msg, foff - lo, lo, f->seed);
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg), "%s: file bytes after the write", what);
	return t_file_verify(f, msg, end, hi, f->seed);
}

int t_write_fixed_check(const struct t_regbuf *rb, struct t_file *f, int fd,
			uint64_t seed, uint64_t foff, uint64_t boff,
			uint64_t len, const char *what)
{
	char msg[160];
	int ret, res;

	ret = check_range(rb, boff, len, what);
	if (ret)
		return ret;
	if (foff > f->size || len > f->size - foff)
		return t_fail("%s: test bug: write beyond the scratch file",
			      what);
	t_pattern_fill(rb->addr + boff, len, seed, foff);
	ret = t_file_poison(f, foff, len);
	if (ret)
		return ret;
	res = t_io(rb->ring, IORING_OP_WRITE_FIXED, fd, rb->addr + boff, len,
		   foff, rb->idx);
	if (res != (int)len) {
		snprintf(msg, sizeof(msg),
			 "%s: WRITE_FIXED of %llu bytes at "
			 "buffer offset 0x%llx returned %s",
			 what, (unsigned long long)len,
			 (unsigned long long)boff,
			 res < 0 ? strerror(-res) : "a short count");
		ret = t_fail_val(msg, len, res);
		goto restore;
	}
	if (fd == f->fd && fdatasync(fd)) {
		ret = t_fail("%s: fdatasync: %s", what, strerror(errno));
		goto restore;
	}
	snprintf(msg, sizeof(msg), "%s: WRITE_FIXED data in the file", what);
	ret = t_file_verify(f, msg, foff, len, seed);
	if (!ret)
		ret = check_file_neighbours(f, foff, len, what);
restore:
	return t_worst(ret, t_file_restore(f, foff, len));
}

static bool all_zero(const char *p, uint64_t len, uint64_t *bad)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		if (p[i]) {
			*bad = i;
			return false;
		}
	}
	return true;
}

int t_devzero_check(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
		    const char *what)
{
	uint64_t bad, done;
	char msg[160];
	int fd, ret, res;

	ret = check_range(rb, boff, len, what);
	if (ret)
		return ret;
	fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return t_skip("cannot open /dev/zero: %s", strerror(errno));
	fill_background(rb, boff, len);
	/*
	 * read_iter_zero() may stop early under IOCB_NOWAIT when the CPU is
	 * wanted elsewhere, and io_uring does not retry a short read of a
	 * non-regular file: go on from where it stopped, as a caller must.
	 */
	for (done = 0; done < len; done += res) {
		res = t_io(rb->ring, IORING_OP_READ_FIXED, fd,
			   rb->addr + boff + done, len - done, 0, rb->idx);
		if (res <= 0) {
			snprintf(msg, sizeof(msg),
				 "%s: READ_FIXED from "
				 "/dev/zero after %llu bytes",
				 what, (unsigned long long)done);
			ret = t_fail_val(msg, len - done, res);
			goto out;
		}
	}
	if (!all_zero(rb->addr + boff, len, &bad)) {
		ret = t_fail("%s: READ_FIXED from /dev/zero left non-zero data "
			     "at offset 0x%llx of %llu bytes",
			     what, (unsigned long long)bad,
			     (unsigned long long)len);
		goto out;
	}
	ret = check_guards(rb, boff, len, what);
	if (ret)
		goto out;
	t_pattern_fill(rb->addr + boff, len, T_BG_SEED, boff);
	res = t_io(rb->ring, IORING_OP_WRITE_FIXED, fd, rb->addr + boff, len, 0,
		   rb->idx);
	if (res != (int)len) {
		snprintf(msg, sizeof(msg), "%s: WRITE_FIXED to /dev/zero",
			 what);
		ret = t_fail_val(msg, len, res);
	}
out:
	close(fd);
	return ret;
}

int t_read_fixed_alias(const struct t_regbuf *rb, const struct t_file *f,
		       int fd, uint64_t period, uint64_t bg_seed, uint64_t boff,
		       uint64_t len, uint64_t foff, const char *name,
		       char *what, size_t what_len)
{
	uint64_t in = boff & (period - 1), first = period - in;
	int res, ret;

	if (first > len)
		first = len;
	t_pattern_fill(rb->addr, period, bg_seed, 0);
	res = t_io(rb->ring, IORING_OP_READ_FIXED, fd, rb->addr + boff, len,
		   foff, rb->idx);
	snprintf(what, what_len, "%s: READ_FIXED [0x%llx, +0x%llx)%s", name,
		 (unsigned long long)boff, (unsigned long long)len,
		 fd == f->dfd ? " O_DIRECT" : "");
	if (res != (int)len)
		return t_fail_val(what, len, res);
	/* the part in this alias lands at @in of the memory */
	ret = t_pattern_verify(what, rb->addr + in, first, f->seed, foff);
	/* the rest, in the next alias, at the memory's start */
	if (!ret && len > first)
		ret = t_pattern_verify(what, rb->addr, len - first, f->seed,
				       foff + first);
	return ret;
}

int t_write_fixed_alias(const struct t_regbuf *rb, struct t_file *f, int fd,
			uint64_t period, uint64_t seed, const char *name)
{
	uint64_t i, copies = rb->len / period;
	char *copy = malloc(period), what[160];
	int res, ret;

	if (!copy)
		return t_fail("out of memory for a %llu-byte read buffer",
			      (unsigned long long)period);
	t_pattern_fill(rb->addr, period, seed, 0);
	ret = t_file_poison(f, 0, rb->len);
	if (ret)
		goto out;
	snprintf(what, sizeof(what), "%s: WRITE_FIXED of all %llu aliases",
		 name, (unsigned long long)copies);
	res = t_io(rb->ring, IORING_OP_WRITE_FIXED, fd, rb->addr, rb->len, 0,
		   rb->idx);
	if (res != (int)rb->len) {
		ret = t_fail_val(what, rb->len, res);
		goto out;
	}
	for (i = 0; i < copies && !ret; i++) {
		if (pread(f->fd, copy, period, i * period) != (ssize_t)period) {
			ret = t_fail("%s: reading back the file: %s", what,
				     strerror(errno));
			break;
		}
		snprintf(what, sizeof(what),
			 "%s: WRITE_FIXED of all aliases, file copy %llu", name,
			 (unsigned long long)i);
		ret = t_pattern_verify(what, copy, period, seed, 0);
	}
out:
	free(copy);
	return t_worst(ret, t_file_restore(f, 0, rb->len));
}

/* ------------------------------------------------------------------ */
/* allocation                                                           */
/* ------------------------------------------------------------------ */

int t_need_hugepages(uint64_t page_size, unsigned long nr)
{
	long nfree = hb_hugepages_free(page_size);
	char sz[16];

	hb_fmt_size(page_size, sz, sizeof(sz));
	if (nfree < 0)
		return t_skip("no %s hugetlb pool on this machine (needs %lu "
			      "free %s pages)",
			      sz, nr, sz);
	if ((unsigned long)nfree < nr)
		return t_skip("needs %lu free %s hugepages, the pool has %ld: "
			      "raise /sys/kernel/mm/hugepages/hugepages-"
			      "%llukB/nr_hugepages",
			      nr, sz, nfree,
			      (unsigned long long)(page_size >> 10));
	return T_EXIT_PASS;
}

int t_alloc(const char *backing, size_t len, size_t head_offset,
	    struct hb_buf *buf)
{
	struct hb_backing b;
	int ret;

	memset(buf, 0, sizeof(*buf));
	buf->memfd = -1;
	ret = hb_backing_parse(backing, &b);
	if (ret)
		return t_fail("test bug: backing '%s': %s", backing,
			      hb_errmsg());
	ret = hb_alloc(&b, len, head_offset, buf);
	if (ret)
		return t_skip("cannot allocate %zu bytes of %s: %s", len,
			      backing, hb_errmsg());
	return T_EXIT_PASS;
}

int t_alloc_thp(size_t len, size_t head_offset, struct hb_buf *buf,
		const char *what)
{
	int ret = t_alloc("thp", len, head_offset, buf);

	if (ret || buf->huge_verified)
		return ret;
	hb_free(buf);
	return t_skip("%s: no PMD THP could be had (THP disabled or memory "
		      "fragmented): set "
		      "/sys/kernel/mm/transparent_hugepage/enabled to madvise",
		      what);
}

/* ------------------------------------------------------------------ */
/* hand-made layouts                                                    */
/* ------------------------------------------------------------------ */

int t_resv_take(struct t_resv *r, uint64_t before, uint64_t len, uint64_t align)
{
	uintptr_t at;

	/* @align of slack: the aligned spot is at most that far in */
	r->len = before + align + len;
	r->base = mmap(NULL, r->len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		r->at = NULL;
		return t_fail("reserving %llu KiB of address space: %s",
			      (unsigned long long)(r->len >> 10),
			      strerror(errno));
	}
	at = ((uintptr_t)r->base + before + align - 1) &
	     ~(uintptr_t)(align - 1);
	r->at = (char *)at;
	return T_EXIT_PASS;
}

void t_resv_release(struct t_resv *r)
{
	if (r->base)
		munmap(r->base, r->len);
	r->base = NULL;
	r->at = NULL;
}

int t_map_hugetlb_at(char *at, int fill, const char *what)
{
	if (mmap(at, T_SZ_2M, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1,
		 0) == MAP_FAILED)
		return t_skip("%s: no 2 MiB hugetlb page: %s", what,
			      strerror(errno));
	memset(at, fill, T_SZ_2M);
	return T_EXIT_PASS;
}

/* ------------------------------------------------------------------ */
/* resource baselines                                                   */
/* ------------------------------------------------------------------ */

int t_baseline_take(struct t_baseline *b, uint64_t hp_size)
{
	b->vmpin_kb = hb_vmpin_kb();
	if (b->vmpin_kb < 0)
		return t_skip("VmPin is not in /proc/self/status: %s",
			      hb_errmsg());
	b->hp_size = hp_size;
	b->hp_free = hp_size ? hb_hugepages_free(hp_size) : 0;
	if (b->hp_free < 0)
		b->hp_size = 0;
	return T_EXIT_PASS;
}

int t_baseline_need(struct t_baseline *b, uint64_t hp_size, unsigned long nr)
{
	int ret = t_need_hugepages(hp_size, nr);

	return ret ? ret : t_baseline_take(b, hp_size);
}

/*
 * Ring teardown runs in a workqueue (io_ring_exit_work), so buffers a ring
 * still held when it was closed are unpinned and unaccounted a little
 * later: poll for up to T_SETTLE_MS before calling anything a leak.
 */
#define T_SETTLE_MS 3000

static bool baseline_back(const struct t_baseline *b, long *vmpin,
			  long *hp_free)
{
	*vmpin = hb_vmpin_kb();
	*hp_free = b->hp_size ? hb_hugepages_free(b->hp_size) : 0;
	return *vmpin == b->vmpin_kb && *hp_free == b->hp_free;
}

int t_baseline_check(const struct t_baseline *b, const char *when)
{
	long vmpin, hp_free;
	char msg[160];
	int waited;

	for (waited = 0;
	     !baseline_back(b, &vmpin, &hp_free) && waited < T_SETTLE_MS;
	     waited += 20)
		usleep(20 * 1000);
	if (vmpin != b->vmpin_kb) {
		snprintf(msg, sizeof(msg), "VmPin (kB) %s: pins leaked", when);
		return t_fail_val(msg, b->vmpin_kb, vmpin);
	}
	if (hp_free != b->hp_free) {
		snprintf(msg, sizeof(msg),
			 "free hugepages %s: pages leaked "
			 "(or another process uses the pool)",
			 when);
		return t_fail_val(msg, b->hp_free, hp_free);
	}
	return T_EXIT_PASS;
}

int t_vmpin_expect(long base_kb, long delta_kb, const char *when)
{
	char msg[160];
	long v = hb_vmpin_kb();

	if (v == base_kb + delta_kb)
		return T_EXIT_PASS;
	snprintf(msg, sizeof(msg), "VmPin (kB) %s", when);
	return t_fail_val(msg, base_kb + delta_kb, v);
}

/* ------------------------------------------------------------------ */
/* the model's view of a buffer                                         */
/* ------------------------------------------------------------------ */

int t_model_buffer(const void *addr, uint64_t len,
		   const struct hb_backing *recipe, struct t_model *m)
{
	int ret;

	memset(m, 0, sizeof(*m));
	ret = hb_kmodel_running(&m->km);
	if (ret)
		return t_fail("kernel model: %s", hb_errmsg());
	ret = hb_probe(addr, len, recipe, &m->probe);
	if (ret)
		return t_fail("probing the buffer at %p: %s", addr,
			      hb_errmsg());
	m->probed = true;
	m->bvec = calloc(m->probe.nr_pages ? m->probe.nr_pages : 1,
			 sizeof(*m->bvec));
	if (!m->bvec)
		return t_fail("out of memory for %u model bvecs",
			      m->probe.nr_pages);
	ret = hb_model_register(&m->km, m->probe.pages, (uintptr_t)addr, len,
				m->bvec, &m->imu);
	if (ret)
		return t_fail("model of a %llu-byte buffer: %s",
			      (unsigned long long)len, hb_errmsg());
	m->imu.bvec = m->bvec;
	t_info("model %s (%s), probe %s: %u pages -> %u bvec(s), folio_shift "
	       "%u, %s; bvec[0] offset 0x%x len 0x%x",
	       m->km.name, hb_kgen_name(m->km.gen),
	       m->probe.source == HB_PROBE_KPAGEFLAGS ? "exact" : "degraded",
	       m->imu.nr_pages, m->imu.nr_bvecs, m->imu.folio_shift,
	       m->imu.coalesced ? "coalesced" : "not coalesced",
	       m->bvec[0].offset, m->bvec[0].len);
	return T_EXIT_PASS;
}

void t_model_free(struct t_model *m)
{
	if (m->probed)
		hb_probe_free(&m->probe);
	free(m->bvec);
	memset(m, 0, sizeof(*m));
}

void t_model_print(const struct t_model *m, unsigned int max_lines)
{
	unsigned int i;

	for (i = 0; i < m->imu.nr_bvecs && i < max_lines; i++)
		t_info("bvec[%u]: folio 0x%llx page %u offset 0x%x len 0x%x", i,
		       (unsigned long long)m->bvec[i].folio,
		       m->bvec[i].page_idx, m->bvec[i].offset, m->bvec[i].len);
	if (m->imu.nr_bvecs > max_lines)
		t_info("... %u more bvecs", m->imu.nr_bvecs - max_lines);
}

int t_model_import(const struct t_model *m, uint64_t boff, uint64_t len,
		   struct hb_import *out)
{
	int ret =
		hb_model_import(&m->km, &m->imu, m->imu.ubuf + boff, len, out);

	if (ret)
		return t_fail("model import of [0x%llx, +0x%llx): %s",
			      (unsigned long long)boff, (unsigned long long)len,
			      hb_errmsg());
	return T_EXIT_PASS;
}

/* Where the model's table puts byte @off of bvec @i: (folio, byte). */
static void model_phys(const struct t_model *m, unsigned int i, uint64_t off,
		       uint64_t *folio, uint64_t *byte)
{
	const struct hb_bvec *bv = &m->bvec[i];

	*folio = bv->folio;
	*byte = ((uint64_t)bv->page_idx << HB_PAGE_SHIFT) + bv->offset + off;
}

/* Where the probe says buffer byte @boff really lives. */
static void probe_phys(const struct t_model *m, uint64_t boff, uint64_t *folio,
		       uint64_t *byte)
{
	uint64_t a = m->imu.ubuf + boff;
	uint64_t pg =
		((m->imu.ubuf & (HB_PAGE_SIZE - 1)) + boff) >> HB_PAGE_SHIFT;
	const struct hb_page *p = &m->probe.pages[pg];

	*folio = p->folio;
	*byte = ((uint64_t)p->idx << HB_PAGE_SHIFT) + (a & (HB_PAGE_SIZE - 1));
}

static int compare_phys(const struct t_model *m, const char *what,
			const char *which, uint64_t boff, unsigned int idx,
			uint64_t off)
{
	uint64_t mf, mb, pf, pb;

	model_phys(m, idx, off, &mf, &mb);
	probe_phys(m, boff, &pf, &pb);
	if (mf == pf && mb == pb)
		return T_EXIT_PASS;
	return t_fail("%s: the model's import puts the %s byte (buffer offset "
		      "0x%llx) in bvec %u at folio 0x%llx byte 0x%llx, the "
		      "probe finds it at folio 0x%llx byte 0x%llx",
		      what, which, (unsigned long long)boff, idx,
		      (unsigned long long)mf, (unsigned long long)mb,
		      (unsigned long long)pf, (unsigned long long)pb);
}

int t_model_check_import(const struct t_model *m, uint64_t boff, uint64_t len,
			 const char *what)
{
	struct hb_import im;
	unsigned int i;
	uint64_t rem;
	int ret;

	if (!len)
		return T_EXIT_PASS;
	ret = hb_model_import(&m->km, &m->imu, m->imu.ubuf + boff, len, &im);
	if (ret)
		return t_fail("%s: model import of [0x%llx, +0x%llx): %s", what,
			      (unsigned long long)boff, (unsigned long long)len,
			      hb_errmsg());
	if (im.bvec_idx >= m->imu.nr_bvecs)
		return t_fail("%s: model import of 0x%llx starts at bvec %u of "
			      "%u",
			      what, (unsigned long long)boff, im.bvec_idx,
			      m->imu.nr_bvecs);
	ret = compare_phys(m, what, "first", boff, im.bvec_idx, im.iov_offset);
	if (ret)
		return ret;
	/* walk the table the way the bvec iterator does */
	i = im.bvec_idx;
	rem = im.iov_offset + len - 1;
	while (i < m->imu.nr_bvecs && rem >= m->bvec[i].len) {
		rem -= m->bvec[i].len;
		i++;
	}
	if (i >= m->imu.nr_bvecs)
		return t_fail("%s: the model's table ends before the I/O "
			      "[0x%llx, +0x%llx) does",
			      what, (unsigned long long)boff,
			      (unsigned long long)len);
	if (i - im.bvec_idx + 1 != im.nr_segs_exact) {
		char msg[160];

		snprintf(msg, sizeof(msg),
			 "%s: model nr_segs_exact of I/O "
			 "[0x%llx, +0x%llx)",
			 what, (unsigned long long)boff,
			 (unsigned long long)len);
		return t_fail_val(msg, i - im.bvec_idx + 1, im.nr_segs_exact);
	}
	if (im.nr_segs_kernel < im.nr_segs_exact) {
		char msg[160];

		snprintf(msg, sizeof(msg),
			 "%s: kernel nr_segs under-counts "
			 "the I/O [0x%llx, +0x%llx) (80c7378f94cf)",
			 what, (unsigned long long)boff,
			 (unsigned long long)len);
		return t_fail_val(msg, im.nr_segs_exact, im.nr_segs_kernel);
	}
	return compare_phys(m, what, "last", boff + len - 1, i, rem);
}

/* ------------------------------------------------------------------ */
/* data checks over every path, and the block request signal            */
/* ------------------------------------------------------------------ */

uint64_t t_foff_for(const struct t_file *f, uint64_t boff, uint64_t len)
{
	uint64_t room, nwin;

	if (len + 2 * HB_PAGE_SIZE > f->size)
		return boff & (HB_PAGE_SIZE - 1);
	room = f->size - len - HB_PAGE_SIZE;
	nwin = (room >> HB_PAGE_SHIFT) + 1;
	return (boff & (HB_PAGE_SIZE - 1)) +
	       (((boff >> HB_PAGE_SHIFT) % nwin) << HB_PAGE_SHIFT);
}

static bool dio_ok(const struct t_regbuf *rb, const struct t_file *f,
		   uint64_t boff, uint64_t len, uint64_t foff)
{
	return f->dfd >= 0 && !(((uintptr_t)rb->addr + boff) & 4095) &&
	       !(len & 4095) && !(foff & 4095);
}

int t_check_io(const struct t_regbuf *rb, const struct t_model *m,
	       struct t_file *f, uint64_t boff, uint64_t len, const char *what)
{
	uint64_t foff = t_foff_for(f, boff, len);
	char name[200];
	int ret;

	if (foff + len > f->size)
		return t_fail("%s: test bug: I/O of %llu bytes does not fit "
			      "the %llu-byte scratch file",
			      what, (unsigned long long)len,
			      (unsigned long long)f->size);
	snprintf(name, sizeof(name), "%s [0x%llx, +0x%llx)", what,
		 (unsigned long long)boff, (unsigned long long)len);
	if (m) {
		ret = t_model_check_import(m, boff, len, name);
		if (ret)
			return ret;
	}
	ret = t_read_fixed_check(rb, f->fd, f->seed, foff, boff, len, name);
	if (!ret)
		ret = t_write_fixed_check(rb, f, f->fd, f->seed + 1, foff, boff,
					  len, name);
	if (!ret && dio_ok(rb, f, boff, len, foff)) {
		snprintf(name, sizeof(name), "%s [0x%llx, +0x%llx) O_DIRECT",
			 what, (unsigned long long)boff,
			 (unsigned long long)len);
		ret = t_read_fixed_check(rb, f->dfd, f->seed, foff, boff, len,
					 name);
		if (!ret)
			ret = t_write_fixed_check(rb, f, f->dfd, f->seed + 2,
						  foff, boff, len, name);
	}
	if (!ret)
		ret = t_devzero_check(rb, boff, len, name);
	return ret;
}

#define T_MAX_POINTS 64

struct t_points {
	unsigned int nr;
	uint64_t off[T_MAX_POINTS], len[T_MAX_POINTS];
};

static void add_point(struct t_points *p, uint64_t buflen, uint64_t maxlen,
		      int64_t off, uint64_t len)
{
	unsigned int i;

	if (off < 0 || (uint64_t)off >= buflen || !len)
		return;
	if (len > buflen - off)
		len = buflen - off;
	if (len > maxlen)
		return;
	for (i = 0; i < p->nr; i++)
		if (p->off[i] == (uint64_t)off && p->len[i] == len)
			return;
	if (p->nr < T_MAX_POINTS) {
		p->off[p->nr] = off;
		p->len[p->nr++] = len;
	}
}

/* I/O exactly at, just below, and across a boundary at buffer offset b */
static void add_boundary(struct t_points *p, uint64_t buflen, uint64_t maxlen,
			 int64_t b)
{
	add_point(p, buflen, maxlen, b, HB_PAGE_SIZE);
	add_point(p, buflen, maxlen, b - 1, 1);
	add_point(p, buflen, maxlen, b - 1, 2);
	add_point(p, buflen, maxlen, b - (int64_t)HB_PAGE_SIZE,
		  2 * HB_PAGE_SIZE);
}

/*
 * Buffer offsets where the probe sees a new folio run start: the first
 * max - 2 and the last two.
 */
static unsigned int probe_boundaries(const struct t_model *m, int64_t *out,
				     unsigned int max)
{
	const struct hb_page *pg = m->probe.pages;
	uint64_t head = m->imu.ubuf & (HB_PAGE_SIZE - 1);
	int64_t last[2] = { -1, -1 };
	unsigned int i, n = 0;

	for (i = 1; i < m->probe.nr_pages; i++) {
		int64_t b = (int64_t)i * HB_PAGE_SIZE - head;

		if (pg[i].folio == pg[i - 1].folio &&
		    pg[i].idx == pg[i - 1].idx + 1)
			continue;
		if (n < max - 2) {
			out[n++] = b;
		} else {
			last[0] = last[1];
			last[1] = b;
		}
	}
	for (i = 0; i < 2; i++)
		if (last[i] >= 0)
			out[n++] = last[i];
	return n;
}

int t_check_sweep(const struct t_regbuf *rb, const struct t_model *m,
		  struct t_file *f, const char *what)
{
	uint64_t L = rb->len, maxlen = f->size - 2 * HB_PAGE_SIZE, cum = 0;
	int64_t pb[8];
	struct t_points p = { 0 };
	unsigned int i, nb = m ? m->imu.nr_bvecs : 0, npb = 0;
	int ret;

	add_point(&p, L, maxlen, 0, 64 << 10);
	add_point(&p, L, maxlen, 0, 1);
	if (nb)
		add_point(&p, L, maxlen,
			  (m->bvec[0].len / 2) & ~(HB_PAGE_SIZE - 1),
			  2 * HB_PAGE_SIZE);
	/* the model's bvec boundaries: the first three and the last two */
	for (i = 0; i + 1 < nb; i++) {
		cum += m->bvec[i].len;
		if (i < 3 || i + 3 >= nb)
			add_boundary(&p, L, maxlen, cum);
	}
	/* the probe's folio boundaries */
	if (m)
		npb = probe_boundaries(m, pb, T_ARRAY_SIZE(pb));
	for (i = 0; i < npb; i++)
		add_boundary(&p, L, maxlen, pb[i]);
	add_point(&p, L, maxlen, L - 1, 1);
	add_point(&p, L, maxlen,
		  L > 3 * HB_PAGE_SIZE ? L - 3 * HB_PAGE_SIZE : 0,
		  3 * HB_PAGE_SIZE);
	add_point(&p, L, maxlen, 0, L);
	for (i = 0; i < p.nr; i++) {
		ret = t_check_io(rb, m, f, p.off[i], p.len[i], what);
		if (ret)
			return ret;
	}
	t_info("%s: %u I/O ranges checked (buffered, O_DIRECT where aligned, "
	       "/dev/zero)",
	       what, p.nr);
	return T_EXIT_PASS;
}

/* Reads to try before concluding the count is above the prediction. */
#define T_REQ_TRIES 40

static int count_requests(const struct t_regbuf *rb, const struct t_model *m,
			  struct t_file *f, const char *what, bool verify)
{
	uint64_t max_bytes, max_seg, got;
	unsigned int max_segs, pred, tries;
	char msg[200];
	int ret;

	if (!f->blkdev[0] || f->dfd < 0) {
		t_info("%s: request count not checked: no block device under "
		       "%s",
		       what, f->dir);
		return T_EXIT_PASS;
	}
	if (((uintptr_t)rb->addr & 4095) || (rb->len & 4095) ||
	    rb->len > f->size) {
		t_info("%s: request count not checked: the buffer is not 4 KiB "
		       "aligned or is larger than the scratch file",
		       what);
		return T_EXIT_PASS;
	}
	if (hb_blkdev_queue_limits(f->blkdev, &max_bytes, &max_segs,
				   &max_seg)) {
		t_info("%s: request count not checked: %s", what, hb_errmsg());
		return T_EXIT_PASS;
	}
	pred = hb_predict_requests(&m->imu, max_bytes, max_segs, max_seg);
	if (!pred)
		return t_fail("%s: hb_predict_requests gave no prediction for "
			      "%u bvecs",
			      what, m->imu.nr_bvecs);
	fill_background(rb, 0, rb->len);
	/*
	 * Other I/O on the disk can only add requests, so the minimum over
	 * tries converges on the true count from above: stop as soon as it
	 * reaches the prediction (a kernel that needs more never gets
	 * there; one that needs fewer goes below it on a quiet try).
	 */
	got = UINT64_MAX;
	for (tries = 0; tries < T_REQ_TRIES && got > pred; tries++) {
		uint64_t one;

		ret = hb_count_read_requests(rb->ring, f->dfd, true, rb->idx,
					     rb->addr, rb->len, 0, f->blkdev, 1,
					     &one);
		if (ret)
			return t_fail("%s: counting block requests: %s", what,
				      hb_errmsg());
		if (one < got)
			got = one;
	}
	snprintf(msg, sizeof(msg), "%s: READ_FIXED data (request count)", what);
	ret = verify ? t_pattern_verify(msg, rb->addr, rb->len, f->seed, 0) :
		       T_EXIT_PASS;
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg),
		 "%s: block requests on %s for one O_DIRECT "
		 "READ_FIXED of %llu bytes (model %s: %u bvecs; minimum of %u "
		 "reads)",
		 what, f->blkdev, (unsigned long long)rb->len, m->km.name,
		 m->imu.nr_bvecs, tries);
	if (got != pred)
		return t_fail_val(msg, pred, (long long)got);
	t_info("%s: %llu block requests on %s, as the model predicts", what,
	       (unsigned long long)got, f->blkdev);
	return T_EXIT_PASS;
}

int t_check_requests(const struct t_regbuf *rb, const struct t_model *m,
		     struct t_file *f, const char *what)
{
	return count_requests(rb, m, f, what, true);
}

int t_check_requests_nodata(const struct t_regbuf *rb, const struct t_model *m,
			    struct t_file *f, const char *what)
{
	return count_requests(rb, m, f, what, false);
}

/* ------------------------------------------------------------------ */
/* pins, seen through fork                                              */
/* ------------------------------------------------------------------ */

#define PM_PRESENT (1ULL << 63)
#define PM_PFN_MASK ((1ULL << 55) - 1)

uint64_t t_pfn(const void *addr)
{
	uint64_t e = 0;
	int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	if (pread(fd, &e, 8, ((uintptr_t)addr >> HB_PAGE_SHIFT) * 8) != 8)
		e = 0;
	close(fd);
	return (e & PM_PRESENT) ? (e & PM_PFN_MASK) : 0;
}

int t_anon_pinned(const void *addr)
{
	uint64_t mine = t_pfn(addr), child = 0;
	int pfd[2], status;
	pid_t pid;

	if (!mine)
		return -EPERM;
	if (pipe(pfd))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		uint64_t v = t_pfn(addr);

		_exit(write(pfd[1], &v, 8) == 8 ? 0 : 1);
	}
	close(pfd[1]);
	if (read(pfd[0], &child, 8) != 8)
		child = 0;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!child)
		return -EIO;
	return child != mine;
}

int t_expect_pinned(const void *addr, bool want, const char *what)
{
	int r = t_anon_pinned(addr);

	if (r < 0) {
		t_info("%s: pin state not checked (PFNs need root)", what);
		return T_EXIT_PASS;
	}
	if (r != want)
		return t_fail("%s: the page at %p is %s (fork %s it; expected "
			      "it %s)",
			      what, addr, r ? "still DMA-pinned" : "not pinned",
			      r ? "copied" : "shared",
			      want ? "pinned" : "unpinned");
	return T_EXIT_PASS;
}

/* ------------------------------------------------------------------ */
/* one whole case over a buffer lib/ allocates                          */
/* ------------------------------------------------------------------ */

static int region_io(const struct t_case *c, struct io_uring *ring, void *addr,
		     const struct t_model *m, struct t_file *f,
		     uint64_t (*more)[2], unsigned int nr_more)
{
	struct iovec iov = { addr, c->len };
	struct t_regbuf rb = { ring, addr, c->len, 0 };
	unsigned int i;
	int ret;

	ret = t_register(ring, &iov, 1);
	if (ret)
		return ret;
	if (c->registered)
		ret = c->registered(c, &rb, m, f);
	if (!ret && !c->aliased)
		ret = t_check_sweep(&rb, m, f, c->name);
	for (i = 0; !ret && i < c->nr_extra; i++)
		ret = t_check_io(&rb, m, f, c->extra[i][0], c->extra[i][1],
				 c->name);
	for (i = 0; !ret && i < nr_more; i++)
		ret = t_check_io(&rb, m, f, more[i][0], more[i][1], c->name);
	if (!ret && c->requests)
		ret = c->aliased ? t_check_requests_nodata(&rb, m, f, c->name) :
				   t_check_requests(&rb, m, f, c->name);
	if (io_uring_unregister_buffers(ring))
		ret = t_worst(ret, t_fail("%s: unregister failed", c->name));
	return ret;
}

int t_check_region(const struct t_case *c, void *addr,
		   const struct hb_backing *recipe, struct t_file *f)
{
	uint64_t more[T_CASE_MORE][2];
	unsigned int nr_more = 0;
	struct io_uring ring;
	struct t_model m;
	int ret;

	ret = t_model_buffer(addr, c->len, recipe, &m);
	if (!ret && c->expect)
		ret = c->expect(c, &m, more, &nr_more);
	if (!ret) {
		ret = t_ring_init(&ring, 8);
		if (!ret) {
			ret = region_io(c, &ring, addr, &m, f, more,
					nr_more < T_CASE_MORE ? nr_more :
								T_CASE_MORE);
			io_uring_queue_exit(&ring);
		}
	}
	t_model_free(&m);
	return ret;
}

int t_run_case(const struct t_case *c, struct t_file *f)
{
	struct t_baseline base;
	struct hb_backing b;
	struct hb_buf buf;
	char when[160];
	int ret;

	if (c->pool_size) {
		uint64_t span = c->head_offset + c->len;

		ret = t_need_hugepages(c->pool_size, (span + c->pool_size - 1) /
							     c->pool_size);
		if (ret)
			return ret;
	}
	ret = t_baseline_take(&base, c->pool_size);
	if (ret)
		return ret;
	ret = t_alloc(c->backing, c->len, c->head_offset, &buf);
	if (ret)
		return ret;
	hb_backing_parse(c->backing, &b);
	ret = t_check_region(c, buf.addr, &b, f);
	hb_free(&buf);
	snprintf(when, sizeof(when), "after %s is unregistered and freed",
		 c->name);
	ret = t_worst(ret, t_baseline_check(&base, when));
	if (!ret)
		t_info("%s: ok", c->name);
	return ret;
}

int t_run_cases(const struct t_case *cases, unsigned int nr, uint64_t file_size,
		uint64_t seed)
{
	unsigned int i, ran = 0;
	struct t_file f;
	int ret;

	ret = t_file_create(&f, file_size, seed, true);
	if (ret)
		return ret;
	t_in_cases = 1;
	for (i = 0; i < nr; i++) {
		ret = t_run_case(&cases[i], &f);
		if (ret == T_EXIT_FAIL)
			break;
		if (ret == T_EXIT_PASS)
			ran++;
	}
	t_in_cases = 0;
	t_file_close(&f);
	if (ret == T_EXIT_FAIL)
		return ret;
	if (!ran)
		return t_skip("none of the %u cases could run (see above)", nr);
	return T_EXIT_PASS;
}
