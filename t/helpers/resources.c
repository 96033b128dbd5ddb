// SPDX-License-Identifier: GPL-2.0-only
/*
 * Resources a test watches or needs: hugepages to allocate with, the
 * VmPin / HugePages_Free baselines, address-space reservations for
 * hand-made layouts, and DMA pins as fork sees them.
 * See t/helpers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers-priv.h"
#include "job/job.h"
#include "sysread/sysread.h"

/* ------------------------------------------------------------------ */
/* allocation                                                           */
/* ------------------------------------------------------------------ */

int t_need_hugepages(uint64_t page_size, unsigned long nr)
{
	long nfree = hb_hugepages_free(page_size);
	char sz[16];

	hb_fmt_size(page_size, sz, sizeof(sz));
	if (nfree < 0)
		return t_skip("no %s hugetlb pool on this machine (needs %lu "
			      "free %s pages)",
			      sz, nr, sz);
	if ((unsigned long)nfree < nr)
		return t_skip("needs %lu free %s hugepages, the pool has %ld: "
			      "raise /sys/kernel/mm/hugepages/hugepages-"
			      "%llukB/nr_hugepages",
			      nr, sz, nfree,
			      (unsigned long long)(page_size >> 10));
	return T_EXIT_PASS;
}

/*
 * A pool grown for one case.  Lowering nr_hugepages frees only free pages
 * (set_max_huge_pages(), mm/hugetlb.c, 5.10 to 7.x: pages in use become
 * surplus and go when they are freed), so giving the pool back never
 * takes a page from another process.
 */
static struct {
	bool saved;
	uint64_t page_size;
	unsigned long nr; /* nr_hugepages before the case grew it */
} t_pool_saved;

void t_pool_restore(void)
{
	char path[128], val[24];

	if (!t_pool_saved.saved)
		return;
	hbi_pool_path(t_pool_saved.page_size, "nr_hugepages", path,
		      sizeof(path));
	snprintf(val, sizeof(val), "%lu", t_pool_saved.nr);
	t_knob_write(path, val, 0);
	t_pool_saved.saved = false;
}

