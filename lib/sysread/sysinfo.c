// SPDX-License-Identifier: GPL-2.0-only
/*
 * What the running system offers for hugepage-backed fixed buffers:
 * kernel release, hugetlb pools, THP and mTHP settings, memlock limit and
 * capability, and whether the folio probe can read PFNs; and the /proc
 * counters the measurements read (VmPin, kernel memory, a pool's free
 * pages).  Block devices are lib/sysread/blkdev.c's.
 *
 * The bottom layer of lib/: it reads /proc and /sys and calls nothing
 * above it.  Which coalescing generation runs is not a fact read here but
 * an experiment (lib/job/kdetect.c, hb_kmodel_running()) on top of the
 * allocator, which reads its facts from here.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "sysread/sysread.h"

/* CAP_IPC_LOCK from linux/capability.h */
#define HB_CAP_IPC_LOCK		14

static int parse_release(const char *rel, int *maj, int *min, int *patch)
{
	*maj = *min = *patch = 0;
	if (sscanf(rel, "%d.%d.%d", maj, min, patch) < 2)
		return -EINVAL;
	return 0;
}

/* internal.h: the word in brackets of "always [madvise] never" */
int hb_read_bracketed(const char *path, char *out, size_t len)
{
	char buf[256], *open, *close;
	int ret;

	ret = hb_read_file(path, buf, sizeof(buf));
	if (ret)
		return ret;
	open = strchr(buf, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!open || !close || (size_t)(close - open - 1) >= len)
		return -EINVAL;
	memcpy(out, open + 1, close - open - 1);
	out[close - open - 1] = '\0';
	return 0;
}

/* "hugepages-2048kB" -> 2 MiB */
static int dirent_kb_size(const char *name, uint64_t *bytes)
{
	unsigned long long kb;
	char tail[8];

	if (sscanf(name, "hugepages-%llu%7s", &kb, tail) != 2 ||
	    strcmp(tail, "kB") || !kb)
		return -EINVAL;
	*bytes = (uint64_t)kb << 10;
	return 0;
}

void hb_pool_path(uint64_t page_size, const char *file, char *path,
		  size_t len)
{
	snprintf(path, len, HB_HUGEPAGES_DIR "/hugepages-%llukB%s%s",
		 (unsigned long long)(page_size >> 10), file ? "/" : "",
		 file ? file : "");
}

static unsigned long pool_value(uint64_t page_size, const char *what)
{
	char path[128];
	unsigned long v = 0;

	hb_pool_path(page_size, what, path, sizeof(path));
	if (hb_read_ulong(path, &v))
		return 0;
	return v;
}

static void sort_pools(struct hb_sysinfo *si)
{
	unsigned int i, j;

	for (i = 1; i < si->nr_pools; i++)
		for (j = i; j > 0 && si->pools[j - 1].page_size >
				      si->pools[j].page_size; j--) {
			struct hb_pool t = si->pools[j];

			si->pools[j] = si->pools[j - 1];
			si->pools[j - 1] = t;
		}
}

static void read_pools(struct hb_sysinfo *si)
{
	struct dirent *de;
	DIR *d;

	d = opendir(HB_HUGEPAGES_DIR);
	if (!d)
		return;
	while ((de = readdir(d)) && si->nr_pools < HB_MAX_POOLS) {
		struct hb_pool *p = &si->pools[si->nr_pools];

		if (dirent_kb_size(de->d_name, &p->page_size))
			continue;
		p->nr = pool_value(p->page_size, "nr_hugepages");
		p->free = pool_value(p->page_size, "free_hugepages");
		p->resv = pool_value(p->page_size, "resv_hugepages");
		p->surplus = pool_value(p->page_size, "surplus_hugepages");
		p->overcommit = pool_value(p->page_size,
					   "nr_overcommit_hugepages");
		si->nr_pools++;
	}
	closedir(d);
	sort_pools(si);
}

static void sort_mthp(struct hb_sysinfo *si)
{
	unsigned int i, j;

	for (i = 1; i < si->nr_mthp; i++)
		for (j = i; j > 0 && si->mthp[j - 1].size > si->mthp[j].size;
		     j--) {
			struct hb_mthp t = si->mthp[j];

			si->mthp[j] = si->mthp[j - 1];
			si->mthp[j - 1] = t;
		}
}

/*
 * Anonymous mTHP sizes (6.8+): hugepages-<N>kB/enabled under the THP
 * directory.  Sizes without an "enabled" file (shmem-only 8 kB) are not
 * anonymous mTHP sizes and are skipped.
 */
static void read_mthp(struct hb_sysinfo *si)
{
	struct dirent *de;
	DIR *d;

	d = opendir(HB_THP_DIR);
	if (!d)
		return;
	while ((de = readdir(d)) && si->nr_mthp < HB_MAX_MTHP) {
		struct hb_mthp *m = &si->mthp[si->nr_mthp];
		char path[300];

		if (dirent_kb_size(de->d_name, &m->size))
			continue;
		snprintf(path, sizeof(path), HB_THP_DIR "/%s/enabled",
			 de->d_name);
		if (hb_read_bracketed(path, m->enabled, sizeof(m->enabled)))
			continue;
		si->nr_mthp++;
	}
	closedir(d);
	sort_mthp(si);
}

uint64_t hb_sys_pmd_size(void)
{
	unsigned long v;

	if (!hb_read_ulong(HB_THP_DIR "/hpage_pmd_size", &v) && v)
		return v;
	return 2ULL << 20;
}

