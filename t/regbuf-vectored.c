// SPDX-License-Identifier: GPL-2.0-only
/*
 * Vectored fixed I/O over hugepage buffers: IORING_OP_READV_FIXED and
 * WRITEV_FIXED (6.15, 9ef4cbbcb4ac) with several iovecs that all lie in
 * one registered buffer, placed to cross folio boundaries and to start at
 * odd offsets inside folios.  The import builds one bvec per folio piece
 * of each iovec, with the offset into bvec 0's folio taken from bvec[0]'s
 * bv_offset (e1d7727b73a1); a wrong offset lands the data at the wrong
 * place, so every iovec's bytes are checked against the file, and the
 * bytes between the iovecs must stay untouched.  The model
 * (hb_model_import_vec) must accept the same iovecs, give the same byte
 * count, and predict the device requests of an O_DIRECT READV_FIXED.
 * Kernels without the opcode: SKIP.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "helpers.h"
#include "base/uring-compat.h"

#define BUF_LEN		(8ULL << 20)
#define FILE_LEN	(16ULL << 20)
#define SEED		0x7ec7
#define BACKGROUND	0xa5
#define MAX_IOV		8

struct vcase {
	const char *name;
	unsigned int nr;
	struct { uint64_t off, len; } iov[MAX_IOV];
	bool direct;	/* 4 KiB aligned: O_DIRECT and request counts too */
};

static const struct vcase cases[] = {
	{ "three across folio ends", 3,
	  { { 0x1ff000, 0x3000 }, { 0x400200, 0x1ff000 },
	    { 0x5ffe00, 0x400 } }, false },
	{ "one byte in each folio", 4,
	  { { 0x1fffff, 1 }, { 0x200000, 1 }, { 0x3fffff, 1 },
	    { 0x7fffff, 1 } }, false },
	{ "whole buffer in two", 2,
	  { { 0, 0x400000 }, { 0x400000, 0x400000 } }, true },
	{ "aligned pieces across folios", 4,
	  { { 0x1fe000, 0x4000 }, { 0x3ff000, 0x201000 },
	    { 0x100000, 0x1000 }, { 0x6f0000, 0x110000 } }, true },
	{ "out of order", 3,
	  { { 0x600000, 0x1000 }, { 0x0, 0x1000 }, { 0x3ff000, 0x2000 } },
	  true },
};

/* In 3 MiB of THP moved to a 2 MiB + 4 KiB address: folios of 1M, 2M */
static const struct vcase moved_cases[] = {
	{ "moved: across the first folio's end", 2,
	  { { 0xff000, 0x3000 }, { 0x2ff000, 0x1000 } }, true },
	{ "moved: odd offsets", 3,
	  { { 0x100123, 0x10 }, { 0x7, 0xfffff }, { 0x2ffff0, 0x10 } },
	  false },
};

struct ctx {
	struct io_uring ring;
	struct hb_buf buf;
	char *addr;		/* the registered buffer */
	uint64_t len;
	struct hb_analysis an;
	struct t_file f;
	char dev[32];
	uint64_t max_bytes, max_seg;
	unsigned int max_segs;
};

static void make_iovecs(const struct ctx *c, const struct vcase *vc,
			struct iovec *iov)
{
	unsigned int i;

	for (i = 0; i < vc->nr; i++) {
		iov[i].iov_base = c->addr + vc->iov[i].off;
		iov[i].iov_len = vc->iov[i].len;
	}
}

static int submit_vec(struct ctx *c, bool write, int fd,
		      const struct iovec *iov, unsigned int nr, uint64_t foff)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&c->ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (write)
		hb_prep_writev_fixed(sqe, fd, iov, nr, foff, 0);
	else
		hb_prep_readv_fixed(sqe, fd, iov, nr, foff, 0);
	ret = io_uring_submit_and_wait(&c->ring, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(&c->ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&c->ring, cqe);
	return ret;
}

/* Bytes of the buffer outside every iovec keep the background. */
static int check_background(const struct ctx *c, const struct vcase *vc)
{
	const unsigned char *p = (const unsigned char *)c->addr;
	uint64_t o;
	unsigned int i;

	for (o = 0; o < c->len; o++) {
		bool inside = false;

		for (i = 0; i < vc->nr && !inside; i++)
			inside = o >= vc->iov[i].off &&
				 o < vc->iov[i].off + vc->iov[i].len;
		if (!inside && p[o] != BACKGROUND)
			return t_fail("%s: buffer byte 0x%llx outside the "
				      "iovecs was written (0x%02x)", vc->name,
				      (unsigned long long)o, p[o]);
	}
	return T_EXIT_PASS;
}

