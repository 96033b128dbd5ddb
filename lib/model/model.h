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
uint64_t hbi_foliomap_get(const struct hb_foliomap *m, uint64_t folio);
/* @folio's slot in *@slot, made (value 0) when it has none */
int hbi_foliomap_find(struct hb_foliomap *m, uint64_t folio, size_t *slot);
/*
 * add @delta to @folio's value, which never goes below 0; the new value
 * in *@count
 */
int hbi_foliomap_add(struct hb_foliomap *m, uint64_t folio, int64_t delta,
		    uint64_t *count);
void hbi_foliomap_free(struct hb_foliomap *m);

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
void hbi_reg_walk_init(struct hb_reg_walk *w, const struct hb_kmodel *km,
		      enum hb_reg_calls calls, struct hb_reg_cost *cost);
int hbi_reg_walk_add(struct hb_reg_walk *w, unsigned int k,
		    const struct hb_imu *imu, const struct hb_page *pages,
		    uint64_t nr_pages);
void hbi_reg_walk_free(struct hb_reg_walk *w);

/* ------------------------------------------------------------------ */
/* io_uring features: what a job uses, what the kernel has             */
/* ------------------------------------------------------------------ */


/* ------------------------------------------------------------------ */
/* layout: where the I/O buffers sit in one mapping                     */
/* ------------------------------------------------------------------ */

/*
 * Distance between I/O slots for a largest block of @max_bs: rounded up
 * to the folio size, or (below a folio) to a power of two, which divides
 * the folio, so no buffer straddles a folio it does not need.
 */
uint64_t hbi_slot_stride(const struct hb_backing *b, uint64_t max_bs);
/* slots per registered region: as many as fit @max_len, at most @nr_slots */
unsigned int hbi_slots_per_region(uint64_t stride, unsigned int nr_slots,
				  uint64_t max_len);

/*
 * A kernel the harness built with one fix (kernel/kbuild.sh,
 * CONFIG_LOCALVERSION "-hbfix-NAME"): Debian's 6.1 with one patch of
 * kernel/patches/bugfix/ alone, or Debian's 7.3 with kernel/patches/
 * mainline ("sendzc").  @km, its version's model, gets what that fix
 * changes.  true when @release names such a fix for @km's version.
 */
bool hbi_kmodel_release_fix(const char *release, struct hb_kmodel *km);

#endif /* HB_MODEL_H */
