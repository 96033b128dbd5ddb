// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of hb_predict_requests(), the pure emulation of the block
 * layer split (bio_split_rw_at) of one READ_FIXED over a whole imu.
 * Expected counts are worked out by hand from the queue limits; the first
 * two are the measurements of docs/kernel-rules.md §9.1 on virtio-blk
 * (max_sectors_kb 4096, max_segments 254, max_segment_size 4G): 8 MiB from
 * 2 MiB bvecs = 2 requests, from 4 KiB bvecs = 9 (254 x 4 KiB = 1016 KiB
 * per request).
 */
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define SZ_64K		(64ULL << 10)
#define SZ_4M		(4ULL << 20)
#define SZ_16M		(16ULL << 20)
#define SEG_4G		0xffffffffULL

/* An imu of @len bytes starting @off into folios of @folio bytes. */
static struct hb_imu *make_imu(uint64_t folio, uint64_t off, uint64_t len)
{
	uint64_t nr = (off + len + folio - 1) / folio, i, left = len;
	struct hb_imu *imu = calloc(1, sizeof(*imu));

	if (!imu)
		return NULL;
	imu->bvec = calloc(nr, sizeof(*imu->bvec));
	if (!imu->bvec) {
		free(imu);
		return NULL;
	}
	imu->nr_bvecs = nr;
	imu->len = len;
	for (i = 0; i < nr; i++) {
		uint64_t o = i ? 0 : off;
		uint64_t l = folio - o < left ? folio - o : left;

		imu->bvec[i].folio = i;
		imu->bvec[i].offset = o;
		imu->bvec[i].len = l;
		left -= l;
	}
	return imu;
}

struct pcase {
	const char *what;
	uint64_t folio, off, len, max_bytes, max_seg;
	unsigned int max_segs, want;
};

static const struct pcase cases[] = {
	{ "8M of 2M bvecs, virtio-blk", T_SZ_2M, 0, 8 << 20, SZ_4M, SEG_4G,
	  254, 2 },
	{ "8M of 4K bvecs, virtio-blk", T_SZ_4K, 0, 8 << 20, SZ_4M, SEG_4G,
	  254, 9 },
	/* 254 pages exactly: one full request */
	{ "254 x 4K", T_SZ_4K, 0, 254 * 4096, SZ_4M, SEG_4G, 254, 1 },
	{ "255 x 4K", T_SZ_4K, 0, 255 * 4096, SZ_4M, SEG_4G, 254, 2 },
	/* split in the middle of bvec 2 at 4M; the rest fits in 4M */
	{ "8M of 2M at +0x1234", T_SZ_2M, 0x1234, 8 << 20, SZ_4M, SEG_4G,
	  254, 2 },
	/* 64K segments: a 2M bvec is 32 of them; 128 per request = 8M */
	{ "16M of 2M, 64K segments", T_SZ_2M, 0, 16 << 20, SZ_16M, SZ_64K,
	  128, 2 },
	{ "8M of 2M, 64K segments", T_SZ_2M, 0, 8 << 20, SZ_16M, SZ_64K, 128,
	  1 },
	/* one 1G bvec, 4M per request */
	{ "1G folio", T_SZ_1G, 0, T_SZ_1G, SZ_4M, SEG_4G, 254, 256 },
	{ "1G of 2M bvecs", T_SZ_2M, 0, T_SZ_1G, SZ_4M, SEG_4G, 254, 256 },
};

/* how a case lays out its PFNs, for the messages */
static const char *pfns_word(bool adjacent)
{
	if (adjacent)
		return "adjacent";
	return "apart";
}

/*
 * Before 5.12 (fixed_bio_add_page, c42bca92be92) a fixed I/O's bio is
 * filled through bio_add_page(): physically adjacent pages merge, a bio
 * holds 256 bvecs.  8 MiB of 4 KiB pages on virtio-blk's limits:
 *  - PFNs apart: 8 bios of 256 bvecs, each split 254 + 2 (the tail of
 *    one cannot take the next bio's 254 segments): 16 requests, where
 *    6.1 hands one bio the 2048 bvecs: 9;
 *  - PFNs adjacent: one bvec, one bio, split by max_sectors: 2, where
 *    6.1 still counts a segment per bvec: 9.
 */
static int test_fixed_add_page(void)
{
	static const struct {
		const char *kernel;
		bool adjacent;
		unsigned int want;
	} cases[] = {
		{ "5.10.262", false, 16 }, { "5.10.262", true, 2 },
		{ "6.1.192", false, 9 }, { "6.1.192", true, 9 },
	};
	struct hb_queue_limits q = {
		.max_hw_bytes = SZ_4M,
		.max_segments = 254,
		.max_segment_size = SEG_4G,
	};
	const unsigned int n = 2048;
	struct hb_probe p = { .addr = 0x7f0000000000ULL,
			      .len = (uint64_t)n * 4096, .nr_pages = n };
	int ret = T_EXIT_PASS;
	unsigned int i, k;

	p.pages = calloc(n, sizeof(*p.pages));
	p.pfn = calloc(n, sizeof(*p.pfn));
	if (!p.pages || !p.pfn)
		return t_fail("out of memory");
	for (i = 0; i < n; i++)
		p.pages[i].folio = 0x1000 + 2 * i;
	for (k = 0; k < T_ARRAY_SIZE(cases); k++) {
		struct hb_req_pred rp;
		struct hb_kmodel km;

		for (i = 0; i < n; i++)
			p.pfn[i] = 0x1000 + i * (2 - cases[k].adjacent);
		if (hb_kmodel_parse(cases[k].kernel, &km) ||
		    hb_predict_io_requests(&km, &p, p.addr, p.len, &q, &rp)) {
			ret = t_fail("%s: no prediction: %s", cases[k].kernel,
				     hb_errmsg());
			continue;
		}
		if (rp.model != cases[k].want)
			ret = t_fail("%s, 8 MiB of 4 KiB pages, PFNs %s: %u "
				     "requests predicted, expected %u",
				     cases[k].kernel, pfns_word(cases[k].adjacent),
				     rp.model, cases[k].want);
		else
			t_pass();
	}
	free(p.pages);
	free(p.pfn);
	return ret;
}

int main(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i, got;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		const struct pcase *c = &cases[i];
		struct hb_imu *imu = make_imu(c->folio, c->off, c->len);

		if (!imu)
			return t_done(t_fail("out of memory"));
		got = hb_predict_requests(imu, c->max_bytes, c->max_segs,
					  c->max_seg);
		if (got != c->want)
			ret = t_fail("%s: %u requests predicted, expected %u",
				     c->what, got, c->want);
		else
			t_pass();
		free(imu->bvec);
		free(imu);
	}
	if (hb_predict_requests(NULL, SZ_4M, 254, SEG_4G) != 0)
		ret = t_fail("a NULL imu predicted requests");
	else
		t_pass();
	ret = t_worst(ret, test_fixed_add_page());
	return t_done(ret);
}
