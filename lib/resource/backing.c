// SPDX-License-Identifier: GPL-2.0-only
/*
 * Backings: what "hugetlb:2M", "thp", "hugetlbfs:PATH"... mean, how they
 * print, and where a buffer of each must start.  Below the allocator and
 * the preflight, which both describe a plan with them; it reads only the
 * system facts of lib/sysread/sysinfo.c (the PMD and default hugepage sizes) and a
 * hugetlbfs mount's page size.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/vfs.h>

#include "resource/resource.h"

/* statfs f_type of hugetlbfs (include/uapi/linux/magic.h) */
#define HB_HUGETLBFS_MAGIC	0x958458f6

/* "hugetlb:2M" -> kind hugetlb, size 2M; "hugetlb" -> default 2M */
static int parse_backing_size(const char *s, const char *what,
			      uint64_t deflt, uint64_t *size)
{
	int ret;

	if (!s) {
		*size = deflt;
		return 0;
	}
	ret = hb_parse_size(s, size);
	if (ret)
		return hb_seterr(EINVAL, "invalid %s size '%s': use e.g. "
				 "%s:2M", what, s, what);
	if (!HB_IS_POW2(*size) || *size <= HB_PAGE_SIZE)
		return hb_seterr(EINVAL, "invalid %s size '%s': must be a "
				 "power of two larger than 4K (e.g. %s:2M)",
				 what, s, what);
	return 0;
}

/*
 * The page size of the hugetlbfs mount @path is on: statfs() reports
 * HUGETLBFS_MAGIC and the mount's page size as f_bsize
 * (fs/hugetlbfs/inode.c hugetlbfs_statfs).  A file that does not exist
 * yet is judged by its directory.
 */
int hbi_hugetlbfs_page_size(const char *path, uint64_t *size)
{
	char dir[HB_BACKING_PATH_MAX];
	struct statfs sf;
	char *slash;

	if (statfs(path, &sf)) {
		if (errno != ENOENT)
			return hb_seterr(errno, "backing hugetlbfs:%s: %s",
					 path, strerror(errno));
		snprintf(dir, sizeof(dir), "%s", path);
		slash = strrchr(dir, '/');
		if (!slash)
			snprintf(dir, sizeof(dir), ".");
		else if (slash == dir)
			dir[1] = '\0';
		else
			*slash = '\0';
		if (statfs(dir, &sf))
			return hb_seterr(errno, "backing hugetlbfs:%s: %s",
					 path, strerror(errno));
	}
	if ((uint32_t)sf.f_type != HB_HUGETLBFS_MAGIC)
		return hb_seterr(EINVAL, "backing hugetlbfs:%s: %s is not on "
				 "hugetlbfs: mount one (mount -t hugetlbfs "
				 "none /dev/hugepages) and give a path there",
				 path, path);
	if (!HB_IS_POW2((uint64_t)sf.f_bsize) ||
	    (uint64_t)sf.f_bsize <= HB_PAGE_SIZE)
		return hb_seterr(EINVAL, "%s: hugetlbfs reports a page size "
				 "of %ld bytes", path, (long)sf.f_bsize);
	*size = sf.f_bsize;
	return 0;
}

static int parse_hugetlbfs(const char *path, struct hb_backing *b)
{
	size_t n = strlen(path);

	if (n >= sizeof(b->path))
		return hb_seterr(ENAMETOOLONG, "hugetlbfs path is %zu bytes, "
				 "at most %zu are allowed: use a shorter one",
				 n, sizeof(b->path) - 1);
	b->kind = HB_BACKING_HUGETLBFS;
	memcpy(b->path, path, n + 1);
	return hbi_hugetlbfs_page_size(path, &b->folio_size);
}

bool hb_backing_is_hugetlb(const struct hb_backing *b)
{
	return b->kind == HB_BACKING_HUGETLB || b->kind == HB_BACKING_MEMFD ||
	       b->kind == HB_BACKING_LIBHUGETLBFS ||
	       b->kind == HB_BACKING_HUGETLBFS ||
	       (b->kind == HB_BACKING_SHM && b->folio_size > HB_PAGE_SIZE);
}

