// SPDX-License-Identifier: GPL-2.0-only
/*
 * contig=scattered: a 4 KiB buffer whose neighbouring pages are not
 * neighbours in physical memory, on purpose, the worst case a long-running
 * machine's fragmented memory gives by chance.
 *
 * The page allocator hands order-0 pages out in runs: rmqueue_bulk()
 * refills a CPU's list with consecutive frames of a larger free block,
 * and __rmqueue_pcplist() serves them one after another, so pages
 * faulted in one after another usually get consecutive (or, from a list
 * refilled by frees, descending) frames.  Faulting a page of a spacer
 * mapping between every two pages of the buffer puts a spacer frame
 * between the buffer's; unmapping the spacer gives those back.  What
 * came out adjacent all the same (another task took a frame between two
 * faults, the list was refilled) is faulted in again beside a fresh
 * spacer page, when the PFNs can be read (CAP_SYS_ADMIN); the probe
 * measures what the buffer has in the end (hb_probe()'s contig).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "resource/resource.h"

/* Rounds of re-faulting the pages that came out adjacent. */
#define SCATTER_ROUNDS		8

struct spacer {
	volatile char *map;
	size_t len, used;
};

static int spacer_map(struct spacer *s, size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (p == MAP_FAILED)
		return hb_seterr(errno, "mmap of a %zu-byte spacer for "
				 "contig=scattered failed: %s", len,
				 strerror(errno));
	/* EINVAL without CONFIG_TRANSPARENT_HUGEPAGE: 4 KiB anyway */
	madvise(p, len, MADV_NOHUGEPAGE);
	s->map = p;
	s->len = len;
	s->used = 0;
	return 0;
}

/* One more spacer page faulted in: it takes the next frame handed out. */
static void spacer_take(struct spacer *s)
{
	if (s->used + HB_PAGE_SIZE > s->len)
		return;
	s->map[s->used] = 0;
	s->used += HB_PAGE_SIZE;
}

static void fault_page(char *map, size_t off)
{
	((volatile char *)map)[off] = 0;
}

/* The PFNs of the buffer's @nr pages; false when they cannot be read. */
static bool read_pfns(int fd, char *map, uint64_t nr, uint64_t *pfn)
{
	uint64_t i, done;

	for (done = 0; done < nr; done += 4096) {
		unsigned int n = nr - done < 4096 ? nr - done : 4096;

		if (hb_pagemap_read(fd, (uintptr_t)map +
				    (done << HB_PAGE_SHIFT), n, pfn + done))
			return false;
	}
	for (i = 0; i < nr; i++) {
		pfn[i] = hb_pagemap_pfn(pfn[i]);
		if (!pfn[i])
			return false;
	}
	return true;
}

/*
 * Each page adjacent to the one before it: dropped (its frame goes back
 * to this CPU's list), the frame taken by a spacer page, the page faulted
 * in again.  Returns the pages that were adjacent.
 */
static uint64_t refault_adjacent(char *map, uint64_t nr, const uint64_t *pfn,
				 struct spacer *s)
{
	uint64_t i, moved = 0;

	for (i = 1; i < nr; i++) {
		if (pfn[i] != pfn[i - 1] + 1)
			continue;
		if (madvise(map + (i << HB_PAGE_SHIFT), HB_PAGE_SIZE,
			    MADV_DONTNEED))
			continue;
		spacer_take(s);
		fault_page(map, i << HB_PAGE_SHIFT);
		spacer_take(s);
		moved++;
		i++;	/* the next pair now has a new left page */
	}
	return moved;
}

/* Pages that came out adjacent, faulted in again while it helps. */
static int repair_adjacent(char *map, size_t len, struct spacer *s)
{
	uint64_t nr = len >> HB_PAGE_SHIFT, *pfn;
	unsigned int round;
	int fd;

	fd = hb_pagemap_open();
	if (fd < 0)
		return 0;	/* no pagemap: the interleaving alone */
	pfn = malloc(nr * sizeof(*pfn));
	if (!pfn) {
		close(fd);
		return hb_seterr(ENOMEM, "out of memory for %llu PFNs",
				 (unsigned long long)nr);
	}
	for (round = 0; round < SCATTER_ROUNDS; round++)
		if (!read_pfns(fd, map, nr, pfn) ||
		    !refault_adjacent(map, nr, pfn, s))
			break;
	free(pfn);
	close(fd);
	return 0;
}

int hbi_fault_scattered(char *map, size_t len)
{
	struct spacer s = { NULL, 0, 0 };
	size_t off;
	int ret;

	/* one spacer page per buffer page, and as many for the repairs */
	ret = spacer_map(&s, 2 * len);
	if (ret)
		return ret;
	for (off = 0; off < len; off += HB_PAGE_SIZE) {
		fault_page(map, off);
		spacer_take(&s);
	}
	ret = repair_adjacent(map, len, &s);
	munmap((void *)s.map, s.len);
	return ret;
}
