/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/sysread/, layer 1: the readers of /proc and /sys (sysinfo.c,
 * blkdev.c, pagemap.c, filelimits.c, numa.c).  Private: includes only
 * lib/base/ and the public headers.
 */
#ifndef HB_SYSREAD_H
#define HB_SYSREAD_H

#include "base/base.h"

/*
 * sysinfo.c reads each system fact for every file of lib/: nothing
 * else opens these directories or parses these fields.
 */
#define HB_HUGEPAGES_DIR	"/sys/kernel/mm/hugepages"
#define HB_THP_DIR		"/sys/kernel/mm/transparent_hugepage"
/* The pool directory of @page_size, or its file @file (NULL: the dir). */
void hb_pool_path(uint64_t page_size, const char *file, char *path,
		  size_t len);
/*
 * The PMD size (hpage_pmd_size): a THP's folio size.  2 MiB where the
 * kernel has no THP directory, x86-64's PMD_SIZE.
 */
uint64_t hb_sys_pmd_size(void);
/* The bracketed word of a sysfs choice file: "always [madvise] never". */
int hb_read_bracketed(const char *path, char *out, size_t len);
/* Hugepagesize of /proc/meminfo: the default hugetlb size, 0 if none. */
uint64_t hb_sys_default_hugepage(void);
/* CAP_IPC_LOCK in CapEff: RLIMIT_MEMLOCK is then not checked. */
bool hb_sys_cap_ipc_lock(void);

/* ------------------------------------------------------------------ */
/* system information                                                   */
/* ------------------------------------------------------------------ */

#define HB_MAX_POOLS	8

#define HB_MAX_MTHP	16

struct hb_pool {
	uint64_t page_size;
	unsigned long nr, free, resv, surplus;
	unsigned long overcommit;	/* nr_overcommit_hugepages */
};

struct hb_mthp {
	uint64_t size;
	char enabled[16];	/* always, inherit, madvise, never */
};

struct hb_sysinfo {
	char release[65];
	int kmajor, kminor, kpatch;
	unsigned int nr_pools;
	struct hb_pool pools[HB_MAX_POOLS];
	uint64_t default_hugepage;	/* Hugepagesize from /proc/meminfo */
	char thp_enabled[16];		/* always, madvise, never */
	uint64_t thp_pmd_size;
	unsigned int nr_mthp;
	struct hb_mthp mthp[HB_MAX_MTHP];
	uint64_t memlock_cur, memlock_max;	/* RLIM_INFINITY = UINT64_MAX */
	bool cap_ipc_lock;
	bool pagemap_pfn;	/* PFNs readable from /proc/self/pagemap */
	bool kpageflags;	/* /proc/kpageflags readable */
};

/*
 * Read what the system offers (the bottom layer: /proc and /sys only).
 * The kernel's coalescing model is not a fact read here: ask
 * hb_kmodel_running() for it.
 */
int hb_sysinfo_read(struct hb_sysinfo *si);
/* The pool of @page_size, or NULL. */
const struct hb_pool *hb_sysinfo_pool(const struct hb_sysinfo *si,
				      uint64_t page_size);
/* Whether an mTHP size can be had with MADV_HUGEPAGE right now. */
bool hb_mthp_usable(const struct hb_sysinfo *si, uint64_t size);

/* ------------------------------------------------------------------ */
/* readers: /proc (sysinfo.c) and block devices in /sys (blkdev.c)   */
/* ------------------------------------------------------------------ */

/* VmPin of this process in KiB, or -errno. */
long hb_vmpin_kb(void);
/* SUnreclaim + VmallocUsed in KiB, or -errno. */
long hb_kernel_mem_kb(void);
/* Free pages in the pool of @page_size, or -errno. */
long hb_hugepages_free(uint64_t page_size);
/*
 * The whole-disk block device (e.g. "vda") under the file system holding
 * @path (or its directory, when @path does not exist yet), for
 * /sys/block/<dev>/stat.
 */
int hb_blkdev_of_path(const char *path, char *dev, size_t len);
/* Reads completed (field 1) / writes completed (field 5) of @dev. */
int hb_blkdev_ios(const char *dev, uint64_t *reads, uint64_t *writes);
/*
 * hb_blkdev_ios() once both counters have stood still: a request is
 * counted after the CQE of its I/O can be seen (lib/sysread/blkdev.c).
 */
int hb_blkdev_ios_settled(const char *dev, uint64_t *reads, uint64_t *writes);
/* max_sectors_kb (as bytes), max_segments, max_segment_size of @dev. */
int hb_blkdev_queue_limits(const char *dev, uint64_t *max_bytes,
			   unsigned int *max_segs, uint64_t *max_seg_size);