const char *hb_backing_spellings(void)
{
	return "4k, thp, mthp:64K, hugetlb[:2M|:1G], memfd[:2M|:1G], "
	       "shm[:2M|:1G], hugetlbfs:PATH or libhugetlbfs";
}

int hb_backing_parse(const char *s, struct hb_backing *b)
{
	char name[32];
	const char *colon, *arg;
	size_t n;
	int ret;

	memset(b, 0, sizeof(*b));
	if (!s || !*s)
		return hb_seterr(EINVAL, "empty backing: use %s",
				 hb_backing_spellings());
	colon = strchr(s, ':');
	n = colon ? (size_t)(colon - s) : strlen(s);
	if (n >= sizeof(name))
		goto unknown;
	memcpy(name, s, n);
	name[n] = '\0';
	arg = colon ? colon + 1 : NULL;
	if (arg && !*arg)
		return hb_seterr(EINVAL, "backing '%s' has an empty size after "
				 "':': use e.g. %s:2M", s, name);

	if (!strcasecmp(name, "4k") || !strcasecmp(name, "4K")) {
		if (arg)
			goto no_size;
		b->kind = HB_BACKING_4K;
		b->folio_size = HB_PAGE_SIZE;
		return 0;
	}
	if (!strcasecmp(name, "thp")) {
		if (arg)
			goto no_size;
		b->kind = HB_BACKING_THP;
		b->folio_size = hbi_sys_pmd_size();
		return 0;
	}
	if (!strcasecmp(name, "mthp")) {
		if (!arg)
			return hb_seterr(EINVAL, "backing 'mthp' needs a size: "
					 "use e.g. mthp:64K");
		b->kind = HB_BACKING_MTHP;
		return parse_backing_size(arg, "mthp", 0, &b->folio_size);
	}
	if (!strcasecmp(name, "hugetlb")) {
		b->kind = HB_BACKING_HUGETLB;
		return parse_backing_size(arg, "hugetlb", 2ULL << 20,
					  &b->folio_size);
	}
	if (!strcasecmp(name, "memfd")) {
		b->kind = HB_BACKING_MEMFD;
		return parse_backing_size(arg, "memfd", 2ULL << 20,
					  &b->folio_size);
	}
	if (!strcasecmp(name, "shm")) {
		uint64_t sz;

		/* plain shm is 4 KiB pages (fio's mem=shm) */
		b->kind = HB_BACKING_SHM;
		b->folio_size = HB_PAGE_SIZE;
		if (!arg || (!hb_parse_size(arg, &sz) && sz == HB_PAGE_SIZE))
			return 0;
		return parse_backing_size(arg, "shm", 0, &b->folio_size);
	}
	if (!strcasecmp(name, "hugetlbfs")) {
		if (!arg)
			return hb_seterr(EINVAL, "backing 'hugetlbfs' needs a "
					 "path: use hugetlbfs:/dev/hugepages "
					 "or hugetlbfs:/mnt/huge/file");
		return parse_hugetlbfs(arg, b);
	}
	if (!strcasecmp(name, "libhugetlbfs")) {
		if (arg)
			goto no_size;
		b->kind = HB_BACKING_LIBHUGETLBFS;
		/* get_huge_pages() takes the default size; none: 2M's pool */
		b->folio_size = hbi_sys_default_hugepage() ?: 2ULL << 20;
		return 0;
	}
unknown:
	ret = hb_seterr(EINVAL, "unknown backing '%s': use %s", s,
			hb_backing_spellings());
	return ret;
no_size:
	return hb_seterr(EINVAL, "backing '%s' takes no size: use '%s'", s,
			 name);
}

