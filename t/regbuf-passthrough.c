// SPDX-License-Identifier: GPL-2.0-only
/*
 * NVMe passthrough from a registered buffer: IORING_OP_URING_CMD with
 * IORING_URING_CMD_FIXED (6.1, 9cda70f622cd) at folio boundaries, on
 * 2 MiB hugetlb pages, PMD THPs and 4 KiB pages.
 *
 * The kernel imports the I/O with io_import_fixed() (the same bvec table
 * as READ_FIXED, coalesced or not) and maps it with blk_rq_map_user_iov()
 * (docs/kernel-rules.md §9.4): directly, through a bounce buffer, or not
 * at all (-EINVAL).  For each command lib's model (hb_model_pt_map) says
 * which; the test checks what userspace can see of that:
 *   - a command the model says the kernel refuses must fail with
 *     -EINVAL, and one it says the kernel takes must succeed;
 *   - every command that succeeds moves the right bytes: the buffer range
 *     is written to the namespace with a pattern, poisoned, read back
 *     from the namespace and compared, and the bytes around the range
 *     are left alone.
 * The commands: inside the first folio, across the boundary between two
 * folios, starting at a dword inside a page just before the boundary,
 * two bytes off dword alignment (NVMe's dma_alignment is 3: a copy), and
 * up to the buffer's end.  Each is the largest the queue takes
 * (max_hw_sectors_kb) where that fits.  Then a buffer of one 2 MiB
 * hugetlb folio more than the queue's max_segments, used from its start
 * and at its end: a command there needs one bvec, but 6.1 counted every
 * bvec to the end of the table as the iterator's nr_segs and refused it
 * (-EINVAL) for having more than max_segments; our series counts the
 * bvecs the command covers (io_uring 2/5, kernel/patches/bugfix/).
 *
 * It needs an NVMe generic char device whose namespace may be
 * overwritten from a byte offset on: HUGEBUF_PT_DEV (e.g. /dev/ng0n1)
 * and HUGEBUF_PT_OFFSET (kernel/ktest.sh sets both in its guests, for the
 * raw region past the guest's file system).  Without them it is a SKIP.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/nvme_ioctl.h>

#include "helpers.h"
#include "base/uring-compat.h"

#define BUF_LEN		(4ULL << 20)	/* two 2 MiB folios */
#define MAX_BIG_FOLIOS	512		/* 1 GiB: the guest's whole pool */
#define POISON		0x5a

struct pt_dev {
	int fd;
	uint32_t nsid;
	unsigned int lba;	/* bytes */
	unsigned int lba_shift;
	uint64_t off;		/* first byte we may write */
	struct hb_queue_limits lim;
	char blk[NAME_MAX + 1];
};

struct pt_cmd {
	const char *name;
	uint64_t boff;		/* offset in the registered buffer */
	uint64_t len;		/* 0: the largest the queue takes */
	bool from_end;		/* boff counts back from the buffer's end */
};

/* One registered buffer and the commands issued from it. */
struct pt_run {
	const char *what;	/* for the messages */
	const char *backing;
	uint64_t len;
	const struct pt_cmd *cmds;
	unsigned int nr_cmds;
};

/*
 * The kernel's own answer first: no IORING_OP_URING_CMD (5.19,
 * ee692a21e9bf) means no passthrough at all, whatever device is named.
 */
static int pt_kernel_has_uring_cmd(void)
{
	struct io_uring ring;
	bool ok;
	int ret;

	ret = t_ring_init(&ring, 4);
	if (ret)
		return ret;
	ok = hb_uring_op_supported(&ring, IORING_OP_URING_CMD);
	io_uring_queue_exit(&ring);
	if (!ok)
		return t_skip("the kernel has no IORING_OP_URING_CMD (5.19+): "
			      "no NVMe passthrough here");
	return T_EXIT_PASS;
}

