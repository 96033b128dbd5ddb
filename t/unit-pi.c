// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/model/pi.c, the protection information the host
 * computes with PRACT clear (issue 45):
 *  - the two guards' CRCs give their catalogue check values over
 *    "123456789" (CRC-16/T10-DIF 0xd0db, CRC-64/NVME 0xae8b14860a799888),
 *    match a bit-at-a-time computation of the same polynomial over random
 *    buffers, and chain (the CRC of a buffer in two calls is the CRC of
 *    it in one);
 *  - for each format of the table (16b and 64b guard, tuple first or last
 *    in the metadata, separate and extended LBAs, types 1, 2 and 3) the
 *    tuples hb_pi_fill() writes sit where the format puts them, hold the
 *    tags, and hb_pi_verify() takes them; a changed data byte, metadata
 *    byte before the tuple, application or reference tag is the mismatch
 *    it reports with its LBA and field; the escape (application tag all
 *    ones, for type 3 with the reference tag all ones) turns an LBA's
 *    checks off.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"
#include "hugebuf-blk.h"

#define NLB	5
#define SLBA	0x1fffffffeULL	/* the reference tag wraps in 32 bits */

static uint16_t crc16_bitwise(const unsigned char *p, size_t len)
{
	uint16_t crc = 0;
	unsigned int b;

	while (len--) {
		crc ^= (uint16_t)(*p++ << 8);
		for (b = 0; b < 8; b++)
			crc = crc & 0x8000 ? (crc << 1) ^ 0x8bb7 : crc << 1;
	}
	return crc;
}

static uint64_t crc64_bitwise(const unsigned char *p, size_t len)
{
	uint64_t crc = ~0ULL;
	unsigned int b;

	while (len--) {
		crc ^= *p++;
		for (b = 0; b < 8; b++)
			crc = crc & 1 ? (crc >> 1) ^ 0x9a6c9329ac4bc9b5ULL :
					crc >> 1;
	}
	return ~crc;
}

static int test_crc(void)
{
	static const unsigned char check[] = "123456789";
	unsigned char buf[4096 + 7];
	unsigned int i, len;
	int ret = T_EXIT_PASS;

	if (hb_crc16_t10dif(0, check, 9) != 0xd0db)
		ret = t_fail_hex("CRC-16/T10-DIF of \"123456789\"", 0xd0db,
				 hb_crc16_t10dif(0, check, 9));
	if (hb_crc64_nvme(0, check, 9) != 0xae8b14860a799888ULL)
		ret = t_fail_hex("CRC-64/NVME of \"123456789\"",
				 0xae8b14860a799888ULL,
				 hb_crc64_nvme(0, check, 9));
	if (hb_crc16_t10dif(hb_crc16_t10dif(0, check, 4), check + 4, 5) !=
	    0xd0db || hb_crc64_nvme(hb_crc64_nvme(0, check, 4), check + 4,
				     5) != 0xae8b14860a799888ULL)
		ret = t_fail("the CRCs of \"1234\" then \"56789\" are not "
			     "those of \"123456789\"");
	if (hb_crc16_t10dif(0, check, 0) || hb_crc64_nvme(0, check, 0))
		ret = t_fail("the CRC of no bytes is not 0");
	srandom(45);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = random();
	for (len = 1; len <= sizeof(buf); len = len * 3 + 1) {
		if (hb_crc16_t10dif(0, buf, len) != crc16_bitwise(buf, len))
			ret = t_fail("CRC-16 of %u random bytes: table and "
				     "bits differ", len);
		if (hb_crc64_nvme(0, buf, len) != crc64_bitwise(buf, len))
			ret = t_fail("CRC-64 of %u random bytes: table and "
				     "bits differ", len);
	}
	return ret ? ret : t_pass();
}

struct pi_case {
	const char *name;
	struct hb_pi_fmt f;
};

static const struct pi_case cases[] = {
	{ "16b type 1, 8 bytes apart", { 12, 8, 1, false, false, false } },
	{ "16b type 1, 8 bytes extended", { 12, 8, 1, false, false, true } },
	{ "16b type 2, last of 16 apart", { 9, 16, 2, false, false, false } },
	{ "16b type 3, first of 16 apart", { 12, 16, 3, false, true, false } },
	{ "16b type 3, first of 64 extended", { 12, 64, 3, false, true,
						true } },
	{ "16b type 1, last of 64 extended", { 9, 64, 1, false, false,
					       true } },
	{ "64b type 1, 16 bytes apart", { 12, 16, 1, true, false, false } },
	{ "64b type 2, last of 64 extended", { 12, 64, 2, true, false,
					       true } },
	{ "64b type 3, first of 32 apart", { 9, 32, 3, true, true, false } },
};

struct pi_buf {
	unsigned char *data, *md;
	size_t dlen, mlen;
	struct hb_pi_io io;
};

