// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model's view of a buffer (through lib/'s analysis call) and the
 * check that the modelled import lands where the probe says the bytes are.
 * See t/helpers.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers-priv.h"

/* ------------------------------------------------------------------ */
/* the model's view of a buffer                                         */
/* ------------------------------------------------------------------ */

int t_model_buffer(const void *addr, uint64_t len,
		   const struct hb_backing *recipe, struct t_model *m)
{
	struct iovec iov = { (void *)addr, len };
	struct hb_kmodel km;
	int ret;

	memset(m, 0, sizeof(*m));
	ret = hb_kmodel_running(&km);
	if (ret)
		return t_fail("kernel model: %s", hb_errmsg());
	/* lib's one probe -> model path; it owns the tables */
	ret = hb_analyze(&km, &iov, 1, recipe, 0, 0, HB_ANALYZE_KEEP, &m->a);
	if (ret)
		return t_fail("analysing the %llu-byte buffer at %p: %s",
			      (unsigned long long)len, addr, hb_errmsg());
	m->km = &m->a.km;
	m->probe = &m->a.probe[0];
	m->imu = &m->a.imu[0];
	m->bvec = m->imu->bvec;
	t_info("model %s (%s), probe %s: %u pages -> %u bvec(s), folio_shift "
	       "%u, %s; bvec[0] offset 0x%x len 0x%x",
	       m->km->name, hb_kgen_name(m->km->gen),
	       m->probe->source == HB_PROBE_KPAGEFLAGS ? "exact" : "degraded",
	       m->imu->nr_pages, m->imu->nr_bvecs, m->imu->folio_shift,
	       m->imu->coalesced ? "coalesced" : "not coalesced",
	       m->bvec[0].offset, m->bvec[0].len);
	return T_EXIT_PASS;
}

void t_model_free(struct t_model *m)
{
	hb_analysis_free(&m->a);
	memset(m, 0, sizeof(*m));
}

void t_model_print(const struct t_model *m, unsigned int max_lines)
{
	unsigned int i;

	for (i = 0; i < m->imu->nr_bvecs && i < max_lines; i++)
		t_info("bvec[%u]: folio 0x%llx page %u offset 0x%x len 0x%x", i,
		       (unsigned long long)m->bvec[i].folio,
		       m->bvec[i].page_idx, m->bvec[i].offset, m->bvec[i].len);
	if (m->imu->nr_bvecs > max_lines)
		t_info("... %u more bvecs", m->imu->nr_bvecs - max_lines);
}

int t_model_import(const struct t_model *m, uint64_t boff, uint64_t len,
		   struct hb_import *out)
{
	int ret = hb_model_import(m->km, m->imu, m->imu->ubuf + boff, len, out);

	if (ret)
		return t_fail("model import of [0x%llx, +0x%llx): %s",
			      (unsigned long long)boff, (unsigned long long)len,
			      hb_errmsg());
	return T_EXIT_PASS;
}

/* Where the model's table puts byte @off of bvec @i: (folio, byte). */
static void model_phys(const struct t_model *m, unsigned int i, uint64_t off,
		       uint64_t *folio, uint64_t *byte)
{
	const struct hb_bvec *bv = &m->bvec[i];

	*folio = bv->folio;
	*byte = ((uint64_t)bv->page_idx << HB_PAGE_SHIFT) + bv->offset + off;
}

/* Where the probe says buffer byte @boff really lives. */
static void probe_phys(const struct t_model *m, uint64_t boff, uint64_t *folio,
		       uint64_t *byte)
{
	uint64_t a = m->imu->ubuf + boff;
	uint64_t pg =
		((m->imu->ubuf & (HB_PAGE_SIZE - 1)) + boff) >> HB_PAGE_SHIFT;
	const struct hb_page *p = &m->probe->pages[pg];

	*folio = p->folio;
	*byte = ((uint64_t)p->idx << HB_PAGE_SHIFT) + (a & (HB_PAGE_SIZE - 1));
}

