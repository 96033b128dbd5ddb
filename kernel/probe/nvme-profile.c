// SPDX-License-Identifier: GPL-2.0-only
/*
 * nvme-profile: the series' profile on the guest's emulated NVMe namespace,
 * run inside the qemu guest by kernel/ktest.sh.
 *
 * For each of WRITE_FIXED and READ_FIXED, from 4 KiB pages and from 2 MiB
 * hugetlb pages, it issues ITER O_DIRECT I/Os of 8 MiB on the raw namespace
 * (a region past the end of the guest's ext4 file system) and reports per
 * I/O:
 *   - device requests: /sys/block/<disk>/stat field 1 (reads) or 5
 *     (writes), after minus before;
 *   - calls of the DMA-mapping path that the coalescing series removes
 *     (__blk_rq_map_sg, sg_next, dma_map_sg_attrs, dma_direct_map_sg,
 *     dma_pool_alloc, nvme_map_data, the PRP/SGL setup), from kprobe
 *     events' hit counts (t_kcount_open(): on a distribution config
 *     too; sg_next(), in the kernel's notrace lib/, by a breakpoint
 *     register where kprobe events refuse it), one window per I/O;
 *   - the wall time per I/O seen from user space (the fastest of a pass
 *     of its own with no counter armed: a kprobe hit traps).
 * Counts are exact. The time is, under TCG, only a ratio between kernels.
 *
 * One I/O before the profiled ones warms TCG's translation cache. Every
 * READ_FIXED reads back what the WRITE_FIXED of the same backing wrote and
 * is compared byte for byte.
 *
 * It also asks the controller (Identify Controller, admin passthrough) for
 * MDTS and SGLS, the two fields that decide request size and whether the
 * driver may build SGLs instead of PRP lists.
 *
 * Output: "NVPROF key=value ..." lines; exit 0 on success, 1 on a failure,
 * 77 when there are no kprobe events or no device.
 *
 * Usage: nvme-profile [-d /dev/nvme0n1] [-n ITER] [-t TRACEFS]
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../t/helpers.h"

#define MiB		(1024UL * 1024UL)
#define IO_SIZE		(8 * MiB)
#define REGION		(128 * MiB)

/* the symbols of the series' perf diff and the NVMe driver's setup path */
static const char *const syms[] = {
	"__blk_rq_map_sg",	/* 6.1 and 6.12: blk_rq_map_sg() is inline */
	"blk_rq_map_sg",
	"dma_map_sg_attrs",
	"dma_map_sgtable",	/* nvme_map_data() calls this one */
	"__dma_map_sg_attrs",
	"dma_direct_map_sg",
	"dma_pool_alloc",
	"nvme_map_data",
	"nvme_pci_setup_prps",
	"nvme_pci_setup_sgls",
	"nvme_setup_prp_simple",
	"nvme_setup_sgl_simple",
	"sg_next",		/* lib/: notrace */
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))

static const char *tracefs = "/sys/kernel/tracing";
static const char *dev = "/dev/nvme0n1";
static int iters = 4;
static int counted[NSYMS];

/* the opcode of one fixed-buffer I/O of the case */
static int fixed_op(bool write)
{
	return write ? IORING_OP_WRITE_FIXED : IORING_OP_READ_FIXED;
}

/* each backing writes and reads back a pattern of its own */
static uint64_t seed_of(bool huge)
{
	return huge ? 2 : 1;
}

/*
 * ITER I/Os of the case from @off: 0, or the failed I/O's result.
 * Counted (@count): each I/O's calls added to @sum.  Timed: the wall time
 * of the fastest in @best (other work on the machine only adds time).
 */
static int run_ios(struct io_uring *ring, int fd, bool write, uint8_t *buf,
		   off_t off, bool count, unsigned long *sum, long *misses,
		   double *best)
{
	unsigned long hits[NSYMS];
	int it, ret;
	double t;
	long m;
	size_t i;

	for (it = 0; it < iters; it++) {
		if (!write)
			memset(buf, 0, IO_SIZE);
		if (count)
			t_kcount_begin();
		t = t_now_usec();
		ret = t_io(ring, fixed_op(write), fd, buf, IO_SIZE,
			   off + (off_t)it * IO_SIZE, 0);
		t = t_now_usec() - t;
		if (ret != (int)IO_SIZE)
			return ret ? ret : -EIO;
		if (!count) {
			if (*best < 0 || t < *best)
				*best = t;
			continue;
		}
		m = t_kcount_end(hits);
		*misses = m < 0 || *misses < 0 ? -1 : *misses + m;
		for (i = 0; i < NSYMS; i++)
			sum[i] += hits[i];
	}
	return 0;
}

/*
 * One (op, backing) case: a timed pass of ITER I/Os of 8 MiB with no
 * counter armed, then a counted one, each I/O a window of its own.
 */
