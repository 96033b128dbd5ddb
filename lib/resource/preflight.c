// SPDX-License-Identifier: GPL-2.0-only
/*
 * Preflight: everything a buffer plan needs, checked before anything is
 * allocated or pinned, so that a shortage is one line naming the knob.
 * The engine, the CLI and the tests all ask here; nothing else in the tree
 * decides whether a pool, THP, mTHP or the memlock limit will do.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "resource/resource.h"


uint64_t hb_map_len(const struct hb_backing *b, uint64_t len,
		    uint64_t head_offset)
{
	return HB_ALIGN_UP(head_offset + len, b->folio_size);
}

/*
 * vm.nr_hugepages sizes the default pool (Hugepagesize in /proc/meminfo);
 * every other size has its own sysfs knob.
 */
void hb_pool_knob(uint64_t page_size, char *path, size_t len)
{
	if (page_size == hb_sys_default_hugepage())
		snprintf(path, len, "/proc/sys/vm/nr_hugepages");
	else
		hb_pool_path(page_size, "nr_hugepages", path, len);
}

/*
 * resv_hugepages can read as a wrapped negative number for a moment while
 * a ring that pinned hugetlb pages is torn down (io_uring frees it from a
 * worker after the process is gone): a value beyond the pool is that, not
 * a reservation.
 */
static unsigned long pool_reserved(const struct hb_pool *p)
{
	return p->resv > p->nr + p->surplus ? 0 : p->resv;
}

/*
 * Pages a new mapping can get: free ones not promised to another mapping
 * (hugetlb_acct_memory() refuses what free - resv cannot cover), plus the
 * surplus pages nr_overcommit_hugepages still allows (gather_surplus_pages
 * may then allocate them from the buddy allocator, which can still fail).
 */
static unsigned long pool_available(const struct hb_pool *p)
{
	unsigned long resv = pool_reserved(p);
	unsigned long avail = p->free > resv ? p->free - resv : 0;

	if (p->overcommit > p->surplus)
		avail += p->overcommit - p->surplus;
	return avail;
}

/*
 * A hugetlb size the kernel does not offer at all (no hugepages-NkB
 * directory: 1G needs the CPU's pdpe1gb and a boot-time pool) is one
 * message, whoever asks.
 */
static int no_such_pool(uint64_t page_size, unsigned long need)
{
	char sz[32], dir[128];

	hb_fmt_size(page_size, sz, sizeof(sz));
	hb_pool_path(page_size, NULL, dir, sizeof(dir));
	return hb_seterr(ENOENT, "%s hugepages are not available on this "
			 "machine (no %s): boot with hugepagesz=%s "
			 "hugepages=%lu, or use 2M hugepages", sz, dir, sz,
			 need);
}

int hb_check_hugepage_size(uint64_t page_size)
{
	char path[128];
	struct stat st;

	hb_pool_path(page_size, NULL, path, sizeof(path));
	return stat(path, &st) ? no_such_pool(page_size, 1) : 0;
}

int hb_check_pool(const struct hb_sysinfo *si, uint64_t page_size,
		  uint64_t map_len)
{
	const struct hb_pool *p = hb_sysinfo_pool(si, page_size);
	unsigned long need = (map_len + page_size - 1) / page_size;
	unsigned long avail;
	char knob[128], sz[32];

	hb_fmt_size(page_size, sz, sizeof(sz));
	hb_pool_knob(page_size, knob, sizeof(knob));
	if (!p)
		return no_such_pool(page_size, need);
	avail = pool_available(p);
	if (avail >= need)
		return 0;
	return hb_seterr(ENOMEM, "need %lu free %s hugepages, %lu available: "
			 "echo %lu > %s%s", need, sz, avail,
			 p->nr + (need - avail), knob,
			 page_size >= (1ULL << 30) ?
			 " (or boot with hugepagesz=1G hugepages=N)" : "");
}