static unsigned int tuple_len(const struct hb_pi_fmt *f)
{
	return f->guard64 ? 16 : 8;
}

/* LBA @i's data, metadata and tuple */
static unsigned char *data_of(const struct hb_pi_fmt *f, struct pi_buf *b,
			      unsigned int i)
{
	size_t lba = (size_t)1 << f->lba_shift;

	return b->data + i * (f->ext ? lba + f->ms : lba);
}

static unsigned char *md_of(const struct hb_pi_fmt *f, struct pi_buf *b,
			    unsigned int i)
{
	if (f->ext)
		return data_of(f, b, i) + ((size_t)1 << f->lba_shift);
	return b->md + i * f->ms;
}

static unsigned char *tuple_of(const struct hb_pi_fmt *f, struct pi_buf *b,
			       unsigned int i)
{
	return md_of(f, b, i) + (f->pi_first ? 0 : f->ms - tuple_len(f));
}

static uint64_t be(const unsigned char *p, unsigned int n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

static int pi_buf_make(const struct hb_pi_fmt *f, struct pi_buf *b)
{
	size_t i, lba = (size_t)1 << f->lba_shift;

	b->dlen = NLB * (f->ext ? lba + f->ms : lba);
	b->mlen = NLB * f->ms;
	b->data = malloc(b->dlen);
	b->md = malloc(b->mlen);
	if (!b->data || !b->md)
		return t_fail("out of memory");
	for (i = 0; i < b->dlen; i++)
		b->data[i] = random();
	for (i = 0; i < b->mlen; i++)
		b->md[i] = random();
	memset(&b->io, 0, sizeof(b->io));
	b->io.data = b->data;
	b->io.md = f->ext ? NULL : b->md;
	b->io.slba = SLBA;
	b->io.nlb = NLB;
	b->io.checks = HB_PI_GUARD | HB_PI_APPTAG | HB_PI_REFTAG;
	b->io.app_tag = 0x1234;
	b->io.app_mask = 0xffff;
	return T_EXIT_PASS;
}

/* the tuples where the format puts them, with the tags */
static int check_tuples(const struct pi_case *c, struct pi_buf *b)
{
	const struct hb_pi_fmt *f = &c->f;
	unsigned int g = f->guard64 ? 8 : 2, r = f->guard64 ? 6 : 4, i;
	uint64_t rmask = f->guard64 ? (1ULL << 48) - 1 : 0xffffffffULL;
	uint64_t guard;

	for (i = 0; i < NLB; i++) {
		unsigned char *t = tuple_of(f, b, i);
		unsigned char *d = data_of(f, b, i);
		size_t pre = f->pi_first ? 0 : f->ms - tuple_len(f);

		if (f->guard64)
			guard = hb_crc64_nvme(hb_crc64_nvme(0, d,
					(size_t)1 << f->lba_shift),
					md_of(f, b, i), pre);
		else
			guard = hb_crc16_t10dif(hb_crc16_t10dif(0, d,
					(size_t)1 << f->lba_shift),
					md_of(f, b, i), pre);
		if (be(t, g) != guard)
			return t_fail("%s: LBA %u's guard 0x%llx, computed "
				      "0x%llx", c->name, i,
				      (unsigned long long)be(t, g),
				      (unsigned long long)guard);
		if (be(t + g, 2) != 0x1234)
			return t_fail("%s: LBA %u's application tag 0x%llx",
				      c->name, i,
				      (unsigned long long)be(t + g, 2));
		if (f->type != 3 && be(t + g + 2, r) != ((SLBA + i) & rmask))
			return t_fail("%s: LBA %u's reference tag 0x%llx",
				      c->name, i,
				      (unsigned long long)be(t + g + 2, r));
	}
	return T_EXIT_PASS;
}

/* one byte changed at @p: the mismatch of @field at LBA @i, then undone */
static int expect_mismatch(const struct pi_case *c, struct pi_buf *b,
			   unsigned char *p, unsigned int i,
			   unsigned int field, const char *what)
{
	struct hb_pi_err err;
	int ret;

	*p ^= 0x10;
	memset(&err, 0, sizeof(err));
	ret = hb_pi_verify(&c->f, &b->io, &err);
	*p ^= 0x10;
	if (ret != -EILSEQ)
		return t_fail("%s: %s changed: verify returned %d, not "
			      "-EILSEQ", c->name, what, ret);
	if (err.lba != SLBA + i || err.field != field)
		return t_fail("%s: %s changed: mismatch at LBA 0x%llx field "
			      "%u, not 0x%llx field %u", c->name, what,
			      (unsigned long long)err.lba, err.field,
			      (unsigned long long)(SLBA + i), field);
	if (err.want == err.got)
		return t_fail("%s: %s changed: want and got both 0x%llx",
			      c->name, what, (unsigned long long)err.want);
	return T_EXIT_PASS;
}

static int expect_taken(const struct pi_case *c, struct pi_buf *b,
			const char *what)
{
	int ret = hb_pi_verify(&c->f, &b->io, NULL);

	if (ret)
		return t_fail("%s: %s: verify returned %d, not 0", c->name,
			      what, ret);
	return T_EXIT_PASS;
}

/*
 * The metadata around the tuple: bytes before it are in the guard, bytes
 * after it are not
 */
static int test_around_tuple(const struct pi_case *c, struct pi_buf *b)
{
	const struct hb_pi_fmt *f = &c->f;
	unsigned char *m = md_of(f, b, 1);
	int ret;

	if (f->ms == tuple_len(f))
		return T_EXIT_PASS;
	if (!f->pi_first)
		return expect_mismatch(c, b, m, 1, HB_PI_GUARD,
				       "a metadata byte before the tuple");
	m[tuple_len(f)] ^= 1;
	ret = expect_taken(c, b, "a metadata byte after the tuple changed");
	m[tuple_len(f)] ^= 1;
	return ret;
}

/*
 * The escape: an application tag of all ones turns the LBA's checks off
 * (types 1 and 2), for type 3 only with a reference tag of all ones
 */
static int test_escape(const struct pi_case *c, struct pi_buf *b)
{
	const struct hb_pi_fmt *f = &c->f;
	unsigned int g = f->guard64 ? 8 : 2, r = f->guard64 ? 6 : 4;
	unsigned char *t = tuple_of(f, b, 3), save[16];
	int ret;

	memcpy(save, t, tuple_len(f));
	memset(t + g, 0xff, 2);
	ret = T_EXIT_PASS;
	if (f->type == 3) {
		ret = expect_mismatch(c, b, data_of(f, b, 3), 3, HB_PI_GUARD,
				      "type 3, application tag escaped: data");
		memset(t + g + 2, 0xff, r);
	}
	data_of(f, b, 3)[5] ^= 1;
	if (!ret)
		ret = expect_taken(c, b, "escaped LBA with changed data");
	data_of(f, b, 3)[5] ^= 1;
	memcpy(t, save, tuple_len(f));
	return ret;
}

static int test_case(const struct pi_case *c)
{
	const struct hb_pi_fmt *f = &c->f;
	unsigned int g = f->guard64 ? 8 : 2;
	struct hb_pi_fmt bad = c->f;
	struct pi_buf b;
	unsigned char *t;
	int ret;

	ret = pi_buf_make(f, &b);
	if (ret)
		goto out;
	ret = hb_pi_fill(f, &b.io);
	if (ret) {
		ret = t_fail("%s: fill returned %d", c->name, ret);
		goto out;
	}
	ret = check_tuples(c, &b);
	if (!ret)
		ret = expect_taken(c, &b, "what fill wrote");
	if (!ret)
		ret = expect_mismatch(c, &b, data_of(f, &b, 0), 0,
				      HB_PI_GUARD, "LBA 0's first data byte");
	if (!ret)
		ret = expect_mismatch(c, &b, data_of(f, &b, NLB - 1) +
				      ((size_t)1 << f->lba_shift) - 1,
				      NLB - 1, HB_PI_GUARD,
				      "the last LBA's last data byte");
	t = tuple_of(f, &b, 2);
	if (!ret)
		ret = expect_mismatch(c, &b, t, 2, HB_PI_GUARD, "guard");
	if (!ret)
		ret = expect_mismatch(c, &b, t + g + 1, 2, HB_PI_APPTAG,
				      "application tag");
	if (!ret && f->type != 3)
		ret = expect_mismatch(c, &b, t + g + 3, 2, HB_PI_REFTAG,
				      "reference tag");
	if (!ret && f->type == 3) {
		/* type 3's reference tag is opaque */
		t[g + 3] ^= 1;
		ret = expect_taken(c, &b, "type 3's reference tag changed");
		t[g + 3] ^= 1;
	}
	/* only the application tag's bits in the mask are compared */
	b.io.app_mask = 0xff00;
	t[g + 1] ^= 1;
	if (!ret)
		ret = expect_taken(c, &b, "a masked application tag bit");
	t[g + 1] ^= 1;
	b.io.app_mask = 0xffff;
	if (!ret)
		ret = test_around_tuple(c, &b);
	if (!ret)
		ret = test_escape(c, &b);
	bad.ms = tuple_len(f) - 1;
	if (!ret && (hb_pi_fill(&bad, &b.io) != -EINVAL ||
		     hb_pi_verify(&bad, &b.io, NULL) != -EINVAL))
		ret = t_fail("%s: %u bytes of metadata, short of the tuple, "
			     "taken", c->name, bad.ms);
	if (!ret)
		ret = t_pass();
out:
	free(b.data);
	free(b.md);
	return ret;
}

int main(void)
{
	int ret = t_sub(test_crc());
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++)
		ret = t_worst(ret, t_sub(test_case(&cases[i])));
	return t_done(ret);
}
