// SPDX-License-Identifier: GPL-2.0-only
/*
 * One registered buffer of more than 1 GiB (docs/kernel-rules.md §7.1;
 * docs/regression-matrix.md).
 *
 * Up to 7.1 io_buffer_validate() (io_validate_user_buf_range() later)
 * refuses a buffer over SZ_1G with -EFAULT before it pins a page.
 * b4e41050b212 ("io_uring/rsrc: raise the 1 GB per-buffer limit", 7.2)
 * caps it at SZ_1T (-EINVAL) and io_pin_pages() at INT_MAX / 8 pages
 * (-EOVERFLOW).  Which rule the running kernel has is lib's model's
 * answer (hb_kmodel_check_buf_len()), never a version compared here.
 *
 * A buffer of 1 GiB + 4 MiB, of 2 MiB hugetlb pages and then of THP
 * (MADV_HUGEPAGE):
 *  - where the model admits it, it registers, and I/O that starts before
 *    the 1 GiB offset and ends after it (buffered, O_DIRECT, /dev/zero),
 *    the usual sweep over its first and last bvecs and folios, and the
 *    modelled import of each I/O against the probed pages, all with the
 *    data compared; then the block requests of one 8 MiB O_DIRECT
 *    READ_FIXED across 1 GiB, against the model's bvec table (one bvec
 *    per page and one per folio give different counts), and VmPin while
 *    registered against the model's charge;
 *  - where it does not, the kernel refuses it with the model's errno and
 *    VmPin and the pool stay as they were.
 * The hugetlb case needs 514 free 2 MiB pages: as root the test grows the
 * pool by what is missing and puts it back (t_pool_need()).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "helpers.h"

#define BUF_LEN (T_SZ_1G + (4ULL << 20))
/* the 8 MiB I/O across 1 GiB, and the scratch file it reads */
#define SPAN_IO (8ULL << 20)
#define FILE_SIZE (SPAN_IO + (8ULL << 20) + (64 << 10))

/* I/O that starts before the 1 GiB offset and ends after it */
static const uint64_t across[][2] = {
	{ T_SZ_1G - 100, 300 },
	{ T_SZ_1G - T_SZ_4K, 2 * T_SZ_4K },
	{ T_SZ_1G - (512 << 10), 1ULL << 20 },
	{ T_SZ_1G - T_SZ_2M - 0x1234, T_SZ_2M + 0x2468 },
	{ T_SZ_1G - SPAN_IO / 2, SPAN_IO },
};

static int note_vmpin(const struct t_case *c, const struct t_model *m,
		      uint64_t (*more)[2], unsigned int *nr_more);
static int check_thp(const struct t_case *c, const struct t_model *m,
		     uint64_t (*more)[2], unsigned int *nr_more);
static int while_registered(const struct t_case *c, const struct t_regbuf *rb,
			    const struct t_model *m, struct t_file *f);

static const struct t_case cases[] = {
	{
		.name = "hugetlb 2M, 1 GiB + 4 MiB",
		.backing = "hugetlb:2M",
		.len = BUF_LEN,
		.pool_size = T_SZ_2M,
		.extra = across,
		.nr_extra = T_ARRAY_SIZE(across),
		.expect = note_vmpin,
		.registered = while_registered,
	},
	{
		.name = "THP, 1 GiB + 4 MiB",
		.backing = "thp",
		.len = BUF_LEN,
		.extra = across,
		.nr_extra = T_ARRAY_SIZE(across),
		.expect = check_thp,
		.registered = while_registered,
	},
};

/* this process's VmPin before the case registers anything */
static long vmpin_before;

static int note_vmpin(const struct t_case *c, const struct t_model *m,
		      uint64_t (*more)[2], unsigned int *nr_more)
{
	(void)c;
	(void)m;
	(void)more;
	(void)nr_more;
	vmpin_before = hb_vmpin_kb();
	return T_EXIT_PASS;
}

/* THP: only a buffer the probe sees in PMD folios is the THP case */
static int check_thp(const struct t_case *c, const struct t_model *m,
		     uint64_t (*more)[2], unsigned int *nr_more)
{
	note_vmpin(c, m, more, nr_more);
	if (m->probe->source != HB_PROBE_KPAGEFLAGS ||
	    m->probe->max_folio < T_SZ_2M)
		return t_skip("%s: no PMD THP behind the buffer (%s): set "
			      "/sys/kernel/mm/transparent_hugepage/enabled "
			      "to madvise",
			      c->name, m->probe->note);
	t_info("%s: %u folios, %llu to %llu bytes", c->name,
	       m->probe->nr_folios, (unsigned long long)m->probe->min_folio,
	       (unsigned long long)m->probe->max_folio);
	return T_EXIT_PASS;
}

