// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which registered-buffer behaviour a kernel release has.
 *
 * The generations follow io_uring/rsrc.c upstream:
 *   < 6.3        one bvec per pinned page
 *   6.3 - 6.11   57bebf807e2a: a buffer inside one folio becomes one bvec
 *   6.12 - 6.15  a8edbb424b13: one bvec per folio, first offset taken from
 *                the user address (uaddr & (folio_size - 1))
 *   6.16+        3a3c6d61577d: first offset from the first page's index
 *                inside its folio; also in stable 6.12.y/6.15.y releases,
 *                which a version number alone cannot tell apart: use
 *                HUGEBUF_KERNEL=6.16 for such a kernel.
 * Independent of the generation: io_import_fixed() computes an exact
 * nr_segs since 6.15 (80c7378f94cf and friends), and struct io_mapped_ubuf
 * grew from 32 to 56 bytes of header with the kernel-buffer (ublk) fields,
 * together with a cache for imus of at most 32 bvecs (IO_CACHED_BVECS_SEGS).
 * Before 6.5 io_pin_pages() asked pin_user_pages() for the VMAs and
 * refused a buffer whose VMAs map different files (edd478269640, 6.3 and
 * 6.1.y stable); 6.5 left the file-backed check to GUP's FOLL_LONGTERM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* sizeof(struct io_mapped_ubuf) before the ublk fields (6.1 - 6.14) */
#define IMU_HEADER_OLD		32
/* mainline: + release, priv, flags/is_kbuf, dir */
#define IMU_HEADER_NEW		56
#define IMU_CACHE_BVECS		32

static bool version_before(int major, int minor, int vmaj, int vmin)
{
	return major < vmaj || (major == vmaj && minor < vmin);
}

void hb_kmodel_for_version(int major, int minor, struct hb_kmodel *km)
{
	memset(km, 0, sizeof(*km));
	if (version_before(major, minor, 6, 3))
		km->gen = HB_KGEN_NONE;
	else if (version_before(major, minor, 6, 12))
		km->gen = HB_KGEN_SINGLE;
	else if (version_before(major, minor, 6, 16))
		km->gen = HB_KGEN_MULTI;
	else
		km->gen = HB_KGEN_MULTI_FIXED;

	km->pin_checks_vmas = version_before(major, minor, 6, 5);
	km->acct_batch_dedup = version_before(major, minor, 6, 13);
	km->vec_fixed = !version_before(major, minor, 6, 15);
	km->vec_offset_from_bvec = !version_before(major, minor, 6, 16);
	if (version_before(major, minor, 6, 15)) {
		km->imu_header = IMU_HEADER_OLD;
	} else {
		km->imu_header = IMU_HEADER_NEW;
		km->exact_nr_segs = true;
		km->imu_cache_bvecs = IMU_CACHE_BVECS;
	}
	snprintf(km->name, sizeof(km->name), "%d.%d", major, minor);
}

/*
 * Debian 6.1 with kernel/patches: the 6.16 coalescing rules, the 6.1
 * header (folio_shift sits in the padding after nr_bvecs), the 6.1
 * nr_segs over-estimate in io_import_fixed(), and bvec[0] on the page
 * pinned for the first byte (6.1 has no unpin_user_folio(); see
 * kernel/patches/0003).
 */
static void kmodel_backport(struct hb_kmodel *km)
{
	memset(km, 0, sizeof(*km));
	km->gen = HB_KGEN_MULTI_FIXED;
	km->imu_header = IMU_HEADER_OLD;
	km->pin_checks_vmas = true;
	km->first_bvec_pinned_page = true;
	km->acct_batch_dedup = true;
	snprintf(km->name, sizeof(km->name), "6.1+hugebuf");
}

static int parse_version(const char *s, int *major, int *minor)
{
	char *end;
	long a, b;

	/* strtol() would take blanks and a sign: a version starts "N." */
	if (*s < '0' || *s > '9')
		return -1;
	a = strtol(s, &end, 10);
	if (end == s || *end != '.' || a < 2 || a > 99)
		return -1;
	s = end + 1;
	if (*s < '0' || *s > '9')
		return -1;
	b = strtol(s, &end, 10);
	if (end == s || b < 0 || b > 999)
		return -1;
	/*
	 * "6.1.192", "6.18.44-fc-v657", "6.8.0+" (a dirty build): the rest is
	 * ignored; any other "+suffix" is a typo of "6.1+hugebuf".
	 */
	if (*end == '+' && end[1])
		return -1;
	if (*end && *end != '.' && *end != '-' && *end != '+')
		return -1;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

/* "6.1+hugebuf", or with the sublevel: "6.1.192+hugebuf" */
static bool is_backport(const char *s)
{
	const char *plus = strchr(s, '+');
	size_t n;

	if (!plus || strcmp(plus, "+hugebuf"))
		return false;
	n = (size_t)(plus - s);
	if (n == 3)
		return !strncmp(s, "6.1", 3);
	return n > 4 && !strncmp(s, "6.1.", 4) &&
	       strspn(s + 4, "0123456789") == n - 4;
}

int hb_kmodel_parse(const char *s, struct hb_kmodel *km)
{
	int major, minor;

	if (s && is_backport(s)) {
		kmodel_backport(km);
		return 0;
	}
	if (!s || parse_version(s, &major, &minor))
		return hb_seterr(EINVAL, "unknown kernel '%s': use a version "
				 "such as 6.1, 6.3, 6.12, 6.16, or 6.1+hugebuf",
				 s ? s : "");
	hb_kmodel_for_version(major, minor, km);
	return 0;
}

const char *hb_kgen_name(enum hb_kgen gen)
{
	switch (gen) {
	case HB_KGEN_NONE:
		return "none (one bvec per page, < 6.3)";
	case HB_KGEN_SINGLE:
		return "single-folio (6.3 - 6.11)";
	case HB_KGEN_MULTI:
		return "multi-folio, vaddr offset (6.12 - 6.15)";
	case HB_KGEN_MULTI_FIXED:
		return "multi-folio (6.16+)";
	}
	return "unknown";
}
