// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live measurements of what the kernel did with a registered buffer, on a
 * ring: the block requests of one read and the kernel memory a
 * registration takes.  The /proc and /sys values they read come from the
 * readers (lib/sysread/sysinfo.c, lib/sysread/blkdev.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <liburing.h>

#include "resource/resource.h"

static int one_read(struct io_uring *ring, int fd, bool fixed, int buf_index,
		    void *addr, uint64_t len, uint64_t file_off)
{
	struct io_uring_sqe *sqe;
	struct io_uring_cqe *cqe;
	int ret, res;

	sqe = io_uring_get_sqe(ring);
	if (!sqe)
		return hb_seterr(EBUSY, "io_uring submission queue is full");
	if (fixed)
		io_uring_prep_read_fixed(sqe, fd, addr, len, file_off,
					 buf_index);
	else
		io_uring_prep_read(sqe, fd, addr, len, file_off);
	ret = io_uring_submit(ring);
	if (ret != 1)
		return hb_seterr(ret < 0 ? -ret : EIO, "io_uring_submit "
				 "failed: %s",
				 strerror(ret < 0 ? -ret : EIO));
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return hb_seterr(-ret, "io_uring_wait_cqe failed: %s",
				 strerror(-ret));
	res = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	if (res < 0)
		return hb_seterr(-res, "%s of %llu bytes at file offset %llu "
				 "failed: %s%s", fixed ? "READ_FIXED" : "READ",
				 (unsigned long long)len,
				 (unsigned long long)file_off, strerror(-res),
				 -res == EINVAL ? " (O_DIRECT needs the "
				 "address, length and offset aligned to the "
				 "logical block size)" : "");
	if ((uint64_t)res != len)
		return hb_seterr(EIO, "short read: %d of %llu bytes at file "
				 "offset %llu: make the file at least %llu "
				 "bytes long", res, (unsigned long long)len,
				 (unsigned long long)file_off,
				 (unsigned long long)(file_off + len));
	return 0;
}

/* Other I/O on the disk can only add requests: take the minimum. */
int hb_count_read_requests(struct io_uring *ring, int fd, bool fixed,
			   int buf_index, void *addr, uint64_t len,
			   uint64_t file_off, const char *dev,
			   unsigned int tries, uint64_t *min_reqs)
{
	uint64_t best = UINT64_MAX;
	unsigned int t;
	int fl, ret;

	fl = fcntl(fd, F_GETFL);
	if (fl < 0)
		return hb_seterr(errno, "bad file descriptor %d: %s", fd,
				 strerror(errno));
	if (!(fl & O_DIRECT))
		return hb_seterr(EINVAL, "the file must be opened with "
				 "O_DIRECT, or the page cache hides the "
				 "request count");
	if (!tries)
		tries = 1;
	for (t = 0; t < tries; t++) {
		uint64_t before, after;

		ret = hb_blkdev_ios(dev, &before, NULL);
		if (ret)
			return ret;
		ret = one_read(ring, fd, fixed, buf_index, addr, len,
			       file_off);
		if (ret)
			return ret;
		ret = hb_blkdev_ios_settled(dev, &after, NULL);
		if (ret)
			return ret;
		if (after - before < best)
			best = after - before;
	}
	*min_reqs = best;
	return 0;
}

/*
 * Fold the per-CPU vmstat deltas into the global counters that
 * /proc/meminfo reads (writing vm.stat_refresh, root only; 4.4+): without
 * it SUnreclaim can lag a few hundred KiB behind, as much as the imus of
 * a small registration (seen in 6.1 guests).
 */
static void vm_stat_refresh(void)
{
	int fd = open("/proc/sys/vm/stat_refresh", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "1", 1) < 0) {
		/* not root: the counters are read as they are */
	}
	close(fd);
}

/*
 * A registration's kernel memory says something about its imus only when
 * each kmalloc object takes its nominal size and is freed when freed:
 * generic KASAN adds its allocation and free metadata to every object and
 * holds freed objects in a quarantine, slub_debug adds red zones and
 * tracking (seen in the debug guest, kernel/hugebuf-debug.config: 6.1+our
 * series measured as "one bvec per page").  SLUB says so in sysfs:
 * kmalloc-64's slab_size is then more than its object_size.  A kernel
 * without /sys/kernel/slab is taken as it is.
 */
static int slab_objects_nominal(void)
{
	unsigned long obj, slab;

	if (hb_read_ulong("/sys/kernel/slab/kmalloc-64/object_size", &obj) ||
	    hb_read_ulong("/sys/kernel/slab/kmalloc-64/slab_size", &slab) ||
	    slab <= obj)
		return 0;
	return hb_seterr(ENOTSUP, "kernel memory not comparable with the "
			 "model: a 64-byte kmalloc object takes %lu bytes "
			 "here (slab metadata: KASAN or slub_debug)", slab);
}

int hb_measure_reg_kmem(struct io_uring *ring, void *addr, uint64_t len,
			unsigned int k, long *delta_kb)
{
	struct iovec *iov;
	long before, after;
	unsigned int i;
	int ret;

	if (!k || k > HB_MAX_REG_BUFFERS)
		return hb_seterr(EINVAL, "registration count %u out of range "
				 "1..%u", k, HB_MAX_REG_BUFFERS);
	ret = slab_objects_nominal();
	if (ret)
		return ret;
	iov = calloc(k, sizeof(*iov));
	if (!iov)
		return hb_seterr(ENOMEM, "out of memory");
	for (i = 0; i < k; i++) {
		iov[i].iov_base = addr;
		iov[i].iov_len = len;
	}
	vm_stat_refresh();
	before = hb_kernel_mem_kb();
	if (before < 0) {
		free(iov);
		return (int)before;
	}
	ret = hb_register_buffers(ring, iov, k);
	if (ret) {
		free(iov);
		return ret;
	}
	vm_stat_refresh();
	after = hb_kernel_mem_kb();
	io_uring_unregister_buffers(ring);
	free(iov);
	if (after < 0)
		return (int)after;
	*delta_kb = after - before;
	return 0;
}
