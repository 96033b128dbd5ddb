// SPDX-License-Identifier: GPL-2.0-only
/*
 * Allocate every backing this machine offers, probe it, and check the
 * probe agrees with the allocation recipe: the buffer lies @head_offset
 * bytes into a run of folio-aligned folios of the backing's size.
 *
 * Exact probe (root): every page's (folio, idx, order) must follow from its
 * offset in the mapping, every folio's head PFN must be aligned to the
 * folio size (the buddy allocator hands out naturally aligned blocks), and
 * PFN = head + idx.  Then a child that dropped to an unprivileged user
 * probes again: the degraded answer must say so and must split the buffer
 * into the same folios as the exact one.
 *
 * Each mTHP size is tested alone (as root, t_thp_only()).  A backing the
 * machine does not offer (no 1G pool, mTHP disabled, no libhugetlbfs) is
 * skipped with the reason; the test skips only if none
 * could be tried.  How the probe sees folios: docs/kernel-rules.md §10;
 * docs/regression-matrix.md.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define NOBODY	65534

struct result {
	unsigned int passed, failed, skipped;
};

static uint64_t page_va(const struct hb_probe *p, unsigned int i)
{
	return (p->addr & ~(HB_PAGE_SIZE - 1)) + ((uint64_t)i << HB_PAGE_SHIFT);
}

/* Every page sits where the recipe puts it. */
static int check_recipe_layout(const char *name, const struct hb_buf *buf,
			       const struct hb_probe *p, uint64_t folio)
{
	uint64_t per = folio >> HB_PAGE_SHIFT, map = (uintptr_t)buf->map;
	unsigned int order = __builtin_ctzll(per), i;

	if (p->nr_pages != hb_nr_pages((uintptr_t)buf->addr, buf->len))
		return t_fail("%s: probe saw %u pages, the buffer has %llu",
			      name, p->nr_pages,
			      (unsigned long long)hb_nr_pages(
				      (uintptr_t)buf->addr, buf->len));
	for (i = 0; i < p->nr_pages; i++) {
		uint64_t m = page_va(p, i) - map;
		const struct hb_page *pg = &p->pages[i];

		if (pg->order != order || pg->idx != (m % folio) >> 12)
			return t_fail("%s: page %u (map offset 0x%llx) is idx "
				      "%u order %u, the recipe says idx %llu "
				      "order %u", name, i,
				      (unsigned long long)m, pg->idx,
				      pg->order,
				      (unsigned long long)((m % folio) >> 12),
				      order);
		/* same folio exactly when in the same folio-sized chunk */
		if (i && (pg->folio == p->pages[i - 1].folio) !=
			     ((m / folio) == ((m - HB_PAGE_SIZE) / folio)))
			return t_fail("%s: pages %u and %u are %s folio, the "
				      "recipe says otherwise", name, i - 1, i,
				      pg->folio == p->pages[i - 1].folio ?
				      "in the same" : "in different");
	}
	if (p->min_folio != folio || p->max_folio != folio)
		return t_fail("%s: probe saw folios of %llu..%llu bytes, "
			      "expected %llu", name,
			      (unsigned long long)p->min_folio,
			      (unsigned long long)p->max_folio,
			      (unsigned long long)folio);
	return T_EXIT_PASS;
}

/* Exact mode only: head PFNs aligned, PFN = head + idx. */
static int check_pfns(const char *name, const struct hb_probe *p)
{
	unsigned int i;

	for (i = 0; i < p->nr_pages; i++) {
		const struct hb_page *pg = &p->pages[i];
		uint64_t per = 1ULL << pg->order;

		if (p->pfn[i] != pg->folio + pg->idx)
			return t_fail("%s: page %u PFN 0x%llx is not head "
				      "0x%llx + idx %u", name, i,
				      (unsigned long long)p->pfn[i],
				      (unsigned long long)pg->folio, pg->idx);
		if (pg->folio % per)
			return t_fail("%s: folio head PFN 0x%llx is not aligned "
				      "to its %llu pages", name,
				      (unsigned long long)pg->folio,
				      (unsigned long long)per);
	}
	return T_EXIT_PASS;
}

