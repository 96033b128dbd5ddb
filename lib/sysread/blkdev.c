// SPDX-License-Identifier: GPL-2.0-only
/*
 * Block devices in /sys: the disk under a path, its I/O counters, its
 * queue limits (for a bio and for an NVMe passthrough request) and the
 * namespace of an NVMe generic char device.  Readers only: what a limit
 * does to an I/O is the model's (lib/model/predict.c, lib/model/ptmap.c, lib/model/iommu.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "sysread/sysread.h"

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s ? s + 1 : path;
}

/* stat @path, or its directory when it does not exist yet */
static int stat_path_or_dir(const char *path, struct stat *st)
{
	char dir[PATH_MAX], *slash;

	if (!stat(path, st))
		return 0;
	if (errno != ENOENT || strlen(path) >= sizeof(dir))
		return hb_seterr(errno, "cannot stat '%s': %s", path,
				 strerror(errno));
	strcpy(dir, path);
	slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash)
		*slash = '\0';
	else
		strcpy(dir, ".");
	if (stat(dir, st))
		return hb_seterr(errno, "cannot stat '%s' or its directory: %s",
				 path, strerror(errno));
	return 0;
}

/*
 * /sys/dev/block/M:m resolves to .../block/<disk> for a whole disk (and
 * for dm-N, loopN, md), or .../block/<disk>/<part> for a partition, which
 * has a "partition" attribute; then the parent directory is the disk.
 */
int hb_blkdev_of_path(const char *path, char *dev, size_t len)
{
	char link[64], real[PATH_MAX], attr[PATH_MAX + 16];
	const char *name;
	struct stat st;
	int ret;

	ret = stat_path_or_dir(path, &st);
	if (ret)
		return ret;
	if (S_ISBLK(st.st_mode))
		st.st_dev = st.st_rdev;
	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u",
		 major(st.st_dev), minor(st.st_dev));
	if (!realpath(link, real))
		return hb_seterr(ENODEV, "'%s' is not on a block device "
				 "(device %u:%u has no %s): put the file on a "
				 "disk-backed file system", path,
				 major(st.st_dev), minor(st.st_dev), link);
	snprintf(attr, sizeof(attr), "%s/partition", real);
	if (!access(attr, F_OK)) {
		char *slash = strrchr(real, '/');

		if (slash)
			*slash = '\0';
	}
	name = base_name(real);
	if (strlen(name) >= len)
		return hb_seterr(ENAMETOOLONG, "device name '%s' too long",
				 name);
	strcpy(dev, name);
	return 0;
}

int hb_blkdev_ios(const char *dev, uint64_t *reads, uint64_t *writes)
{
	unsigned long long v[5];
	char path[128], buf[512];
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/stat", dev);
	ret = hbi_read_file(path, buf, sizeof(buf));
	if (ret)
		return hb_seterr(ret, "cannot read %s: %s (is '%s' a whole "
				 "disk?)", path, strerror(-ret), dev);
	if (sscanf(buf, "%llu %llu %llu %llu %llu", &v[0], &v[1], &v[2],
		   &v[3], &v[4]) != 5)
		return hb_seterr(EINVAL, "unexpected format of %s", path);
	if (reads)
		*reads = v[0];
	if (writes)
		*writes = v[4];
	return 0;
}

/*
 * Requests completed on @dev (/sys/block/<dev>/stat fields 1 and 5) are
 * accounted by blk_account_io_done() AFTER the request's bios have ended:
 * in 6.12 blk_mq_end_request() runs blk_update_request() (bio_endio(),
 * which completes the O_DIRECT iocb and lets io_uring post the CQE) before
 * __blk_mq_end_request() accounts it, and blk_mq_end_request_batch() the
 * same.  So the CQE can reach us while the completing CPU (a preempted
 * vCPU, on a VM) has not counted the request yet: a read looked like 0
 * requests on the busy 2-CPU host and in a TCG guest, and an 8 MiB read
 * of two requests like 1 in the engine's report.  Read both counters once
 * they have stood still for SETTLE_STILL polls SETTLE_USEC apart (at most
 * SETTLE_POLLS polls: a disk that never rests only adds requests).
 */
#define SETTLE_USEC	2000
#define SETTLE_STILL	3
#define SETTLE_POLLS	100

int hb_blkdev_ios_settled(const char *dev, uint64_t *reads, uint64_t *writes)
{
	unsigned int i, still = 0;
	uint64_t r, w, r2, w2;
	int ret;

	usleep(SETTLE_USEC);
	ret = hb_blkdev_ios(dev, &r, &w);
	for (i = 0; !ret && i < SETTLE_POLLS && still < SETTLE_STILL; i++) {
		usleep(SETTLE_USEC);
		ret = hb_blkdev_ios(dev, &r2, &w2);
		still = r2 == r && w2 == w ? still + 1 : 0;
		r = r2;
		w = w2;
	}
	if (ret)
		return ret;
	if (reads)
		*reads = r;
	if (writes)
		*writes = w;
	return 0;
}

