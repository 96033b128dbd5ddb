/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/model/, layer 2: the pure model of the kernel (arrays in,
 * tables out; it reads nothing).  Private: includes only lib/base/ and
 * the public headers.
 */
#ifndef HB_MODEL_H
#define HB_MODEL_H

#include "base/base.h"

/*
 * Open addressing, grown at half full.  A key once stored keeps its slot
 * when its count falls to 0, so lookups stay correct without deletion: a
 * count of 0 is an absent key.
 */
struct hb_foliomap {
	uint64_t *key;
	uint64_t *val;
	bool *used;
	size_t cap, nr;
};

/* @folio's value, 0 when absent */
uint64_t hb_foliomap_get(const struct hb_foliomap *m, uint64_t folio);
/* @folio's slot in *@slot, made (value 0) when it has none */
int hb_foliomap_find(struct hb_foliomap *m, uint64_t folio, size_t *slot);
/*
 * add @delta to @folio's value, which never goes below 0; the new value
 * in *@count
 */
int hb_foliomap_add(struct hb_foliomap *m, uint64_t folio, int64_t delta,
		    uint64_t *count);
void hb_foliomap_free(struct hb_foliomap *m);

/*
 * lib/model/regcost.c's walk, one imu at a time (hb_analyze() feeds it the imus
 * it builds anyway; hb_model_register_cost() builds its own): init, an
 * add per buffer @k in registration order over its imu and pages, free.
 */
struct hb_reg_walk {
	const struct hb_kmodel *km;
	bool table_seen;	/* the scan reads the earlier buffers */
	bool carry_last;	/* *last_hpage spans the buffers */
	/* folio -> 1 + its first entry's index over all buffers so far */
	struct hb_foliomap first;
	/* folio -> (buffer + 1) << 32 | its first entry in that buffer */
	struct hb_foliomap mine;
	uint64_t before;	/* entries of the buffers before this one */
	bool have_last;
	uint64_t last;
	struct hb_reg_cost *cost;
};
void hb_reg_walk_init(struct hb_reg_walk *w, const struct hb_kmodel *km,
		      enum hb_reg_calls calls, struct hb_reg_cost *cost);
int hb_reg_walk_add(struct hb_reg_walk *w, unsigned int k,
		    const struct hb_imu *imu, const struct hb_page *pages,
		    uint64_t nr_pages);
void hb_reg_walk_free(struct hb_reg_walk *w);

/* ------------------------------------------------------------------ */
/* io_uring features: what a job uses, what the kernel has             */
/* ------------------------------------------------------------------ */

/* Features some supported kernels lack (lib/model/ringfeat.c has the table). */
enum hb_ufeat {
	HB_UF_CQSIZE,		/* SETUP_CQSIZE + CLAMP (5.6): required */
	HB_UF_DEFER_TASKRUN,	/* SINGLE_ISSUER + DEFER_TASKRUN (6.1) */
	HB_UF_RING_FD,		/* REGISTER_RING_FDS (5.18) */
	HB_UF_FILES_SPARSE,	/* RSRC_REGISTER_SPARSE files (5.19) */
	HB_UF_URING_CMD,	/* OP_URING_CMD, SQE128, CQE32 (5.19) */
	HB_UF_CLONE_BUFFERS,	/* REGISTER_CLONE_BUFFERS (6.12) */
	HB_UF_READV_FIXED,	/* OP_READV_FIXED / WRITEV_FIXED (6.15) */
	HB_UF_DONTCACHE,	/* RWF_DONTCACHE buffered I/O (6.14) */
	HB_UF_NR
};
#define HB_UF_BIT(f)		(1U << (f))
#define HB_UF_ALL		((1U << HB_UF_NR) - 1)
#define HB_UF_LINE_MAX		320

/* How the job wants a feature. */
enum hb_uf_want {
	HB_UF_NOT_USED = 0,
	HB_UF_BY_DEFAULT,	/* used where the kernel has it */
	HB_UF_ASKED,		/* the job's options ask for it */
};

/* What the engine does about it. */
enum hb_uf_act {
	HB_UF_OFF = 0,		/* not used */
	HB_UF_USE,		/* the kernel has it */
	HB_UF_FALLBACK,		/* not asked for, missing: line[] says what */
	HB_UF_REFUSE,		/* asked for (or required), missing: error */
};

struct hb_uf_job {
	unsigned char want[HB_UF_NR];		/* enum hb_uf_want */
	/* the option that asks, as the job wrote it ("vec_iovecs=4") */
	const char *asked_by[HB_UF_NR];
};

struct hb_uf_decision {
	unsigned char act[HB_UF_NR];		/* enum hb_uf_act */
	unsigned int nr_fallbacks, nr_refused;
	char line[HB_UF_NR][HB_UF_LINE_MAX];	/* FALLBACK / REFUSE only */
};

/*
 * The one decision (pure): @have is the kernel's HB_UF_BIT()s, @kernel its
 * release for the lines.  0, or -EOPNOTSUPP with the first refusal's line
 * in hb_errmsg(); every fallback and refusal has its line in @d.
 */
int hb_uf_decide(const struct hb_uf_job *job, unsigned int have,
		 const char *kernel, struct hb_uf_decision *d);
/* The kernel's name for @f, and the upstream release that added it. */
const char *hb_uf_feature(enum hb_ufeat f);
void hb_uf_release(enum hb_ufeat f, int *major, int *minor);
/* The features upstream @major.@minor has (pure). */
unsigned int hb_uf_upto(int major, int minor);

/* ------------------------------------------------------------------ */
/* layout: where the I/O buffers sit in one mapping                     */
/* ------------------------------------------------------------------ */

/*
 * Distance between I/O slots for a largest block of @max_bs: rounded up
 * to the folio size, or (below a folio) to a power of two, which divides
 * the folio, so no buffer straddles a folio it does not need.
 */
uint64_t hb_slot_stride(const struct hb_backing *b, uint64_t max_bs);
/* Slots per registered region: as many as fit 1 GiB, at most @nr_slots */
unsigned int hb_slots_per_region(uint64_t stride, unsigned int nr_slots);
/*
 * The iovecs that cover @nr_slots slots @stride apart, each @slot_len
 * long, @per_iov slots to an iovec (1: one buffer per slot, as fio's
 * io_uring engine registers them).  iov_base = @base + offset, so base 0
 * gives offsets for a plan.  *iov is malloc'd.
 */
int hb_slot_iovecs(uintptr_t base, unsigned int nr_slots, uint64_t stride,
		   uint64_t slot_len, unsigned int per_iov, struct iovec **iov,
		   unsigned int *nr);

/*
 * Cut [@addr, @addr + @len) into at most @n contiguous iovecs for one
 * vectored I/O: cut k sits at k * len / n rounded down to @align, moved
 * @shift bytes on (so cuts can start inside folios instead of on their
 * boundaries), and cuts that would leave an empty iovec are dropped.
 * Returns the number of iovecs written to @iov (at least 1).
 */
unsigned int hb_vec_split(void *addr, uint64_t len, unsigned int n,
			  uint64_t shift, unsigned int align, struct iovec *iov);

#endif /* HB_MODEL_H */
