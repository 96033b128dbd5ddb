/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/resource/, layer 3: what a job takes from the system, checked,
 * made and measured: preflight, allocation, backings, registration, the
 * folio probe and the ring's features.  Private: includes only the
 * layers below and the public headers.
 */
#ifndef HB_RESOURCE_H
#define HB_RESOURCE_H

#include "model/model.h"
#include "sysread/sysread.h"

/* ------------------------------------------------------------------ */
/* preflight: what a buffer set needs, checked before allocating       */
/* ------------------------------------------------------------------ */

/*
 * A buffer set: one mapping of @backing holding @nr_iov buffers.  The
 * iovecs' iov_base are OFFSETS from the start of the mapping (which
 * hb_alloc() aligns to hb_backing_align()), not addresses.
 */
struct hb_bufset {
	struct hb_backing backing;
	uint64_t map_len;		/* hbi_map_len() of the allocation */
	const struct iovec *iov;	/* buffers, as offsets into the map */
	unsigned int nr_iov;
	bool registered;		/* registered with io_uring (fixed) */
};

/* Bytes hb_alloc() maps for @len bytes at @head_offset: whole folios. */
uint64_t hbi_map_len(const struct hb_backing *b, uint64_t len,
		    uint64_t head_offset);
/* The knob that sizes the pool of @page_size (procfs for the default). */
void hbi_pool_knob(uint64_t page_size, char *path, size_t len);
/*
 * Small checks, each named for its rule; 0 or -errno and one line in
 * hb_errmsg() naming the cause and the fix.
 */
int hbi_check_pool(const struct hb_sysinfo *si, uint64_t page_size,
		  uint64_t map_len);
/* The kernel offers hugetlb pages of @page_size at all. */
int hbi_check_hugepage_size(uint64_t page_size);
int hbi_check_thp(const struct hb_sysinfo *si);
int hbi_check_mthp(const struct hb_sysinfo *si, uint64_t size);
/*
 * What registering the set's buffers charges to RLIMIT_MEMLOCK under
 * @km (the accounting model over the pages the set's layout pins).
 */
int hbi_bufset_charge(const struct hb_kmodel *km, const struct hb_bufset *set,
		   uint64_t *charged_bytes);
/* What the backing needs: pool (and NUMA policy), THP or mTHP. */
int hbi_preflight_resources(const struct hb_sysinfo *si,
			   const struct hb_bufset *set);
/* Every check the set needs: resources, then memlock when registered. */
int hbi_preflight(const struct hb_sysinfo *si, const struct hb_kmodel *km,
		 const struct hb_bufset *set);
/* @what (e.g. "head_offset") = @value must be a multiple of @align. */
int hbi_check_dio_multiple(const char *what, uint64_t value,
			  unsigned int align);

/* The page size of the hugetlbfs mount @path (or its directory) is on. */
int hbi_hugetlbfs_page_size(const char *path, uint64_t *size);

/*
 * lib/resource/scatter.c: fault the 4k mapping [@map, + @len) in so that
 * no two neighbouring pages get neighbouring frames (contig=scattered)
 */
int hbi_fault_scattered(char *map, size_t len);

/*
 * lib/resource/probe.c: the /proc files hb_probe() reads, opened once for the
 * buffers of one analysis (-1: not open, each probe tries again).
 */
struct hb_probe_files {
	int pagemap;
	int kpageflags;
};
void hbi_probe_files_open(struct hb_probe_files *f);
void hbi_probe_files_close(struct hb_probe_files *f);
/* hb_probe() through @f's files */
int hbi_probe_with(const struct hb_probe_files *f, const void *addr,
		  uint64_t len, const struct hb_backing *recipe,
		  struct hb_probe *p);

/* ------------------------------------------------------------------ */
/* registration helpers over liburing                                   */
/* ------------------------------------------------------------------ */

struct io_uring;

/* The message for a registration errno (negative or positive). */
const char *hbi_register_strerror(int err);

/* ------------------------------------------------------------------ */
/* measurement: block requests and kernel memory of registrations      */
/* ------------------------------------------------------------------ */




#endif /* HB_RESOURCE_H */