/* Same partition into folios and the same index of every page. */
static int same_folios(const struct hb_probe *a, const struct hb_probe *b)
{
	unsigned int i;

	if (a->nr_pages != b->nr_pages)
		return 0;
	for (i = 0; i < a->nr_pages; i++) {
		if (a->pages[i].idx != b->pages[i].idx ||
		    a->pages[i].order != b->pages[i].order)
			return 0;
		if (i && (a->pages[i].folio == a->pages[i - 1].folio) !=
			     (b->pages[i].folio == b->pages[i - 1].folio))
			return 0;
	}
	return 1;
}

static void touch_read(const struct hb_buf *buf)
{
	const volatile char *c = buf->map;
	size_t off;

	for (off = 0; off < buf->map_len; off += HB_PAGE_SIZE)
		(void)c[off];
}

/*
 * In a child without privileges: the probe must be degraded, say why, and
 * agree with the exact probe @exact.  mTHP is invisible without PFNs, so
 * there the degraded answer is the recipe and only the flag is checked.
 */
static int check_degraded(const char *name, const struct hb_buf *buf,
			  const struct hb_probe *exact)
{
	struct hb_probe p;
	int status, ret;
	pid_t pid;

	/*
	 * A private hugetlb mapping's reservations stay with the parent
	 * (HPAGE_RESV_OWNER): a page the child must fault in comes from the
	 * pool's free pages or is SIGBUS.  On 6.18 fork now and then leaves
	 * the child's mapping of a 1G page unpopulated (seen with both 1G
	 * pages of the pool in the buffer), so with no free page the child's
	 * probe cannot be run.
	 */
	if (buf->backing.kind == HB_BACKING_HUGETLB &&
	    hb_hugepages_free(buf->backing.folio_size) == 0)
		return t_skip_check("%s: degraded probe not run: a forked child "
				    "of a private hugetlb mapping needs a free "
				    "hugepage of the pool for its faults, and "
				    "none is left",
				    name);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return t_fail("%s: fork: %s", name, strerror(errno));
	if (!pid) {
		if (setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(T_EXIT_SKIP);
		/* a uid change clears "dumpable", which locks /proc/self */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		/* fork does not copy the page tables of shared mappings */
		touch_read(buf);
		if (hb_probe(buf->addr, buf->len, &buf->backing, &p))
			_exit(t_fail("%s: unprivileged probe failed: %s", name,
				     hb_errmsg()));
		if (p.source != HB_PROBE_RECIPE || p.pfn || !p.note[0])
			ret = t_fail("%s: unprivileged probe claims to be "
				     "exact (source %d, note '%s')", name,
				     p.source, p.note);
		else if (buf->backing.kind != HB_BACKING_MTHP &&
			 !same_folios(exact, &p))
			ret = t_fail("%s: degraded probe (%s) splits the buffer "
				     "into other folios than the exact one",
				     name, p.note);
		else
			ret = T_EXIT_PASS;
		hb_probe_free(&p);
		_exit(ret);
	}
	if (waitpid(pid, &status, 0) < 0)
		return t_fail("%s: waitpid: %s", name, strerror(errno));
	if (!WIFEXITED(status))
		return t_fail("%s: the unprivileged probe child died of "
			      "signal %d",
			      name, WIFSIGNALED(status) ? WTERMSIG(status) : -1);
	/* the child's own tally dies with it: count its verdict here */
	switch (WEXITSTATUS(status)) {
	case T_EXIT_SKIP:
		t_info("%s: degraded probe not tested", name);
		return t_skip_check("cannot drop to uid %d for the degraded "
				    "probe",
				    NOBODY);
	case T_EXIT_PASS:
		return t_pass();
	default:
		return T_EXIT_FAIL; /* the child printed the FAIL line */
	}
}

static bool unavailable(int err)
{
	return err == -ENOMEM || err == -ENOENT || err == -EPERM ||
	       err == -ENOTSUP || err == -ENOSPC;
}

static void one_backing(const char *spec, uint64_t head_offset,
			unsigned int nr_folios, struct result *r)
{
	struct hb_backing b;
	struct hb_probe p;
	struct hb_buf buf;
	char name[96];
	size_t len;
	int ret;

	snprintf(name, sizeof(name), "%s +0x%llx", spec,
		 (unsigned long long)head_offset);
	if (hb_backing_parse(spec, &b)) {
		r->failed++;
		t_fail("%s: %s", name, hb_errmsg());
		return;
	}
	len = nr_folios * b.folio_size - head_offset;
	ret = hb_alloc(&b, len, head_offset, &buf);
	if (ret) {
		if (unavailable(ret)) {
			r->skipped++;
			t_skip_check("%s: %s", name, hb_errmsg());
		} else {
			r->failed++;
			t_fail("%s: allocation failed: %s", name, hb_errmsg());
		}
		return;
	}
	if ((b.kind == HB_BACKING_THP || b.kind == HB_BACKING_MTHP) &&
	    !buf.huge_verified) {
		r->skipped++;
		t_skip_check("%s: the kernel gave small pages (fragmented "
			     "memory, or THP disabled)",
			     name);
		hb_free(&buf);
		return;
	}
	if (hb_probe(buf.addr, buf.len, &b, &p)) {
		r->failed++;
		t_fail("%s: probe failed: %s", name, hb_errmsg());
		hb_free(&buf);
		return;
	}
	ret = check_recipe_layout(name, &buf, &p, b.folio_size);
	if (!ret && p.source == HB_PROBE_KPAGEFLAGS) {
		ret = check_pfns(name, &p);
		if (!ret)
			ret = check_degraded(name, &buf, &p);
	}
	if (ret == T_EXIT_PASS) {
		r->passed++;
		t_pass();
		t_info("ok %s: %u pages in %u folios of %llu bytes (%s)", name,
		       p.nr_pages, p.nr_folios,
		       (unsigned long long)p.max_folio, p.note);
	} else {
		r->failed++;
	}
	hb_probe_free(&p);
	hb_free(&buf);
}

/*
 * Folios per buffer: 64 pages for 4k; three folios elsewhere (a head, a
 * middle and a tail), but two for 1 GiB pages (one boundary, 2 GiB: what
 * t/runtests.sh reserves, as a 24 GiB machine gives at run time).
 */
static unsigned int folios_for(const struct hb_backing *b)
{
	if (b->kind == HB_BACKING_4K)
		return 64;
	return b->folio_size >= (1ULL << 30) ? 2 : 3;
}

int main(void)
{
	static const char *const fixed[] = {
		"4k", "thp", "hugetlb:2M", "memfd:2M", "hugetlb:1G",
		"memfd:1G", "libhugetlbfs",
	};
	struct result r = { 0, 0, 0 };
	struct hb_sysinfo si;
	unsigned int i;

	if (hb_sysinfo_read(&si))
		return t_done(t_fail("hb_sysinfo_read: %s", hb_errmsg()));
	if (!si.pagemap_pfn)
		t_info("not root: only the degraded probe is checked");
	for (i = 0; i < T_ARRAY_SIZE(fixed); i++) {
		struct hb_backing b;

		if (hb_backing_parse(fixed[i], &b))
			return t_done(t_fail("%s: %s", fixed[i], hb_errmsg()));
		one_backing(fixed[i], 0, folios_for(&b), &r);
		/* a head offset inside the first folio, not page aligned */
		one_backing(fixed[i], b.folio_size / 2 + 0x234, folios_for(&b),
			    &r);
	}
	for (i = 0; i < si.nr_mthp; i++) {
		char spec[32], sz[16];

		if (si.mthp[i].size == si.thp_pmd_size)
			continue;	/* that is "thp" */
		snprintf(spec, sizeof(spec), "mthp:%s",
			 hb_fmt_size(si.mthp[i].size, sz, sizeof(sz)));
		/* that size alone: a larger enabled one would take the range */
		if (t_thp_only(si.mthp[i].size))
			t_info("%s: could not make it the only THP size", spec);
		one_backing(spec, 0x1234 % si.mthp[i].size, 4, &r);
		t_thp_restore();
	}
	t_info("%u backings agreed with their recipe, %u failed, %u skipped",
	       r.passed, r.failed, r.skipped);
	if (r.failed)
		return t_done(T_EXIT_FAIL);
	if (!r.passed)
		return t_done(t_skip(
			"no backing could be allocated: reserve hugepages "
			"(echo 16 > /proc/sys/vm/nr_hugepages)"));
	return t_done(T_EXIT_PASS);
}