static int compare_phys(const struct t_model *m, const char *what,
			const char *which, uint64_t boff, unsigned int idx,
			uint64_t off)
{
	uint64_t mf, mb, pf, pb;

	model_phys(m, idx, off, &mf, &mb);
	probe_phys(m, boff, &pf, &pb);
	if (mf == pf && mb == pb)
		return T_EXIT_PASS;
	return t_fail("%s: the model's import puts the %s byte (buffer offset "
		      "0x%llx) in bvec %u at folio 0x%llx byte 0x%llx, the "
		      "probe finds it at folio 0x%llx byte 0x%llx",
		      what, which, (unsigned long long)boff, idx,
		      (unsigned long long)mf, (unsigned long long)mb,
		      (unsigned long long)pf, (unsigned long long)pb);
}

/* FAIL "@what: @which the I/O [boff, +len) (expected, got)" */
static int segs_wrong(const char *what, const char *which, uint64_t boff,
		      uint64_t len, unsigned int expected, unsigned int got)
{
	char msg[200];

	snprintf(msg, sizeof(msg), "%s: %s the I/O [0x%llx, +0x%llx)", what,
		 which, (unsigned long long)boff, (unsigned long long)len);
	return t_fail_val(msg, expected, got);
}

int t_model_check_import(const struct t_model *m, uint64_t boff, uint64_t len,
			 const char *what)
{
	struct hb_import im;
	unsigned int i;
	uint64_t rem;
	int ret;

	if (!len)
		return T_EXIT_PASS;
	ret = hb_model_import(m->km, m->imu, m->imu->ubuf + boff, len, &im);
	if (ret)
		return t_fail("%s: model import of [0x%llx, +0x%llx): %s", what,
			      (unsigned long long)boff, (unsigned long long)len,
			      hb_errmsg());
	if (im.bvec_idx >= m->imu->nr_bvecs)
		return t_fail("%s: model import of 0x%llx starts at bvec %u of "
			      "%u",
			      what, (unsigned long long)boff, im.bvec_idx,
			      m->imu->nr_bvecs);
	ret = compare_phys(m, what, "first", boff, im.bvec_idx, im.iov_offset);
	if (ret)
		return ret;
	/* walk the table the way the bvec iterator does */
	i = im.bvec_idx;
	rem = im.iov_offset + len - 1;
	while (i < m->imu->nr_bvecs && rem >= m->bvec[i].len) {
		rem -= m->bvec[i].len;
		i++;
	}
	if (i >= m->imu->nr_bvecs)
		return t_fail("%s: the model's table ends before the I/O "
			      "[0x%llx, +0x%llx) does",
			      what, (unsigned long long)boff,
			      (unsigned long long)len);
	if (i - im.bvec_idx + 1 != im.nr_segs_exact)
		return segs_wrong(what, "model nr_segs_exact of", boff, len,
				  i - im.bvec_idx + 1, im.nr_segs_exact);
	/* io_import_fixed() may over-count, never under (80c7378f94cf) */
	if (im.nr_segs_kernel < im.nr_segs_exact)
		return segs_wrong(
			what, "kernel nr_segs (80c7378f94cf) under-counts",
			boff, len, im.nr_segs_exact, im.nr_segs_kernel);
	ret = compare_phys(m, what, "last", boff + len - 1, i, rem);
	return ret ? ret : t_pass();
}

/* hb_kmodel's word for a known kernel bug in a release */
int t_known_kernels_have_rows(const void *rows, size_t size,
			      unsigned int nr)
{
	const char *const *names;
	unsigned int i, n = hb_kmodel_known(&names), k;
	int ret = T_EXIT_PASS;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nr; k++) {
			const char *const *name = (const void *)
				((const char *)rows + (size_t)k * size);

			if (!strcmp(*name, names[i]))
				break;
		}
		if (k == nr)
			ret = t_worst(ret, t_fail("known kernel %s has no row",
						  names[i]));
	}
	return ret;
}

const char *t_kbug_name(enum hb_kbug b)
{
	switch (b) {
	case HB_KBUG_ABSENT:
		return "absent";
	case HB_KBUG_PRESENT:
		return "present";
	case HB_KBUG_UNKNOWN:
		return "not known";
	}
	return "?";
}
