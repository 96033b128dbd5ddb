// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/resource/preflight.c: the one set of rules that decides whether
 * a buffer plan can have its pages, its THP/mTHP folios and its memlock
 * charge.  System state comes in as a struct hb_sysinfo built here, so
 * every rule is checked without touching the machine:
 *  - the hugetlb pool counts free - resv, plus what nr_overcommit_hugepages
 *    still allows (gather_surplus_pages), and ignores a wrapped resv;
 *  - a shortage names the knob of that size (vm.nr_hugepages for the
 *    default size, sysfs otherwise) and the value to write;
 *  - THP "never" still gives PMD folios through MADV_COLLAPSE (6.1,
 *    7d8faaf15545);
 *  - an mTHP size the kernel does not list (mTHP: 6.8, 19eaf44954df) is
 *    "not offered", a listed but disabled one names its enabled knob;
 *  - RLIMIT_MEMLOCK is not checked with CAP_IPC_LOCK (io_account_mem);
 *  - direct I/O multiples.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define MB2	(2ULL << 20)

static void sys_2m_pool(struct hb_sysinfo *si, unsigned long nr,
			unsigned long free, unsigned long resv,
			unsigned long over, unsigned long surplus)
{
	memset(si, 0, sizeof(*si));
	si->kmajor = 6;
	si->kminor = 18;
	si->default_hugepage = MB2;
	si->nr_pools = 1;
	si->pools[0].page_size = MB2;
	si->pools[0].nr = nr;
	si->pools[0].free = free;
	si->pools[0].resv = resv;
	si->pools[0].overcommit = over;
	si->pools[0].surplus = surplus;
	strcpy(si->thp_enabled, "madvise");
	si->thp_pmd_size = MB2;
	si->memlock_cur = 8ULL << 20;
	si->memlock_max = 8ULL << 20;
}

static int expect(const char *what, int got, int want, const char *msg_part)
{
	if ((got == 0) != (want == 0) || (want && got != want))
		return t_fail("%s: returned %d, expected %d (%s)", what, got,
			      want, hb_errmsg());
	if (msg_part && !strstr(hb_errmsg(), msg_part))
		return t_fail("%s: message '%s' lacks '%s'", what, hb_errmsg(),
			      msg_part);
	t_info("%s: %d%s%s", what, got, got ? ": " : "",
	       got ? hb_errmsg() : "");
	return T_EXIT_PASS;
}

static int test_pool(void)
{
	struct hb_sysinfo si;
	int ret = 0;

	sys_2m_pool(&si, 10, 10, 0, 0, 0);
	ret |= expect("10 free, need 10", hb_check_pool(&si, MB2, 10 * MB2),
		      0, NULL);
	ret |= expect("10 free, need 11", hb_check_pool(&si, MB2, 11 * MB2),
		      -ENOMEM, "echo 11 > ");
	sys_2m_pool(&si, 10, 10, 4, 0, 0);
	ret |= expect("4 of 10 reserved, need 7",
		      hb_check_pool(&si, MB2, 7 * MB2), -ENOMEM,
		      "6 available");
	/* an empty pool with overcommit: hugebuf check and fio agree */
	sys_2m_pool(&si, 0, 0, 0, 64, 0);
	ret |= expect("empty pool, overcommit 64, need 8",
		      hb_check_pool(&si, MB2, 8 * MB2), 0, NULL);
	sys_2m_pool(&si, 0, 0, 0, 64, 60);
	ret |= expect("overcommit 64 with 60 surplus, need 8",
		      hb_check_pool(&si, MB2, 8 * MB2), -ENOMEM,
		      "4 available");
	/* resv read while a ring is torn down: wrapped, not a reservation */
	sys_2m_pool(&si, 10, 10, (unsigned long)-3, 0, 0);
	ret |= expect("wrapped resv", hb_check_pool(&si, MB2, 10 * MB2), 0,
		      NULL);
	ret |= expect("no 1G pool", hb_check_pool(&si, 1ULL << 30, 1ULL << 30),
		      -ENOENT, "hugepagesz=1G");
	ret |= expect("partial folio rounds up",
		      hb_check_pool(&si, MB2, 10 * MB2 + 1), -ENOMEM,
		      "need 11");
	return ret ? T_EXIT_FAIL : T_EXIT_PASS;
}

static int test_knob(void)
{
	char path[128];
	long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %ld kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	if (kb <= 0) {
		return t_skip_check("pool knob: no Hugepagesize in "
				    "/proc/meminfo");
	}
	hb_pool_knob((uint64_t)kb << 10, path, sizeof(path));
	if (strcmp(path, "/proc/sys/vm/nr_hugepages"))
		return t_fail("default size knob is %s", path);
	hb_pool_knob(((uint64_t)kb << 10) * 512, path, sizeof(path));
	if (!strstr(path, "/sys/kernel/mm/hugepages/hugepages-"))
		return t_fail("other size knob is %s", path);
	return T_EXIT_PASS;
}