static void pool_restore_and_die(int sig)
{
	t_pool_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* nr_hugepages raised by @more, once more after compaction if short */
static void pool_grow(const char *path, unsigned long nr, unsigned long more,
		      uint64_t page_size, unsigned long want)
{
	char val[24];

	snprintf(val, sizeof(val), "%lu", nr + more);
	t_knob_write(path, val, 0);
	if (t_settle_hp_free(page_size, (long)want) >= (long)want)
		return;
	/* fragmented memory: compact once and try again */
	t_knob_write("/proc/sys/vm/compact_memory", "1", 0);
	t_knob_write(path, val, 0);
}

int t_pool_need(uint64_t page_size, unsigned long nr)
{
	static bool hooked;
	long nfree = t_settle_hp_free(page_size, (long)nr);
	unsigned long have, more;
	char path[128];

	if (nfree < 0 || (unsigned long)nfree >= nr || geteuid() != 0 ||
	    t_pool_saved.saved)
		return t_need_hugepages(page_size, nr);
	hbi_pool_path(page_size, "nr_hugepages", path, sizeof(path));
	if (hbi_read_ulong(path, &have))
		return t_need_hugepages(page_size, nr);
	if (!hooked) {
		atexit(t_pool_restore);
		signal(SIGINT, pool_restore_and_die);
		signal(SIGTERM, pool_restore_and_die);
		hooked = true;
	}
	t_pool_saved.page_size = page_size;
	t_pool_saved.nr = have;
	t_pool_saved.saved = true;
	more = nr - (unsigned long)nfree;
	pool_grow(path, have, more, page_size, nr);
	nfree = t_settle_hp_free(page_size, (long)nr);
	t_info("%llu kB hugetlb pool: nr_hugepages %lu -> %lu, %ld free (put "
	       "back by t_pool_restore())",
	       (unsigned long long)(page_size >> 10), have, have + more, nfree);
	if (nfree >= 0 && (unsigned long)nfree >= nr)
		return T_EXIT_PASS;
	return t_need_hugepages(page_size, nr);
}

/*
 * hb_backing_parse(@backing) + hb_alloc(): 0 or -errno, lib's message in
 * hb_errmsg(); *@parsed says whether @backing was understood.
 */
static int alloc_backing(const char *backing, size_t len, size_t head_offset,
			 struct hb_buf *buf, bool *parsed)
{
	struct hb_backing b;
	int ret;

	memset(buf, 0, sizeof(*buf));
	buf->memfd = -1;
	*parsed = false;
	ret = hb_backing_parse(backing, &b);
	if (ret)
		return ret;
	*parsed = true;
	return hb_alloc(&b, len, head_offset, buf);
}

int t_alloc(const char *backing, size_t len, size_t head_offset,
	    struct hb_buf *buf)
{
	bool parsed;

	if (!alloc_backing(backing, len, head_offset, buf, &parsed))
		return T_EXIT_PASS;
	if (!parsed)
		return t_fail("test bug: backing '%s': %s", backing,
			      hb_errmsg());
	return t_skip("cannot allocate %zu bytes of %s: %s", len, backing,
		      hb_errmsg());
}

int t_alloc_errno(const char *backing, size_t len, size_t head_offset,
		  struct hb_buf *buf)
{
	bool parsed;
	int ret = alloc_backing(backing, len, head_offset, buf, &parsed);

	if (ret)
		fprintf(stderr, "%s: %s\n", backing, hb_errmsg());
	return ret;
}

int t_alloc_thp(size_t len, size_t head_offset, struct hb_buf *buf,
		const char *what)
{
	int ret = t_alloc("thp", len, head_offset, buf);

	if (ret || buf->huge_verified)
		return ret;
	hb_free(buf);
	return t_skip("%s: no PMD THP could be had (THP disabled or memory "
		      "fragmented): set "
		      "/sys/kernel/mm/transparent_hugepage/enabled to madvise",
		      what);
}

bool t_thp_backed(const void *addr, size_t len)
{
	struct hb_probe p;
	bool ok;

	if (hb_probe(addr, len, NULL, &p))
		return false;
	ok = p.source == HB_PROBE_KPAGEFLAGS && p.min_folio >= T_SZ_2M;
	hb_probe_free(&p);
	return ok;
}

/* ------------------------------------------------------------------ */
/* hand-made layouts                                                    */
/* ------------------------------------------------------------------ */

int t_resv_take(struct t_resv *r, uint64_t before, uint64_t len, uint64_t align)
{
	uintptr_t at;

	/* @align of slack: the aligned spot is at most that far in */
	r->len = before + align + len;
	r->base = mmap(NULL, r->len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->base == MAP_FAILED) {
		r->base = NULL;
		r->at = NULL;
		return t_fail("reserving %llu KiB of address space: %s",
			      (unsigned long long)(r->len >> 10),
			      strerror(errno));
	}
	at = ((uintptr_t)r->base + before + align - 1) &
	     ~(uintptr_t)(align - 1);
	r->at = (char *)at;
	return T_EXIT_PASS;
}

void t_resv_release(struct t_resv *r)
{
	if (r->base)
		munmap(r->base, r->len);
	r->base = NULL;
	r->at = NULL;
}

int t_map_hugetlb_at(char *at, int fill, const char *what)
{
	if (mmap(at, T_SZ_2M, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_FIXED, -1,
		 0) == MAP_FAILED)
		return t_skip("%s: no 2 MiB hugetlb page: %s", what,
			      strerror(errno));
	memset(at, fill, T_SZ_2M);
	return T_EXIT_PASS;
}

/* ------------------------------------------------------------------ */
/* resource baselines                                                   */
/* ------------------------------------------------------------------ */

int t_baseline_take(struct t_baseline *b, uint64_t hp_size)
{
	b->vmpin_kb = hb_vmpin_kb();
	if (b->vmpin_kb < 0)
		return t_skip("VmPin is not in /proc/self/status: %s",
			      hb_errmsg());
	b->hp_size = hp_size;
	b->hp_free = hp_size ? hb_hugepages_free(hp_size) : 0;
	if (b->hp_free < 0)
		b->hp_size = 0;
	return T_EXIT_PASS;
}

int t_baseline_need(struct t_baseline *b, uint64_t hp_size, unsigned long nr)
{
	int ret = t_need_hugepages(hp_size, nr);

	return ret ? ret : t_baseline_take(b, hp_size);
}

/*
 * Ring teardown runs in a workqueue (io_ring_exit_work), so buffers a ring
 * still held when it was closed are unpinned and unaccounted a little
 * later: both counters go through the settle rule (settle.h) before
 * anything is called a leak.  The pool is the machine's: a leak can only
 * leave fewer pages free than the baseline, while another process giving
 * pages back leaves more, which is not ours to judge.
 */
int t_baseline_check(const struct t_baseline *b, const char *when)
{
	long vmpin, hp_free;
	char msg[160];

	vmpin = t_settle_vmpin(b->vmpin_kb);
	hp_free = b->hp_size ? t_settle_hp_free(b->hp_size, b->hp_free) : 0;
	if (vmpin != b->vmpin_kb) {
		snprintf(msg, sizeof(msg), "VmPin (kB) %s: pins leaked", when);
		return t_fail_val(msg, b->vmpin_kb, vmpin);
	}
	if (hp_free < b->hp_free) {
		snprintf(msg, sizeof(msg),
			 "free hugepages %s: pages leaked "
			 "(or another process uses the pool)",
			 when);
		return t_fail_val(msg, b->hp_free, hp_free);
	}
	return t_pass();
}

/*
 * Whether the running kernel charges this process's rings to VmPin at all
 * (hb_model_vmpin_charged(): not with CAP_IPC_LOCK on 7.x)
 */
bool t_vmpin_charged(void)
{
	static struct hb_kmodel km;
	static int have = -1;
	struct hb_sysinfo si;

	/* the kernel's rule once; the capability each time (tests fork) */
	if (have < 0)
		have = !hb_kmodel_running(&km);
	if (!have || hb_sysinfo_read(&si))
		return true;
	return hb_model_vmpin_charged(&km, si.cap_ipc_lock);
}

int t_vmpin_expect(long base_kb, long delta_kb, const char *when)
{
	char msg[160];
	long v;

	if (!t_vmpin_charged())
		delta_kb = 0;
	v = t_settle_vmpin(base_kb + delta_kb);

	if (v == base_kb + delta_kb)
		return t_pass();
	snprintf(msg, sizeof(msg), "VmPin (kB) %s", when);
	return t_fail_val(msg, base_kb + delta_kb, v);
}

/* ------------------------------------------------------------------ */
/* pins, seen through fork                                              */
/* ------------------------------------------------------------------ */

int t_anon_pinned(const void *addr)
{
	uint64_t mine = hbi_pfn_of(addr), child = 0;
	int pfd[2], status;
	pid_t pid;

	if (!mine)
		return -EPERM;
	if (pipe(pfd))
		return -errno;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return -errno;
	}
	if (!pid) {
		uint64_t v = hbi_pfn_of(addr);

		_exit(write(pfd[1], &v, 8) == 8 ? 0 : 1);
	}
	close(pfd[1]);
	if (read(pfd[0], &child, 8) != 8)
		child = 0;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (!child)
		return -EIO;
	return child != mine;
}

