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

/* The page size of the hugetlbfs mount @path (or its directory) is on. */
int hb_hugetlbfs_page_size(const char *path, uint64_t *size);

/*
 * lib/resource/probe.c: the /proc files hb_probe() reads, opened once for the
 * buffers of one analysis (-1: not open, each probe tries again).
 */
struct hb_probe_files {
	int pagemap;
	int kpageflags;
};
void hb_probe_files_open(struct hb_probe_files *f);
void hb_probe_files_close(struct hb_probe_files *f);
/* hb_probe() through @f's files */
int hb_probe_with(const struct hb_probe_files *f, const void *addr,
		  uint64_t len, const struct hb_backing *recipe,
		  struct hb_probe *p);

/* ------------------------------------------------------------------ */
/* registration helpers over liburing                                   */
/* ------------------------------------------------------------------ */

struct io_uring;

/*
 * io_uring_register_buffers() with every errno turned into a message:
 * ENOMEM = RLIMIT_MEMLOCK (ulimit -l), EFAULT = over 1 GiB, zero length or
 * file-backed memory, EOVERFLOW = address wrap, EINVAL = too many buffers.
 */
int hb_register_buffers(struct io_uring *ring, const struct iovec *iov,
			unsigned int nr);
/*
 * Register a sparse table of @nr slots, then fill slots with updates.
 * Where the kernel has no sparse flag (before 5.19) the table is @nr
 * empty iovecs (NULL, 0), which 5.13+ and 5.10.162+ take as empty slots.
 */
int hb_register_sparse(struct io_uring *ring, unsigned int nr);
int hb_register_update(struct io_uring *ring, unsigned int off,
		       const struct iovec *iov, unsigned int nr);
/*
 * A ring of @entries whose registrations are charged (ctx->user set):
 * with CAP_IPC_LOCK the thread's effective set drops it for
 * io_uring_queue_init() and raises it again (capset() changes this
 * thread only).  *@checked: RLIMIT_MEMLOCK applies to the ring.  0, or -1
 * when no such ring could be made.
 */
int hb_ring_init_charged(struct io_uring *ring, unsigned int entries,
			 bool *checked);
/* The message for a registration errno (negative or positive). */
const char *hb_register_strerror(int err);

/* ------------------------------------------------------------------ */
/* measurement: block requests and kernel memory of registrations      */
/* ------------------------------------------------------------------ */


/*
 * Minimum over @tries of the reads completed on @dev for one O_DIRECT
 * READ_FIXED (@fixed, registered buffer @buf_index) or plain READ of @len
 * bytes at @file_off into @addr.  @fd must be open with O_DIRECT.
 */
int hb_count_read_requests(struct io_uring *ring, int fd, bool fixed,
			   int buf_index, void *addr, uint64_t len,
			   uint64_t file_off, const char *dev,
			   unsigned int tries, uint64_t *min_reqs);
/*
 * Register [addr, addr+len) @k times in one call, report the change of
 * SUnreclaim + VmallocUsed in KiB, unregister.  The ring must have no
 * buffers registered.
 */
int hb_measure_reg_kmem(struct io_uring *ring, void *addr, uint64_t len,
			unsigned int k, long *delta_kb);

/*
 * What the running kernel has, asked of it with small rings (setup flags,
 * register opcodes, the opcode probe), once per process.
 * $HUGEBUF_URING_FEATURES=X.Y hides what upstream X.Y did not have (a
 * test hook for the fallbacks; it never adds a feature).  0; 1 when no
 * ring can be set up at all (@have is HB_UF_ALL: nothing is judged, the
 * caller's own io_uring_setup() says why; hb_errmsg() has the reason);
 * -EINVAL with one line for a bad $HUGEBUF_URING_FEATURES.
 */
int hb_uf_probe(unsigned int *have);
/* The release hb_uf_probe() hides above ("" when none), for the lines. */
const char *hb_uf_hidden_above(void);

#endif /* HB_RESOURCE_H */
