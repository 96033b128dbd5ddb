// SPDX-License-Identifier: GPL-2.0-only
/*
 * regcost-probe: the registration cost model against the running kernel,
 * by counts; run in the qemu guests by kernel/ktest.sh.
 *
 * Up to 7.1, io_buffer_account_pin() calls headpage_already_acct() once
 * for every compound head that is not *last_hpage (io_uring/rsrc.c in
 * 6.1 and 6.12); 7.2 calls hpage_acct_ref() instead, once per head not
 * equal to the previous one of the same buffer.  Either call count is
 * hb_model_register_cost()'s heads, over the pages lib's probe saw.  Each
 * case counts the calls (kprobe hits, probe_count_open()) during its
 * registration and prints
 *   REGCOST case=NAME fn=FUNCTION predicted=N counted=N
 * with the model's scan reads beside it.  The cases, on 2 MiB hugetlb:
 *   8m-one       one buffer of 8 MiB: 4 heads;
 *   2m-x4-call   four 2 MiB buffers in one call: 4 heads;
 *   halves-call  the two 1 MiB halves of one hugepage in one call:
 *                last_hpage carries across them, 1 head;
 *   halves-each  the same halves one by one (a sparse table, one update
 *                each): 2 heads, the second found in the table;
 *   8m-one-caplock  8m-one on a ring made with CAP_IPC_LOCK (root's own,
 *                no ctx->user): the same up to 7.1, no walk at all on 7.2.
 * The other cases run on a ring made without CAP_IPC_LOCK
 * (hb_ring_init_charged()), whose registrations are charged.
 * Exit 0 when every count is the model's, 1 on a mismatch or a setup
 * error, 77 when the function cannot be counted here (inlined, or no
 * kprobe events) or there are no hugepages.
 */
#include <sys/resource.h>

#include "probe-util.h"

#define MiB	(1ULL << 20)

struct reg_case {
	const char *name;
	unsigned int nr;	/* buffers */
	uint64_t len;		/* bytes each, back to back */
	bool one_by_one;
	bool cap_ipc_lock;	/* a ring of root's own: no ctx->user */
};

static const struct reg_case cases[] = {
	{ "8m-one", 1, 8 * MiB, false, false },
	{ "2m-x4-call", 4, 2 * MiB, false, false },
	{ "halves-call", 2, 1 * MiB, false, false },
	{ "halves-each", 2, 1 * MiB, true, false },
	{ "8m-one-caplock", 1, 8 * MiB, false, true },
};

#define MAX_BUFS	4

/* the model's cost of @c over the probed pages of @buf */
static int model_case(const struct hb_kmodel *km, const struct reg_case *c,
		      const struct hb_buf *buf, struct hb_reg_cost *cost)
{
	struct hb_reg_buf rb[MAX_BUFS];
	struct hb_probe pr;
	unsigned int i;
	int ret;

	ret = hb_probe(buf->addr, c->nr * c->len, NULL, &pr);
	if (ret)
		return ret;
	for (i = 0; i < c->nr; i++) {
		rb[i].pages = pr.pages + i * (c->len / HB_PAGE_SIZE);
		rb[i].uaddr = (uintptr_t)buf->addr + i * c->len;
		rb[i].len = c->len;
	}
	ret = hb_model_register_cost(km, rb, c->nr,
				     c->one_by_one ? HB_REG_ONE_BY_ONE :
						     HB_REG_ONE_CALL,
				     cost);
	hb_probe_free(&pr);
	return ret;
}