int t_expect_pinned(const void *addr, bool want, const char *what)
{
	int r = t_anon_pinned(addr);

	if (r < 0) {
		t_info("%s: pin state not checked", what);
		return t_skip_check("pin state: reading PFNs needs root");
	}
	if (r != want)
		return t_fail("%s: the page at %p is %s (fork %s it; expected "
			      "it %s)",
			      what, addr, r ? "still DMA-pinned" : "not pinned",
			      r ? "copied" : "shared",
			      want ? "pinned" : "unpinned");
	return t_pass();
}

/* ------------------------------------------------------------------ */
/* knobs                                                                */
/* ------------------------------------------------------------------ */

int t_knob_write(const char *path, const char *val, int flags)
{
	ssize_t len = (ssize_t)strlen(val), n;
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags), ret;

	if (fd < 0)
		return -errno;
	n = write(fd, val, len);
	ret = n == len ? 0 : n < 0 ? -errno : -EIO;
	close(fd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* THP sizes                                                            */
/* ------------------------------------------------------------------ */

/*
 * Multi-size THP (6.8, 19eaf44954df): each size has its own mode in
 * hugepages-<size>kB/enabled, and an MADV_HUGEPAGE fault takes the largest
 * enabled size that fits the aligned range (alloc_anon_folio(),
 * thp_vma_allowable_orders()).  So a case that tests one size enables that
 * size alone; the saved modes go back when the case is over, at exit and on
 * SIGINT/SIGTERM.
 */
#define T_THP_MAX 16
#define T_THP_DIR "/sys/kernel/mm/transparent_hugepage"

static struct {
	unsigned int nr;
	char path[T_THP_MAX][96];
	char mode[T_THP_MAX][16];
} t_thp_saved;

void t_thp_restore(void)
{
	unsigned int i;

	for (i = 0; i < t_thp_saved.nr; i++)
		t_knob_write(t_thp_saved.path[i], t_thp_saved.mode[i], 0);
	t_thp_saved.nr = 0;
}

static void thp_restore_and_die(int sig)
{
	t_thp_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* save @path's mode @now and set it to @mode */
static int thp_mode_set(const char *path, const char *now, const char *mode)
{
	unsigned int n = t_thp_saved.nr;

	if (!strcmp(now, mode))
		return 0;
	if (n == T_THP_MAX)
		return -1;
	snprintf(t_thp_saved.path[n], sizeof(t_thp_saved.path[n]), "%s", path);
	snprintf(t_thp_saved.mode[n], sizeof(t_thp_saved.mode[n]), "%s", now);
	if (t_knob_write(path, mode, 0))
		return -1;
	t_thp_saved.nr++;
	return 0;
}

int t_thp_only(uint64_t size)
{
	static bool hooked;
	char path[96];
	struct hb_sysinfo si;
	unsigned int i;
	int ret = 0;

	if (geteuid() != 0)
		return 0;
	if (!hooked) {
		atexit(t_thp_restore);
		signal(SIGINT, thp_restore_and_die);
		signal(SIGTERM, thp_restore_and_die);
		hooked = true;
	}
	if (hb_sysinfo_read(&si))
		return -1;
	for (i = 0; i < si.nr_mthp; i++) {
		snprintf(path, sizeof(path), "%s/hugepages-%llukB/enabled",
			 T_THP_DIR,
			 (unsigned long long)(si.mthp[i].size >> 10));
		/* lib's reader gives the mode (hb_sysinfo_read()) */
		ret |= thp_mode_set(path, si.mthp[i].enabled,
				    si.mthp[i].size == size ? "madvise" :
							      "never");
	}
	if (ret) {
		t_thp_restore();
		return -1;
	}
	return 0;
}

int t_read_pfns(const void *addr, uint64_t nr, uint64_t *pfn)
{
	off_t off = (off_t)((uintptr_t)addr / T_SZ_4K) * sizeof(*pfn);
	size_t want = nr * sizeof(*pfn);
	uint64_t i;
	ssize_t got;
	int fd;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	got = pread(fd, pfn, want, off);
	close(fd);
	if (got != (ssize_t)want)
		return got < 0 ? -errno : -EIO;
	/* Documentation/admin-guide/mm/pagemap.rst: bit 63 present, 0-54 */
	for (i = 0; i < nr; i++)
		pfn[i] = pfn[i] >> 63 ? pfn[i] & ((1ULL << 55) - 1) : 0;
	return 0;
}