/*
 * Not pure: the passthrough limits of @blkdev (e.g. "nvme0n1") from
 * /sys/block/<dev>/queue/: max_hw_sectors_kb (required), max_segments,
 * max_segment_size, virt_boundary_mask, dma_alignment.  A missing optional
 * attribute takes the kernel's default (128, 65536, 0, 511).  The segment
 * boundary is not in sysfs: 0xffffffff, the default (NVMe keeps it), is
 * assumed; dma_pad_mask neither: 0 (NVMe sets none).
 */
int hb_pt_queue_limits(const char *blkdev, struct hb_queue_limits *lim);
/*
 * The block device of an NVMe generic char device: /dev/ngXnY (or a link
 * to it) -> "nvmeXnY", whose /sys/block/<dev>/queue has the namespace's
 * limits.  -EINVAL when the name is not ngXnY.
 */
int hb_nvme_ng_blkdev(const char *path, char *blkdev, size_t len);
/*
 * Not pure: the limits one I/O path of NVMe namespace @blkdev is held to,
 * for hb_model_iommu_io(): hb_pt_queue_limits(), whose max_hw_bytes a
 * passthrough request keeps (never split), and for the block path
 * (@pt false) max_sectors_kb in its place, where a bio is split.
 */
int hb_nvme_path_limits(const char *blkdev, bool pt,
			struct hb_queue_limits *lim);


/* ------------------------------------------------------------------ */
/* NUMA: where the folios are, and what a binding policy can have      */
/* ------------------------------------------------------------------ */

/* The calling thread's memory policy (get_mempolicy). */
struct hb_numa_policy {
	bool bind;		/* MPOL_BIND: pages only from @nodes */
	uint64_t nodes;		/* bit n = node n */
};

int hb_numa_policy(struct hb_numa_policy *p);
/*
 * Under MPOL_BIND the bound nodes' free hugepages must cover @map_len;
 * the message names the node and its knob.  0 for other policies.
 */
int hb_check_pool_policy(const struct hb_numa_policy *pol, uint64_t page_size,
			 uint64_t map_len);
/*
 * The node of every folio the probe saw (move_pages without moving):
 * @folios_per_node has HB_MAX_NODES counters, *@nr_nodes nodes were seen.
 */
int hb_numa_nodes(const struct hb_probe *p, uint32_t *folios_per_node,
		  unsigned int *nr_nodes);
/*
 * The same in two steps, for the folios of many probes in one query:
 * @p's folio addresses into @addrs (room for p->nr_folios), their count
 * returned; then the node of each of @n addresses.
 */
unsigned int hb_numa_folio_addrs(const struct hb_probe *p, void **addrs);
int hb_numa_count(void **addrs, unsigned int n, uint32_t *folios_per_node,
		  unsigned int *nr_nodes);

/* ------------------------------------------------------------------ */
/* file limits: direct and atomic I/O (statx)                           */
/* ------------------------------------------------------------------ */

struct hb_file_limits {
	bool dio_known;			/* STATX_DIOALIGN answered (6.1+) */
	unsigned int dio_mem_align;	/* buffer address alignment */
	unsigned int dio_offset_align;	/* file offset / length alignment */
	bool atomic;			/* RWF_ATOMIC writes possible */
	unsigned int atomic_unit_min, atomic_unit_max;
	unsigned int atomic_segments_max;
};

int hb_file_limits(const char *path, struct hb_file_limits *l);
/* Whether one RWF_ATOMIC write of @len at @file_off in @nr_segs fits. */
int hb_check_atomic_write(const struct hb_file_limits *l, uint64_t len,
			  uint64_t file_off, unsigned int nr_segs);

/* ------------------------------------------------------------------ */
/* pagemap: the one decoder of /proc/self/pagemap entries               */
/* ------------------------------------------------------------------ */

/* Open /proc/self/pagemap (O_CLOEXEC); fd or -errno with a message. */
int hb_pagemap_open(void);
/* Read the raw entries of @nr pages from @vaddr (page aligned down). */
int hb_pagemap_read(int fd, uint64_t vaddr, unsigned int nr, uint64_t *ent);
bool hb_pagemap_present(uint64_t entry);
/* The PFN of a present entry; 0 when absent or hidden (no CAP_SYS_ADMIN) */
uint64_t hb_pagemap_pfn(uint64_t entry);
/* PFN of the page holding @addr, 0 when unknown. */
uint64_t hb_pfn_of(const void *addr);

#endif /* HB_SYSREAD_H */
