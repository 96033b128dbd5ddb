// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a file (or block device) allows for direct and atomic I/O, from
 * statx(2): the direct I/O alignments (STATX_DIOALIGN, 6.1) and the
 * atomic write unit and segment limits (STATX_WRITE_ATOMIC, 6.11; block
 * devices 6.11, ext4 and xfs files 6.13).  The struct is written from the
 * uapi layout, since Debian 12's headers stop before these fields.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sysread/sysread.h"

#define HB_STATX_DIOALIGN	0x00002000U
#define HB_STATX_WRITE_ATOMIC	0x00010000U

struct hb_statx_ts {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t pad;
};

/* include/uapi/linux/stat.h struct statx, 256 bytes */
struct hb_statx {
	uint32_t mask, blksize;
	uint64_t attributes;
	uint32_t nlink, uid, gid;
	uint16_t mode, spare0;
	uint64_t ino, size, blocks, attributes_mask;
	struct hb_statx_ts atime, btime, ctime, mtime;
	uint32_t rdev_major, rdev_minor, dev_major, dev_minor;
	uint64_t mnt_id;
	uint32_t dio_mem_align, dio_offset_align;
	uint64_t subvol;
	uint32_t atomic_unit_min, atomic_unit_max, atomic_segments_max;
	uint32_t dio_read_offset_align, atomic_unit_max_opt, spare2;
	uint64_t spare3[8];
};

_Static_assert(sizeof(struct hb_statx) == 256, "struct statx is 256 bytes");

int hb_file_limits(const char *path, struct hb_file_limits *l)
{
	struct hb_statx stx;

	memset(l, 0, sizeof(*l));
	memset(&stx, 0, sizeof(stx));
	if (syscall(SYS_statx, AT_FDCWD, path, 0,
		    HB_STATX_DIOALIGN | HB_STATX_WRITE_ATOMIC, &stx))
		return hb_seterr(errno, "statx of '%s' failed: %s", path,
				 strerror(errno));
	if (stx.mask & HB_STATX_DIOALIGN) {
		l->dio_known = true;
		l->dio_mem_align = stx.dio_mem_align;
		l->dio_offset_align = stx.dio_offset_align;
	}
	if ((stx.mask & HB_STATX_WRITE_ATOMIC) && stx.atomic_unit_min) {
		l->atomic = true;
		l->atomic_unit_min = stx.atomic_unit_min;
		l->atomic_unit_max = stx.atomic_unit_max;
		l->atomic_segments_max = stx.atomic_segments_max;
	}
	return 0;
}

/*
 * RWF_ATOMIC (6.11, c34fc6f26ab8): one write of a power-of-two length
 * between the unit limits, at a file offset aligned to its length, in no
 * more iovecs than the segment limit.
 */
int hb_check_atomic_write(const struct hb_file_limits *l, uint64_t len,
			  uint64_t file_off, unsigned int nr_segs)
{
	if (!l->atomic)
		return hb_seterr(EOPNOTSUPP, "the file has no atomic write "
				 "support (statx STATX_WRITE_ATOMIC: a block "
				 "device on 6.11+, or ext4/xfs formatted for "
				 "it on 6.13+)");
	if (!HB_IS_POW2(len) || len < l->atomic_unit_min ||
	    len > l->atomic_unit_max)
		return hb_seterr(EINVAL, "an atomic write of %llu bytes: the "
				 "file takes powers of two from %u to %u "
				 "bytes", (unsigned long long)len,
				 l->atomic_unit_min, l->atomic_unit_max);
	if (file_off % len)
		return hb_seterr(EINVAL, "an atomic write at offset %llu is "
				 "not aligned to its length %llu",
				 (unsigned long long)file_off,
				 (unsigned long long)len);
	if (l->atomic_segments_max && nr_segs > l->atomic_segments_max)
		return hb_seterr(EINVAL, "an atomic write in %u segments: the "
				 "file takes at most %u",
				 nr_segs, l->atomic_segments_max);
	return 0;
}
