// SPDX-License-Identifier: GPL-2.0-only
/*
 * One whole case over a buffer (lib/ allocates it, or the test mapped it)
 * and main() of a table-driven test.
 * See t/helpers.h.
 */
#include <stdio.h>
#include <string.h>

#include "helpers-priv.h"

/* ------------------------------------------------------------------ */
/* one whole case over a buffer lib/ allocates                          */
/* ------------------------------------------------------------------ */

static int region_io(const struct t_case *c, struct io_uring *ring, void *addr,
		     const struct t_model *m, struct t_file *f,
		     uint64_t (*more)[2], unsigned int nr_more)
{
	struct iovec iov = { addr, c->len };
	struct t_regbuf rb = { ring, addr, c->len, 0 };
	unsigned int i;
	int ret;

	ret = t_register(ring, &iov, 1);
	if (ret)
		return ret;
	if (c->registered)
		ret = c->registered(c, &rb, m, f);
	if (!ret && !c->aliased)
		ret = t_check_sweep(&rb, m, f, c->name);
	for (i = 0; !ret && i < c->nr_extra; i++)
		ret = t_check_io(&rb, m, f, c->extra[i][0], c->extra[i][1],
				 c->name);
	for (i = 0; !ret && i < nr_more; i++)
		ret = t_check_io(&rb, m, f, more[i][0], more[i][1], c->name);
	if (!ret && c->requests)
		ret = c->aliased ? t_check_requests_nodata(&rb, m, f, c->name) :
				   t_check_requests(&rb, m, f, c->name);
	if (io_uring_unregister_buffers(ring))
		ret = t_worst(ret, t_fail("%s: unregister failed", c->name));
	return ret;
}

int t_check_region(const struct t_case *c, void *addr,
		   const struct hb_backing *recipe, struct t_file *f)
{
	uint64_t more[T_CASE_MORE][2];
	unsigned int nr_more = 0;
	struct io_uring ring;
	struct t_model m;
	int ret;

	ret = t_model_buffer(addr, c->len, recipe, &m);
	if (!ret && c->expect)
		ret = c->expect(c, &m, more, &nr_more);
	if (!ret) {
		ret = t_ring_init(&ring, 8);
		if (!ret) {
			ret = region_io(c, &ring, addr, &m, f, more,
					nr_more < T_CASE_MORE ? nr_more :
								T_CASE_MORE);
			io_uring_queue_exit(&ring);
		}
	}
	t_model_free(&m);
	return ret;
}

int t_run_case(const struct t_case *c, struct t_file *f)
{
	struct t_baseline base;
	struct hb_backing b;
	struct hb_buf buf;
	char when[160];
	int ret;

	if (c->pool_size) {
		uint64_t span = c->head_offset + c->len;

		ret = t_need_hugepages(c->pool_size, (span + c->pool_size - 1) /
							     c->pool_size);
		if (ret)
			return ret;
	}
	ret = t_baseline_take(&base, c->pool_size);
	if (ret)
		return ret;
	/* an mTHP case tests its own size: that size alone for the case */
	if (!hb_backing_parse(c->backing, &b) &&
	    b.kind == HB_BACKING_MTHP && t_thp_only(b.folio_size))
		t_info("%s: could not make %llu the only THP size", c->name,
		       (unsigned long long)b.folio_size);
	ret = t_alloc(c->backing, c->len, c->head_offset, &buf);
	if (ret) {
		t_thp_restore();
		return ret;
	}
	ret = t_check_region(c, buf.addr, &b, f);
	hb_free(&buf);
	t_thp_restore();
	snprintf(when, sizeof(when), "after %s is unregistered and freed",
		 c->name);
	ret = t_worst(ret, t_baseline_check(&base, when));
	if (!ret)
		t_info("%s: ok", c->name);
	return ret;
}

int t_run_cases(const struct t_case *cases, unsigned int nr, uint64_t file_size,
		uint64_t seed)
{
	unsigned int i, ran = 0;
	struct t_file f;
	int ret;

	ret = t_file_create(&f, file_size, seed, true);
	if (ret)
		return ret;
	t_set_in_cases(true);
	for (i = 0; i < nr; i++) {
		ret = t_run_case(&cases[i], &f);
		if (ret == T_EXIT_FAIL)
			break;
		if (ret == T_EXIT_PASS)
			ran++;
	}
	t_set_in_cases(false);
	t_file_close(&f);
	if (ret == T_EXIT_FAIL)
		return ret;
	if (!ran)
		return T_EXIT_SKIP; /* each case's skip was counted */
	return T_EXIT_PASS;
}

int t_main_begin(int argc, struct t_baseline *base, struct t_file *f,
		 uint64_t file_size, uint64_t seed)
{
	int ret;

	f->fd = f->dfd = -1;
	if (argc > 1)
		return t_skip("takes no arguments");
	ret = t_baseline_take(base, 0);
	if (ret)
		return ret;
	return t_file_create(f, file_size, seed, true);
}

int t_main_end(int ret, const struct t_baseline *base, struct t_file *f,
	       const char *name)
{
	t_file_close(f);
	ret = t_worst(ret, t_baseline_check(base, "after unmapping"));
	if (!ret && name)
		t_info("%s: ok", name);
	return ret;
}
