// SPDX-License-Identifier: GPL-2.0-only
/*
 * Data checks over every path for one I/O, and the standard sweep of
 * I/O ranges around a buffer's bvec and folio boundaries.
 * See t/helpers.h.
 */
#include <stdint.h>
#include <stdio.h>

#include "helpers-priv.h"

/* ------------------------------------------------------------------ */
/* data checks over every path, and the block request signal            */
/* ------------------------------------------------------------------ */

uint64_t t_foff_for(const struct t_file *f, uint64_t boff, uint64_t len)
{
	uint64_t room, nwin;

	if (len + 2 * HB_PAGE_SIZE > f->size)
		return boff & (HB_PAGE_SIZE - 1);
	room = f->size - len - HB_PAGE_SIZE;
	nwin = (room >> HB_PAGE_SHIFT) + 1;
	return (boff & (HB_PAGE_SIZE - 1)) +
	       (((boff >> HB_PAGE_SHIFT) % nwin) << HB_PAGE_SHIFT);
}

static bool dio_ok(const struct t_regbuf *rb, const struct t_file *f,
		   uint64_t boff, uint64_t len, uint64_t foff)
{
	uint64_t a = f->dio_align;

	return f->dfd >= 0 && ((uintptr_t)rb->addr + boff) % a == 0 &&
	       len % a == 0 && foff % a == 0;
}

int t_check_io(const struct t_regbuf *rb, const struct t_model *m,
	       struct t_file *f, uint64_t boff, uint64_t len, const char *what)
{
	uint64_t foff = t_foff_for(f, boff, len);
	char name[200];
	int ret;

	if (foff + len > f->size)
		return t_fail("%s: test bug: I/O of %llu bytes does not fit "
			      "the %llu-byte scratch file",
			      what, (unsigned long long)len,
			      (unsigned long long)f->size);
	snprintf(name, sizeof(name), "%s [0x%llx, +0x%llx)", what,
		 (unsigned long long)boff, (unsigned long long)len);
	if (m) {
		ret = t_model_check_import(m, boff, len, name);
		if (ret)
			return ret;
	}
	ret = t_read_fixed_check(rb, f->fd, f->seed, foff, boff, len, name);
	if (!ret)
		ret = t_write_fixed_check(rb, f, f->fd, f->seed + 1, foff, boff,
					  len, name);
	if (!ret && dio_ok(rb, f, boff, len, foff)) {
		snprintf(name, sizeof(name), "%s [0x%llx, +0x%llx) O_DIRECT",
			 what, (unsigned long long)boff,
			 (unsigned long long)len);
		ret = t_read_fixed_check(rb, f->dfd, f->seed, foff, boff, len,
					 name);
		if (!ret)
			ret = t_write_fixed_check(rb, f, f->dfd, f->seed + 2,
						  foff, boff, len, name);
	}
	if (!ret)
		ret = t_devzero_check(rb, boff, len, name);
	return ret;
}

#define T_MAX_POINTS 64

struct t_points {
	unsigned int nr;
	uint64_t off[T_MAX_POINTS], len[T_MAX_POINTS];
};

static void add_point(struct t_points *p, uint64_t buflen, uint64_t maxlen,
		      int64_t off, uint64_t len)
{
	unsigned int i;

	if (off < 0 || (uint64_t)off >= buflen || !len)
		return;
	if (len > buflen - off)
		len = buflen - off;
	if (len > maxlen)
		return;
	for (i = 0; i < p->nr; i++)
		if (p->off[i] == (uint64_t)off && p->len[i] == len)
			return;
	if (p->nr < T_MAX_POINTS) {
		p->off[p->nr] = off;
		p->len[p->nr++] = len;
	}
}

/* I/O exactly at, just below, and across a boundary at buffer offset b */
static void add_boundary(struct t_points *p, uint64_t buflen, uint64_t maxlen,
			 int64_t b)
{
	add_point(p, buflen, maxlen, b, HB_PAGE_SIZE);
	add_point(p, buflen, maxlen, b - 1, 1);
	add_point(p, buflen, maxlen, b - 1, 2);
	add_point(p, buflen, maxlen, b - (int64_t)HB_PAGE_SIZE,
		  2 * HB_PAGE_SIZE);
}

/*
 * Buffer offsets where the probe sees a new folio run start: the first
 * max - 2 and the last two.
 */
static unsigned int probe_boundaries(const struct t_model *m, int64_t *out,
				     unsigned int max)
{
	const struct hb_page *pg = m->probe->pages;
	uint64_t head = m->imu->ubuf & (HB_PAGE_SIZE - 1);
	int64_t last[2] = { -1, -1 };
	unsigned int i, n = 0;

	for (i = 1; i < m->probe->nr_pages; i++) {
		int64_t b = (int64_t)i * HB_PAGE_SIZE - head;

		if (pg[i].folio == pg[i - 1].folio &&
		    pg[i].idx == pg[i - 1].idx + 1)
			continue;
		if (n < max - 2) {
			out[n++] = b;
		} else {
			last[0] = last[1];
			last[1] = b;
		}
	}
	for (i = 0; i < 2; i++)
		if (last[i] >= 0)
			out[n++] = last[i];
	return n;
}

int t_check_sweep(const struct t_regbuf *rb, const struct t_model *m,
		  struct t_file *f, const char *what)
{
	uint64_t L = rb->len, maxlen = f->size - 2 * HB_PAGE_SIZE, cum = 0;
	int64_t pb[8];
	struct t_points p = { 0 };
	unsigned int i, nb = m ? m->imu->nr_bvecs : 0, npb = 0;
	int ret;

	add_point(&p, L, maxlen, 0, 64 << 10);
	add_point(&p, L, maxlen, 0, 1);
	if (nb)
		add_point(&p, L, maxlen,
			  (m->bvec[0].len / 2) & ~(HB_PAGE_SIZE - 1),
			  2 * HB_PAGE_SIZE);
	/* the model's bvec boundaries: the first three and the last two */
	for (i = 0; i + 1 < nb; i++) {
		cum += m->bvec[i].len;
		if (i < 3 || i + 3 >= nb)
			add_boundary(&p, L, maxlen, cum);
	}
	/* the probe's folio boundaries */
	if (m)
		npb = probe_boundaries(m, pb, T_ARRAY_SIZE(pb));
	for (i = 0; i < npb; i++)
		add_boundary(&p, L, maxlen, pb[i]);
	add_point(&p, L, maxlen, L - 1, 1);
	add_point(&p, L, maxlen,
		  L > 3 * HB_PAGE_SIZE ? L - 3 * HB_PAGE_SIZE : 0,
		  3 * HB_PAGE_SIZE);
	add_point(&p, L, maxlen, 0, L);
	for (i = 0; i < p.nr; i++) {
		ret = t_check_io(rb, m, f, p.off[i], p.len[i], what);
		if (ret)
			return ret;
	}
	t_info("%s: %u I/O ranges checked (buffered, O_DIRECT where aligned, "
	       "/dev/zero)",
	       what, p.nr);
	return T_EXIT_PASS;
}
