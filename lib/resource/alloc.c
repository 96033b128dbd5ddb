// SPDX-License-Identifier: GPL-2.0-only
/*
 * Buffer allocation by backing: 4 KiB pages, PMD THP, mTHP, hugetlb
 * (anonymous or memfd), SysV shared memory (SHM_HUGETLB or 4 KiB), a
 * file on hugetlbfs and, when configured, libhugetlbfs.
 *
 * Every allocation is laid out the same way: a mapping that starts on a
 * folio boundary, the buffer @head_offset bytes into it, the mapping
 * rounded up to whole folios.  Every page is faulted in by a write, so
 * the probe and io_uring registration see the final folios; only a 4k
 * buffer with contig=pin is left for the registration to fault in.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "resource/resource.h"

/* MAP_HUGE_SHIFT / MFD_HUGE_SHIFT: log2(page size) is encoded here */
#define HB_HUGE_SHIFT		26
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE		25	/* 6.1+: synchronous THP collapse */
#endif
#ifndef MFD_HUGETLB
#define MFD_HUGETLB		0x0004U
#endif
#ifndef SHM_HUGETLB
#define SHM_HUGETLB		04000
#endif
#ifndef SHM_REMAP
#define SHM_REMAP		040000
#endif


/* ---------------------------------------------------------------- */

static void buf_reset(struct hb_buf *buf)
{
	memset(buf, 0, sizeof(*buf));
	buf->memfd = -1;
	buf->shmid = -1;
}

/*
 * The backing's own resources (pool, THP, mTHP), checked by the one
 * preflight before anything is mapped, so a shortage has its one message.
 * A mapping registers nothing by itself: no memlock charge, so no kernel
 * model is needed here (the allocator sits below kernel detection).
 */
static int alloc_preflight(const struct hb_backing *b, size_t map_len)
{
	struct hb_bufset set = { .backing = *b, .map_len = map_len };
	struct hb_sysinfo si;
	int ret;

	ret = hb_sysinfo_read(&si);
	if (ret)
		return ret;
	return hbi_preflight_resources(&si, &set);
}

static int hugetlb_mmap_error(int err, uint64_t size, size_t map_len)
{
	char knob[128];

	hbi_pool_knob(size, knob, sizeof(knob));
	return hb_seterr(err, "mmap of %zu bytes of %llukB hugepages failed "
			 "(%s): the pool ran short, raise it with echo N > %s",
			 map_len, (unsigned long long)(size >> 10),
			 strerror(err), knob);
}

/*
 * Private hugetlb mappings reserve their pages at mmap() time
 * (hugetlb_reserve_pages), so once mmap succeeds touching the pages
 * cannot SIGBUS for lack of pool pages.
 */
static int alloc_hugetlb(const struct hb_backing *b, struct hb_buf *buf)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_POPULATE;
	void *map;

	flags |= (int)hbi_ilog2(b->folio_size) << HB_HUGE_SHIFT;
	map = mmap(NULL, buf->map_len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (map == MAP_FAILED)
		return hugetlb_mmap_error(errno, b->folio_size, buf->map_len);
	buf->map = map;
	hbi_touch_pages(map, buf->map_len);
	return 0;
}

/*
 * hugetlbfs_fallocate() gives up with EINTR when a signal is pending (fio
 * threads get them); what it allocated stays, so trying again completes.
 */
static int fallocate_all(int fd, size_t len)
{
	int ret, tries = 0;

	do
		ret = fallocate(fd, 0, 0, len);
	while (ret && errno == EINTR && ++tries < 100);
	return ret;
}

/*
 * memfd hugetlb: fallocate() allocates every page up front, so a pool
 * shortage is an ENOSPC here rather than a SIGBUS on first touch of a
 * MAP_SHARED mapping.
 */
