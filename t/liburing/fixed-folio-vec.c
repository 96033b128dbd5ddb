// SPDX-License-Identifier: GPL-2.0-only
/*
 * Description: IORING_OP_READV_FIXED and WRITEV_FIXED (6.15, 9ef4cbbcb4ac)
 * with several iovecs inside one registered buffer of four 2 MiB hugetlb
 * folios, placed across folio ends, one byte in each folio, out of order.
 * The import builds bvecs for each iovec's piece of each folio, with the
 * offset into the first folio from bvec[0] (e1d7727b73a1); a wrong offset
 * lands bytes in the wrong place, so each iovec's bytes are checked
 * against the file and every byte between the iovecs must stay untouched,
 * both directions, O_DIRECT when every iovec is 4 KiB aligned.  Skips on a
 * kernel without the opcodes.  liburing before 2.10 has no helper for
 * them; the opcode numbers are then those of the kernel's uapi header.
 * From hugebuf's t/regbuf-vectored.c.
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

#include "folio-base.h"
#include "folio-hugetlb.h"

#if IO_URING_CHECK_VERSION(2, 10)
#define OP_READV_FIXED		60
#define OP_WRITEV_FIXED		61
#else
#define OP_READV_FIXED		IORING_OP_READV_FIXED
#define OP_WRITEV_FIXED		IORING_OP_WRITEV_FIXED
#endif

#define NR_FOLIOS	4
#define BUF_LEN		(NR_FOLIOS * HUGE_SZ)
#define FILE_OFF	0x10000UL
#define MAX_IOV		4

/*
 * VmPin of the buffer: its four 2 MiB folios.  hugebuf's
 * t/unit-liburing-figures.c checks this against hugebuf's kernel model.
 */
#define PIN_KB_FOUR_FOLIOS	8192

static const struct vcase {
	const char *name;
	unsigned int nr;
	size_t off[MAX_IOV], len[MAX_IOV];
} cases[] = {
	{ "three across folio ends", 3,
	  { 0x1ff000, 0x400200, 0x5ffe00 }, { 0x3000, 0x1ff000, 0x400 } },
	{ "one byte in each folio", 4,
	  { 0x1fffff, 0x200000, 0x3fffff, 0x7fffff }, { 1, 1, 1, 1 } },
	{ "the whole buffer in two", 2,
	  { 0, 0x400000 }, { 0x400000, 0x400000 } },
	{ "aligned pieces across folios", 4,
	  { 0x1fe000, 0x3ff000, 0x100000, 0x6f0000 },
	  { 0x4000, 0x201000, 0x1000, 0x110000 } },
	{ "out of order", 3,
	  { 0x600000, 0, 0x3ff000 }, { 0x1000, 0x1000, 0x2000 } },
};

static int vec_io(struct ctx *c, bool write, int fd, const struct iovec *iov,
		  unsigned int nr)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);

	io_uring_prep_rw(write ? OP_WRITEV_FIXED : OP_READV_FIXED, sqe, fd,
			 iov, nr, FILE_OFF);
	sqe->buf_index = 0;
	return submit_wait(c);
}

static bool inside(const struct vcase *v, size_t o)
{
	unsigned int i;

	for (i = 0; i < v->nr; i++)
		if (o >= v->off[i] && o < v->off[i] + v->len[i])
			return true;
	return false;
}

