// SPDX-License-Identifier: GPL-2.0-only
/*
 * The real folio layout of a buffer.
 *
 * Exact (root): /proc/self/pagemap gives each page's PFN, /proc/kpageflags
 * tells head, tail and plain pages apart.  A folio of order N is a
 * compound page: one COMPOUND_HEAD PFN followed by 2^N - 1 COMPOUND_TAIL
 * PFNs (Documentation/admin-guide/mm/pagemap.rst), so walking back from a
 * tail finds the head and counting the tails gives the order.
 *
 * Degraded (no CAP_SYS_ADMIN): the PFN field reads as 0 and kpageflags
 * cannot be opened.  The answer then comes from smaps (KernelPageSize of
 * hugetlb VMAs), PAGEMAP_SCAN's PAGE_IS_HUGE (PMD-mapped THP, 6.7+) and the
 * allocation recipe, with folio ids synthesized as address / folio size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "resource/resource.h"

/* include/uapi/linux/kernel-page-flags.h */
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_HUGE		17
#define KPF_THP			22

/* The largest folio we walk: 16 GiB (arm64 hugetlb) in 4 KiB pages */
#define HB_MAX_FOLIO_PAGES	(1UL << 22)
/* Entries per pread of pagemap or kpageflags */
#define HB_BATCH		4096

/* PAGEMAP_SCAN (6.7, include/uapi/linux/fs.h); Debian 12 headers lack it */
#ifndef PAGEMAP_SCAN
struct page_region {
	uint64_t start, end, categories;
};

struct pm_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask;
	uint64_t return_mask;
};

#define PAGEMAP_SCAN		_IOWR('f', 16, struct pm_scan_arg)
#define PAGE_IS_HUGE		(1ULL << 6)
#endif

struct kpf_reader {
	int fd;
	uint64_t base;		/* first PFN in buf */
	unsigned int nr;	/* valid entries in buf */
	uint64_t buf[HB_BATCH];
};

static int kpf_get(struct kpf_reader *r, uint64_t pfn, uint64_t *flags)
{
	ssize_t n;

	if (r->nr && pfn >= r->base && pfn < r->base + r->nr) {
		*flags = r->buf[pfn - r->base];
		return 0;
	}
	/* centre the window so walks in either direction hit the cache */
	r->base = pfn > HB_BATCH / 2 ? pfn - HB_BATCH / 2 : 0;
	n = pread(r->fd, r->buf, sizeof(r->buf), r->base * sizeof(uint64_t));
	if (n < 0)
		return -errno;
	r->nr = n / sizeof(uint64_t);
	if (pfn >= r->base + r->nr)
		return -ENXIO;
	*flags = r->buf[pfn - r->base];
	return 0;
}

/*
 * One entry without filling the window.  The kernel computes the flags of
 * every PFN a read returns (fs/proc/page.c), so a full window per
 * scattered order-0 page costs ~100x this single read.
 */
static int kpf_peek(struct kpf_reader *r, uint64_t pfn, uint64_t *flags)
{
	ssize_t n;

	if (r->nr && pfn >= r->base && pfn < r->base + r->nr) {
		*flags = r->buf[pfn - r->base];
		return 0;
	}
	n = pread(r->fd, flags, sizeof(*flags), pfn * sizeof(uint64_t));
	if (n < 0)
		return -errno;
	return n == sizeof(*flags) ? 0 : -ENXIO;
}

static bool kpf_is(uint64_t flags, int bit)
{
	return flags & (1ULL << bit);
}

/*
 * The folio holding @pfn: its head PFN and number of pages.  A page that
 * is neither head nor tail is an order-0 folio of its own.
 */
static int folio_of_pfn(struct kpf_reader *r, uint64_t pfn, uint64_t *head,
			uint64_t *nr)
{
	uint64_t flags, p;
	int ret;

	ret = kpf_peek(r, pfn, &flags);
	if (ret)
		return ret;
	if (!kpf_is(flags, KPF_COMPOUND_HEAD) &&
	    !kpf_is(flags, KPF_COMPOUND_TAIL)) {
		*head = pfn;
		*nr = 1;
		return 0;
	}
	for (p = pfn; !kpf_is(flags, KPF_COMPOUND_HEAD); ) {
		if (!p || pfn - p >= HB_MAX_FOLIO_PAGES)
			return -EIO;
		ret = kpf_get(r, --p, &flags);
		if (ret)
			return ret;
	}
	*head = p;
	for (p = *head + 1; p - *head < HB_MAX_FOLIO_PAGES; p++) {
		ret = kpf_get(r, p, &flags);
		if (ret == -ENXIO)
			break;
		if (ret)
			return ret;
		if (!kpf_is(flags, KPF_COMPOUND_TAIL))
			break;
	}
	*nr = p - *head;
	return 0;
}

