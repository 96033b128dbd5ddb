/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The reference coalescing model of the tests: what io_sqe_buffer_register()
 * builds for a page array, written from the kernel's rules on runs of
 * consecutive pages, independently of lib/model/model.c.  t/unit-model.c and the
 * fuzz target t/fuzz/fuzz-model.c both hold lib's model against it.
 *
 * Pure: depends on lib/include/hugebuf.h's types only (no helpers, no liburing), so
 * a fuzz target can link it alone.
 */
#ifndef HUGEBUF_T_REFMODEL_H
#define HUGEBUF_T_REFMODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hugebuf.h"

/* What the reference says registering [uaddr, uaddr + len) gives. */
struct t_ref {
	int err; /* 0, -EFAULT or -EOVERFLOW (validation) */
	uint64_t nr_pages; /* pages pinned */
	unsigned int nr_bvecs;
	unsigned int folio_shift;
	bool coalesced;
	uint64_t imu_bytes; /* header + 16 bytes per bvec */
	struct hb_bvec *bvec; /* caller's array, >= nr_pages entries */
};

/* Pages the buffer [uaddr, uaddr + len) spans (no validation). */
uint64_t t_ref_nr_pages(uint64_t uaddr, uint64_t len);
/* io_buffer_validate(): 0, -EFAULT or -EOVERFLOW. */
int t_ref_validate(uint64_t uaddr, uint64_t len);
/*
 * The table the kernel of @km builds for @pages (t_ref_nr_pages() of
 * them) registered at @uaddr: fills @ref, whose ->bvec the caller set.
 * Nothing else is filled in when ref->err is not 0.
 */
void t_ref_register(const struct hb_kmodel *km, const struct hb_page *pages,
		    uint64_t uaddr, uint64_t len, struct t_ref *ref);
/*
 * Whether @imu's table puts every byte of the buffer where @pages says
 * it lives, (folio, byte in folio); false with a one-line reason in @why.
 * 6.12 - 6.15 break this for folios mapped at non-congruent addresses
 * (fixed by 3a3c6d61577d): the callers skip it for HB_KGEN_MULTI.
 */
bool t_ref_bytes_match(const struct hb_imu *imu, const struct hb_page *pages,
		       char *why, size_t why_len);
/*
 * Lib's answer (@model_ret and @imu from hb_model_register() of the same
 * input) against the reference @ref: the validation result, the
 * coalescing decision, every bvec, the imu size and, except on
 * HB_KGEN_MULTI, the bytes.  0, or -1 with a one-line reason in @why.
 */
int t_ref_compare(const struct hb_kmodel *km, const struct hb_page *pages,
		  int model_ret, const struct hb_imu *imu,
		  const struct t_ref *ref, char *why, size_t why_len);

#endif /* HUGEBUF_T_REFMODEL_H */
