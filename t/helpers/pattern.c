// SPDX-License-Identifier: GPL-2.0-only
/*
 * Offset-encoded data patterns, and the scratch files that hold them.
 * See t/helpers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers-priv.h"

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

long t_pattern_mismatch(const void *buf, size_t len, uint64_t seed,
			uint64_t off)
{
	size_t bad;

	return t_pattern_ok(buf, len, seed, off, &bad) ? -1 : (long)bad;
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
		return t_pass();
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
	/* what O_DIRECT needs on this file, while it still has a name */
	f->dio_align = hb_dio_align(path);
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
	if (direct)
		t_info("scratch file in %s (%s): O_DIRECT alignment %u bytes",
		       f->dir, f->blkdev[0] ? f->blkdev : "no block device",
		       f->dio_align);
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