static uint64_t total_len(const struct vcase *vc)
{
	uint64_t t = 0;
	unsigned int i;

	for (i = 0; i < vc->nr; i++)
		t += vc->iov[i].len;
	return t;
}

/* READV_FIXED lands file bytes [foff, +total) in the iovecs, in order. */
static int read_case(struct ctx *c, const struct vcase *vc, bool direct)
{
	struct iovec iov[MAX_IOV];
	uint64_t foff = direct ? 0x100000 : 0x12345, at = foff;
	unsigned int i;
	int ret, res;

	make_iovecs(c, vc, iov);
	memset(c->addr, BACKGROUND, c->len);
	res = submit_vec(c, false, direct ? c->f.dfd : c->f.fd, iov, vc->nr,
			 foff);
	if (res != (int)total_len(vc))
		return t_fail("%s: READV_FIXED%s returned %d, expected %llu",
			      vc->name, direct ? " (O_DIRECT)" : "", res,
			      (unsigned long long)total_len(vc));
	for (i = 0; i < vc->nr; i++) {
		ret = t_pattern_verify(vc->name, iov[i].iov_base,
				       iov[i].iov_len, SEED, at);
		if (ret)
			return ret;
		at += iov[i].iov_len;
	}
	return check_background(c, vc);
}

/* WRITEV_FIXED writes the iovecs back to back at a file offset. */
static int write_case(struct ctx *c, const struct vcase *vc)
{
	struct iovec iov[MAX_IOV];
	uint64_t foff = 0xa00000 + 0x321, at = foff;
	unsigned int i;
	int res, ret;

	make_iovecs(c, vc, iov);
	for (i = 0; i < vc->nr; i++) {
		t_pattern_fill(iov[i].iov_base, iov[i].iov_len, SEED ^ 1, at);
		at += iov[i].iov_len;
	}
	res = submit_vec(c, true, c->f.fd, iov, vc->nr, foff);
	if (res != (int)total_len(vc))
		return t_fail("%s: WRITEV_FIXED returned %d, expected %llu",
			      vc->name, res,
			      (unsigned long long)total_len(vc));
	ret = t_file_verify(&c->f, vc->name, foff, total_len(vc), SEED ^ 1);
	if (!ret)
		ret = t_file_restore(&c->f, foff, total_len(vc));
	return ret;
}

/*
 * Every bvec the model builds must start at the physical byte the probe
 * says backs that byte of the iovec: (folio, byte in folio) agree.
 */
static int check_phys(const struct ctx *c, const struct vcase *vc,
		      const struct iovec *iov, const struct hb_bvec *out)
{
	const struct hb_probe *p = &c->an.probe[0];
	uint64_t first = (uintptr_t)c->addr & ~(HB_PAGE_SIZE - 1);
	unsigned int i, k = 0;

	for (i = 0; i < vc->nr; i++) {
		uint64_t o;

		for (o = 0; o < iov[i].iov_len; o += out[k++].len) {
			uint64_t a = (uintptr_t)iov[i].iov_base + o;
			const struct hb_page *pg =
				&p->pages[(a - first) >> HB_PAGE_SHIFT];
			uint64_t want = ((uint64_t)pg->idx << HB_PAGE_SHIFT) +
					(a & (HB_PAGE_SIZE - 1));
			uint64_t got = ((uint64_t)out[k].page_idx <<
					HB_PAGE_SHIFT) + out[k].offset;

			if (pg->folio != out[k].folio || want != got)
				return t_fail("%s: model bvec %u puts iovec %u "
					      "+0x%llx at folio 0x%llx byte "
					      "0x%llx, the probe says folio "
					      "0x%llx byte 0x%llx", vc->name,
					      k, i, (unsigned long long)o,
					      (unsigned long long)out[k].folio,
					      (unsigned long long)got,
					      (unsigned long long)pg->folio,
					      (unsigned long long)want);
		}
	}
	return T_EXIT_PASS;
}

