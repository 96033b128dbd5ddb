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
void hbi_pool_path(uint64_t page_size, const char *file, char *path,
		  size_t len);
/*
 * The PMD size (hpage_pmd_size): a THP's folio size.  2 MiB where the
 * kernel has no THP directory, x86-64's PMD_SIZE.
 */
uint64_t hbi_sys_pmd_size(void);
/* Hugepagesize of /proc/meminfo: the default hugetlb size, 0 if none. */
uint64_t hbi_sys_default_hugepage(void);
/* CAP_IPC_LOCK in CapEff: RLIMIT_MEMLOCK is then not checked. */
bool hbi_sys_cap_ipc_lock(void);

/* ------------------------------------------------------------------ */
/* system information                                                   */
/* ------------------------------------------------------------------ */

/* The pool of @page_size, or NULL. */
const struct hb_pool *hbi_sysinfo_pool(const struct hb_sysinfo *si,
				      uint64_t page_size);

/* ------------------------------------------------------------------ */
/* readers: /proc (sysinfo.c) and block devices in /sys (blkdev.c)   */
/* ------------------------------------------------------------------ */

/* SUnreclaim + VmallocUsed in KiB, or -errno. */
long hbi_kernel_mem_kb(void);


/* ------------------------------------------------------------------ */
/* NUMA: where the folios are, and what a binding policy can have      */
/* ------------------------------------------------------------------ */

/* The calling thread's memory policy (get_mempolicy). */
struct hbi_numa_policy {
	bool bind;		/* MPOL_BIND: pages only from @nodes */
	uint64_t nodes;		/* bit n = node n */
};

int hbi_numa_policy(struct hbi_numa_policy *p);
/*
 * Under MPOL_BIND the bound nodes' free hugepages must cover @map_len;
 * the message names the node and its knob.  0 for other policies.
 */
int hbi_check_pool_policy(const struct hbi_numa_policy *pol, uint64_t page_size,
			 uint64_t map_len);
/*
 * The node of every folio the probe saw (move_pages without moving):
 * @folios_per_node has HB_MAX_NODES counters, *@nr_nodes nodes were seen.
 */
int hbi_numa_nodes(const struct hb_probe *p, uint32_t *folios_per_node,
		  unsigned int *nr_nodes);
/*
 * The same in two steps, for the folios of many probes in one query:
 * @p's folio addresses into @addrs (room for p->nr_folios), their count
 * returned; then the node of each of @n addresses.
 */
unsigned int hbi_numa_folio_addrs(const struct hb_probe *p, void **addrs);
int hbi_numa_count(void **addrs, unsigned int n, uint32_t *folios_per_node,
		  unsigned int *nr_nodes);

/* ------------------------------------------------------------------ */
/* file limits: direct and atomic I/O (statx)                           */
/* ------------------------------------------------------------------ */


/* ------------------------------------------------------------------ */
/* pagemap: the one decoder of /proc/self/pagemap entries               */
/* ------------------------------------------------------------------ */

bool hbi_pagemap_present(uint64_t entry);
/* PFN of the page holding @addr, 0 when unknown. */
uint64_t hbi_pfn_of(const void *addr);

#endif /* HB_SYSREAD_H */
