// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live I/O through every backing this machine offers:
 * hugetlb:2M, memfd:2M, thp, each mTHP size the kernel lists, 4k, and
 * hugetlb:1G when that pool has pages.  For each: allocate 8 MiB (one
 * folio for 1G) through lib/, probe the real folios, model the
 * registration for the running kernel (hb_kmodel_running()), register,
 * READ_FIXED/WRITE_FIXED offset-encoded patterns at and across every folio
 * boundary (buffered, O_DIRECT, /dev/zero), check the model's import
 * against the probe, and compare the model's coalescing with the block
 * request count of one O_DIRECT READ_FIXED of the whole buffer (on 6.18
 * and vda: 2 requests for 2 MiB folios, 9 for 4 KiB pages).  Backings that
 * are not available are skipped with the reason; the test passes if at
 * least one ran and none failed.  The rules: docs/kernel-rules.md §2 (the
 * generations of §1) and §9.1; docs/regression-matrix.md.
 */
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define BUF_LEN (8ULL << 20)
#define FILE_SIZE (BUF_LEN + (64 << 10))
#define MAX_CASES (6 + HB_MAX_MTHP)

static char names[MAX_CASES][48];
static char backings[MAX_CASES][32];

/* THP/mTHP: the folios must be what the backing promises, else skip. */
static int folios_as_asked(const struct t_case *c, const struct t_model *m,
			   uint64_t (*more)[2], unsigned int *nr)
{
	struct hb_backing b;

	(void)more;
	(void)nr;
	if (hb_backing_parse(c->backing, &b))
		return t_fail("test bug: backing %s", c->backing);
	if (m->probe->source != HB_PROBE_KPAGEFLAGS)
		return T_EXIT_PASS;
	if (m->probe->min_folio != m->probe->max_folio &&
	    (m->probe->min_folio == b.folio_size ||
	     m->probe->max_folio == b.folio_size)) {
		/* e.g. PMD THPs where an mTHP range is 2 MiB aligned */
		t_info("%s: mixed folios of %llu..%llu bytes: the model and the "
		       "kernel must still agree",
		       c->name, (unsigned long long)m->probe->min_folio,
		       (unsigned long long)m->probe->max_folio);
		return T_EXIT_PASS;
	}
	if (m->probe->min_folio != b.folio_size ||
	    m->probe->max_folio != b.folio_size)
		return t_skip("%s: got folios of %llu..%llu bytes, not %llu "
			      "(memory fragmented or size disabled)",
			      c->name, (unsigned long long)m->probe->min_folio,
			      (unsigned long long)m->probe->max_folio,
			      (unsigned long long)b.folio_size);
	return T_EXIT_PASS;
}

static void add(struct t_case *cases, unsigned int *n, const char *backing,
		uint64_t len, uint64_t pool, bool check_folios)
{
	struct t_case *c = &cases[*n];

	if (*n >= MAX_CASES)
		return;
	snprintf(backings[*n], sizeof(backings[*n]), "%s", backing);
	snprintf(names[*n], sizeof(names[*n]), "%s", backing);
	memset(c, 0, sizeof(*c));
	c->name = names[*n];
	c->backing = backings[*n];
	c->len = len;
	c->pool_size = pool;
	c->requests = true;
	if (check_folios)
		c->expect = folios_as_asked;
	(*n)++;
}

int main(int argc, char **argv)
{
	struct t_case cases[MAX_CASES];
	struct hb_sysinfo si;
	unsigned int n = 0, i;
	char spec[32], sz[16];

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	if (hb_sysinfo_read(&si))
		return t_done(t_fail("reading the system's hugepage facts: %s",
				     hb_errmsg()));
	add(cases, &n, "hugetlb:2M", BUF_LEN, T_SZ_2M, false);
	add(cases, &n, "memfd:2M", BUF_LEN, T_SZ_2M, false);
	add(cases, &n, "thp", BUF_LEN, 0, true);
	for (i = 0; i < si.nr_mthp; i++) {
		if (si.mthp[i].size == si.thp_pmd_size)
			continue; /* that is "thp" */
		snprintf(spec, sizeof(spec), "mthp:%s",
			 hb_fmt_size(si.mthp[i].size, sz, sizeof(sz)));
		add(cases, &n, spec, BUF_LEN, 0, true);
	}
	add(cases, &n, "4k", BUF_LEN, 0, false);
	add(cases, &n, "hugetlb:1G", T_SZ_1G, T_SZ_1G, false);
	return t_done(t_run_cases(cases, n, FILE_SIZE, 0xb0b));
}