static int test_thp(void)
{
	struct hb_sysinfo si;
	int ret = 0;

	sys_2m_pool(&si, 0, 0, 0, 0, 0);
	strcpy(si.thp_enabled, "never");
	ret |= expect("THP never on 6.18 (MADV_COLLAPSE)", hb_check_thp(&si),
		      0, NULL);
	si.kminor = 0;
	ret |= expect("THP never on 6.0", hb_check_thp(&si), -EOPNOTSUPP,
		      "echo madvise");
	strcpy(si.thp_enabled, "unsupported");
	si.thp_pmd_size = 0;
	ret |= expect("no THP", hb_check_thp(&si), -EOPNOTSUPP,
		      "CONFIG_TRANSPARENT_HUGEPAGE");
	return ret ? T_EXIT_FAIL : T_EXIT_PASS;
}

static int test_mthp(void)
{
	struct hb_sysinfo si;
	int ret = 0;

	sys_2m_pool(&si, 0, 0, 0, 0, 0);
	si.nr_mthp = 2;
	si.mthp[0].size = 64 << 10;
	strcpy(si.mthp[0].enabled, "never");
	si.mthp[1].size = 128 << 10;
	strcpy(si.mthp[1].enabled, "inherit");
	ret |= expect("64K listed, never", hb_check_mthp(&si, 64 << 10),
		      -EPERM, "hugepages-64kB/enabled");
	ret |= expect("128K inherit, THP madvise",
		      hb_check_mthp(&si, 128 << 10), 0, NULL);
	ret |= expect("32K not listed", hb_check_mthp(&si, 32 << 10), -ENOENT,
		      "not offered");
	strcpy(si.thp_enabled, "never");
	ret |= expect("128K inherit, THP never",
		      hb_check_mthp(&si, 128 << 10), -EPERM, "echo madvise");
	return ret ? T_EXIT_FAIL : T_EXIT_PASS;
}

static int test_memlock(void)
{
	struct hb_sysinfo si;
	int ret = 0;

	sys_2m_pool(&si, 0, 0, 0, 0, 0);
	ret |= expect("8M charge, 8M limit", hb_check_memlock(&si, 8 << 20),
		      0, NULL);
	ret |= expect("10M charge, 8M limit",
		      hb_check_memlock(&si, 10 << 20), -ENOMEM, "ulimit -l");
	si.cap_ipc_lock = true;
	ret |= expect("10M charge, CAP_IPC_LOCK",
		      hb_check_memlock(&si, 10 << 20), 0, NULL);
	si.cap_ipc_lock = false;
	si.memlock_cur = UINT64_MAX;
	ret |= expect("unlimited", hb_check_memlock(&si, 1ULL << 40), 0, NULL);
	return ret ? T_EXIT_FAIL : T_EXIT_PASS;
}

/* A 4 MiB plan charges what the accounting model says for its pages. */
static int test_plan_charge(void)
{
	struct hb_backing b4k = { .kind = HB_BACKING_4K, .folio_size = 4096 };
	struct hb_backing b2m = { .kind = HB_BACKING_HUGETLB, .folio_size = MB2 };
	struct iovec iov[2] = {
		{ .iov_base = (void *)0, .iov_len = MB2 },
		{ .iov_base = (void *)MB2, .iov_len = MB2 },
	};
	struct hb_plan plan = { .iov = iov, .nr_iov = 2, .registered = true };
	struct hb_kmodel km;
	uint64_t c4k = 0, c2m = 0;

	hb_kmodel_parse("6.18", &km);
	plan.backing = b4k;
	plan.map_len = 2 * MB2;
	if (hb_plan_charge(&km, &plan, &c4k))
		return t_fail("plan charge (4k): %s", hb_errmsg());
	plan.backing = b2m;
	if (hb_plan_charge(&km, &plan, &c2m))
		return t_fail("plan charge (2M): %s", hb_errmsg());
	t_info("4 MiB in two buffers: 4k charges %llu, hugetlb:2M %llu",
	       (unsigned long long)c4k, (unsigned long long)c2m);
	if (c4k != 2 * MB2)
		return t_fail_val("4k charge", 2 * MB2, c4k);
	if (c2m != 2 * MB2)
		return t_fail_val("2M charge", 2 * MB2, c2m);
	return T_EXIT_PASS;
}

static int test_dio(void)
{
	int ret = 0;

	ret |= expect("4096 of 512", hb_check_dio_multiple("head_offset",
							   4096, 512), 0, NULL);
	ret |= expect("0x1234 of 512", hb_check_dio_multiple("head_offset",
							     0x1234, 512),
		      -EINVAL, "head_offset=4660 is not a multiple of 512");
	ret |= expect("512 of 4096", hb_check_dio_multiple("chunk_size", 512,
							   4096), -EINVAL,
		      "of 4096");
	if (hb_dio_align("/nonexistent/dir/file") != 512)
		return t_fail("hb_dio_align of a missing path is not 512");
	return ret ? T_EXIT_FAIL : T_EXIT_PASS;
}

int main(void)
{
	int ret = T_EXIT_PASS;

	ret = t_worst(ret, t_sub(test_pool()));
	ret = t_worst(ret, t_sub(test_knob()));
	ret = t_worst(ret, t_sub(test_thp()));
	ret = t_worst(ret, t_sub(test_mthp()));
	ret = t_worst(ret, t_sub(test_memlock()));
	ret = t_worst(ret, t_sub(test_plan_charge()));
	ret = t_worst(ret, t_sub(test_dio()));
	return t_done(ret);
}