static int pt_open(struct pt_dev *d)
{
	const char *dev = getenv("HUGEBUF_PT_DEV");
	const char *off = getenv("HUGEBUF_PT_OFFSET");
	char path[NAME_MAX + 64];
	FILE *fp;
	int ret;

	ret = pt_kernel_has_uring_cmd();
	if (ret)
		return ret;
	if (!dev || !*dev || !off || !*off)
		return t_skip("no NVMe namespace to overwrite: set "
			      "HUGEBUF_PT_DEV=/dev/ngXnY and "
			      "HUGEBUF_PT_OFFSET=<bytes>");
	d->off = strtoull(off, NULL, 0);
	if (hb_nvme_ng_blkdev(dev, d->blk, sizeof(d->blk)))
		return t_fail("HUGEBUF_PT_DEV=%s is not /dev/ngXnY", dev);
	d->fd = open(dev, O_RDWR);
	if (d->fd < 0)
		return t_skip("cannot open %s: %s", dev, strerror(errno));
	ret = ioctl(d->fd, NVME_IOCTL_ID);
	if (ret <= 0)
		return t_fail("%s: NVME_IOCTL_ID failed", dev);
	d->nsid = ret;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/logical_block_size",
		 d->blk);
	fp = fopen(path, "r");
	if (!fp || fscanf(fp, "%u", &d->lba) != 1)
		ret = t_fail("cannot read %s", path);
	else
		ret = 0;
	if (fp)
		fclose(fp);
	if (ret)
		return ret;
	if (hb_blkdev_queue_limits(d->blk, true, &d->lim))
		return t_fail("%s: %s", d->blk, hb_errmsg());
	d->lba_shift = __builtin_ctz(d->lba);
	if (d->off % d->lba)
		return t_fail("HUGEBUF_PT_OFFSET=%llu is not whole %u-byte "
			      "blocks", (unsigned long long)d->off, d->lba);
	return 0;
}

/* One NVMe read or write of @len bytes at namespace byte @doff. */
static int pt_io(struct io_uring *ring, const struct pt_dev *d, int opcode,
		 void *addr, uint64_t len, uint64_t doff)
{
	int ret;

	hb_prep_nvme_io(io_uring_get_sqe(ring), d->fd, opcode, d->nsid, addr,
			len, doff, d->lba_shift, true, 0);
	ret = t_submit_wait(ring);
	return ret > 0 ? -EIO : ret;	/* a positive res is an NVMe status */
}

static bool bytes_are(const char *p, size_t len, int c)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != (char)c)
			return false;
	return true;
}

/* write, poison, read back, compare; the rest of the buffer untouched */
static int pt_data(struct io_uring *ring, const struct pt_dev *d, char *buf,
		   uint64_t blen, uint64_t boff, uint64_t len, uint64_t seed,
		   const char *what)
{
	char *p = buf + boff;
	int ret;

	memset(buf, POISON, blen);
	t_pattern_fill(p, len, seed, 0);
	ret = pt_io(ring, d, HB_NVME_CMD_WRITE, p, len, d->off);
	if (ret)
		return t_fail("%s: write: %s", what, strerror(-ret));
	memset(p, POISON, len);
	ret = pt_io(ring, d, HB_NVME_CMD_READ, p, len, d->off);
	if (ret)
		return t_fail("%s: read: %s", what, strerror(-ret));
	ret = t_pattern_verify(what, p, len, seed, 0);
	if (ret)
		return ret;
	if (!bytes_are(buf, boff, POISON) ||
	    !bytes_are(p + len, blen - boff - len, POISON))
		return t_fail("%s: the read wrote outside its range", what);
	return 0;
}

static int run_cmd(struct io_uring *ring, const struct pt_dev *d, char *buf,
		   const struct t_model *m, const struct pt_cmd *c,
		   const struct pt_run *r)
{
	uint64_t len = c->len ? c->len : d->lim.max_hw_bytes;
	uint64_t boff = c->from_end ? r->len - c->boff : c->boff;
	struct hb_pt_map pm;
	char what[200];
	int ret;

	if (boff + len > r->len)
		len = (r->len - boff) / d->lba * d->lba;
	snprintf(what, sizeof(what), "%s: %s (%llu bytes at %#llx)", r->what,
		 c->name, (unsigned long long)len, (unsigned long long)boff);
	ret = hb_model_pt_map(m->km, m->imu, (uintptr_t)buf + boff, len,
			      &d->lim, &pm);
	if (ret)
		return t_fail("%s: model: %s", what, strerror(-ret));
	if (pm.path == HB_PT_EINVAL) {
		memset(buf, POISON, r->len);
		ret = pt_io(ring, d, HB_NVME_CMD_READ, buf + boff, len,
			    d->off);
		if (ret != -EINVAL)
			return t_fail("%s: the model says the kernel refuses "
				      "it (%s), the kernel gave %d", what,
				      pm.why, ret);
		t_info("%s: refused with EINVAL, as modelled (%s)", what,
		       pm.why);
		return 0;
	}
	ret = pt_data(ring, d, buf, r->len, boff, len, 0x9e3779b9u ^ boff,
		      what);
	if (!ret)
		t_info("%s: data ok, modelled %s (%u segments; %s)", what,
		       hb_pt_path_name(pm.path), pm.nsegs, pm.why);
	return ret;
}

