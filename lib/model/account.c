// SPDX-License-Identifier: GPL-2.0-only
/*
 * What registered buffers charge to user->locked_vm (and to
 * mm->pinned_vm, the VmPin line of /proc/<pid>/status), and what their
 * unregistration un-charges, per kernel generation.
 *
 * Up to 7.1 (io_uring/rsrc.c, io_buffer_account_pin() from 5.x to 7.1;
 * 7.0.13's and 7.1.13's BTF still show imu->acct_pages and the last_hpage
 * argument of io_sqe_buffer_register()) the pages of one buffer are
 * walked in order:
 *  - a page that is not part of a compound page (an order-0 folio) adds
 *    one page, every time it is seen;
 *  - a page of a compound page adds the whole compound page
 *    (page_size(hpage) >> PAGE_SHIFT) once, unless its head
 *      . is *last_hpage, the head seen just before (this pointer lives in
 *        io_sqe_buffers_register() and io_sqe_buffers_update() and is
 *        carried from one buffer of the call to the next);
 *      . or headpage_already_acct() finds it among the earlier pages of
 *        this buffer, or among the bvecs of the buffers in the ring's
 *        table.
 * The sum is imu->acct_pages, and io_buffer_unmap() un-charges exactly
 * that when the imu's last reference goes (a clone, 6.12+, shares the
 * imu and charges nothing).  So a buffer that was charged nothing for a
 * hugepage another buffer paid for keeps it pinned, un-charged, once the
 * payer is gone (docs/kernel-rules.md §6.4).
 *
 * The table is what changed before that: up to 6.12
 * io_sqe_buffers_register() stores each imu in the table inside its loop,
 * so the earlier buffers of the same call are found.  The 6.13
 * resource-table rework (3597f2786b68, "io_uring/rsrc: unify file and
 * buffer resource tables", 6.13-rc1) publishes ctx->buf_table only after
 * the loop, so within one IORING_REGISTER_BUFFERS only the *last_hpage
 * match is left: two buffers on one hugepage that are not neighbours in
 * the iovec array both pay for it (§6.2; measured on 6.18).  An update
 * stores each node inside its loop in every version, and the slot's old
 * buffer is still in the table while the new one is charged.
 *
 * 7.2 ("io_uring/rsrc: add huge page accounting for registered buffers",
 * read in 7.2.13's io_uring/rsrc.c) replaces all of it with a per-ring
 * reference count of compound heads, ctx->hpage_acct:
 *  - io_buffer_account_pin(): an order-0 page adds one page as before; a
 *    compound head not equal to the one just seen in this buffer takes a
 *    reference (hpage_acct_ref()) and is charged whole only when it is
 *    new to the ring.  Nothing is carried between buffers.
 *  - io_buffer_unaccount_pages(), on every unmap: the same walk over the
 *    bvecs drops the references (hpage_acct_unref()) and sums the order-0
 *    pages and the heads whose last reference went; io_buffer_unmap()
 *    un-charges that sum only when the imu's last reference goes, and
 *    forgets it otherwise.
 *  - io_buffer_acct_cloned_hpages(): a clone takes the references in the
 *    destination ring without a charge (both rings must share ctx->user
 *    and mm_account, or the clone is -EINVAL).
 * A hugepage is charged once per ring, whatever the buffers and calls,
 * and stays charged while any buffer of the ring holds it.
 *
 * Coalescing does not change the charge: 6.3+ accounts the coalesced
 * array, whose entries are the folio heads, and a folio is charged whole
 * either way; 7.2's walk over a coalesced array takes the same references
 * as over the pages, since runs of one head collapse in both.
 *
 * Whether the charge is checked against RLIMIT_MEMLOCK, and whether it
 * reaches VmPin, is not decided here: io_uring_create() sets ctx->user
 * only without CAP_IPC_LOCK, __io_account_mem() checks the limit only for
 * ctx->user, and 7.2's io_buffer_account_pin() charges nothing at all
 * without it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"

/* ---- rings, tables, imus --------------------------------------------- */

/* struct io_mapped_ubuf as the accounting sees it */
struct acct_imu {
	const struct hb_page *pages;	/* what was pinned, in order */
	unsigned int nr;
	uint64_t acct_pages;		/* up to 7.1: imu->acct_pages */
	unsigned int refs;		/* tables holding it (imu->refs) */
};