/*
 * PMD THP.  With "always" or "madvise" an aligned MADV_HUGEPAGE range
 * faults in PMD folios; with "never" MADV_COLLAPSE (6.1, 7d8faaf15545)
 * still builds them, because madvise_collapse() checks the VMA without
 * the sysfs mode (seen on 6.18: backing=thp with enabled=never gives
 * verified 2M folios).  Only a kernel without THP, or "never" before 6.1,
 * cannot give any.
 */
int hb_check_thp(const struct hb_sysinfo *si)
{
	if (!strcmp(si->thp_enabled, "unsupported") || !si->thp_pmd_size)
		return hb_seterr(EOPNOTSUPP, "this kernel has no transparent "
				 "hugepages (no %s): use backing=hugetlb, or "
				 "a kernel with CONFIG_TRANSPARENT_HUGEPAGE",
				 HB_THP_DIR);
	if (!strcmp(si->thp_enabled, "never") &&
	    (si->kmajor < 6 || (si->kmajor == 6 && si->kminor < 1)))
		return hb_seterr(EOPNOTSUPP, "THP is disabled and kernel %d.%d "
				 "has no MADV_COLLAPSE: echo madvise > "
				 "%s/enabled", si->kmajor, si->kminor,
				 HB_THP_DIR);
	return 0;
}

/*
 * Multi-size THP (6.8, 19eaf44954df): a size is offered when it has a
 * hugepages-<size>kB directory, and used on an MADV_HUGEPAGE fault when
 * its mode allows it (hb_mthp_usable()).
 */
int hb_check_mthp(const struct hb_sysinfo *si, uint64_t size)
{
	unsigned int i;
	bool listed = false;

	for (i = 0; i < si->nr_mthp; i++)
		listed |= si->mthp[i].size == size;
	if (!listed)
		return hb_seterr(ENOENT, "mTHP size %llukB is not offered by "
				 "this kernel (no %s/hugepages-%llukB; mTHP "
				 "needs Linux 6.8+): pick a size that "
				 "'hugebuf info' lists",
				 (unsigned long long)(size >> 10), HB_THP_DIR,
				 (unsigned long long)(size >> 10));
	if (!hb_mthp_usable(si, size))
		return hb_seterr(EPERM, "mTHP %llukB is disabled: echo madvise "
				 "> %s/hugepages-%llukB/enabled",
				 (unsigned long long)(size >> 10), HB_THP_DIR,
				 (unsigned long long)(size >> 10));
	return 0;
}

/*
 * io_account_mem() charges RLIMIT_MEMLOCK only when the ring was created
 * without CAP_IPC_LOCK (ctx->user is NULL otherwise, io_uring_create()),
 * and an unlimited limit never refuses.  What is charged comes from the
 * accounting model (hb_model_account()).
 */
int hb_check_memlock(const struct hb_sysinfo *si, uint64_t charged_bytes)
{
	if (!hb_model_memlock_checked(si->cap_ipc_lock) ||
	    si->memlock_cur == UINT64_MAX)
		return 0;
	if (charged_bytes <= si->memlock_cur)
		return 0;
	return hb_seterr(ENOMEM, "registering these buffers charges %llu KiB "
			 "to RLIMIT_MEMLOCK (whole hugepages, as the kernel "
			 "counts them), the limit is %llu KiB: raise it with "
			 "'ulimit -l %llu' or run with CAP_IPC_LOCK, or "
			 "register less",
			 (unsigned long long)(charged_bytes >> 10),
			 (unsigned long long)(si->memlock_cur >> 10),
			 (unsigned long long)((charged_bytes >> 10) + 1024));
}

/* The pages one buffer of the plan pins, as the layout lays them out. */
static void plan_pages(const struct hb_backing *b, uint64_t off, uint64_t len,
		       struct hb_page *pages)
{
	uint64_t first = HB_ALIGN_DOWN(off, b->folio_size);

	hb_layout_synth(b->folio_size, off - first, len,
			first / b->folio_size, pages);
}