static int test_case(struct ctx *c, unsigned char *buf, const struct vcase *v)
{
	struct iovec iov[MAX_IOV];
	size_t total = 0, pos, o;
	bool direct = true;
	unsigned int i;
	long bad;
	int fd, ret;

	for (i = 0; i < v->nr; i++) {
		iov[i].iov_base = buf + v->off[i];
		iov[i].iov_len = v->len[i];
		total += v->len[i];
		direct &= !(v->off[i] % PG_SZ) && !(v->len[i] % PG_SZ);
	}
	fd = direct ? c->dfd : c->fd;
	c->nr_direct += direct;

	/* read: each iovec gets its part of the file, the rest stays */
	memset(buf, BACKGROUND, BUF_LEN);
	ret = vec_io(c, false, fd, iov, v->nr);
	if (ret != (int)total) {
		fprintf(stderr, "%s: READV_FIXED: %d, expected %zu\n",
			v->name, ret, total);
		return T_EXIT_FAIL;
	}
	for (i = 0, pos = FILE_OFF; i < v->nr; pos += v->len[i++]) {
		bad = bad_byte(buf + v->off[i], v->len[i], SEED_FILE, pos);
		if (bad >= 0) {
			fprintf(stderr, "%s: READV_FIXED: iovec %u byte 0x%lx "
				"(buffer offset 0x%zx) is 0x%02x, the file has "
				"0x%02x\n", v->name, i, bad, v->off[i] + bad,
				buf[v->off[i] + bad], pat(SEED_FILE, pos + bad));
			return T_EXIT_FAIL;
		}
	}
	for (o = 0; o < BUF_LEN; o++) {
		if (buf[o] != BACKGROUND && !inside(v, o)) {
			fprintf(stderr, "%s: READV_FIXED wrote buffer offset "
				"0x%zx, outside every iovec\n", v->name, o);
			return T_EXIT_FAIL;
		}
	}

	/* write: the file gets the iovecs in order, nothing around them */
	for (i = 0, pos = FILE_OFF; i < v->nr; pos += v->len[i++])
		fill(buf + v->off[i], v->len[i], SEED_WRITE, pos);
	ret = vec_io(c, true, fd, iov, v->nr);
	if (ret != (int)total) {
		fprintf(stderr, "%s: WRITEV_FIXED: %d, expected %zu\n",
			v->name, ret, total);
		return T_EXIT_FAIL;
	}
	if (pread(c->fd, c->bounce, total + 2 * GUARD, FILE_OFF - GUARD) !=
	    (ssize_t)(total + 2 * GUARD)) {
		fprintf(stderr, "reading the file back failed\n");
		return T_EXIT_FAIL;
	}
	bad = bad_byte(c->bounce + GUARD, total, SEED_WRITE, FILE_OFF);
	if (bad >= 0) {
		fprintf(stderr, "%s: WRITEV_FIXED: file byte 0x%lx is 0x%02x, "
			"the iovecs had 0x%02x\n", v->name, FILE_OFF + bad,
			c->bounce[GUARD + bad], pat(SEED_WRITE, FILE_OFF + bad));
		return T_EXIT_FAIL;
	}
	if (bad_byte(c->bounce, GUARD, SEED_FILE, FILE_OFF - GUARD) >= 0 ||
	    bad_byte(c->bounce + GUARD + total, GUARD, SEED_FILE,
		     FILE_OFF + total) >= 0) {
		fprintf(stderr, "%s: WRITEV_FIXED changed the file outside "
			"its range\n", v->name);
		return T_EXIT_FAIL;
	}
	fill(c->bounce, total, SEED_FILE, FILE_OFF);
	if (pwrite(c->fd, c->bounce, total, FILE_OFF) != (ssize_t)total) {
		fprintf(stderr, "restoring the file failed\n");
		return T_EXIT_FAIL;
	}
	return T_EXIT_PASS;
}

int main(int argc, char *argv[])
{
	struct io_uring_probe *probe;
	struct ctx c;
	struct reg r;
	unsigned int i;
	char *huge;
	int ret, ret2;

	ret = begin(&c, argc, "fixed-folio-vec", BUF_LEN + FILE_OFF + GUARD);
	if (ret)
		return ret;
	probe = io_uring_get_probe_ring(&c.ring);
	if (!probe || !io_uring_opcode_supported(probe, OP_READV_FIXED) ||
	    !io_uring_opcode_supported(probe, OP_WRITEV_FIXED)) {
		fprintf(stderr, "no READV_FIXED/WRITEV_FIXED (6.15+): "
			"skipping\n");
		if (probe)
			io_uring_free_probe(probe);
		return end(&c, T_EXIT_SKIP);
	}
	io_uring_free_probe(probe);
	huge = map_huge(NR_FOLIOS);
	if (!huge)
		return end(&c, T_EXIT_SKIP);
	r = (struct reg){ huge, huge, BUF_LEN, 0 };
	ret = reg_bufs(&c, &r, 1, PIN_KB_FOUR_FOLIOS);
	if (ret < 0) {
		fprintf(stderr, "register: %s\n", strerror(-ret));
		ret = T_EXIT_FAIL;
	}
	if (ret)
		goto out;
	for (i = 0; !ret && i < ARRAY_SIZE(cases); i++)
		ret = test_case(&c, (unsigned char *)huge, &cases[i]);
	ret2 = unreg_bufs(&c, PIN_KB_FOUR_FOLIOS);
	if (!ret)
		ret = ret2;
out:
	munmap(huge, BUF_LEN);
	return end(&c, ret);
}
