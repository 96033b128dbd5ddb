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
 *   - calls and time of the DMA-mapping path that the coalescing series
 *     removes (__blk_rq_map_sg, sg_next, dma_map_sg_attrs,
 *     dma_direct_map_sg, dma_pool_alloc, nvme_map_data, the PRP/SGL setup),
 *     from ftrace's function profiler (trace_stat/function<cpu>, summed
 *     over CPUs), limited to those functions through set_ftrace_filter.
 * sg_next() lives in lib/, which the kernel builds without the ftrace hook
 * (lib/Makefile: ccflags-remove FTRACE): its calls are counted by a kprobe
 * event instead (kprobe_profile's hit count), without a time.
 * Counts are exact. The time is inclusive of callees and, under TCG, only
 * a ratio between columns.
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
 * 77 when there is no tracefs profiler or no device.
 *
 * Usage: nvme-profile [-d /dev/nvme0n1] [-n ITER] [-t TRACEFS]
 */
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
#include <sys/ioctl.h>

#include "probe-util.h"

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
};
#define NSYMS (sizeof(syms) / sizeof(syms[0]))

static const char *tracefs = "/sys/kernel/tracing";
static const char *dev = "/dev/nvme0n1";
static int iters = 4;
static int traced[NSYMS];

/* write @s to a tracefs file: added to its list, or replacing it */
static int write_str(const char *file, const char *s, bool append)
{
	return probe_trace_write(tracefs, file, s, append);
}

/*
 * set_ftrace_filter rejects a function it cannot trace (EINVAL), e.g. a
 * static one the compiler inlined: write them one by one and remember
 * which are in. "name.*" adds the compiler's clones (name.isra.0,
 * name.constprop.0), which is what the callers call when they exist.
 */
static int setup_filter(void)
{
	char clone[160];
	size_t i;
	int n = 0;

	if (write_str("set_ftrace_filter", "\n", false))
		return -1;
	for (i = 0; i < NSYMS; i++) {
		traced[i] = !write_str("set_ftrace_filter", syms[i], true);
		snprintf(clone, sizeof(clone), "%s.*", syms[i]);
		traced[i] |= !write_str("set_ftrace_filter", clone, true);
		n += traced[i];
		if (!traced[i])
			printf("NVPROF untraceable=%s\n", syms[i]);
	}
	return n ? 0 : -1;
}

#define KPROBE_EVENT "hugebuf_sg_next"

/* the kprobe on sg_next: 0 when it is armed */
static int kprobe_setup(bool on)
{
	if (!on) {
		write_str("events/kprobes/" KPROBE_EVENT "/enable", "0", false);
		return write_str("kprobe_events", "-:" KPROBE_EVENT, true);
	}
	return write_str("kprobe_events", "p:" KPROBE_EVENT " sg_next", true);
}

/* kprobe_profile's hits of the sg_next probe; -1 when absent */
static long kprobe_hits(void)
{
	unsigned long hits, misses;

	if (probe_kprobe_profile(tracefs, KPROBE_EVENT, &hits, &misses))
		return -1;
	return (long)hits;
}

static int have_kprobe;

struct stat_row {
	unsigned long hits;
	double usec;
};

/* the profiler's tables summed over CPUs (probe-util.c) */
static int read_profile(struct stat_row *rows)
{
	unsigned long hits[NSYMS];
	double usec[NSYMS];
	size_t j;
	int ret = probe_ftrace_sum(tracefs, syms, NSYMS, hits, usec);

	for (j = 0; j < NSYMS; j++) {
		rows[j].hits = hits[j];
		rows[j].usec = usec[j];
	}
	return ret;
}

/* each backing writes and reads back a pattern of its own */
static uint64_t seed_of(bool huge)
{
	return huge ? 2 : 1;
}

