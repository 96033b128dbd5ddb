/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private (not installed): what a buffer plan needs, checked before
 * allocating (lib/preflight.c).
 */
#ifndef HUGEBUF_PREFLIGHT_H
#define HUGEBUF_PREFLIGHT_H

#include <stdbool.h>
#include <stdint.h>

#include "hugebuf.h"
#include "sysread.h"

/* ------------------------------------------------------------------ */
/* preflight: what a buffer plan needs, checked before allocating       */
/* ------------------------------------------------------------------ */

/*
 * A buffer plan: one mapping of @backing holding @nr_iov buffers.  The
 * iovecs' iov_base are OFFSETS from the start of the mapping (which
 * hb_alloc() aligns to hb_backing_align()), not addresses.
 */
struct hb_plan {
	struct hb_backing backing;
	uint64_t map_len;		/* hb_map_len() of the allocation */
	const struct iovec *iov;	/* buffers, as offsets into the map */
	unsigned int nr_iov;
	bool registered;		/* registered with io_uring (fixed) */
};

/* Bytes hb_alloc() maps for @len bytes at @head_offset: whole folios. */
uint64_t hb_map_len(const struct hb_backing *b, uint64_t len,
		    uint64_t head_offset);
/* The knob that sizes the pool of @page_size (procfs for the default). */
void hb_pool_knob(uint64_t page_size, char *path, size_t len);
/*
 * Small checks, each named for its rule; 0 or -errno and one line in
 * hb_errmsg() naming the cause and the fix.
 */
int hb_check_pool(const struct hb_sysinfo *si, uint64_t page_size,
		  uint64_t map_len);
/* The kernel offers hugetlb pages of @page_size at all. */
int hb_check_hugepage_size(uint64_t page_size);
int hb_check_thp(const struct hb_sysinfo *si);
int hb_check_mthp(const struct hb_sysinfo *si, uint64_t size);
int hb_check_memlock(const struct hb_sysinfo *si, uint64_t charged_bytes);
/*
 * What registering the plan's buffers charges to RLIMIT_MEMLOCK under
 * @km (the accounting model over the pages the plan's layout pins).
 */
int hb_plan_charge(const struct hb_kmodel *km, const struct hb_plan *plan,
		   uint64_t *charged_bytes);
/* What the backing needs: pool (and NUMA policy), THP or mTHP. */
int hb_preflight_resources(const struct hb_sysinfo *si,
			   const struct hb_plan *plan);
/* Every check the plan needs: resources, then memlock when registered. */
int hb_preflight(const struct hb_sysinfo *si, const struct hb_kmodel *km,
		 const struct hb_plan *plan);
/*
 * O_DIRECT alignment for I/O on @path (or its directory): what statx's
 * STATX_DIOALIGN says (the larger of the memory and offset alignments),
 * else the logical block size of the device under it, else 512.  Buffer
 * addresses, offsets and lengths of direct I/O must be multiples of it.
 */
unsigned int hb_dio_align(const char *path);
/* @what (e.g. "head_offset") = @value must be a multiple of @align. */
int hb_check_dio_multiple(const char *what, uint64_t value,
			  unsigned int align);

#endif /* HUGEBUF_PREFLIGHT_H */