int hb_plan_charge(const struct hb_kmodel *km, const struct hb_plan *plan,
		   uint64_t *charged_bytes)
{
	unsigned int *nr_pages;
	struct hb_page *pages;
	uint64_t total = 0, at = 0;
	unsigned int i;
	int ret;

	*charged_bytes = 0;
	if (!plan->nr_iov)
		return 0;
	nr_pages = calloc(plan->nr_iov, sizeof(*nr_pages));
	if (!nr_pages)
		return hb_seterr(ENOMEM, "out of memory for the memlock plan");
	for (i = 0; i < plan->nr_iov; i++) {
		nr_pages[i] = hb_nr_pages((uintptr_t)plan->iov[i].iov_base,
					  plan->iov[i].iov_len);
		total += nr_pages[i];
	}
	pages = calloc(total ? total : 1, sizeof(*pages));
	if (!pages) {
		free(nr_pages);
		return hb_seterr(ENOMEM, "out of memory for the memlock plan");
	}
	for (i = 0; i < plan->nr_iov; i++) {
		plan_pages(&plan->backing, (uintptr_t)plan->iov[i].iov_base,
			   plan->iov[i].iov_len, pages + at);
		at += nr_pages[i];
	}
	ret = hb_model_account(km, pages, nr_pages, plan->nr_iov,
			       charged_bytes);
	free(pages);
	free(nr_pages);
	return ret;
}

int hb_preflight_resources(const struct hb_sysinfo *si,
			   const struct hb_plan *plan)
{
	const struct hb_backing *b = &plan->backing;

	if (hb_backing_is_hugetlb(b)) {
		struct hb_numa_policy pol;
		int ret = hb_check_pool(si, b->folio_size, plan->map_len);

		if (ret || hb_numa_policy(&pol))
			return ret;
		return hb_check_pool_policy(&pol, b->folio_size,
					    plan->map_len);
	}
	if (b->kind == HB_BACKING_THP)
		return hb_check_thp(si);
	if (b->kind == HB_BACKING_MTHP)
		return hb_check_mthp(si, b->folio_size);
	return 0;
}

int hb_preflight(const struct hb_sysinfo *si, const struct hb_kmodel *km,
		 const struct hb_plan *plan)
{
	uint64_t charged;
	int ret;

	ret = hb_preflight_resources(si, plan);
	if (ret || !plan->registered)
		return ret;
	ret = hb_plan_charge(km, plan, &charged);
	if (ret)
		return ret;
	return hb_check_memlock(si, charged);
}

/* STATX_DIOALIGN (6.1): the file system's own answer, when it gives one */
static unsigned int statx_dio_align(const char *path)
{
	struct hb_file_limits l;

	if (hb_file_limits(path, &l) || !l.dio_known)
		return 0;
	return l.dio_mem_align > l.dio_offset_align ? l.dio_mem_align :
	       l.dio_offset_align;
}

unsigned int hb_dio_align(const char *path)
{
	unsigned long lbs = 0;
	unsigned int a;
	char dev[64], knob[128];

	if (!path)
		return 512;
	a = statx_dio_align(path);
	if (a >= 512 && HB_IS_POW2(a))
		return a;
	if (hb_blkdev_of_path(path, dev, sizeof(dev)))
		return 512;
	snprintf(knob, sizeof(knob), "/sys/block/%s/queue/logical_block_size",
		 dev);
	if (hb_read_ulong(knob, &lbs) || lbs < 512 || !HB_IS_POW2(lbs))
		return 512;
	return lbs;
}

int hb_check_dio_multiple(const char *what, uint64_t value,
			  unsigned int align)
{
	if (!align || value % align == 0)
		return 0;
	return hb_seterr(EINVAL, "%s=%llu is not a multiple of %u, the "
			 "logical block size direct I/O needs: use a multiple "
			 "of %u, or buffered I/O", what,
			 (unsigned long long)value, align, align);
}
