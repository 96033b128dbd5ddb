// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: hb_model_import_vec() (io_vec_fill_bvec(), 6.15)
 * against a walk of the registered table.  For every fuzzed set of
 * iovecs inside the buffer, each bvec the model builds must start at the
 * physical byte (folio, byte in folio) the walk finds for that byte of
 * the iovec, never cross its folio's end, and the bvecs must add up to
 * the iovecs; iovecs outside the buffer or empty are -EFAULT with a
 * one-line message, and kernels before 6.15 refuse the opcode.  Tables
 * come from allocation recipes (hb_layout_synth) or fuzzed page arrays.
 */
#include <errno.h>

#include "fuzz.h"

#define FZ_MAX_IOV	8

static struct hb_page pages[FZ_MAX_PAGES];
static struct hb_bvec bvec[FZ_MAX_PAGES];
static struct hb_bvec out[FZ_MAX_IOV * (FZ_MAX_PAGES + 2)];
static uint64_t prefix[FZ_MAX_PAGES + 1];

/* physical byte of buffer offset @b: (folio, byte in folio) by the walk */
static void walk(const struct hb_imu *imu, uint64_t b, uint64_t *folio,
		 uint64_t *byte)
{
	unsigned int j;
	uint64_t pos;

	fz_locate(prefix, imu->nr_bvecs, b, &j, &pos);
	*folio = imu->bvec[j].folio;
	*byte = ((uint64_t)imu->bvec[j].page_idx << 12) +
		imu->bvec[j].offset + pos;
}

static void check_vec(const struct hb_kmodel *km, const struct hb_imu *imu,
		      const struct iovec *iov, unsigned int nr, bool inside)
{
	uint64_t folio = 1ULL << imu->folio_shift, sum = 0, fw, bw;
	struct hb_vimport vi;
	unsigned int i, k = 0;
	int ret;

	ret = hb_model_import_vec(km, imu, iov, nr, out,
				  sizeof(out) / sizeof(out[0]), &vi);
	if (!km->vec_fixed) {
		if (ret != -EOPNOTSUPP)
			fz_finding("kernel %s has no READV_FIXED, model %d",
				   km->name, ret);
		return;
	}
	if (!inside) {
		if (ret != -EFAULT)
			fz_finding("iovecs outside the buffer or empty: %d",
				   ret);
		if (strchr(hb_errmsg(), '\n'))
			fz_finding("multi-line message: %s", hb_errmsg());
		return;
	}
	if (ret)
		fz_finding("kernel %s refused iovecs inside the buffer: %s",
			   km->name, hb_errmsg());
	for (i = 0; i < nr; i++) {
		uint64_t o;

		for (o = 0; o < iov[i].iov_len; o += out[k++].len) {
			uint64_t b = (uintptr_t)iov[i].iov_base - imu->ubuf + o;
			uint64_t got = ((uint64_t)out[k].page_idx << 12) +
				       out[k].offset;

			if (k >= vi.nr_bvecs || !out[k].len)
				fz_finding("iovec %u ran out of bvecs at +%llu",
					   i, (unsigned long long)o);
			if ((got & (folio - 1)) + out[k].len > folio)
				fz_finding("bvec %u crosses its folio: +0x%llx "
					   "len 0x%x, folio 0x%llx", k,
					   (unsigned long long)got, out[k].len,
					   (unsigned long long)folio);
			walk(imu, b, &fw, &bw);
			if (fw != out[k].folio || bw != got)
				fz_finding("kernel %s: iovec %u +%llu: model "
					   "folio %llu byte 0x%llx, walk folio "
					   "%llu byte 0x%llx", km->name, i,
					   (unsigned long long)o,
					   (unsigned long long)out[k].folio,
					   (unsigned long long)got,
					   (unsigned long long)fw,
					   (unsigned long long)bw);
		}
		sum += iov[i].iov_len;
	}
	if (k != vi.nr_bvecs || sum != vi.len)
		fz_finding("%u bvecs / %llu bytes walked, model %u / %llu", k,
			   (unsigned long long)sum, vi.nr_bvecs,
			   (unsigned long long)vi.len);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct iovec iov[FZ_MAX_IOV];
	struct hb_kmodel km;
	struct hb_imu imu;
	unsigned int j, n, nr;
	bool inside = true;

	fz_kmodel(&in, &km);
	fz_build(&km, &in, true, pages, bvec, &imu);
	prefix[0] = 0;
	for (j = 0; j < imu.nr_bvecs; j++)
		prefix[j + 1] = prefix[j] + imu.bvec[j].len;
	/* tables that do not add up (6.12 - 6.15 vaddr bug): not walkable */
	if (prefix[imu.nr_bvecs] != imu.len)
		return 0;
	/* before e1d7727b73a1 only a congruent buffer imports right */
	if (!km.vec_offset_from_bvec &&
	    ((imu.ubuf & ((1ULL << imu.folio_shift) - 1)) !=
	     ((uint64_t)imu.bvec[0].page_idx << 12) + imu.bvec[0].offset))
		return 0;
	nr = fz_u8(&in) % FZ_MAX_IOV + 1;
	for (n = 0; n < nr; n++) {
		uint8_t kind = fz_u8(&in);
		uint64_t off = fz_bytes(&in, 3) % imu.len;
		uint64_t len = fz_bytes(&in, 3) % (imu.len - off) + 1;

		if (kind % 16 == 0) {
			len = 0;	/* empty: refused */
			inside = false;
		} else if (kind % 16 == 1) {
			len = imu.len - off + 1;	/* one byte past */
			inside = false;
		}
		iov[n].iov_base = (void *)(uintptr_t)(imu.ubuf + off);
		iov[n].iov_len = len;
	}
	check_vec(&km, &imu, iov, nr, inside);
	return 0;
}
