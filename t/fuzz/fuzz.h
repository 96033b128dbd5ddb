/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Shared pieces of the libFuzzer targets in t/fuzz/: a reader that turns
 * the fuzzer's bytes into numbers (zeros once the input runs out), a page
 * array generator, and the one way a target reports a finding.
 */
#ifndef HUGEBUF_FUZZ_H
#define HUGEBUF_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hugebuf.h"
#include "job/job.h"

#define FZ_PG		4096ULL
/* page arrays up to two 2M folios and a bit: enough for order 9 runs */
#define FZ_MAX_PAGES	1100

struct fz_in {
	const uint8_t *p;
	size_t left;
};

static inline uint64_t fz_bytes(struct fz_in *in, unsigned int n)
{
	uint64_t v = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		v <<= 8;
		if (in->left) {
			v |= *in->p++;
			in->left--;
		}
	}
	return v;
}

static inline uint8_t fz_u8(struct fz_in *in)
{
	return (uint8_t)fz_bytes(in, 1);
}

/* A finding: print what differs and abort, so libFuzzer saves the input. */
#define fz_finding(...)							\
	do {								\
		fprintf(stderr, "FINDING: " __VA_ARGS__);		\
		fputc('\n', stderr);					\
		abort();						\
	} while (0)

static const char *const fz_kernels[] = { "6.1", "6.3", "6.12", "6.15",
					  "6.16", "6.18", "6.1+hugebuf" };

static inline void fz_kmodel(struct fz_in *in, struct hb_kmodel *km)
{
	uint8_t k = fz_u8(in) % (sizeof(fz_kernels) / sizeof(fz_kernels[0]));

	if (hb_kmodel_parse(fz_kernels[k], km))
		fz_finding("hb_kmodel_parse(%s) failed: %s", fz_kernels[k],
			   hb_errmsg());
}

/*
 * @nr pages drawn from a universe of 8 folios whose orders come from the
 * input.  Each page byte says: follow the previous page inside its folio
 * (falling over to the next folio's page 0 at the end), jump to page k of
 * folio f, or repeat the previous page (the same page mapped twice).
 */
static inline void fz_pages(struct fz_in *in, struct hb_page *pages,
			    uint64_t nr)
{
	static const uint32_t orders[] = { 0, 1, 2, 3, 4, 9 };
	uint32_t order[8];
	uint64_t i;
	unsigned int f;

	for (f = 0; f < 8; f++)
		order[f] = orders[fz_u8(in) % 6];
	for (i = 0; i < nr; i++) {
		uint8_t b = fz_u8(in);
		struct hb_page *p = &pages[i];

		if (i && (b & 3) < 2) {
			*p = pages[i - 1];
			if (++p->idx >= (1U << p->order)) {
				f = (unsigned int)((p->folio + 1) & 7);
				p->folio = f;
				p->idx = 0;
				p->order = order[f];
			}
			continue;
		}
		if (i && (b & 3) == 3) {
			*p = pages[i - 1];
			continue;
		}
		f = (b >> 2) & 7;
		p->folio = f;
		p->order = order[f];
		p->idx = (uint32_t)((b >> 5) % (1U << order[f]));
		if (order[f] > 3)
			p->idx = (uint32_t)(fz_bytes(in, 2) %
					     (1U << order[f]));
	}
}

/*
 * A registered table from the input: an allocation recipe (aligned
 * folios of one size, a head offset; with @any_vaddr the user address
 * need not be congruent with the folio, as after mremap) or a fuzzed page
 * array.  @pages and @bvec hold FZ_MAX_PAGES entries.
 */
static inline void fz_build(const struct hb_kmodel *km, struct fz_in *in,
			    bool any_vaddr, struct hb_page *pages,
			    struct hb_bvec *bvec, struct hb_imu *imu)
{
	uint64_t off, len, uaddr, max, fs, head;

	if (fz_u8(in) & 1) {
		fs = FZ_PG << (fz_u8(in) % 10);
		head = fz_bytes(in, 3) % fs;
		max = FZ_MAX_PAGES * FZ_PG - head;
		len = fz_bytes(in, 3) % max + 1;
		uaddr = (1ULL << 40) + head;
		if (any_vaddr && (fz_u8(in) & 1))
			uaddr = (1ULL << 40) + head % FZ_PG;
		if (hb_layout_synth(fs, head, len, 7, pages))
			fz_finding("hb_layout_synth: %s", hb_errmsg());
	} else {
		off = fz_bytes(in, 2) % FZ_PG;
		uaddr = (1ULL << 40) + off;
		max = FZ_MAX_PAGES * FZ_PG - off;
		len = fz_bytes(in, 3) % max + 1;
		fz_pages(in, pages, hb_nr_pages(uaddr, len));
	}
	if (hb_model_register(km, pages, uaddr, len, bvec, imu))
		fz_finding("register: %s", hb_errmsg());
}

/*
 * The walk every target checks the model against: @prefix[j] is the
 * buffer offset where bvec j starts (the running sum of bv_len); buffer
 * byte @b lies in the last bvec starting at or before it.
 */
static inline void fz_locate(const uint64_t *prefix, unsigned int nr_bvecs,
			     uint64_t b, unsigned int *j, uint64_t *pos)
{
	unsigned int lo = 0, hi = nr_bvecs - 1;

	while (lo < hi) {
		unsigned int mid = (lo + hi + 1) / 2;

		if (prefix[mid] <= b)
			lo = mid;
		else
			hi = mid - 1;
	}
	*j = lo;
	*pos = b - prefix[lo];
}

#endif /* HUGEBUF_FUZZ_H */
