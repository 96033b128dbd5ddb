// SPDX-License-Identifier: GPL-2.0-only
/*
 * NUMA placement of the buffers.  fio applies numa_mem_policy to the job's
 * thread before the engine allocates, so a binding policy decides where
 * our hugepages come from: under MPOL_BIND hugetlb pages come only from
 * the bound nodes (dequeue_hugetlb_folio_vma() walks the policy's mask).
 * Checked here on every node the machine has:
 *  - bound to node N, a hugetlb buffer's folios are all on N (move_pages
 *    query through hb_analyze) and the report counts them per node;
 *  - the preflight refuses a plan the bound nodes' free pages cannot
 *    cover, with one line naming the node's knob, and a node without a
 *    pool by its number;
 *  - without a policy nothing is refused for the node's sake.
 * On a one-node machine only node 0 is exercised (the qemu harness boots
 * a two-node guest for the rest).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers.h"
#include "job/job.h"

#define MPOL_DEFAULT_	0
#define MPOL_BIND_	2
#define BUF_LEN		(8ULL << 20)

static int set_policy(int mode, int node)
{
	unsigned long mask = node >= 0 ? 1UL << node : 0;

	return syscall(SYS_set_mempolicy, mode, node >= 0 ? &mask : NULL,
		       node >= 0 ? 8 * sizeof(mask) : 0) ? -errno : 0;
}

static int node_count(void)
{
	int n = 0;
	char path[64];

	for (;;) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d",
			 n);
		if (access(path, F_OK))
			return n ? n : 1;
		n++;
	}
}

static int placed_on(int node)
{
	struct hb_buf buf = { .memfd = -1 };
	struct hb_kmodel km;
	struct hb_analysis an;
	struct iovec iov;
	int ret;

	ret = set_policy(MPOL_BIND_, node);
	if (ret)
		return t_fail("set_mempolicy(MPOL_BIND, node %d): %s", node,
			      strerror(-ret));
	ret = t_alloc("hugetlb:2M", BUF_LEN, 0, &buf);
	if (ret)
		goto out;
	iov.iov_base = buf.addr;
	iov.iov_len = BUF_LEN;
	if (hb_kmodel_running(&km) ||
	    hb_analyze(&km, &iov, 1, &buf.backing, 0, 0, 0, &an)) {
		ret = t_fail("analysis: %s", hb_errmsg());
		goto out_buf;
	}
	t_info("bound to node %d: %u folios on %u node(s), %u on node %d",
	       node, an.st.max_folios, an.st.nr_nodes,
	       an.st.node_folios[node], node);
	if (an.st.nr_nodes != 1 || an.st.node_folios[node] != 4)
		ret = t_fail("bound to node %d, the 4 folios are not all there",
			     node);
	else
		ret = t_pass();
	hb_analysis_free(&an);
out_buf:
	hb_free(&buf);
out:
	set_policy(MPOL_DEFAULT_, -1);
	return ret;
}

static int preflight_refuses(void)
{
	struct hbi_numa_policy pol = { .bind = true, .nodes = 1ULL << 0 };
	struct hbi_numa_policy none = { 0 };
	const struct hb_pool *pool;
	struct hb_sysinfo si;
	long free0;
	int ret;

	if (hb_sysinfo_read(&si))
		return t_skip("no 2M pool");
	pool = hbi_sysinfo_pool(&si, 2ULL << 20);
	if (!pool)
		return t_skip("no 2M pool");
	/*
	 * more than node 0 (and so the machine) has free: more than the pool
	 * can ever hold, so that no page another process frees meanwhile
	 * can make the ask fit (the pool is not this test's to count)
	 */
	free0 = pool->nr + pool->overcommit;
	ret = hbi_check_pool_policy(&pol, 2ULL << 20,
				   (uint64_t)(free0 + 1) << 21);
	if (ret != -ENOMEM || !strstr(hb_errmsg(), "/node0/hugepages/"))
		return t_fail("bound to node 0, %ld+1 pages: %d (%s)", free0,
			      ret, hb_errmsg());
	t_pass();
	t_info("%s", hb_errmsg());
	pol.nodes = 1ULL << 63;
	ret = hbi_check_pool_policy(&pol, 2ULL << 20, 2ULL << 20);
	if (ret != -ENOENT || !strstr(hb_errmsg(), "node 63"))
		return t_fail("bound to node 63: %d (%s)", ret, hb_errmsg());
	t_pass();
	t_info("%s", hb_errmsg());
	if (hbi_check_pool_policy(&none, 2ULL << 20, 1ULL << 40))
		return t_fail("no binding policy was refused: %s",
			      hb_errmsg());
	return t_pass();
}

int main(void)
{
	int n, nodes = node_count(), ret;

	ret = t_need_hugepages(2ULL << 20, 4);
	if (ret)
		return t_done(ret);
	for (n = 0; n < nodes && !ret; n++)
		ret = placed_on(n);
	return t_done(t_worst(ret, preflight_refuses()));
}