/* a page of the buffer with no frame yet, where every page needs one */
static int not_present(uint64_t addr)
{
	return hb_seterr(EFAULT, "page at 0x%llx is not present: fault the "
			 "buffer in before probing", (unsigned long long)addr);
}

/*
 * The pagemap entries of [@start, + @nr_pages pages) into @pfn, as PFNs.
 * *@none_present: not a page of them faulted in yet (@pfn left as
 * entries); a page missing from a buffer that has others is an error.
 */
static int read_pagemap(int fd, uint64_t start, unsigned int nr_pages,
			uint64_t *pfn, bool *have_pfns, bool *none_present)
{
	unsigned int i, done, present = 0, absent = 0, first_absent = 0;
	int ret;

	for (done = 0; done < nr_pages; done += HB_BATCH) {
		unsigned int n = nr_pages - done;

		if (n > HB_BATCH)
			n = HB_BATCH;
		ret = hb_pagemap_read(fd, start + ((uint64_t)done <<
						   HB_PAGE_SHIFT), n, pfn + done);
		if (ret)
			return ret;
	}
	*have_pfns = true;
	for (i = 0; i < nr_pages; i++) {
		if (hbi_pagemap_present(pfn[i]))
			present++;
		else if (!absent++)
			first_absent = i;
	}
	*none_present = !present;
	if (!present)
		return 0;
	if (absent)
		return not_present(start +
				   ((uint64_t)first_absent << HB_PAGE_SHIFT));
	for (i = 0; i < nr_pages; i++) {
		pfn[i] = hb_pagemap_pfn(pfn[i]);
		if (!pfn[i])
			*have_pfns = false;
	}
	return 0;
}

static int probe_exact(struct hb_probe *p, int kfd)
{
	struct kpf_reader *r;
	uint64_t head = 0, nr = 0;
	unsigned int i;
	int ret = 0;

	/* the window is filled before it is read (r->nr): not zeroed */
	r = malloc(sizeof(*r));
	if (!r)
		return hb_seterr(ENOMEM, "out of memory probing %u pages",
				 p->nr_pages);
	r->fd = kfd;
	r->base = 0;
	r->nr = 0;
	for (i = 0; i < p->nr_pages; i++) {
		uint64_t pfn = p->pfn[i];

		if (!nr || pfn < head || pfn >= head + nr) {
			ret = folio_of_pfn(r, pfn, &head, &nr);
			if (ret) {
				ret = hb_seterr(ret, "reading /proc/kpageflags "
						"for PFN 0x%llx failed: %s",
						(unsigned long long)pfn,
						strerror(-ret));
				break;
			}
		}
		p->pages[i].folio = head;
		p->pages[i].idx = pfn - head;
		p->pages[i].order = hbi_ilog2(nr);
	}
	free(r);
	if (!ret)
		snprintf(p->note, sizeof(p->note),
			 "exact: pagemap PFNs + /proc/kpageflags");
	return ret;
}