uint64_t hb_sys_default_hugepage(void)
{
	long kb = hb_proc_kb("/proc/meminfo", "Hugepagesize");

	return kb > 0 ? (uint64_t)kb << 10 : 0;
}

static void read_thp(struct hb_sysinfo *si)
{
	if (hb_read_bracketed(HB_THP_DIR "/enabled", si->thp_enabled,
			      sizeof(si->thp_enabled)))
		strcpy(si->thp_enabled, "unsupported");
	si->thp_pmd_size = hb_sys_pmd_size();
	read_mthp(si);
}

bool hb_sys_cap_ipc_lock(void)
{
	char buf[HB_PROC_FILE_MAX];
	const char *v;

	if (hb_read_file("/proc/self/status", buf, sizeof(buf)))
		return false;
	v = hb_proc_value(buf, "CapEff");
	return v && (strtoull(v, NULL, 16) & (1ULL << HB_CAP_IPC_LOCK));
}

static uint64_t rlim_bytes(rlim_t v)
{
	return v == RLIM_INFINITY ? UINT64_MAX : (uint64_t)v;
}

/*
 * pagemap zeroes the PFN field unless the reader has CAP_SYS_ADMIN
 * (fs/proc/task_mmu.c, since 4.2).  Read the entry of a page we own and
 * have just written.
 */
static bool pagemap_pfn_readable(void)
{
	static volatile uint64_t probe_word;

	probe_word = 1;
	return hb_pfn_of((const void *)&probe_word) != 0;
}

static bool kpageflags_readable(void)
{
	uint64_t flags;
	int fd;
	bool ok;

	fd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ok = pread(fd, &flags, sizeof(flags), 0) == sizeof(flags);
	close(fd);
	return ok;
}

int hb_sysinfo_read(struct hb_sysinfo *si)
{
	struct utsname u;
	struct rlimit rl;

	memset(si, 0, sizeof(*si));
	if (uname(&u))
		return hb_seterr(errno, "uname failed: %s", strerror(errno));
	snprintf(si->release, sizeof(si->release), "%s", u.release);
	parse_release(u.release, &si->kmajor, &si->kminor, &si->kpatch);

	read_pools(si);
	si->default_hugepage = hb_sys_default_hugepage();
	read_thp(si);

	if (!getrlimit(RLIMIT_MEMLOCK, &rl)) {
		si->memlock_cur = rlim_bytes(rl.rlim_cur);
		si->memlock_max = rlim_bytes(rl.rlim_max);
	}
	si->cap_ipc_lock = hb_sys_cap_ipc_lock();
	si->pagemap_pfn = pagemap_pfn_readable();
	si->kpageflags = kpageflags_readable();
	return 0;
}

const struct hb_pool *hb_sysinfo_pool(const struct hb_sysinfo *si,
				      uint64_t page_size)
{
	unsigned int i;

	for (i = 0; i < si->nr_pools; i++)
		if (si->pools[i].page_size == page_size)
			return &si->pools[i];
	return NULL;
}

static const struct hb_mthp *find_mthp(const struct hb_sysinfo *si,
				       uint64_t size)
{
	unsigned int i;

	for (i = 0; i < si->nr_mthp; i++)
		if (si->mthp[i].size == size)
			return &si->mthp[i];
	return NULL;
}

/*
 * An mTHP size is used on an MADV_HUGEPAGE fault when its per-size knob is
 * "always" or "madvise", or "inherit" while the global THP mode is not
 * "never" (Documentation/admin-guide/mm/transhuge.rst).
 */
bool hb_mthp_usable(const struct hb_sysinfo *si, uint64_t size)
{
	const struct hb_mthp *m = find_mthp(si, size);

	if (!m)
		return false;
	if (!strcmp(m->enabled, "always") || !strcmp(m->enabled, "madvise"))
		return true;
	if (!strcmp(m->enabled, "inherit"))
		return !strcmp(si->thp_enabled, "always") ||
		       !strcmp(si->thp_enabled, "madvise");
	return false;
}

/* ---- /proc counters of this process and of the kernel ---- */

long hb_vmpin_kb(void)
{
	long v = hb_proc_kb("/proc/self/status", "VmPin");

	if (v < 0)
		return hb_seterr(-v, "no VmPin in /proc/self/status: %s",
				 strerror(-v));
	return v;
}

long hb_kernel_mem_kb(void)
{
	char buf[HB_PROC_FILE_MAX];
	const char *su = NULL, *vm = NULL;

	/* both fields from one read: one snapshot of the counters */
	if (!hb_read_file("/proc/meminfo", buf, sizeof(buf))) {
		su = hb_proc_value(buf, "SUnreclaim");
		vm = hb_proc_value(buf, "VmallocUsed");
	}
	if (!su || !vm)
		return hb_seterr(ENOENT, "/proc/meminfo lacks SUnreclaim or "
				 "VmallocUsed: is /proc mounted?");
	return strtol(su, NULL, 10) + strtol(vm, NULL, 10);
}

long hb_hugepages_free(uint64_t page_size)
{
	char path[128];
	unsigned long v;
	int ret;

	hb_pool_path(page_size, "free_hugepages", path, sizeof(path));
	ret = hb_read_ulong(path, &v);
	if (ret)
		return hb_seterr(ret, "no %llukB hugepage pool on this machine "
				 "(%s missing)",
				 (unsigned long long)(page_size >> 10), path);
	return (long)v;
}
