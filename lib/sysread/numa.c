// SPDX-License-Identifier: GPL-2.0-only
/*
 * NUMA placement of the buffers: which node each folio landed on, the
 * calling thread's memory policy (fio sets numa_mem_policy on the job's
 * thread before the engine allocates, so our mappings follow it), and
 * whether the nodes a policy binds to have the hugepages a plan needs.
 * Plain system calls (move_pages, get_mempolicy): no libnuma needed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sysread/sysread.h"

#define HB_NODE_DIR	"/sys/devices/system/node"
/* include/uapi/linux/mempolicy.h */
#define HB_MPOL_BIND	2

int hb_numa_policy(struct hb_numa_policy *p)
{
	unsigned long mask[HB_MAX_NODES / (8 * sizeof(unsigned long)) + 1];
	int mode = 0;
	unsigned int n;

	memset(p, 0, sizeof(*p));
	memset(mask, 0, sizeof(mask));
	if (syscall(SYS_get_mempolicy, &mode, mask,
		    (unsigned long)(8 * sizeof(mask)), NULL, 0UL))
		return hb_seterr(errno, "get_mempolicy failed: %s",
				 strerror(errno));
	p->bind = (mode & 0xffff) == HB_MPOL_BIND;
	for (n = 0; n < HB_MAX_NODES; n++)
		if (mask[n / (8 * sizeof(long))] &
		    (1UL << (n % (8 * sizeof(long)))))
			p->nodes |= 1ULL << n;
	return 0;
}

static int node_value(unsigned int node, uint64_t page_size, const char *what,
		      unsigned long *v)
{
	char path[160];

	snprintf(path, sizeof(path), HB_NODE_DIR "/node%u/hugepages/"
		 "hugepages-%llukB/%s", node,
		 (unsigned long long)(page_size >> 10), what);
	return hb_read_ulong(path, v);
}

/*
 * Under MPOL_BIND hugetlb pages come only from the bound nodes
 * (dequeue_hugetlb_folio_vma() walks the policy's nodemask, and
 * hugetlb_acct_memory() refuses a reservation the allowed nodes cannot
 * cover), so their free pages must cover the plan; other policies fall
 * back to any node and are left to hb_check_pool().
 */
int hb_check_pool_policy(const struct hb_numa_policy *pol, uint64_t page_size,
			 uint64_t map_len)
{
	unsigned long need = (map_len + page_size - 1) / page_size;
	unsigned long have = 0, v, nr = 0;
	unsigned int n, last = 0;
	char sz[32];

	if (!pol->bind)
		return 0;
	hb_fmt_size(page_size, sz, sizeof(sz));
	for (n = 0; n < HB_MAX_NODES; n++) {
		if (!(pol->nodes & (1ULL << n)))
			continue;
		last = n;
		if (node_value(n, page_size, "free_hugepages", &v))
			return hb_seterr(ENOENT, "the memory policy binds to "
					 "node %u, which has no %s hugepage "
					 "pool (%s/node%u): bind to a node "
					 "that 'numactl -H' lists", n, sz,
					 HB_NODE_DIR, n);
		have += v;
		if (!node_value(n, page_size, "nr_hugepages", &v))
			nr = v;
	}
	if (have >= need)
		return 0;
	return hb_seterr(ENOMEM, "the memory policy binds to node(s) with %lu "
			 "free %s hugepages, %lu needed: echo %lu > "
			 "%s/node%u/hugepages/hugepages-%llukB/nr_hugepages",
			 have, sz, need, nr + need - have, HB_NODE_DIR, last,
			 (unsigned long long)(page_size >> 10));
}

unsigned int hb_numa_folio_addrs(const struct hb_probe *p, void **addrs)
{
	uint64_t start = p->addr & ~(HB_PAGE_SIZE - 1);
	unsigned int i, n = 0;

	/* one address per folio: where the run of one folio id starts */
	for (i = 0; i < p->nr_pages && n < p->nr_folios; i++)
		if (!i || p->pages[i].folio != p->pages[i - 1].folio)
			addrs[n++] = (void *)(uintptr_t)(start +
					((uint64_t)i << HB_PAGE_SHIFT));
	return n;
}

int hb_numa_count(void **addrs, unsigned int n, uint32_t *folios_per_node,
		  unsigned int *nr_nodes)
{
	unsigned int i, k;
	int *status;
	int ret = 0;

	memset(folios_per_node, 0, HB_MAX_NODES * sizeof(*folios_per_node));
	*nr_nodes = 0;
	status = calloc(n ? n : 1, sizeof(*status));
	if (!status)
		return hb_seterr(ENOMEM, "out of memory for %u folios", n);
	if (syscall(SYS_move_pages, 0, (unsigned long)n, addrs, NULL, status,
		    0)) {
		ret = hb_seterr(errno, "move_pages (node query) failed: %s",
				strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (status[i] < 0 || status[i] >= HB_MAX_NODES)
			continue;
		k = status[i];
		if (!folios_per_node[k])
			(*nr_nodes)++;
		folios_per_node[k]++;
	}
out:
	free(status);
	return ret;
}

int hb_numa_nodes(const struct hb_probe *p, uint32_t *folios_per_node,
		  unsigned int *nr_nodes)
{
	void **addrs;
	int ret;

	memset(folios_per_node, 0, HB_MAX_NODES * sizeof(*folios_per_node));
	*nr_nodes = 0;
	addrs = calloc(p->nr_folios ? p->nr_folios : 1, sizeof(*addrs));
	if (!addrs)
		return hb_seterr(ENOMEM, "out of memory for %u folios",
				 p->nr_folios);
	ret = hb_numa_count(addrs, hb_numa_folio_addrs(p, addrs),
			    folios_per_node, nr_nodes);
	free(addrs);
	return ret;
}