static int alloc_memfd(const struct hb_backing *b, struct hb_buf *buf)
{
	unsigned int flags = MFD_CLOEXEC | MFD_HUGETLB;
	void *map;
	int fd, ret;

	flags |= hbi_ilog2(b->folio_size) << HB_HUGE_SHIFT;
	fd = memfd_create("hugebuf", flags);
	if (fd < 0)
		return hb_seterr(errno, "memfd_create(MFD_HUGETLB, %llukB) "
				 "failed: %s: the kernel needs "
				 "CONFIG_HUGETLBFS and a %llukB pool",
				 (unsigned long long)(b->folio_size >> 10),
				 strerror(errno),
				 (unsigned long long)(b->folio_size >> 10));
	if (ftruncate(fd, buf->map_len)) {
		ret = hb_seterr(errno, "ftruncate of the hugetlb memfd to %zu "
				"bytes failed: %s", buf->map_len,
				strerror(errno));
		goto out_close;
	}
	if (fallocate_all(fd, buf->map_len)) {
		ret = hugetlb_mmap_error(errno, b->folio_size, buf->map_len);
		goto out_close;
	}
	map = mmap(NULL, buf->map_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED) {
		ret = hugetlb_mmap_error(errno, b->folio_size, buf->map_len);
		goto out_close;
	}
	buf->map = map;
	buf->memfd = fd;
	hbi_touch_pages(map, buf->map_len);
	return 0;
out_close:
	close(fd);
	return ret;
}

/*
 * Anonymous memory aligned to @align: map @align more than needed and
 * unmap the unaligned head and the tail.
 */