struct acct_ring {
	struct acct_imu **slot;		/* the buffer table */
	unsigned int nr_slots;
	/* up to 7.1: compound pages in the table, headpage_already_acct() */
	struct hb_foliomap table;
	/* 7.2: ctx->hpage_acct, references per compound head */
	struct hb_foliomap xa;
};

struct acct_state {
	const struct hb_kmodel *km;
	struct acct_ring ring[HB_ACCT_RINGS];
	/* up to 7.1: the heads met in each buffer of a call (buffer serial) */
	struct hb_foliomap own;
	uint64_t serial;
	/* pages; 7.2 can un-charge more than it charged (see unmap_slot) */
	int64_t charged;
	struct acct_imu **imus;		/* every imu made, freed at the end */
	unsigned int nr_imus, cap_imus;
};

static int check_pages(const struct hb_page *pages, uint64_t nr)
{
	uint64_t i;

	for (i = 0; i < nr; i++)
		if (pages[i].order > 30 ||
		    pages[i].idx >= (1ULL << pages[i].order))
			return hb_seterr(EINVAL, "page %llu: index %u is "
					 "outside its order-%u folio",
					 (unsigned long long)i, pages[i].idx,
					 pages[i].order);
	return 0;
}

static struct acct_imu *imu_new(struct acct_state *st,
				const struct hb_page *pages, unsigned int nr)
{
	struct acct_imu *imu;

	if (st->nr_imus == st->cap_imus) {
		unsigned int cap = st->cap_imus ? 2 * st->cap_imus : 16;
		struct acct_imu **n = realloc(st->imus, cap * sizeof(*n));

		if (!n)
			return NULL;
		st->imus = n;
		st->cap_imus = cap;
	}
	imu = calloc(1, sizeof(*imu));
	if (!imu)
		return NULL;
	imu->pages = pages;
	imu->nr = nr;
	st->imus[st->nr_imus++] = imu;
	return imu;
}

/* How many pages from @i on are pages of @i's folio, in a row. */
static unsigned int folio_run(const struct hb_page *pages, unsigned int i,
			      unsigned int nr)
{
	unsigned int n = 1;

	while (i + n < nr && pages[i + n].folio == pages[i].folio &&
	       pages[i + n].order == pages[i].order)
		n++;
	return n;
}

/*
 * The compound pages of @imu enter (+1) or leave (-1) @r's table: a run
 * of pages of one folio moves its count by the run's length at once.
 */