/* The model's vectored import and its block-request prediction. */
static int model_case(struct ctx *c, const struct vcase *vc, bool count)
{
	struct iovec iov[MAX_IOV];
	struct hb_vimport vi;
	struct hb_imu view;
	struct hb_bvec *out;
	uint64_t bound, reqs = 0, r0, r1;
	unsigned int pred, try;
	int ret;

	make_iovecs(c, vc, iov);
	bound = hb_import_vec_bound(&c->an.imu[0], iov, vc->nr);
	out = calloc(bound, sizeof(*out));
	if (!out)
		return t_fail("out of memory");
	ret = hb_model_import_vec(&c->an.km, &c->an.imu[0], iov, vc->nr, out,
				  bound, &vi);
	if (ret) {
		free(out);
		return t_fail("%s: model refused the iovecs: %s", vc->name,
			      hb_errmsg());
	}
	if (vi.len != total_len(vc)) {
		free(out);
		return t_fail_val("model byte count", total_len(vc), vi.len);
	}
	ret = check_phys(c, vc, iov, out);
	if (ret) {
		free(out);
		return ret;
	}
	memset(&view, 0, sizeof(view));
	view.bvec = out;
	view.nr_bvecs = vi.nr_bvecs;
	view.len = vi.len;
	pred = hb_predict_requests(&view, c->max_bytes, c->max_segs,
				   c->max_seg);
	t_info("%s: %u iovecs -> %u bvecs, %u device request(s) predicted",
	       vc->name, vc->nr, vi.nr_bvecs, pred);
	free(out);
	if (!count || !c->dev[0])
		return T_EXIT_PASS;
	/* other I/O on the disk only adds: the minimum of several reads */
	for (try = 0; try < 10; try++) {
		if (hb_blkdev_ios(c->dev, &r0, NULL))
			return t_fail("reading /sys/block/%s/stat", c->dev);
		ret = submit_vec(c, false, c->f.dfd, iov, vc->nr, 0x100000);
		if (ret != (int)total_len(vc))
			return t_fail("%s: O_DIRECT READV_FIXED: %d", vc->name,
				      ret);
		/* the last request is counted after its CQE: let it settle */
		if (hb_blkdev_ios_settled(c->dev, &r1, NULL))
			return t_fail("reading /sys/block/%s/stat", c->dev);
		if (!try || r1 - r0 < reqs)
			reqs = r1 - r0;
		if (reqs == pred)
			break;
	}
	if (reqs != pred)
		return t_fail("%s: %llu device requests per READV_FIXED, the "
			      "model predicts %u", vc->name,
			      (unsigned long long)reqs, pred);
	return T_EXIT_PASS;
}

/* Register c->addr/len, analyze it and run @cases on it. */
static int run_cases(struct ctx *c, const struct hb_backing *b,
		     const struct vcase *vc, unsigned int nr)
{
	struct hb_kmodel km;
	struct iovec whole = { .iov_base = c->addr, .iov_len = c->len };
	unsigned int i;
	int ret;

	ret = t_register(&c->ring, &whole, 1);
	if (ret)
		return ret;
	if (hb_kmodel_running(&km) ||
	    hb_analyze(&km, &whole, 1, b, 0, 0, HB_ANALYZE_KEEP, &c->an)) {
		ret = t_fail("analysis: %s", hb_errmsg());
		goto out_unreg;
	}
	t_info("%u folios, %u bvecs, bvec[0] offset 0x%x", c->an.st.max_folios,
	       c->an.imu[0].nr_bvecs, c->an.imu[0].bvec[0].offset);
	for (i = 0; i < nr && !ret; i++) {
		ret = read_case(c, &vc[i], false);
		if (!ret && vc[i].direct && c->f.dfd >= 0)
			ret = read_case(c, &vc[i], true);
		if (!ret)
			ret = write_case(c, &vc[i]);
		if (!ret)
			ret = model_case(c, &vc[i], vc[i].direct &&
					 c->f.dfd >= 0);
	}
	hb_analysis_free(&c->an);
out_unreg:
	io_uring_unregister_buffers(&c->ring);
	return ret;
}

static int ctx_open(struct ctx *c)
{
	int ret;

	ret = t_ring_init(&c->ring, 8);
	if (ret)
		return ret;
	if (!hb_uring_op_supported(&c->ring, HB_IORING_OP_READV_FIXED)) {
		io_uring_queue_exit(&c->ring);
		return t_skip("the kernel has no IORING_OP_READV_FIXED "
			      "(6.15+)");
	}
	ret = t_file_create(&c->f, FILE_LEN, SEED, true);
	if (ret) {
		io_uring_queue_exit(&c->ring);
		return ret;
	}
	if (c->f.blkdev[0] && !hb_blkdev_queue_limits(c->f.blkdev,
						     &c->max_bytes,
						     &c->max_segs,
						     &c->max_seg))
		strcpy(c->dev, c->f.blkdev);
	return T_EXIT_PASS;
}

static void ctx_close(struct ctx *c)
{
	t_file_close(&c->f);
	io_uring_queue_exit(&c->ring);
}

static int run_backing(const char *backing)
{
	struct ctx c;
	int ret;

	memset(&c, 0, sizeof(c));
	c.buf.memfd = -1;
	ret = t_alloc(backing, BUF_LEN, 0, &c.buf);
	if (ret)
		return ret;
	t_info("backing %s", backing);
	ret = ctx_open(&c);
	if (!ret) {
		c.addr = c.buf.addr;
		c.len = BUF_LEN;
		ret = run_cases(&c, &c.buf.backing, cases,
				T_ARRAY_SIZE(cases));
		ctx_close(&c);
	}
	hb_free(&c.buf);
	return ret;
}

