// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: hb_model_import() (io_import_fixed()) against a walk
 * of the bvec table.  The table comes from hb_model_register() over a
 * fuzzed page array or an allocation recipe (hb_layout_synth()); for each
 * fuzzed I/O the walk sums bv_len to find the bvec and offset of the
 * I/O's first and last byte.  The model must agree on the start, count
 * exactly the bvecs the walk touches, never let the kernel's nr_segs
 * undercount (80c7378f94cf), make it exact since 6.15, start an I/O at
 * exactly bvec[0].bv_len at bvec 1 offset 0 (d6fef34ee4d1), and refuse
 * every I/O not inside the buffer with -EFAULT and a one-line message,
 * and import a zero-length I/O (its end included) as nothing.
 */
#include <errno.h>

#include "fuzz.h"

static struct hb_page pages[FZ_MAX_PAGES];
static struct hb_bvec bvec[FZ_MAX_PAGES];
static uint64_t prefix[FZ_MAX_PAGES + 1];

static void locate(const struct hb_imu *imu, uint64_t b, unsigned int *j,
		   uint64_t *pos)
{
	fz_locate(prefix, imu->nr_bvecs, b, j, pos);
}

static void check_io(const struct hb_kmodel *km, const struct hb_imu *imu,
		     uint64_t off, uint64_t len)
{
	unsigned int j0, j1;
	uint64_t p0, p1;
	struct hb_import im;
	int ret;

	ret = hb_model_import(km, imu, imu->ubuf + off, len, &im);
	if (ret)
		fz_finding("kernel %s: I/O +%llu len %llu in a buffer of %llu "
			   "refused: %s", km->name, (unsigned long long)off,
			   (unsigned long long)len,
			   (unsigned long long)imu->len, hb_errmsg());
	locate(imu, off, &j0, &p0);
	locate(imu, off + len - 1, &j1, &p1);
	if (im.bvec_idx != j0 || im.iov_offset != p0)
		fz_finding("kernel %s: I/O +%llu len %llu: model starts at "
			   "bvec %u +%llu, the walk at bvec %u +%llu "
			   "(%u bvecs, shift %u)", km->name,
			   (unsigned long long)off, (unsigned long long)len,
			   im.bvec_idx, (unsigned long long)im.iov_offset, j0,
			   (unsigned long long)p0, imu->nr_bvecs,
			   imu->folio_shift);
	if (im.nr_segs_exact != j1 - j0 + 1)
		fz_finding("kernel %s: I/O +%llu len %llu: model %u segments, "
			   "the walk %u", km->name, (unsigned long long)off,
			   (unsigned long long)len, im.nr_segs_exact,
			   j1 - j0 + 1);
	if (im.nr_segs_kernel < im.nr_segs_exact)
		fz_finding("kernel %s: I/O +%llu len %llu: nr_segs %u "
			   "undercounts %u", km->name, (unsigned long long)off,
			   (unsigned long long)len, im.nr_segs_kernel,
			   im.nr_segs_exact);
	if (km->exact_nr_segs && im.nr_segs_kernel != im.nr_segs_exact)
		fz_finding("kernel %s: I/O +%llu len %llu: nr_segs %u, exact "
			   "%u (shift %u, bvec0 +0x%x len 0x%x)", km->name,
			   (unsigned long long)off, (unsigned long long)len,
			   im.nr_segs_kernel, im.nr_segs_exact,
			   imu->folio_shift, imu->bvec[0].offset,
			   imu->bvec[0].len);
}

/*
 * A zero-length I/O anywhere inside the buffer, its very end included,
 * imports nothing and reads no bvec (111a12b422a8: io_import_fixed() read
 * past the table for one at the end).
 */
static void check_empty(const struct hb_kmodel *km, const struct hb_imu *imu,
			uint64_t off)
{
	struct hb_import im;
	int ret = hb_model_import(km, imu, imu->ubuf + off, 0, &im);

	if (ret || im.nr_segs_exact || im.nr_segs_kernel)
		fz_finding("kernel %s: empty I/O at +%llu of %llu: %d, %u/%u "
			   "segments", km->name, (unsigned long long)off,
			   (unsigned long long)imu->len, ret, im.nr_segs_exact,
			   im.nr_segs_kernel);
}

static void check_outside(const struct hb_kmodel *km,
			  const struct hb_imu *imu, uint64_t addr,
			  uint64_t len)
{
	struct hb_import im;
	uint64_t end;
	bool inside;
	int ret;

	inside = !__builtin_add_overflow(addr, len, &end) &&
		 addr >= imu->ubuf && end <= imu->ubuf + imu->len;
	ret = hb_model_import(km, imu, addr, len, &im);
	if (!inside && ret != -EFAULT)
		fz_finding("I/O 0x%llx + %llu outside 0x%llx + %llu: %d",
			   (unsigned long long)addr, (unsigned long long)len,
			   (unsigned long long)imu->ubuf,
			   (unsigned long long)imu->len, ret);
	if (ret && strchr(hb_errmsg(), '\n'))
		fz_finding("multi-line message: %s", hb_errmsg());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct hb_kmodel km;
	struct hb_imu imu;
	unsigned int j, n;

	fz_kmodel(&in, &km);
	fz_build(&km, &in, false, pages, bvec, &imu);
	prefix[0] = 0;
	for (j = 0; j < imu.nr_bvecs; j++)
		prefix[j + 1] = prefix[j] + imu.bvec[j].len;
	/* the 6.12 - 6.15 vaddr-offset bug builds tables that do not add up */
	if (prefix[imu.nr_bvecs] != imu.len)
		return 0;
	for (n = 0; n < 16 && in.left; n++) {
		uint8_t kind = fz_u8(&in);
		uint64_t off, len;

		if (kind % 8 == 0) {
			check_outside(&km, &imu, fz_bytes(&in, 8),
				      fz_bytes(&in, 8));
			continue;
		}
		if (kind % 8 == 2) {
			check_empty(&km, &imu, fz_bytes(&in, 3) % (imu.len + 1));
			continue;
		}
		if (kind % 8 == 1) {
			/* at exactly the end of bvec[0] (#994) */
			off = imu.bvec[0].len;
			if (off >= imu.len)
				continue;
		} else {
			off = fz_bytes(&in, 3) % imu.len;
		}
		len = fz_bytes(&in, 3) % (imu.len - off) + 1;
		check_io(&km, &imu, off, len);
	}
	return 0;
}