static void *mmap_aligned(size_t len, size_t align)
{
	uintptr_t raw, start;
	void *p;

	p = mmap(NULL, len + align, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return NULL;
	raw = (uintptr_t)p;
	start = HB_ALIGN_UP(raw, align);
	if (start > raw)
		munmap(p, start - raw);
	if (raw + align > start)
		munmap((void *)(start + len), raw + align - start);
	return (void *)start;
}

/*
 * SysV shared memory as fio's mem=shm / mem=shmhuge allocates it
 * (shmget(IPC_PRIVATE, IPC_CREAT | 0600 [| SHM_HUGETLB])), with the page
 * size encoded as for mmap (SHM_HUGE_SHIFT, 3.8, 4da243ac1cd3).  The
 * segment is attached over an aligned reservation (SHM_REMAP) so the
 * buffer sits where the other backings put it, then marked for removal
 * (IPC_RMID): it and its pages go when the last process detaches, even
 * if this one dies.  SHM_HUGETLB reserves its pages at shmget()
 * (hugetlb_file_setup), so touching them cannot SIGBUS.
 */
static int shm_error(int err, const struct hb_backing *b, size_t len)
{
	char knob[128];

	if (b->folio_size <= HB_PAGE_SIZE)
		return hb_seterr(err, "shmget of %zu bytes failed (%s): raise "
				 "kernel.shmmax / kernel.shmall (sysctl)", len,
				 strerror(err));
	if (err == EPERM)
		return hb_seterr(err, "shmget(SHM_HUGETLB) of %zu bytes not "
				 "permitted: it needs CAP_IPC_LOCK or the group "
				 "in /proc/sys/vm/hugetlb_shm_group", len);
	hbi_pool_knob(b->folio_size, knob, sizeof(knob));
	return hb_seterr(err, "shmget(SHM_HUGETLB) of %zu bytes of %llukB "
			 "hugepages failed (%s): the pool ran short (echo N > "
			 "%s) or the size is over kernel.shmmax", len,
			 (unsigned long long)(b->folio_size >> 10),
			 strerror(err), knob);
}

static int alloc_shm(const struct hb_backing *b, struct hb_buf *buf)
{
	int flags = IPC_CREAT | 0600;
	void *want, *map;
	int id, err;

	if (b->folio_size > HB_PAGE_SIZE)
		flags |= SHM_HUGETLB |
			 (int)hbi_ilog2(b->folio_size) << HB_HUGE_SHIFT;
	id = shmget(IPC_PRIVATE, buf->map_len, flags);
	if (id < 0)
		return shm_error(errno, b, buf->map_len);
	want = mmap_aligned(buf->map_len, hb_backing_align(b));
	if (!want) {
		err = errno;
		shmctl(id, IPC_RMID, NULL);
		return hb_seterr(err, "mmap of %zu bytes failed: %s",
				 buf->map_len, strerror(err));
	}
	map = shmat(id, want, SHM_REMAP);
	if (map == (void *)-1) {
		err = errno;
		munmap(want, buf->map_len);
		shmctl(id, IPC_RMID, NULL);
		return hb_seterr(err, "shmat of %zu bytes failed: %s",
				 buf->map_len, strerror(err));
	}
	shmctl(id, IPC_RMID, NULL);
	buf->map = map;
	buf->shmid = id;
	/* shmem THP would make the 4 KiB baseline large folios */
	if (b->folio_size <= HB_PAGE_SIZE)
		madvise(map, buf->map_len, MADV_NOHUGEPAGE);
	if (b->contig == HB_CONTIG_SCATTERED)
		return hbi_fault_scattered(map, buf->map_len);
	hbi_touch_pages(map, buf->map_len);
	return 0;
}

/*
 * A file on hugetlbfs, MAP_SHARED, so another process (a second fio, a
 * ublk server) can map the same pages.  A directory gets a new file of
 * our own; a file is created if missing.  hb_free() unlinks only a file
 * this buffer created.  The pages are allocated with fallocate()
 * (hugetlbfs_fallocate) so a pool shortage is ENOSPC here, not SIGBUS,
 * and faulted in by MAP_POPULATE, never written: they may already hold
 * another process's data.
 */
static int open_hugetlbfs(const struct hb_backing *b, struct hb_buf *buf)
{
	struct stat st;
	int fd;

	if (!stat(b->path, &st) && S_ISDIR(st.st_mode)) {
		snprintf(buf->file, sizeof(buf->file), "%s/hugebuf.XXXXXX",
			 b->path);
		fd = mkostemp(buf->file, O_CLOEXEC);
		buf->unlink_file = fd >= 0;
		return fd;
	}
	snprintf(buf->file, sizeof(buf->file), "%s", b->path);
	fd = open(buf->file, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd >= 0) {
		buf->unlink_file = true;
		return fd;
	}
	if (errno != EEXIST)
		return -1;
	return open(buf->file, O_RDWR | O_CLOEXEC);
}

/* The size of the open hugetlbfs file, with the message on failure. */
static int hugetlbfs_file_size(const struct hb_buf *buf, uint64_t *size)
{
	struct stat st;

	if (fstat(buf->memfd, &st))
		return hb_seterr(errno, "fstat %s: %s", buf->file,
				 strerror(errno));
	*size = (uint64_t)st.st_size;
	return 0;
}

/*
 * The file, opened before the preflight: a file we create, or one
 * shorter than the mapping, takes new pages from the pool; an existing
 * file's pages are already counted.
 */
static int open_hugetlbfs_checked(const struct hb_backing *b,
				  struct hb_buf *buf, bool *takes_pages)
{
	uint64_t size;
	int fd, ret;

	/* the mount may have changed since the backing was parsed */
	ret = hbi_hugetlbfs_page_size(b->path, &size);
	if (ret)
		return ret;
	if (size != b->folio_size)
		return hb_seterr(EINVAL, "%s is now on a hugetlbfs of %llukB "
				 "pages, not %llukB: parse the backing again",
				 b->path, (unsigned long long)(size >> 10),
				 (unsigned long long)(b->folio_size >> 10));
	fd = open_hugetlbfs(b, buf);
	if (fd < 0)
		return hb_seterr(errno, "cannot open %s on hugetlbfs: %s",
				 buf->file, strerror(errno));
	buf->memfd = fd;
	ret = hugetlbfs_file_size(buf, &size);
	if (ret)
		return ret;
	*takes_pages = buf->unlink_file || size < buf->map_len;
	return 0;
}

static int alloc_hugetlbfs(const struct hb_backing *b, struct hb_buf *buf)
{
	uint64_t size = 0;
	void *map;
	int fd = buf->memfd, ret;

	ret = hugetlbfs_file_size(buf, &size);
	if (ret)
		return ret;
	if (size < buf->map_len && ftruncate(fd, buf->map_len))
		return hb_seterr(errno, "ftruncate of %s to %zu bytes failed: "
				 "%s", buf->file, buf->map_len,
				 strerror(errno));
	if (fallocate_all(fd, buf->map_len))
		return hugetlb_mmap_error(errno, b->folio_size, buf->map_len);
	map = mmap(NULL, buf->map_len, PROT_READ | PROT_WRITE,
		   MAP_SHARED | MAP_POPULATE, fd, 0);
	if (map == MAP_FAILED)
		return hugetlb_mmap_error(errno, b->folio_size, buf->map_len);
	buf->map = map;
	return 0;
}

/* Do the folios the probe sees have @size?  (THP/mTHP verification) */
static bool folios_are(const struct hb_buf *buf, uint64_t size)
{
	struct hb_probe p;
	bool ok;

	if (hb_probe(buf->map, buf->map_len, &buf->backing, &p))
		return false;
	ok = p.min_folio == size && p.max_folio == size;
	/* the degraded mTHP answer only repeats the recipe: not proof */
	if (p.source == HB_PROBE_RECIPE && buf->backing.kind == HB_BACKING_MTHP)
		ok = false;
	hb_probe_free(&p);
	return ok;
}

/*
 * PMD THP: a PMD-aligned MADV_HUGEPAGE range faults in PMD folios when
 * THP is "always" or "madvise"; MADV_COLLAPSE (6.1, 7d8faaf15545)
 * collapses whatever was not, regardless of the sysfs mode.
 */
/* Folio-aligned anonymous memory with MADV_HUGEPAGE, faulted in. */
static int map_anon_huge(const struct hb_backing *b, struct hb_buf *buf)
{
	void *map;

	map = mmap_aligned(buf->map_len, b->folio_size);
	if (!map)
		return hb_seterr(errno, "mmap of %zu bytes failed: %s",
				 buf->map_len, strerror(errno));
	buf->map = map;
	if (madvise(map, buf->map_len, MADV_HUGEPAGE))
		return hb_seterr(errno, "madvise(MADV_HUGEPAGE) failed (%s): "
				 "the kernel needs "
				 "CONFIG_TRANSPARENT_HUGEPAGE",
				 strerror(errno));
	hbi_touch_pages(map, buf->map_len);
	return 0;
}

/*
 * THP and mTHP: folio-aligned MADV_HUGEPAGE memory, faulted in.
 * MADV_HUGEPAGE enables every THP size whose sysfs mode allows it, and the
 * fault path takes the largest that fits: with the PMD size enabled,
 * 2M-aligned stretches of an mTHP buffer get PMD folios; the probe tells.
 * For PMD THP, MADV_COLLAPSE then builds what the faults did not (EINVAL
 * before 6.1; EAGAIN/ENOMEM when it could not).
 */
static int alloc_anon_huge(const struct hb_backing *b, struct hb_buf *buf)
{
	int ret;

	ret = map_anon_huge(b, buf);
	if (ret)
		return ret;
	if (b->kind == HB_BACKING_THP)
		madvise(buf->map, buf->map_len, MADV_COLLAPSE);
	buf->huge_verified = folios_are(buf, b->folio_size);
	return 0;
}

static int alloc_4k(const struct hb_backing *b, struct hb_buf *buf)
{
	void *map;

	map = mmap_aligned(buf->map_len, hb_backing_align(b));
	if (!map)
		return hb_seterr(errno, "mmap of %zu bytes failed: %s",
				 buf->map_len, strerror(errno));
	buf->map = map;
	/* EINVAL without CONFIG_TRANSPARENT_HUGEPAGE: 4 KiB anyway */
	madvise(map, buf->map_len, MADV_NOHUGEPAGE);
	if (b->contig == HB_CONTIG_SCATTERED)
		return hbi_fault_scattered(map, buf->map_len);
	/* left to the registration's pin: hb_contig_check() */
	if (b->contig == HB_CONTIG_PIN)
		return 0;
	hbi_touch_pages(map, buf->map_len);
	return 0;
}

/* ---------------------------------------------------------------- */
/* libhugetlbfs, loaded at run time so nothing links it              */
/* ---------------------------------------------------------------- */

#ifdef CONFIG_HB_LIBHUGETLBFS
#define HB_GHP_DEFAULT	0x01	/* ghp_t GHP_DEFAULT from hugetlbfs.h */

struct hb_libhugetlbfs {
	void *(*get_huge_pages)(size_t len, int flags);
	void (*free_huge_pages)(void *ptr);
	long (*gethugepagesize)(void);
};

/*
 * Loaded once per process, under pthread_once: fio's thread=1 jobs call
 * hb_alloc() from their own threads at once, and a job that found the
 * pointers half set used to call a NULL gethugepagesize.  Every pointer
 * is set, or none; the outcome (0 or an errno and its line) is kept for
 * every later caller, whose thread has its own hb_errmsg().
 */
static struct hb_libhugetlbfs hb_lhf;
static pthread_once_t hb_lhf_once = PTHREAD_ONCE_INIT;
static int hb_lhf_err;
static char hb_lhf_why[128];

static void libhugetlbfs_load_once(void)
{
	struct hb_libhugetlbfs f;
	void *h;

	h = dlopen("libhugetlbfs.so.0", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		hb_lhf_err = ENOENT;
		snprintf(hb_lhf_why, sizeof(hb_lhf_why),
			 "libhugetlbfs not available: apt-get install "
			 "libhugetlbfs0");
		return;
	}
	*(void **)&f.get_huge_pages = dlsym(h, "get_huge_pages");
	*(void **)&f.free_huge_pages = dlsym(h, "free_huge_pages");
	*(void **)&f.gethugepagesize = dlsym(h, "gethugepagesize");
	if (!f.get_huge_pages || !f.free_huge_pages || !f.gethugepagesize) {
		dlclose(h);
		hb_lhf_err = ENOENT;
		snprintf(hb_lhf_why, sizeof(hb_lhf_why),
			 "libhugetlbfs.so.0 lacks get_huge_pages: apt-get "
			 "install libhugetlbfs0");
		return;
	}
	hb_lhf = f;
}

static int libhugetlbfs_load(void)
{
	pthread_once(&hb_lhf_once, libhugetlbfs_load_once);
	if (hb_lhf_err)
		return hb_seterr(hb_lhf_err, "%s", hb_lhf_why);
	return 0;
}

/* The library, loaded and checked before the preflight. */
static int libhugetlbfs_check(const struct hb_buf *buf)
{
	uint64_t size;
	int ret;

	ret = libhugetlbfs_load();
	if (ret)
		return ret;
	size = hb_lhf.gethugepagesize();
	if (size != buf->backing.folio_size)
		return hb_seterr(EINVAL, "libhugetlbfs uses %llu-byte pages, "
				 "not %llu: unset HUGETLB_DEFAULT_PAGE_SIZE or "
				 "use hugetlb:<size>",
				 (unsigned long long)size,
				 (unsigned long long)buf->backing.folio_size);
	return 0;
}

static int alloc_libhugetlbfs(struct hb_buf *buf)
{
	uint64_t size = buf->backing.folio_size;
	void *map;

	map = hb_lhf.get_huge_pages(buf->map_len, HB_GHP_DEFAULT);
	if (!map)
		return hugetlb_mmap_error(errno ? errno : ENOMEM, size,
					  buf->map_len);
	buf->map = map;
	hbi_touch_pages(map, buf->map_len);
	return 0;
}

static void free_libhugetlbfs(struct hb_buf *buf)
{
	/* only a buffer get_huge_pages() gave comes here: loaded */
	if (!libhugetlbfs_load())
		hb_lhf.free_huge_pages(buf->map);
}
#else
static int libhugetlbfs_check(const struct hb_buf *buf)
{
	(void)buf;
	return hb_seterr(ENOTSUP, "hugebuf was built without libhugetlbfs: "
			 "apt-get install libhugetlbfs-dev, re-run ./configure "
			 "and make (or use hugetlb:2M)");
}

/* not reached: libhugetlbfs_check() refused the backing */
static int alloc_libhugetlbfs(struct hb_buf *buf)
{
	return libhugetlbfs_check(buf);
}

static void free_libhugetlbfs(struct hb_buf *buf)
{
	(void)buf;
}
#endif

/* ---------------------------------------------------------------- */

/*
 * What a backing checks before the preflight, in the order its messages
 * have always come.  *@takes_pages: the mapping takes new pages from the
 * pool or THP, which the one preflight must see first.
 */
static int alloc_open(const struct hb_backing *b, struct hb_buf *buf,
		      bool *takes_pages)
{
	*takes_pages = true;
	switch (b->kind) {
	case HB_BACKING_4K:
		*takes_pages = false;
		return 0;
	case HB_BACKING_SHM:
		*takes_pages = b->folio_size > HB_PAGE_SIZE;
		return 0;
	case HB_BACKING_THP:
	case HB_BACKING_MTHP:
	case HB_BACKING_HUGETLB:
	case HB_BACKING_MEMFD:
		return 0;
	case HB_BACKING_LIBHUGETLBFS:
		return libhugetlbfs_check(buf);
	case HB_BACKING_HUGETLBFS:
		return open_hugetlbfs_checked(b, buf, takes_pages);
	}
	return hb_seterr(EINVAL, "unknown backing kind %d", b->kind);
}

static int alloc_map(const struct hb_backing *b, struct hb_buf *buf)
{
	switch (b->kind) {
	case HB_BACKING_4K:
		return alloc_4k(b, buf);
	case HB_BACKING_THP:
	case HB_BACKING_MTHP:
		return alloc_anon_huge(b, buf);
	case HB_BACKING_HUGETLB:
		return alloc_hugetlb(b, buf);
	case HB_BACKING_MEMFD:
		return alloc_memfd(b, buf);
	case HB_BACKING_LIBHUGETLBFS:
		return alloc_libhugetlbfs(buf);
	case HB_BACKING_SHM:
		return alloc_shm(b, buf);
	case HB_BACKING_HUGETLBFS:
		return alloc_hugetlbfs(b, buf);
	}
	return hb_seterr(EINVAL, "unknown backing kind %d", b->kind);
}

int hb_alloc(const struct hb_backing *b, size_t len, size_t head_offset,
	     struct hb_buf *buf)
{
	char name[32], fsz[32];
	bool takes_pages;
	int ret;

	buf_reset(buf);
	if (!b || !HB_IS_POW2(b->folio_size) || b->folio_size < HB_PAGE_SIZE)
		return hb_seterr(EINVAL, "invalid backing: parse it with "
				 "hb_backing_parse()");
	hb_backing_str(b, name, sizeof(name));
	ret = hb_contig_check(b, 0);
	if (ret)
		return ret;
	if (!len)
		return hb_seterr(EINVAL, "buffer size is 0: give a size of at "
				 "least 1 byte");
	if (head_offset >= hb_backing_align(b))
		return hb_seterr(EINVAL, "head offset %zu is not inside the "
				 "first %s of a %s buffer: use an offset below %s",
				 head_offset,
				 hb_fmt_size(hb_backing_align(b), fsz,
					     sizeof(fsz)),
				 name, fsz);
	if (len > SIZE_MAX - hb_backing_align(b) - head_offset)
		return hb_seterr(EOVERFLOW, "buffer size %zu is too large",
				 len);
	buf->backing = *b;
	buf->len = len;
	buf->head_offset = head_offset;
	buf->map_len = hbi_map_len(b, len, head_offset);

	ret = alloc_open(b, buf, &takes_pages);
	if (!ret && takes_pages)
		ret = alloc_preflight(b, buf->map_len);
	if (!ret)
		ret = alloc_map(b, buf);
	if (ret) {
		/* keep the message: hb_free does not touch it */
		hb_free(buf);
		return ret;
	}
	buf->addr = (char *)buf->map + head_offset;
	/* hugetlb folios are what was asked for; THP/mTHP were probed */
	if (hb_backing_is_hugetlb(b))
		buf->huge_verified = true;
	return 0;
}

void hb_free(struct hb_buf *buf)
{
	if (!buf)
		return;
	if (buf->map) {
		if (buf->backing.kind == HB_BACKING_LIBHUGETLBFS)
			free_libhugetlbfs(buf);
		else if (buf->shmid >= 0)
			shmdt(buf->map);
		else
			munmap(buf->map, buf->map_len);
	}
	if (buf->memfd >= 0)
		close(buf->memfd);
	/* hugetlbfs: the pages go back once every mapper is gone */
	if (buf->unlink_file)
		unlink(buf->file);
	buf_reset(buf);
}

void hb_free_moved(struct hb_buf *buf, uint64_t off, uint64_t len)
{
	char *map = buf->map;

	if (map && buf->backing.kind != HB_BACKING_LIBHUGETLBFS) {
		if (off)
			munmap(map, off);
		if (off + len < buf->map_len)
			munmap(map + off + len, buf->map_len - off - len);
		buf->map = NULL;
	}
	hb_free(buf);
}