/*
 * The last 3 MiB of two THPs moved to a 2 MiB + 4 KiB address: bvec[0]
 * starts 1 MiB into its folio while the address says 4 KiB, so an
 * offset taken from the address (before e1d7727b73a1) reads the wrong
 * bytes.  A missing THP is a skip of this part only.
 */
static int run_moved_thp(void)
{
	struct t_resv resv = { 0 };
	struct ctx c;
	char *moved;
	int ret;

	memset(&c, 0, sizeof(c));
	c.buf.memfd = -1;
	ret = t_alloc_thp(2 * T_SZ_2M, 0, &c.buf, "moved THP");
	if (ret)
		return ret;
	ret = t_resv_take(&resv, 0, T_SZ_4K + 3 * T_SZ_2M / 2, T_SZ_2M);
	if (ret)
		goto out_buf;
	moved = mremap((char *)c.buf.map + T_SZ_2M / 2, 3 * T_SZ_2M / 2,
		       3 * T_SZ_2M / 2, MREMAP_MAYMOVE | MREMAP_FIXED,
		       resv.at + T_SZ_4K);
	if (moved == MAP_FAILED) {
		ret = t_fail("mremap of 3 MiB of THP: %s", strerror(errno));
		goto out_resv;
	}
	t_info("backing thp, 3 MiB moved to %p", (void *)moved);
	c.addr = moved;
	ret = ctx_open(&c);
	if (!ret) {
		c.len = 3 * T_SZ_2M / 2;
		ret = run_cases(&c, &c.buf.backing, moved_cases,
				T_ARRAY_SIZE(moved_cases));
		ctx_close(&c);
	}
out_resv:
	t_resv_release(&resv);
out_buf:
	/* once moved, the hole may hold other mappings: not unmapped */
	if (c.addr)
		hb_free_moved(&c.buf, T_SZ_2M / 2, 3 * T_SZ_2M / 2);
	else
		hb_free(&c.buf);
	return ret;
}

/* Iovecs the kernel must refuse, and the model with it. */
static int refused(void)
{
	struct io_uring ring;
	struct hb_buf buf = { .memfd = -1 };
	struct iovec whole, bad[2];
	struct t_file f;
	int ret, res;

	ret = t_alloc("hugetlb:2M", 2ULL << 20, 0, &buf);
	if (ret)
		return ret;
	ret = t_ring_init(&ring, 4);
	if (ret)
		goto out_buf;
	if (!hb_uring_op_supported(&ring, HB_IORING_OP_READV_FIXED)) {
		ret = t_skip("the kernel has no IORING_OP_READV_FIXED");
		goto out_ring;
	}
	whole.iov_base = buf.addr;
	whole.iov_len = buf.len;
	ret = t_register(&ring, &whole, 1);
	if (ret)
		goto out_ring;
	ret = t_file_create(&f, 1 << 20, SEED, false);
	if (ret)
		goto out_unreg;
	bad[0].iov_base = buf.addr;
	bad[0].iov_len = 4096;
	bad[1].iov_base = (char *)buf.addr + buf.len - 10;
	bad[1].iov_len = 11;	/* one byte past the buffer */
	{
		struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);
		struct io_uring_cqe *cqe;

		hb_prep_readv_fixed(sqe, f.fd, bad, 2, 0, 0);
		io_uring_submit_and_wait(&ring, 1);
		if (io_uring_wait_cqe(&ring, &cqe)) {
			ret = t_fail("waiting for the refused READV_FIXED");
			goto out_file;
		}
		res = cqe->res;
		io_uring_cqe_seen(&ring, cqe);
	}
	if (res != -EFAULT)
		ret = t_fail_val("READV_FIXED one byte past the buffer",
				 -EFAULT, res);
	else
		t_info("an iovec one byte past the buffer: -EFAULT");
out_file:
	t_file_close(&f);
out_unreg:
	io_uring_unregister_buffers(&ring);
out_ring:
	io_uring_queue_exit(&ring);
out_buf:
	hb_free(&buf);
	return ret;
}

int main(void)
{
	static const char *const backings[] = { "hugetlb:2M", "thp", "4k" };
	int ret = T_EXIT_PASS, r;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(backings); i++) {
		r = run_backing(backings[i]);
		if (r == T_EXIT_SKIP && i == 0)
			return t_done(r);
		ret = t_worst(ret, r);
	}
	r = run_moved_thp();
	ret = t_worst(ret, r == T_EXIT_SKIP ? T_EXIT_PASS : r);
	r = refused();
	return t_done(t_worst(ret, r == T_EXIT_SKIP ? T_EXIT_PASS : r));
}