static int table_change(struct acct_ring *r, const struct acct_imu *imu,
			int delta)
{
	unsigned int i, run;
	int ret;

	for (i = 0; i < imu->nr; i += run) {
		const struct hb_page *p = &imu->pages[i];

		run = folio_run(imu->pages, i, imu->nr);
		if (!p->order)
			continue;
		ret = hb_foliomap_add(&r->table, p->folio,
				      (int64_t)delta * run, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Up to 7.1, io_buffer_account_pin(): the pages @imu is charged.  The
 * head of every compound page is remembered for this buffer (@serial)
 * whether or not it was charged: headpage_already_acct() scans the whole
 * page array before the current page.
 */
static int charge_acct_pages(struct acct_state *st, struct acct_ring *r,
			     struct acct_imu *imu, bool *have_last,
			     uint64_t *last)
{
	uint64_t serial = ++st->serial;
	unsigned int i;

	for (i = 0; i < imu->nr; i++) {
		const struct hb_page *p = &imu->pages[i];
		size_t slot;
		int ret;

		if (!p->order) {
			imu->acct_pages++;
			continue;
		}
		if (*have_last && *last == p->folio)
			continue;
		*have_last = true;
		*last = p->folio;
		if (hb_foliomap_get(&st->own, p->folio) != serial &&
		    !hb_foliomap_get(&r->table, p->folio))
			imu->acct_pages += 1ULL << p->order;
		/* the map holds the last buffer that met the head */
		ret = hb_foliomap_find(&st->own, p->folio, &slot);
		if (ret)
			return ret;
		st->own.val[slot] = serial;
	}
	st->charged += (int64_t)imu->acct_pages;
	return 0;
}

/*
 * The walk 7.2 makes over a buffer's pages (io_buffer_account_pin(),
 * io_buffer_unaccount_pages(), io_buffer_acct_cloned_hpages()): every
 * compound head not equal to the one just before takes (+1) or drops (-1)
 * a reference in @r's ctx->hpage_acct.  *@pages gets the pages to charge
 * or un-charge: the order-0 pages when @small, and each head whose count
 * went from 0 to 1 (or 1 to 0).
 */
static int hpage_walk(struct acct_ring *r, const struct acct_imu *imu,
		      int delta, bool small, uint64_t *pages)
{
	uint64_t seen = 0, count;
	bool have_seen = false;
	unsigned int i;
	int ret;

	*pages = 0;
	for (i = 0; i < imu->nr; i++) {
		const struct hb_page *p = &imu->pages[i];

		if (!p->order) {
			*pages += small;
			continue;
		}
		if (have_seen && seen == p->folio)
			continue;
		have_seen = true;
		seen = p->folio;
		ret = hb_foliomap_add(&r->xa, p->folio, delta, &count);
		if (ret)
			return ret;
		if (count == (delta > 0 ? 1 : 0))
			*pages += 1ULL << p->order;
	}
	return 0;
}

/* Register one buffer of a call: what it charges, by generation. */
static int charge_buffer(struct acct_state *st, struct acct_ring *r,
			 struct acct_imu *imu, bool *have_last, uint64_t *last)
{
	int ret;

	/*
	 * km->acct_per_ring: 7.2's per-ring hugepage accounting
	 * ("io_uring/rsrc: add huge page accounting for registered buffers"):
	 * the ring counts references to each compound head in ctx->hpage_acct
	 * (hpage_acct_ref(), hpage_acct_unref()), so a hugepage is charged once
	 * per ring however many buffers, calls or clones hold it, and
	 * un-charged with its last reference; imu->acct_pages,
	 * headpage_already_acct() and last_hpage are gone.  Read in 7.2.13's
	 * io_uring/rsrc.c; absent from the BTF of Debian's 7.1.13 image,
	 * present in 7.2.12's.
	 */
	if (!st->km->acct_per_ring)
		return charge_acct_pages(st, r, imu, have_last, last);
	ret = hpage_walk(r, imu, 1, true, &imu->acct_pages);
	st->charged += (int64_t)imu->acct_pages;
	return ret;
}

/*
 * io_buffer_unmap() for the imu in @r's slot @i: up to 7.1 the imu's own
 * acct_pages, 7.2 what its references leave; either is un-charged only
 * with the imu's last reference.
 */
static int unmap_slot(struct acct_state *st, struct acct_ring *r,
		      unsigned int i)
{
	struct acct_imu *imu = r->slot[i];
	uint64_t pages = imu->acct_pages;
	int ret;

	r->slot[i] = NULL;
	ret = table_change(r, imu, -1);
	if (!ret && st->km->acct_per_ring)
		ret = hpage_walk(r, imu, -1, true, &pages);
	if (ret)
		return ret;
	if (--imu->refs)
		return 0;
	/*
	 * 7.2 un-charges a head from this ring's count alone: a buffer that
	 * was registered free beside a clone (the clone's reference made it
	 * old) un-charges it again when the clone's source already did, so
	 * the total can fall below zero as locked_vm and pinned_vm would.
	 */
	st->charged -= (int64_t)pages;
	return 0;
}

/* An empty table of @nr slots for @r. */
static int table_alloc(struct acct_ring *r, unsigned int nr)
{
	r->slot = calloc(nr, sizeof(*r->slot));
	if (!r->slot)
		return hb_seterr(ENOMEM, "out of memory for a table of %u "
				 "buffers", nr);
	r->nr_slots = nr;
	return 0;
}

/* The pages of all of @op's buffers. */
static uint64_t op_pages(const struct hb_acct_op *op)
{
	uint64_t total = 0;
	unsigned int b;

	for (b = 0; b < op->nr_bufs; b++)
		total += op->buf_pages[b];
	return total;
}

/* Buffer @n of @op, one after the other, from its page array. */
static const struct hb_page *op_buf(const struct hb_acct_op *op,
				    unsigned int n, const struct hb_page **p)
{
	const struct hb_page *b = *p;

	*p += op->buf_pages[n];
	return b;
}

/*
 * IORING_REGISTER_BUFFERS (@update false) into slots 0.., or an update of
 * slots @op->slot.. (@update true): each buffer is charged, then takes
 * its slot, whose old buffer is unmapped.  The table sees the new buffer
 * at once in an update, and in a registration only while the table is
 * filled in the loop (acct_batch_dedup, up to 6.12).
 */
static int do_register(struct acct_state *st, const struct hb_acct_op *op,
		       bool update)
{
	struct acct_ring *r = &st->ring[op->ring];
	/*
	 * km->acct_batch_dedup: io_sqe_buffers_register() publishes each buffer
	 * in the ring's table inside its loop (up to 6.12), so
	 * headpage_already_acct() finds a hugepage charged by an earlier buffer
	 * of the same call; since the 6.13 table rework (3597f2786b68) only the
	 * previous head (last_hpage) is deduplicated within one call.
	 */
	bool in_loop = update || st->km->acct_batch_dedup;
	const struct hb_page *p = op->pages;
	uint64_t last = 0;
	bool have_last = false;
	unsigned int b;
	int ret;

	ret = check_pages(op->pages, op_pages(op));
	if (ret)
		return ret;
	if (!update) {
		ret = table_alloc(r, op->nr_bufs);
		if (ret)
			return ret;
	}
	for (b = 0; b < op->nr_bufs; b++) {
		unsigned int n = op->buf_pages[b], i = op->slot + b;
		const struct hb_page *pages = op_buf(op, b, &p);
		struct acct_imu *imu = NULL;

		if (n) {
			imu = imu_new(st, pages, n);
			if (!imu)
				return hb_seterr(ENOMEM, "out of memory for "
						 "the accounting model");
			ret = charge_buffer(st, r, imu, &have_last, &last);
			if (ret)
				return ret;
			imu->refs = 1;
		}
		if (update && r->slot[i]) {
			ret = unmap_slot(st, r, i);
			if (ret)
				return ret;
		}
		r->slot[i] = imu;
		if (imu && in_loop) {
			ret = table_change(r, imu, 1);
			if (ret)
				return ret;
		}
	}
	for (b = 0; !in_loop && b < r->nr_slots; b++) {
		if (!r->slot[b])
			continue;
		ret = table_change(r, r->slot[b], 1);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * io_clone_buffers() into an empty table: each imu is shared (refs + 1)
 * and charged nothing; 7.2 takes its hugepage references in the
 * destination ring (io_buffer_acct_cloned_hpages()).
 */
static int do_clone(struct acct_state *st, const struct hb_acct_op *op)
{
	struct acct_ring *r = &st->ring[op->ring], *s = &st->ring[op->src];
	uint64_t none;
	unsigned int i;
	int ret;

	ret = table_alloc(r, s->nr_slots);
	if (ret)
		return ret;
	for (i = 0; i < s->nr_slots; i++) {
		struct acct_imu *imu = s->slot[i];

		if (!imu)
			continue;
		imu->refs++;
		r->slot[i] = imu;
		ret = table_change(r, imu, 1);
		if (!ret && st->km->acct_per_ring)
			ret = hpage_walk(r, imu, 1, false, &none);
		if (ret)
			return ret;
	}
	return 0;
}

/* io_rsrc_data_free(): every slot, the last first. */
static int do_unregister(struct acct_state *st, struct acct_ring *r)
{
	int ret;

	while (r->nr_slots) {
		r->nr_slots--;
		if (!r->slot[r->nr_slots])
			continue;
		ret = unmap_slot(st, r, r->nr_slots);
		if (ret)
			return ret;
	}
	free(r->slot);
	r->slot = NULL;
	return 0;
}

/* The kernel's refusals of @op, as a message naming cause and fix. */
static int check_op(const struct acct_state *st, const struct hb_acct_op *op,
		    unsigned int n)
{
	const struct acct_ring *r;

	if (op->ring >= HB_ACCT_RINGS ||
	    (op->kind == HB_ACCT_CLONE && op->src >= HB_ACCT_RINGS))
		return hb_seterr(EINVAL, "accounting op %u: ring %u is not "
				 "one of the %d modelled", n,
				 op->ring >= HB_ACCT_RINGS ? op->ring : op->src,
				 HB_ACCT_RINGS);
	r = &st->ring[op->ring];
	switch (op->kind) {
	case HB_ACCT_REGISTER:
		if (r->slot)
			return hb_seterr(EBUSY, "accounting op %u: ring %u "
					 "already has buffers (-EBUSY): "
					 "unregister them first", n, op->ring);
		/* fall through */
	case HB_ACCT_UPDATE:
		if (!op->nr_bufs || !op->buf_pages)
			return hb_seterr(EINVAL, "accounting op %u: no "
					 "buffers given", n);
		if (!op->pages && op_pages(op))
			return hb_seterr(EINVAL, "accounting op %u: no page "
					 "map for its buffers", n);
		if (op->kind == HB_ACCT_UPDATE &&
		    (!r->slot || op->slot > r->nr_slots ||
		     op->nr_bufs > r->nr_slots - op->slot))
			return hb_seterr(EINVAL, "accounting op %u: slots "
					 "%u..%u are not in ring %u's table "
					 "of %u", n, op->slot,
					 op->slot + op->nr_bufs - 1, op->ring,
					 r->nr_slots);
		return 0;
	case HB_ACCT_CLONE:
		if (r->slot)
			return hb_seterr(EBUSY, "accounting op %u: ring %u "
					 "already has buffers (-EBUSY): clone "
					 "into an empty ring", n, op->ring);
		if (op->src == op->ring || !st->ring[op->src].slot)
			return hb_seterr(ENXIO, "accounting op %u: ring %u "
					 "has no buffers to clone", n, op->src);
		return 0;
	case HB_ACCT_UNREGISTER:
		if (!r->slot)
			return hb_seterr(ENXIO, "accounting op %u: ring %u "
					 "has no buffers (-ENXIO)", n, op->ring);
		return 0;
	}
	return hb_seterr(EINVAL, "accounting op %u: unknown kind %d", n,
			 (int)op->kind);
}

static int do_op(struct acct_state *st, const struct hb_acct_op *op)
{
	switch (op->kind) {
	case HB_ACCT_REGISTER:
		return do_register(st, op, false);
	case HB_ACCT_UPDATE:
		return do_register(st, op, true);
	case HB_ACCT_CLONE:
		return do_clone(st, op);
	case HB_ACCT_UNREGISTER:
		break;
	}
	return do_unregister(st, &st->ring[op->ring]);
}

static void state_free(struct acct_state *st)
{
	unsigned int i;

	for (i = 0; i < HB_ACCT_RINGS; i++) {
		free(st->ring[i].slot);
		hb_foliomap_free(&st->ring[i].table);
		hb_foliomap_free(&st->ring[i].xa);
	}
	hb_foliomap_free(&st->own);
	for (i = 0; i < st->nr_imus; i++)
		free(st->imus[i]);
	free(st->imus);
}

int hb_model_account_ops(const struct hb_kmodel *km,
			 const struct hb_acct_op *ops, unsigned int nr_ops,
			 int64_t *charged_bytes)
{
	struct acct_state st;
	unsigned int i;
	int ret = 0;

	if (!km || (nr_ops && (!ops || !charged_bytes)))
		return hb_seterr(EINVAL, "no operations for the accounting "
				 "model");
	memset(&st, 0, sizeof(st));
	st.km = km;
	for (i = 0; i < nr_ops && !ret; i++) {
		ret = check_op(&st, &ops[i], i);
		if (!ret)
			ret = do_op(&st, &ops[i]);
		if (!ret)
			charged_bytes[i] = st.charged * (int64_t)HB_PAGE_SIZE;
	}
	state_free(&st);
	return ret;
}

int hb_model_account(const struct hb_kmodel *km, const struct hb_page *pages,
		     const unsigned int *buf_pages, unsigned int nr_bufs,
		     uint64_t *charged_bytes)
{
	struct hb_acct_op op = {
		.kind = HB_ACCT_REGISTER,
		.nr_bufs = nr_bufs,
		.pages = pages,
		.buf_pages = buf_pages,
	};
	int64_t charged = 0;
	int ret;

	*charged_bytes = 0;
	if (!nr_bufs)
		return 0;
	if (!pages || !buf_pages)
		return hb_seterr(EINVAL, "no page map for the accounting");
	/* one registration into an empty ring charges >= 0 */
	ret = hb_model_account_ops(km, &op, 1, &charged);
	if (!ret)
		*charged_bytes = (uint64_t)charged;
	return ret;
}

bool hb_model_memlock_checked(bool cap_ipc_lock)
{
	/* io_uring_create(): ctx->user only when !capable(CAP_IPC_LOCK) */
	return !cap_ipc_lock;
}

bool hb_model_vmpin_charged(const struct hb_kmodel *km, bool cap_ipc_lock)
{
	/*
	 * km->vmpin_needs_user: VmPin (mm->pinned_vm) is charged only to a ring
	 * that has ctx->user, i.e. one created without CAP_IPC_LOCK
	 * (io_buffer_account_pin() returns early otherwise): seen in 7.2.13's
	 * io_uring/rsrc.c and its guest, part of the same change as
	 * acct_per_ring; the 6.18 host charges every ring.
	 */
	return !km->vmpin_needs_user || !cap_ipc_lock;
}