static const struct pt_cmd small_cmds[] = {
	{ "inside the first folio", 0, 0, false },
	{ "across the folio boundary", (2ULL << 20) - (128 << 10), 256 << 10,
	  false },
	{ "from a dword inside a page", (2ULL << 20) - (64 << 10) + 4,
	  128 << 10, false },
	{ "two bytes off dword alignment", (1ULL << 20) + 2, 64 << 10, false },
	{ "up to the buffer's end", 256 << 10, 0, true },
};

static const struct pt_cmd big_cmds[] = {
	{ "from the start", 0, 0, false },
	{ "up to the buffer's end", 512 << 10, 0, true },
};

static int run_buffer(const struct pt_dev *d, const struct pt_run *r)
{
	struct io_uring_params p = {
		.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32,
	};
	struct hb_backing b;
	struct io_uring ring;
	struct t_model m;
	struct hb_buf buf;
	struct iovec iov;
	unsigned int i;
	int ret;

	if (!strcmp(r->backing, "thp"))
		ret = t_alloc_thp(r->len, 0, &buf, "passthrough from THPs");
	else
		ret = t_alloc(r->backing, r->len, 0, &buf);
	if (ret)
		return ret;
	hb_backing_parse(r->backing, &b);
	ret = t_model_buffer(buf.addr, r->len, &b, &m);
	if (ret)
		goto out_buf;
	ret = io_uring_queue_init_params(8, &ring, &p);
	if (ret) {
		ret = t_skip("no ring with 128-byte SQEs: %s", strerror(-ret));
		goto out_model;
	}
	iov.iov_base = buf.addr;
	iov.iov_len = r->len;
	ret = t_register(&ring, &iov, 1);
	if (ret)
		goto out_ring;
	for (i = 0; i < r->nr_cmds && !ret; i++)
		ret = run_cmd(&ring, d, buf.addr, &m, &r->cmds[i], r);
	io_uring_unregister_buffers(&ring);
out_ring:
	io_uring_queue_exit(&ring);
out_model:
	t_model_free(&m);
out_buf:
	hb_free(&buf);
	return ret;
}

/*
 * The runs: a 4 MiB buffer of each backing, then max_segments + 1
 * hugetlb folios (unless the queue takes more segments than the guest's
 * pool could hold: a skip).
 */
static unsigned int make_runs(const struct pt_dev *d, struct pt_run *runs,
			      char *big_what, size_t big_size)
{
	static const char *const backings[] = { "hugetlb:2M", "thp", "4k" };
	uint64_t folios = (uint64_t)d->lim.max_segments + 1;
	unsigned int i, n = 0;

	for (i = 0; i < T_ARRAY_SIZE(backings); i++)
		runs[n++] = (struct pt_run){ backings[i], backings[i], BUF_LEN,
					     small_cmds,
					     T_ARRAY_SIZE(small_cmds) };
	if (folios > MAX_BIG_FOLIOS)
		return n;
	snprintf(big_what, big_size, "hugetlb:2M, %llu folios (max_segments "
		 "%u + 1)", (unsigned long long)folios, d->lim.max_segments);
	runs[n++] = (struct pt_run){ big_what, "hugetlb:2M", folios << 21,
				     big_cmds, T_ARRAY_SIZE(big_cmds) };
	return n;
}

int main(int argc, char **argv)
{
	struct pt_run runs[4];
	struct t_baseline base;
	char big_what[80];
	struct pt_dev d;
	unsigned int i, nr, ran = 0;
	int ret;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	ret = pt_open(&d);
	if (ret)
		return t_done(ret);
	ret = t_baseline_take(&base, 0);
	if (ret)
		return t_done(ret);
	nr = make_runs(&d, runs, big_what, sizeof(big_what));
	if (nr < T_ARRAY_SIZE(runs))
		t_sub(t_skip("max_segments %u: %u hugetlb folios would be more "
			     "than the %u the test may take", d.lim.max_segments,
			     d.lim.max_segments + 1, MAX_BIG_FOLIOS));
	for (i = 0; i < nr; i++) {
		int r = run_buffer(&d, &runs[i]);

		/* every buffer runs: a failure in one says nothing of the next */
		if (r == T_EXIT_FAIL)
			ret = r;
		ran += r == T_EXIT_PASS;
	}
	close(d.fd);
	ret = t_worst(ret, t_baseline_check(&base, "after every backing"));
	if (ret == T_EXIT_PASS && !ran)
		return t_done(t_skip("no backing could be allocated"));
	return t_done(ret);
}