char *hb_backing_str(const struct hb_backing *b, char *buf, size_t len)
{
	char sz[32];

	hb_fmt_size(b->folio_size, sz, sizeof(sz));
	switch (b->kind) {
	case HB_BACKING_4K:
		snprintf(buf, len, "4k");
		break;
	case HB_BACKING_THP:
		snprintf(buf, len, "thp");
		break;
	case HB_BACKING_MTHP:
		snprintf(buf, len, "mthp:%s", sz);
		break;
	case HB_BACKING_HUGETLB:
		snprintf(buf, len, "hugetlb:%s", sz);
		break;
	case HB_BACKING_MEMFD:
		snprintf(buf, len, "memfd:%s", sz);
		break;
	case HB_BACKING_LIBHUGETLBFS:
		snprintf(buf, len, "libhugetlbfs");
		break;
	case HB_BACKING_SHM:
		if (b->folio_size > HB_PAGE_SIZE)
			snprintf(buf, len, "shm:%s", sz);
		else
			snprintf(buf, len, "shm");
		break;
	case HB_BACKING_HUGETLBFS:
		snprintf(buf, len, "hugetlbfs:%s", b->path);
		break;
	default:
		snprintf(buf, len, "unknown");
	}
	return buf;
}

uint64_t hb_backing_align(const struct hb_backing *b)
{
	const uint64_t pmd = 2ULL << 20;

	if ((b->kind == HB_BACKING_4K || b->kind == HB_BACKING_SHM) &&
	    b->folio_size < pmd)
		return pmd;
	return b->folio_size;
}

int hb_contig_mode_parse(const char *s, enum hb_contig_mode *m)
{
	if (s && !strcmp(s, "given")) {
		*m = HB_CONTIG_GIVEN;
		return 0;
	}
	if (s && !strcmp(s, "scattered")) {
		*m = HB_CONTIG_SCATTERED;
		return 0;
	}
	if (s && !strcmp(s, "pin")) {
		*m = HB_CONTIG_PIN;
		return 0;
	}
	return hb_seterr(EINVAL, "unknown contiguity '%s': use given, "
			 "scattered or pin", s ? s : "");
}

const char *hb_contig_mode_name(enum hb_contig_mode m)
{
	switch (m) {
	case HB_CONTIG_SCATTERED:
		return "scattered";
	case HB_CONTIG_PIN:
		return "pin";
	case HB_CONTIG_GIVEN:
		break;
	}
	return "given";
}

/*
 * contig=pin leaves the pages untouched, so that the registration's
 * long-term pin faults them in: __gup_longterm_locked() (mm/gup.c) runs
 * under memalloc_pin_save(), which drops __GFP_MOVABLE, and the pages
 * come from the unmovable free lists, as an untouched malloc buffer's do
 * in fio's read jobs.  It holds only where every page is registered and
 * nothing writes one first.
 */
static int check_pin_use(unsigned int use)
{
	if (use & HB_CONTIG_UNREGISTERED)
		return hb_seterr(EINVAL, "contig=pin needs fixedbufs=1: its "
				 "pages are faulted in by the buffers' "
				 "registration, and there is none: use "
				 "fixedbufs=1 or contig=given");
	if (use & HB_CONTIG_WRITTEN)
		return hb_seterr(EINVAL, "contig=pin is for jobs that only "
				 "read: a job that writes fills its buffers "
				 "before they are registered, which faults "
				 "them in: use a read-only rw= or "
				 "contig=given");
	/* the others would probe pages the first one is faulting in */
	if (use & HB_CONTIG_SHARED)
		return hb_seterr(EINVAL, "contig=pin with clone_buffers: the "
				 "first job's registration faults the shared "
				 "buffers in while the other jobs probe them: "
				 "use contig=given or drop clone_buffers");
	if (use & HB_CONTIG_UNREG_PARTS)
		return hb_seterr(EINVAL, "contig=pin with md_per_io_size: the "
				 "metadata buffers are not registered, no pin "
				 "faults them in: drop md_per_io_size or use "
				 "contig=given");
	return 0;
}

/* The one rule of the contiguity modes: 4k only, pin as above. */
int hb_contig_check(const struct hb_backing *b, unsigned int use)
{
	char bk[HB_BACKING_STR_MAX];

	if (b->contig == HB_CONTIG_GIVEN)
		return 0;
	if (b->kind != HB_BACKING_4K) {
		hb_backing_str(b, bk, sizeof(bk));
		return hb_seterr(EINVAL, "contig=%s is for backing=4k, the "
				 "backing here is %s: use backing=4k or "
				 "contig=given", hb_contig_mode_name(b->contig),
				 bk);
	}
	return b->contig == HB_CONTIG_PIN ? check_pin_use(use) : 0;
}