/*
 * While registered: VmPin holds the model's charge for the one buffer
 * (whole hugepages; nothing for a ring of CAP_IPC_LOCK from 7.2, which
 * t_vmpin_expect() knows), and the kernel's block requests for the
 * 8 MiB across 1 GiB are the model's.
 */
static int while_registered(const struct t_case *c, const struct t_regbuf *rb,
			    const struct t_model *m, struct t_file *f)
{
	unsigned int nr = m->probe->nr_pages;
	uint64_t charged;
	char when[120];
	int ret;

	if (hb_model_account(m->km, m->probe->pages, &nr, 1, &charged))
		return t_fail("%s: hb_model_account: %s", c->name,
			      hb_errmsg());
	snprintf(when, sizeof(when), "%s: while registered (model: %llu kB)",
		 c->name, (unsigned long long)(charged >> 10));
	ret = t_vmpin_expect(vmpin_before, (long)(charged >> 10), when);
	if (ret)
		return ret;
	t_info("%s: VmPin %ld kB while registered (%s)", c->name,
	       hb_vmpin_kb() - vmpin_before,
	       t_vmpin_charged() ? "charged" : "this ring is not charged");
	return t_check_io_requests(rb, m, f, T_SZ_1G - SPAN_IO / 2, SPAN_IO,
				   c->name);
}

/*
 * The model refuses the buffer on this kernel: so must the kernel, with
 * the same errno, before it pins or charges anything.
 */
static int check_refused(const struct t_case *c, const struct hb_kmodel *km)
{
	struct t_baseline base;
	struct io_uring ring;
	struct hb_buf buf;
	char why[80];
	int want, ret;

	ret = t_baseline_take(&base, c->pool_size);
	if (ret)
		return ret;
	if (c->pool_size)
		ret = t_alloc(c->backing, c->len, 0, &buf);
	else
		ret = t_alloc_thp(c->len, 0, &buf, c->name);
	if (ret)
		return ret;
	want = hb_kmodel_check_buf_len(km, (uintptr_t)buf.addr, c->len);
	t_info("%s: model %s: %s", c->name, km->name, hb_errmsg());
	snprintf(why, sizeof(why), "model %s refuses it (%s)", km->name,
		 strerror(-want));
	ret = t_ring_init(&ring, 4);
	if (!ret) {
		ret = t_register_refused(&ring, buf.addr, c->len, want, 0,
					 base.vmpin_kb, c->name, why, NULL);
		io_uring_queue_exit(&ring);
	}
	hb_free(&buf);
	ret = t_worst(ret, t_baseline_check(&base, "after the refusal"));
	if (!ret) {
		t_info("%s: refused with %s, as modelled", c->name,
		       strerror(-want));
		t_pass();
	}
	return ret;
}

/* the pages a case needs from its pool, grown as root when short */
static int need_pool(const struct t_case *c)
{
	if (!c->pool_size)
		return T_EXIT_PASS;
	return t_pool_need(c->pool_size,
			   (c->len + c->pool_size - 1) / c->pool_size);
}

static int run(const struct t_case *c, const struct hb_kmodel *km,
	       struct t_file *f)
{
	int ret;

	ret = need_pool(c);
	if (!ret) {
		/* INT_MAX / 8 pages is ~1 TiB: no address of ours reaches it */
		if (hb_kmodel_check_buf_len(km, 0, c->len))
			ret = check_refused(c, km);
		else
			ret = t_run_case(c, f);
	}
	t_pool_restore();
	return ret;
}

int main(int argc, char **argv)
{
	struct hb_kmodel km;
	struct t_file f;
	unsigned int i;
	int ret, worst = T_EXIT_SKIP;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	if (hb_kmodel_running(&km))
		return t_done(t_fail("kernel model: %s", hb_errmsg()));
	t_info("kernel model %s: one buffer up to %llu bytes (%s above)",
	       km.name, (unsigned long long)km.buf_len_max,
	       strerror(km.buf_len_errno));
	ret = t_file_create(&f, FILE_SIZE, 0x0b16, true);
	if (ret)
		return t_done(ret);
	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		ret = run(&cases[i], &km, &f);
		if (ret == T_EXIT_FAIL) {
			worst = ret;
			break;
		}
		if (ret == T_EXIT_PASS)
			worst = T_EXIT_PASS;
	}
	t_file_close(&f);
	return t_done(worst);
}
