// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/model/layout.c: where the engine puts its io_us.  Slot i sits
 * at head_offset + i * stride; the stride is the block size rounded up to
 * the folio (or a power of two below it, which divides the folio), so no
 * buffer straddles a folio it does not need; regions hold as many slots as
 * fit the kernel's 1 GiB per-buffer limit (io_buffer_validate).
 */
#include <stdlib.h>

#include "helpers.h"

static int test_stride(void)
{
	static const struct hb_backing h2m = { .kind = HB_BACKING_HUGETLB,
						 .folio_size = 2ULL << 20 };
	static const struct hb_backing k4 = { .kind = HB_BACKING_4K,
						.folio_size = 4096 };
	static const struct {
		const struct hb_backing *b;
		uint64_t bs, stride;
	} c[] = {
		{ &h2m, 4096, 4096 },
		{ &h2m, 4097, 8192 },
		{ &h2m, 3 << 10, 4096 },
		{ &h2m, 384 << 10, 512 << 10 },
		{ &h2m, 2 << 20, 2 << 20 },
		{ &h2m, (8 << 20) + 4096, 10 << 20 },
		{ &k4, 4096, 4096 },
		{ &k4, 8 << 20, 8 << 20 },
		{ &k4, (8 << 20) + 512, (8 << 20) + 4096 },
	};
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(c); i++) {
		uint64_t got = hb_slot_stride(c[i].b, c[i].bs);

		if (got != c[i].stride)
			return t_fail("stride of bs %llu on %llu folios: %llu, "
				      "expected %llu",
				      (unsigned long long)c[i].bs,
				      (unsigned long long)c[i].b->folio_size,
				      (unsigned long long)got,
				      (unsigned long long)c[i].stride);
	}
	return T_EXIT_PASS;
}

static int test_regions(void)
{
	struct iovec *iov;
	unsigned int nr, k;

	if (hb_slots_per_region(8 << 20, 1000) != 128)
		return t_fail("8M slots per 1G region: %u",
			      hb_slots_per_region(8 << 20, 1000));
	if (hb_slots_per_region(8 << 20, 16) != 16)
		return t_fail("region capped at the slot count");
	if (hb_slots_per_region(2ULL << 30, 4) != 1)
		return t_fail("a slot over 1G still gets a region of its own");
	/* 300 slots of bs 7M every 8M, 128 per region: 128 + 128 + 44 */
	k = hb_slots_per_region(8 << 20, 300);
	if (hb_slot_iovecs(0x1000, 300, 8 << 20, 7 << 20, k, &iov, &nr))
		return t_fail("hb_slot_iovecs: %s", hb_errmsg());
	if (nr != 3 || (uintptr_t)iov[1].iov_base != 0x1000 + (1ULL << 30) ||
	    iov[0].iov_len != 127ULL * (8 << 20) + (7 << 20) ||
	    iov[2].iov_len != 43ULL * (8 << 20) + (7 << 20)) {
		free(iov);
		return t_fail("region iovecs wrong: nr %u", nr);
	}
	free(iov);
	if (hb_slot_iovecs(0, 4, 4096, 4096, 1, &iov, &nr) || nr != 4 ||
	    (uintptr_t)iov[3].iov_base != 3 * 4096)
		return t_fail("per-io iovecs wrong");
	free(iov);
	if (!hb_slot_iovecs(0, 4, 4096, 8192, 1, &iov, &nr))
		return t_fail("a slot longer than the stride was accepted");
	return T_EXIT_PASS;
}

/* vectored cuts: contiguous, covering, aligned, shifted into folios */
static int test_vec_split(void)
{
	struct iovec iov[8];
	char *base = (char *)0x200000;
	unsigned int n, i;
	uint64_t at;

	n = hb_vec_split(base, 8 << 20, 4, 0, 512, iov);
	if (n != 4 || iov[1].iov_base != base + (2 << 20) ||
	    iov[3].iov_len != 2 << 20)
		return t_fail("8M in 4: %u iovecs", n);
	n = hb_vec_split(base, 8 << 20, 4, 4096, 512, iov);
	if (n != 4 || iov[0].iov_len != (2 << 20) + 4096 ||
	    iov[3].iov_len != (2 << 20) - 4096)
		return t_fail("8M in 4 shifted 4K: %u iovecs, first %zu", n,
			      iov[0].iov_len);
	for (i = 0, at = 0; i < n; i++) {
		if ((uintptr_t)iov[i].iov_base != (uintptr_t)base + at ||
		    at % 512)
			return t_fail("iovec %u not contiguous or aligned", i);
		at += iov[i].iov_len;
	}
	if (at != 8 << 20)
		return t_fail("iovecs cover %llu bytes", (unsigned long long)at);
	/* more cuts than 512-byte units: the empty ones are dropped */
	n = hb_vec_split(base, 1024, 8, 0, 512, iov);
	if (n != 2 || iov[0].iov_len != 512 || iov[1].iov_len != 512)
		return t_fail("1K in 8 at 512: %u iovecs", n);
	n = hb_vec_split(base, 100, 1, 0, 512, iov);
	if (n != 1 || iov[0].iov_len != 100)
		return t_fail("one iovec");
	return T_EXIT_PASS;
}

int main(void)
{
	int ret = t_sub(test_stride());

	ret = t_worst(ret, t_sub(test_regions()));
	return t_done(t_worst(ret, t_sub(test_vec_split())));
}