static int run_case(struct io_uring *ring, int fd, const char *disk,
		    off_t base, bool write, bool huge)
{
	const char *op = write ? "write" : "read";
	const char *bk = huge ? "2M" : "4k";
	unsigned long hits[NSYMS] = { 0 };
	struct hb_buf hb;
	size_t i;
	struct iovec iov;
	long before, after, bad, misses = 0;
	double wall = -1;
	uint8_t *buf;
	int ret, fail = 0;
	off_t off = base + (huge ? IO_SIZE * iters : 0);

	if (t_alloc_errno(huge ? "hugetlb:2M" : "4k", IO_SIZE, 0, &hb)) {
		printf("NVPROF op=%s backing=%s error=alloc:%s\n", op, bk,
		       hb_errmsg());
		return 1;
	}
	buf = hb.addr;
	if (write)
		t_pattern_fill(buf, IO_SIZE, seed_of(huge), 0);
	iov.iov_base = buf;
	iov.iov_len = IO_SIZE;
	ret = io_uring_register_buffers(ring, &iov, 1);
	if (ret) {
		printf("NVPROF op=%s backing=%s error=register:%s\n", op, bk,
		       strerror(-ret));
		hb_free(&hb);
		return 1;
	}
	/* one I/O outside the profile: TCG translates the path once */
	ret = t_io(ring, fixed_op(write), fd, buf, IO_SIZE, off, 0);
	if (ret >= 0 && ret != (int)IO_SIZE)
		ret = -EIO;
	if (ret == (int)IO_SIZE)
		ret = run_ios(ring, fd, write, buf, off, false, NULL, NULL,
			      &wall);
	before = t_disk_ios(disk, write);
	if (ret >= 0 && !t_kcount_enable(true)) {
		ret = run_ios(ring, fd, write, buf, off, true, hits, &misses,
			      NULL);
		t_kcount_enable(false);
	} else if (ret >= 0) {
		ret = -ENODEV;
	}
	after = t_disk_ios(disk, write);
	if (ret < 0) {
		printf("NVPROF op=%s backing=%s error=io:%d\n", op, bk, ret);
		fail = 1;
	}
	io_uring_unregister_buffers(ring);
	/* the reads see what the writes of the same backing left */
	if (!write && !fail) {
		bad = t_pattern_mismatch(buf, IO_SIZE, seed_of(huge), 0);
		if (bad >= 0) {
			printf("NVPROF op=%s backing=%s error=data:%ld\n", op,
			       bk, bad);
			fail = 1;
		}
	}
	printf("NVPROF op=%s backing=%s ios=%d requests=%ld data=%s wall_usec=%.1f misses=%ld\n",
	       op, bk, iters, after - before,
	       write ? "written" : (fail ? "BAD" : "verified"),
	       wall, misses);
	for (i = 0; i < NSYMS; i++)
		if (counted[i])
			printf("NVPROF op=%s backing=%s sym=%s hits=%lu\n", op,
			       bk, syms[i], hits[i]);
	hb_free(&hb);
	return fail;
}

/* Identify Controller: MDTS (byte 77) and SGLS (bytes 536-539) */
static void identify(int fd)
{
	struct nvme_admin_cmd cmd;
	uint8_t *id;
	uint32_t sgls;

	if (posix_memalign((void **)&id, 4096, 4096))
		return;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = 0x06;
	cmd.cdw10 = 1;
	cmd.addr = (uint64_t)(uintptr_t)id;
	cmd.data_len = 4096;
	if (ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd) == 0) {
		memcpy(&sgls, id + 536, 4);
		printf("NVPROF ctrl mdts=%u sgls=0x%08x\n", id[77], sgls);
	} else {
		printf("NVPROF ctrl identify=%s\n", strerror(errno));
	}
	free(id);
}

int main(int argc, char **argv)
{
	struct io_uring ring;
	const char *disk;
	uint64_t size = 0;
	int opt, fd, fail = 0, w, h;

	while ((opt = getopt(argc, argv, "d:n:t:")) != -1) {
		switch (opt) {
		case 'd':
			dev = optarg;
			break;
		case 'n':
			iters = atoi(optarg);
			break;
		case 't':
			tracefs = optarg;
			break;
		default:
			fprintf(stderr, "usage: %s [-d DEV] [-n ITER] [-t TRACEFS]\n",
				argv[0]);
			return 2;
		}
	}
	if (iters < 1 || (uint64_t)iters * 2 * IO_SIZE > REGION)
		iters = 4;
	disk = strrchr(dev, '/') ? strrchr(dev, '/') + 1 : dev;
	fd = open(dev, O_RDWR | O_DIRECT);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &size) || size < 2 * REGION) {
		printf("NVPROF skip=no usable %s\n", dev);
		return 77;
	}
	identify(fd);
	if (t_kcount_open(tracefs, syms, NSYMS, counted, "NVPROF") <= 0)
		return 77;
	if (io_uring_queue_init(8, &ring, 0)) {
		printf("NVPROF skip=no io_uring\n");
		return 77;
	}
	/* the last REGION of the namespace: the guest's ext4 ends before it */
	for (w = 1; w >= 0; w--)
		for (h = 0; h <= 1; h++)
			fail |= run_case(&ring, fd, disk,
					 (off_t)(size - REGION), w, h);
	t_kcount_close();
	io_uring_queue_exit(&ring);
	close(fd);
	printf("NVPROF done fail=%d\n", fail);
	return fail;
}
