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
 * case counts the calls (kprobe hits, t_kcount_open()) during its
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
 *
 * regcost-probe -s MIB: the scale of one registration instead, where the
 * scan is long: one buffer of MIB MiB of 2 MiB THP, then of shmem THP
 * (a memfd with shmem_enabled "always", restored after), each touched,
 * probed, and registered in one call on a charged ring:
 *   REGCOST scale backing=B size=N heads=H scan_reads=R ring_lookups=L
 *           register_us=T unregister_us=U vmpin_kb=V predicted_kb=P ok
 * The time is printed, never judged (kernel/ktest.sh puts control's and
 * patched's side by side as a ratio); what is checked is that VmPin grew
 * by the model's charge for the probed pages and came back to where it
 * was.  Exit 0, 1 on a mismatch or a setup error, 77 when there is no THP.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../t/helpers.h"
#include "hugebuf-report.h"

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
	t_kcount_begin();
	for (i = 0; !ret && c->one_by_one && i < c->nr; i++)
		ret = hb_register_update(&ring, i, &iov[i], 1);
	if (!ret && !c->one_by_one)
		ret = hb_register_buffers(&ring, iov, c->nr);
	if (ret)
		printf("REGCOST case=%s error=%s\n", c->name, hb_errmsg());
	if (t_kcount_end(hits) < 0 && !ret) {
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
	if (t_alloc_errno("hugetlb:2M", c->nr * c->len, 0, &buf)) {
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

/* control's probe and the series' helper (io_uring 5/5), by generation */
static const char *acct_fn(const struct hb_kmodel *km)
{
	if (!km->acct_per_ring)
		return "headpage_already_acct";
	/* "6.1+hugebuf": io_hpage_acct_get() of io_uring 5/5 (bugfix/) */
	return km->kmajor == 6 && km->kminor == 1 ? "io_hpage_acct_get" :
						      "hpage_acct_ref";
}

/* one buffer's cost and charge in the model, over its probed pages */
static int scale_model(const struct hb_kmodel *km, const struct hb_buf *buf,
		       uint64_t len, struct hb_reg_cost *cost,
		       uint64_t *charged, uint64_t *max_folio)
{
	struct hb_reg_buf rb;
	struct hb_probe pr;
	unsigned int nr;
	int ret;

	ret = hb_probe(buf->addr, len, NULL, &pr);
	if (ret)
		return ret;
	*max_folio = pr.source == HB_PROBE_KPAGEFLAGS ? pr.max_folio : 0;
	rb.pages = pr.pages;
	rb.uaddr = (uintptr_t)buf->addr;
	rb.len = len;
	nr = pr.nr_pages;
	ret = hb_model_register_cost(km, &rb, 1, HB_REG_ONE_CALL, cost);
	if (!ret)
		ret = hb_model_account(km, pr.pages, &nr, 1, charged);
	hb_probe_free(&pr);
	return ret;
}

/* one registration of [@addr, +@len), touched, on a charged ring */
static int scale_case(const struct hb_kmodel *km, const char *backing,
		      void *addr, uint64_t len)
{
	struct hb_buf buf = { .addr = addr };
	struct iovec iov = { addr, len };
	struct io_uring ring;
	struct hb_reg_cost cost;
	uint64_t charged = 0, max_folio = 0;
	long v0, v1, v2;
	double t0, t1, t2;
	bool checked, ok;
	int ret;

	ret = scale_model(km, &buf, len, &cost, &charged, &max_folio);
	if (ret) {
		printf("REGCOST scale backing=%s error=model:%s\n", backing,
		       hb_errmsg());
		return 1;
	}
	/* the model follows the pages seen, but no THP means no scan */
	if (max_folio < T_SZ_2M) {
		printf("REGCOST scale backing=%s skip=no THP in the buffer "
		       "(largest folio %llu bytes, ShmemHugePages %ld kB, "
		       "AnonHugePages %ld kB)\n", backing,
		       (unsigned long long)max_folio,
		       hb_proc_kb("/proc/meminfo", "ShmemHugePages"),
		       hb_proc_kb("/proc/meminfo", "AnonHugePages"));
		return 77;
	}
	if (hb_ring_init_charged(&ring, 4, &checked)) {
		printf("REGCOST scale backing=%s error=ring:%s\n", backing,
		       hb_errmsg());
		return 1;
	}
	v0 = hb_vmpin_kb();
	t0 = t_now_usec();
	ret = hb_register_buffers(&ring, &iov, 1);
	t1 = t_now_usec();
	v1 = hb_vmpin_kb();
	if (!ret)
		io_uring_unregister_buffers(&ring);
	t2 = t_now_usec();
	v2 = hb_vmpin_kb();
	io_uring_queue_exit(&ring);
	if (ret) {
		printf("REGCOST scale backing=%s error=register:%s\n",
		       backing, hb_errmsg());
		return 1;
	}
	ok = (uint64_t)(v1 - v0) == charged / 1024 && v2 == v0;
	printf("REGCOST scale backing=%s size=%llu heads=%llu scan_reads=%llu "
	       "ring_lookups=%llu register_us=%.0f unregister_us=%.0f "
	       "vmpin_kb=%ld vmpin_left_kb=%ld predicted_kb=%llu %s\n",
	       backing, (unsigned long long)len,
	       (unsigned long long)cost.heads,
	       (unsigned long long)cost.scan_reads,
	       (unsigned long long)cost.ring_lookups, t1 - t0, t2 - t1,
	       v1 - v0, v2 - v0, (unsigned long long)(charged / 1024),
	       ok ? "ok" : "MISMATCH");
	return !ok;
}

static int scale_thp(const struct hb_kmodel *km, uint64_t len)
{
	struct hb_buf buf;
	int ret;

	if (t_alloc_errno("thp", len, 0, &buf)) {
		printf("REGCOST scale backing=thp error=alloc:%s\n",
		       hb_errmsg());
		return 1;
	}
	memset(buf.addr, 0x5a, len);
	ret = scale_case(km, "thp", buf.addr, len);
	hb_free(&buf);
	return ret;
}

/*
 * shmem THP: a memfd (no MFD_HUGETLB) mapped shared at a 2 MiB aligned
 * address, its huge folios from shmem_enabled "always" (the caller's);
 * lib's backings keep shmem at 4 KiB pages on purpose, so it is mapped
 * here
 */
static int scale_shmem(const struct hb_kmodel *km, uint64_t len)
{
	size_t span = len + T_SZ_2M;
	char *res, *map;
	int fd, ret;

	fd = memfd_create("regcost-shmem", MFD_CLOEXEC);
	if (fd < 0 || ftruncate(fd, (off_t)len)) {
		printf("REGCOST scale backing=shmem error=memfd:%s\n",
		       strerror(errno));
		if (fd >= 0)
			close(fd);
		return 1;
	}
	res = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (res == MAP_FAILED) {
		close(fd);
		return 1;
	}
	map = (char *)(((uintptr_t)res + T_SZ_2M - 1) & ~(T_SZ_2M - 1));
	if (mmap(map, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
		 0) == MAP_FAILED) {
		printf("REGCOST scale backing=shmem error=mmap:%s\n",
		       strerror(errno));
		munmap(res, span);
		close(fd);
		return 1;
	}
	madvise(map, len, MADV_HUGEPAGE);
	memset(map, 0x5a, len);
	ret = scale_case(km, "shmem", map, len);
	munmap(res, span);
	close(fd);
	return ret;
}

static const char SHMEM_ENABLED[] =
	"/sys/kernel/mm/transparent_hugepage/shmem_enabled";

static int scale_main(const struct hb_kmodel *km, uint64_t len)
{
	char was[32];
	int a, b;

	printf("REGCOST scale model=%s\n", km->name);
	a = scale_thp(km, len);
	if (hb_read_bracketed(SHMEM_ENABLED, was, sizeof(was)) ||
	    t_knob_write(SHMEM_ENABLED, "always", 0)) {
		printf("REGCOST scale backing=shmem skip=no shmem THP (%s)\n",
		       SHMEM_ENABLED);
		b = 77;
	} else {
		b = scale_shmem(km, len);
		t_knob_write(SHMEM_ENABLED, was, 0);
	}
	if (a == 1 || b == 1)
		return 1;
	return a == 77 && b == 77 ? 77 : 0;
}

int main(int argc, char **argv)
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
	/* root may lift its own RLIMIT_MEMLOCK: the charged rings check it */
	if (setrlimit(RLIMIT_MEMLOCK, &unlimited))
		printf("REGCOST note=RLIMIT_MEMLOCK stays: %s\n",
		       strerror(errno));
	if (argc == 3 && !strcmp(argv[1], "-s") && atoi(argv[2]) > 0)
		return scale_main(&km, (uint64_t)atoi(argv[2]) * MiB);
	if (argc != 1) {
		fprintf(stderr, "usage: %s [-s MIB]\n", argv[0]);
		return 2;
	}
	if (hb_hugepages_free(T_SZ_2M) < 8) {
		printf("REGCOST skip=needs 8 free 2M hugepages\n");
		return 77;
	}
	fn = acct_fn(&km);
	/* it says why on a "REGCOST skip=" line when it counts nothing */
	if (t_kcount_open("/sys/kernel/tracing", &fn, 1, &counted,
			  "REGCOST") <= 0) {
		t_kcount_close();
		return 77;
	}
	if (t_kcount_enable(true)) {
		printf("REGCOST skip=the counters cannot be armed\n");
		t_kcount_close();
		return 77;
	}
	printf("REGCOST model=%s fn=%s\n", km.name, fn);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fail |= run_case(&km, &cases[i], fn);
	t_kcount_close();
	return fail;
}