/* /sys/block/@dev/queue/@attr, or @def when the kernel has no such file. */
static int pt_queue_attr(const char *dev, const char *attr,
			 unsigned long def, unsigned long *val)
{
	char path[160];
	int ret;

	snprintf(path, sizeof(path), "/sys/block/%s/queue/%s", dev, attr);
	ret = hbi_read_ulong(path, val);
	if (ret == -ENOENT) {
		*val = def;
		return 0;
	}
	if (ret)
		return hb_seterr(-ret, "cannot read %s: %s", path,
				 strerror(-ret));
	return 0;
}

int hb_nvme_ng_blkdev(const char *path, char *blkdev, size_t len)
{
	char real[PATH_MAX];
	const char *base;
	unsigned int c, n;

	if (realpath(path, real))
		path = real;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (sscanf(base, "ng%un%u", &c, &n) != 2)
		return hb_seterr(EINVAL, "%s is not an NVMe generic char device "
				 "(/dev/ngXnY)", path);
	snprintf(blkdev, len, "nvme%un%u", c, n);
	return 0;
}

/*
 * @lim from the bytes and segments read for its path, and the masks every
 * path reads alike.  The segment boundary is not in sysfs: the default,
 * which NVMe keeps; dma_pad_mask neither: NVMe sets none.
 */
static int fill_queue_limits(const char *dev, unsigned long kb,
			     unsigned long segs, unsigned long segsz,
			     struct hb_queue_limits *lim)
{
	unsigned long virt, align, integ;
	int ret;

	ret = pt_queue_attr(dev, "virt_boundary_mask", 0, &virt);
	if (!ret)
		ret = pt_queue_attr(dev, "dma_alignment", 511, &align);
	/* the metadata's segments (hb_model_md_map()); 0: not known */
	if (!ret)
		ret = pt_queue_attr(dev, "max_integrity_segments", 0, &integ);
	if (ret)
		return ret;
	lim->max_hw_bytes = (uint64_t)kb << 10;
	lim->max_segments = (unsigned int)segs;
	lim->max_segment_size = segsz;
	lim->virt_boundary_mask = virt;
	lim->seg_boundary_mask = 0xffffffffULL;
	lim->dma_align_mask = (unsigned int)align;
	lim->max_integrity_segments = (unsigned int)integ;
	return 0;
}

/*
 * The defaults are the kernel's own for a queue that never set the limit
 * (BLK_MAX_SEGMENTS, BLK_MAX_SEGMENT_SIZE, no virt boundary, the 511
 * dma_alignment of a new queue); dma_alignment appeared in sysfs in 6.1.
 */
static int pt_queue_limits(const char *blkdev, struct hb_queue_limits *lim)
{
	unsigned long kb, segs, segsz;
	char path[160];
	int ret;

	memset(lim, 0, sizeof(*lim));
	if (!blkdev || !*blkdev || strchr(blkdev, '/'))
		return hb_seterr(EINVAL, "'%s' is not a block device name "
				 "(e.g. nvme0n1)", blkdev ? blkdev : "");
	snprintf(path, sizeof(path), "/sys/block/%s/queue/max_hw_sectors_kb",
		 blkdev);
	ret = hbi_read_ulong(path, &kb);
	if (ret)
		return hb_seterr(-ret, "cannot read %s: is '%s' a whole-disk "
				 "block device?", path, blkdev);
	ret = pt_queue_attr(blkdev, "max_segments", 128, &segs);
	if (!ret)
		ret = pt_queue_attr(blkdev, "max_segment_size", 65536, &segsz);
	if (ret)
		return ret;
	return fill_queue_limits(blkdev, kb, segs, segsz, lim);
}

/*
 * The block path: a bio is split at max_sectors_kb, so that is the bytes
 * per request; max_segments and max_segment_size are read as well, the
 * rest as pt_queue_limits() reads them.
 */
static int block_queue_limits(const char *dev, struct hb_queue_limits *lim)
{
	unsigned long kb, segs, segsz;
	char path[128];

	memset(lim, 0, sizeof(*lim));
	snprintf(path, sizeof(path), "/sys/block/%s/queue/max_sectors_kb", dev);
	if (hbi_read_ulong(path, &kb))
		goto fail;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/max_segments", dev);
	if (hbi_read_ulong(path, &segs))
		goto fail;
	snprintf(path, sizeof(path), "/sys/block/%s/queue/max_segment_size",
		 dev);
	if (hbi_read_ulong(path, &segsz))
		goto fail;
	return fill_queue_limits(dev, kb, segs, segsz, lim);
fail:
	return hb_seterr(ENOENT, "cannot read %s: is '%s' a block device?",
			 path, dev);
}

int hb_blkdev_queue_limits(const char *dev, bool pt,
			   struct hb_queue_limits *lim)
{
	return pt ? pt_queue_limits(dev, lim) : block_queue_limits(dev, lim);
}