/* Field @key (kB) of the smaps VMA containing @addr, or -errno. */
static long smaps_vma_kb(uint64_t addr, const char *key)
{
	unsigned long long lo, hi;
	size_t klen = strlen(key);
	bool in = false;
	char line[512];
	long val = -ENOENT;
	FILE *f;

	f = fopen("/proc/self/smaps", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx-%llx ", &lo, &hi) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			in = addr >= lo && addr < hi;
			continue;
		}
		if (in && !strncmp(line, key, klen) && line[klen] == ':') {
			val = strtol(line + klen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/*
 * Mark the pages PAGEMAP_SCAN reports PAGE_IS_HUGE ("PMD-mapped THP or
 * hugetlb").  Returns -errno when the ioctl is not there (before 6.7).
 */
static int scan_huge_pages(uint64_t start, unsigned int nr_pages, bool *huge)
{
	struct page_region reg[64];
	struct pm_scan_arg arg;
	uint64_t end = start + ((uint64_t)nr_pages << HB_PAGE_SHIFT);
	uint64_t pos = start;
	int fd, n, i, ret = 0;

	fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (pos < end) {
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.start = pos;
		arg.end = end;
		arg.vec = (uintptr_t)reg;
		arg.vec_len = HB_ARRAY_SIZE(reg);
		arg.category_mask = PAGE_IS_HUGE;
		arg.return_mask = PAGE_IS_HUGE;
		n = ioctl(fd, PAGEMAP_SCAN, &arg);
		if (n < 0) {
			ret = -errno;
			break;
		}
		for (i = 0; i < n; i++) {
			uint64_t a;

			for (a = reg[i].start; a < reg[i].end;
			     a += HB_PAGE_SIZE)
				huge[(a - start) >> HB_PAGE_SHIFT] = true;
		}
		if (arg.walk_end <= pos)
			break;
		pos = arg.walk_end;
	}
	close(fd);
	return ret;
}

/* Synthetic folio of the page at @va in a folio of @size: id = va / size */
static void synth_page(struct hb_page *pg, uint64_t va, uint64_t size)
{
	pg->folio = va / size;
	pg->idx = (va % size) >> HB_PAGE_SHIFT;
	pg->order = hbi_ilog2(size >> HB_PAGE_SHIFT);
}

static int probe_thp_degraded(struct hb_probe *p, uint64_t start,
			      uint64_t pmd, const char *why)
{
	unsigned int i;
	bool *huge;
	long ahp;

	huge = calloc(p->nr_pages, sizeof(*huge));
	if (!huge)
		return hb_seterr(ENOMEM, "out of memory probing %u pages",
				 p->nr_pages);
	if (!scan_huge_pages(start, p->nr_pages, huge)) {
		snprintf(p->note, sizeof(p->note), "degraded: %s; THP from "
			 "PAGEMAP_SCAN PAGE_IS_HUGE", why);
	} else {
		/* coarse: the whole VMA is PMD mapped or we assume not */
		ahp = smaps_vma_kb(start, "AnonHugePages");
		if (ahp > 0 && ((uint64_t)ahp << 10) >=
				       HB_ALIGN_UP(p->len, pmd))
			memset(huge, 1, p->nr_pages * sizeof(*huge));
		snprintf(p->note, sizeof(p->note), "degraded: %s; THP from "
			 "smaps AnonHugePages", why);
	}
	for (i = 0; i < p->nr_pages; i++) {
		uint64_t va = start + ((uint64_t)i << HB_PAGE_SHIFT);

		synth_page(&p->pages[i], va, huge[i] ? pmd : HB_PAGE_SIZE);
	}
	free(huge);
	return 0;
}

static int probe_degraded(struct hb_probe *p, uint64_t start,
			  const struct hb_backing *recipe, const char *why)
{
	uint64_t size = HB_PAGE_SIZE;
	unsigned int i;
	long kps;

	p->source = HB_PROBE_RECIPE;
	kps = smaps_vma_kb(start, "KernelPageSize");
	if (kps > 4) {
		/* hugetlb VMA: every page lies in a folio of that size */
		size = (uint64_t)kps << 10;
		snprintf(p->note, sizeof(p->note), "degraded: %s; hugetlb "
			 "folio size from smaps KernelPageSize", why);
	} else if (recipe && recipe->kind == HB_BACKING_MTHP) {
		size = recipe->folio_size;
		snprintf(p->note, sizeof(p->note), "degraded: %s; mTHP is "
			 "invisible without PFNs, folio size assumed from the "
			 "recipe", why);
	} else if (recipe && (recipe->kind == HB_BACKING_4K ||
			      (recipe->kind == HB_BACKING_SHM &&
			       recipe->folio_size == HB_PAGE_SIZE))) {
		/* plain SysV shm is shmem with MADV_NOHUGEPAGE: 4 KiB */
		snprintf(p->note, sizeof(p->note), "degraded: %s; 4 KiB pages "
			 "from the recipe", why);
	} else {
		return probe_thp_degraded(p, start, hbi_sys_pmd_size(), why);
	}
	for (i = 0; i < p->nr_pages; i++)
		synth_page(&p->pages[i],
			   start + ((uint64_t)i << HB_PAGE_SHIFT), size);
	return 0;
}

static void probe_stats(struct hb_probe *p)
{
	unsigned int i;

	p->min_folio = UINT64_MAX;
	p->max_folio = 0;
	p->nr_folios = 0;
	for (i = 0; i < p->nr_pages; i++) {
		uint64_t sz = HB_PAGE_SIZE << p->pages[i].order;

		if (sz < p->min_folio)
			p->min_folio = sz;
		if (sz > p->max_folio)
			p->max_folio = sz;
		if (!i || p->pages[i].folio != p->pages[i - 1].folio ||
		    p->pages[i].order != p->pages[i - 1].order)
			p->nr_folios++;
	}
	if (!p->nr_pages)
		p->min_folio = 0;
}

/*
 * /proc/self/pagemap and /proc/kpageflags for many probes: a file that
 * cannot be opened here is opened by each probe again, which then fails
 * or degrades with its own message, as a probe on its own does.
 */
void hbi_probe_files_open(struct hb_probe_files *f)
{
	f->pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	f->kpageflags = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
}

void hbi_probe_files_close(struct hb_probe_files *f)
{
	if (f->pagemap >= 0)
		close(f->pagemap);
	if (f->kpageflags >= 0)
		close(f->kpageflags);
	f->pagemap = f->kpageflags = -1;
}

/* The pagemap's entries of [@start, + @nr_pages pages) into @pfn. */
static int probe_pfns(const struct hb_probe_files *f, uint64_t start,
		      unsigned int nr_pages, uint64_t *pfn, bool *have_pfns,
		      bool *none_present)
{
	int fd = f->pagemap, ret;

	if (fd < 0) {
		fd = hb_pagemap_open();
		if (fd < 0)
			return fd;
	}
	ret = read_pagemap(fd, start, nr_pages, pfn, have_pfns, none_present);
	if (fd != f->pagemap)
		close(fd);
	return ret;
}

/*
 * Nothing faulted in yet: a contig=pin buffer before its registration
 * (hb_contig_check()) is 4 KiB pages to be, their frames not drawn yet,
 * probed from the recipe; anything else is a buffer the caller forgot to
 * fault in.
 */
static int check_unfaulted(uint64_t start, const struct hb_backing *recipe)
{
	if (!recipe || recipe->contig != HB_CONTIG_PIN)
		return not_present(start);
	return 0;
}

/* The folios from the PFNs and kpageflags, or from the recipe. */
static int probe_folios(const struct hb_probe_files *f, struct hb_probe *p,
			uint64_t start, const struct hb_backing *recipe)
{
	int kfd = f->kpageflags, ret;

	if (kfd < 0)
		kfd = open("/proc/kpageflags", O_RDONLY | O_CLOEXEC);
	if (kfd < 0) {
		free(p->pfn);
		p->pfn = NULL;
		return probe_degraded(p, start, recipe,
				      "/proc/kpageflags is not readable: run "
				      "as root for the exact folio map");
	}
	p->source = HB_PROBE_KPAGEFLAGS;
	ret = probe_exact(p, kfd);
	if (kfd != f->kpageflags)
		close(kfd);
	return ret;
}

int hb_probe(const void *addr, uint64_t len, const struct hb_backing *recipe,
	     struct hb_probe *p)
{
	struct hb_probe_files f;
	int ret;

	hbi_probe_files_open(&f);
	ret = hbi_probe_with(&f, addr, len, recipe, p);
	hbi_probe_files_close(&f);
	return ret;
}

int hbi_probe_with(const struct hb_probe_files *f, const void *addr,
		  uint64_t len, const struct hb_backing *recipe,
		  struct hb_probe *p)
{
	uint64_t a = (uintptr_t)addr, start, end;
	bool have_pfns = false, none_present = false;
	const char *why = "PFNs need CAP_SYS_ADMIN: run as root for the "
			  "exact folio map";
	int ret;

	memset(p, 0, sizeof(*p));
	if (!addr || !len)
		return hb_seterr(EINVAL, "nothing to probe: the buffer is %s",
				 addr ? "empty" : "NULL");
	if (a + len < a)
		return hb_seterr(EOVERFLOW, "buffer 0x%llx + %llu wraps the "
				 "address space", (unsigned long long)a,
				 (unsigned long long)len);
	start = HB_ALIGN_DOWN(a, HB_PAGE_SIZE);
	end = HB_ALIGN_UP(a + len, HB_PAGE_SIZE);
	if ((end - start) >> HB_PAGE_SHIFT > UINT32_MAX)
		return hb_seterr(E2BIG, "buffer of %llu bytes is too large to "
				 "probe", (unsigned long long)len);
	p->addr = a;
	p->len = len;
	p->nr_pages = (end - start) >> HB_PAGE_SHIFT;
	p->pages = calloc(p->nr_pages, sizeof(*p->pages));
	/* read_pagemap() sets every entry or fails */
	p->pfn = malloc((size_t)p->nr_pages * sizeof(*p->pfn));
	if (!p->pages || !p->pfn) {
		hb_probe_free(p);
		return hb_seterr(ENOMEM, "out of memory probing %llu bytes",
				 (unsigned long long)len);
	}

	ret = probe_pfns(f, start, p->nr_pages, p->pfn, &have_pfns,
			 &none_present);
	if (ret)
		goto fail;
	if (none_present) {
		ret = check_unfaulted(start, recipe);
		if (ret)
			goto fail;
		have_pfns = false;
		why = "contig=pin: not faulted in until the registration's pin";
	}
	/* the physical runs, before a degraded probe drops the PFNs */
	hb_contig_measure(have_pfns ? p->pfn : NULL, p->nr_pages, &p->contig);
	if (!have_pfns) {
		free(p->pfn);
		p->pfn = NULL;
		ret = probe_degraded(p, start, recipe, why);
	} else {
		ret = probe_folios(f, p, start, recipe);
	}
	if (ret)
		goto fail;
	probe_stats(p);
	return 0;
fail:
	hb_probe_free(p);
	return ret;
}

void hb_probe_free(struct hb_probe *p)
{
	if (!p)
		return;
	free(p->pages);
	free(p->pfn);
	p->pages = NULL;
	p->pfn = NULL;
	p->nr_pages = 0;
}