/* one (op, backing) case: ITER I/Os of 8 MiB, then the profile */
static int run_case(struct io_uring *ring, int fd, const char *disk,
		    off_t base, bool write, bool huge)
{
	const char *op = write ? "write" : "read";
	const char *bk = huge ? "2M" : "4k";
	struct stat_row rows[NSYMS];
	struct hb_buf hb;
	size_t i;
	struct iovec iov;
	long before, after, kp0 = -1, kp1 = -1, bad;
	uint8_t *buf;
	int it, ret, fail = 0;
	off_t off = base + (huge ? IO_SIZE * iters : 0);

	if (probe_alloc(huge ? "hugetlb:2M" : "4k", IO_SIZE, 0, &hb)) {
		printf("NVPROF op=%s backing=%s error=alloc:%s\n", op, bk,
		       hb_errmsg());
		return 1;
	}
	buf = hb.addr;
	if (write)
		probe_pat_fill(buf, IO_SIZE, seed_of(huge), 0);
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
	ret = probe_rw_fixed(ring, write, fd, buf, IO_SIZE, off, 0);
	if (ret != (int)IO_SIZE) {
		printf("NVPROF op=%s backing=%s error=io:%d\n", op, bk, ret);
		fail = 1;
	}
	write_str("function_profile_enabled", "0", false);
	/* enabling resets the counters */
	write_str("function_profile_enabled", "1", false);
	before = probe_disk_ios(disk, write);
	for (it = 0; it < iters; it++) {
		if (!write)
			memset(buf, 0, IO_SIZE);
		ret = probe_rw_fixed(ring, write, fd, buf, IO_SIZE,
				     off + (off_t)it * IO_SIZE, 0);
		if (ret != (int)IO_SIZE) {
			printf("NVPROF op=%s backing=%s error=io:%d\n", op,
			       bk, ret);
			fail = 1;
			break;
		}
	}
	after = probe_disk_ios(disk, write);
	write_str("function_profile_enabled", "0", false);
	read_profile(rows);
	/*
	 * The same I/Os again for the kprobe count alone: a kprobe hit traps,
	 * which would swell the profiled time of sg_next()'s callers.
	 */
	if (have_kprobe && !fail &&
	    !write_str("events/kprobes/" KPROBE_EVENT "/enable", "1", false)) {
		kp0 = kprobe_hits();
		for (it = 0; it < iters; it++)
			if (probe_rw_fixed(ring, write, fd, buf, IO_SIZE,
					   off + (off_t)it * IO_SIZE,
					   0) != (int)IO_SIZE)
				kp0 = -1;
		kp1 = kprobe_hits();
		write_str("events/kprobes/" KPROBE_EVENT "/enable", "0", false);
	}
	io_uring_unregister_buffers(ring);
	/* the reads see what the writes of the same backing left */
	if (!write && !fail) {
		bad = probe_pat_check(buf, IO_SIZE, seed_of(huge), 0);
		if (bad >= 0) {
			printf("NVPROF op=%s backing=%s error=data:%ld\n", op,
			       bk, bad);
			fail = 1;
		}
	}
	printf("NVPROF op=%s backing=%s ios=%d requests=%ld data=%s\n", op,
	       bk, iters, after - before,
	       write ? "written" : (fail ? "BAD" : "verified"));
	for (i = 0; i < NSYMS; i++)
		if (traced[i])
			printf("NVPROF op=%s backing=%s sym=%s hits=%lu usec=%.3f\n",
			       op, bk, syms[i], rows[i].hits, rows[i].usec);
	if (kp0 >= 0 && kp1 >= 0)
		printf("NVPROF op=%s backing=%s sym=sg_next(kprobe) hits=%ld usec=0\n",
		       op, bk, kp1 - kp0);
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
	if (setup_filter()) {
		printf("NVPROF skip=no function profiler in %s\n", tracefs);
		return 77;
	}
	have_kprobe = !kprobe_setup(true);
	if (!have_kprobe)
		printf("NVPROF nokprobe=sg_next\n");
	if (io_uring_queue_init(8, &ring, 0)) {
		printf("NVPROF skip=no io_uring\n");
		return 77;
	}
	/* the last REGION of the namespace: the guest's ext4 ends before it */
	for (w = 1; w >= 0; w--)
		for (h = 0; h <= 1; h++)
			fail |= run_case(&ring, fd, disk,
					 (off_t)(size - REGION), w, h);
	write_str("set_ftrace_filter", "\n", false);
	if (have_kprobe)
		kprobe_setup(false);
	io_uring_queue_exit(&ring);
	close(fd);
	printf("NVPROF done fail=%d\n", fail);
	return fail;
}