/* register @c's buffers the way it says, on a fresh ring, counting */
static int register_case(const struct reg_case *c, const struct hb_buf *buf,
			 unsigned long *hits)
{
	struct iovec iov[MAX_BUFS];
	struct io_uring ring;
	unsigned int i;
	int ret;
	bool checked;

	for (i = 0; i < c->nr; i++) {
		iov[i].iov_base = (char *)buf->addr + i * c->len;
		iov[i].iov_len = c->len;
	}
	if (c->cap_ipc_lock ? io_uring_queue_init(4, &ring, 0) :
			      hb_ring_init_charged(&ring, 4, &checked)) {
		printf("REGCOST case=%s error=io_uring_queue_init\n", c->name);
		return -EIO;
	}
	ret = c->one_by_one ? hb_register_sparse(&ring, c->nr) : 0;
	probe_count_begin();
	for (i = 0; !ret && c->one_by_one && i < c->nr; i++)
		ret = hb_register_update(&ring, i, &iov[i], 1);
	if (!ret && !c->one_by_one)
		ret = hb_register_buffers(&ring, iov, c->nr);
	if (ret)
		printf("REGCOST case=%s error=%s\n", c->name, hb_errmsg());
	if (probe_count_end(hits) < 0 && !ret) {
		printf("REGCOST case=%s error=the counters cannot be read\n",
		       c->name);
		ret = -EIO;
	}
	/*
	 * un-charged now: the ring's own teardown is deferred, and the next
	 * case's charge must not meet this one's under RLIMIT_MEMLOCK
	 */
	io_uring_unregister_buffers(&ring);
	io_uring_queue_exit(&ring);
	return ret;
}

static bool root_has_ipc_lock(void)
{
	struct hb_sysinfo si;

	return !hb_sysinfo_read(&si) && si.cap_ipc_lock;
}

static int run_case(const struct hb_kmodel *km, const struct reg_case *c,
		    const char *fn)
{
	struct hb_reg_cost cost;
	unsigned long hits = 0;
	struct hb_buf buf;
	uint64_t want;
	int ret;

	if (c->cap_ipc_lock && !root_has_ipc_lock()) {
		printf("REGCOST case=%s skip=not root\n", c->name);
		return 0;
	}
	if (probe_alloc("hugetlb:2M", c->nr * c->len, 0, &buf)) {
		printf("REGCOST case=%s error=alloc:%s\n", c->name,
		       hb_errmsg());
		return 1;
	}
	ret = model_case(km, c, &buf, &cost);
	if (ret)
		printf("REGCOST case=%s error=model:%s\n", c->name,
		       hb_errmsg());
	else
		ret = register_case(c, &buf, &hits);
	hb_free(&buf);
	if (ret)
		return 1;
	/*
	 * km->vmpin_needs_user (7.2+): io_buffer_account_pin() returns before
	 * its walk on a ring without ctx->user, root's own with CAP_IPC_LOCK
	 */
	want = hb_model_vmpin_charged(km, c->cap_ipc_lock) ? cost.heads : 0;
	printf("REGCOST case=%s fn=%s predicted=%llu counted=%lu "
	       "scan_reads=%llu ring_lookups=%llu %s\n", c->name, fn,
	       (unsigned long long)want, hits,
	       (unsigned long long)cost.scan_reads,
	       (unsigned long long)cost.ring_lookups,
	       hits == want ? "ok" : "MISMATCH");
	return hits != want;
}

int main(void)
{
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	const char *fn;
	struct hb_kmodel km;
	unsigned int i;
	int counted = 0, fail = 0;

	if (hb_kmodel_running(&km)) {
		printf("REGCOST skip=no kernel model: %s\n", hb_errmsg());
		return 77;
	}
	if (hb_hugepages_free(PROBE_HPAGE) < 8) {
		printf("REGCOST skip=needs 8 free 2M hugepages\n");
		return 77;
	}
	/* km->acct_per_ring: 7.2's hpage_acct_ref() replaces the scan */
	fn = km.acct_per_ring ? "hpage_acct_ref" : "headpage_already_acct";
	/* it says why on a "REGCOST skip=" line when it counts nothing */
	if (probe_count_open("/sys/kernel/tracing", &fn, 1, &counted,
			     "REGCOST") <= 0) {
		probe_count_close();
		return 77;
	}
	if (probe_count_enable(true)) {
		printf("REGCOST skip=the counters cannot be armed\n");
		probe_count_close();
		return 77;
	}
	/* root may lift its own RLIMIT_MEMLOCK: the charged rings check it */
	if (setrlimit(RLIMIT_MEMLOCK, &unlimited))
		printf("REGCOST note=RLIMIT_MEMLOCK stays: %s\n",
		       strerror(errno));
	printf("REGCOST model=%s fn=%s\n", km.name, fn);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fail |= run_case(&km, &cases[i], fn);
	probe_count_close();
	return fail;
}
