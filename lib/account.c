// SPDX-License-Identifier: GPL-2.0-only
/*
 * What IORING_REGISTER_BUFFERS charges to user->locked_vm (and to
 * mm->pinned_vm, the VmPin line of /proc/<pid>/status).
 *
 * io_buffer_account_pin() (io_uring/rsrc.c, the same from 5.x to 6.18)
 * walks the pages of one buffer in order:
 *  - a page that is not part of a compound page (an order-0 folio) adds
 *    one page, every time it is seen;
 *  - a page of a compound page adds the whole compound page
 *    (page_size(hpage) >> PAGE_SHIFT) once, unless its head
 *      . is *last_hpage, the head seen just before (this pointer lives in
 *        io_sqe_buffers_register() and is carried from one buffer of the
 *        batch to the next, in every version);
 *      . or headpage_already_acct() finds it among the earlier pages of
 *        this buffer, or among the bvecs of the buffers already in the
 *        ring's table.
 *
 * The table is what changed: up to 6.12 io_sqe_buffers_register() stores
 * each imu in ctx->user_bufs[i] and bumps ctx->nr_user_bufs inside the
 * loop, so the earlier buffers of the same call are found.  The 6.13
 * resource-table rework (3597f2786b68, "io_uring/rsrc: unify file and
 * buffer resource tables", 6.13-rc1) builds the nodes in a local
 * io_rsrc_data and publishes ctx->buf_table only after the loop, so
 * within one call only the *last_hpage match is left: two buffers on one
 * hugepage that are not neighbours in the iovec array both pay for it.
 * (Measured on 6.18 in our notes: one region registered twice in one call
 * gives VmPin 2x; on 6.1, 1x.)
 *
 * Coalescing does not change the charge: 6.3+ accounts the coalesced
 * array, whose entries are the folio heads (or the first pinned page,
 * whose compound_head() is the same head), and a folio is charged whole
 * either way.
 *
 * Whether the charge is checked against RLIMIT_MEMLOCK is not decided
 * here: io_uring_create() sets ctx->user only without CAP_IPC_LOCK, and
 * __io_account_mem() checks the limit only for ctx->user.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Heads already charged in this call, and where each was charged.  An
 * open-addressing set keyed by folio id; @buf tells whether the head was
 * met in the current buffer or an earlier one.
 */
struct head_set {
	uint64_t *folio;
	unsigned int *buf;
	bool *used;
	size_t cap;
};

static uint64_t hash_folio(uint64_t f)
{
	f ^= f >> 33;
	f *= 0xff51afd7ed558ccdULL;
	f ^= f >> 33;
	return f;
}

static int head_set_init(struct head_set *s, uint64_t nr_pages)
{
	size_t cap = 16;

	while (cap < 2 * nr_pages)
		cap <<= 1;
	s->cap = cap;
	s->folio = calloc(cap, sizeof(*s->folio));
	s->buf = calloc(cap, sizeof(*s->buf));
	s->used = calloc(cap, sizeof(*s->used));
	if (!s->folio || !s->buf || !s->used)
		return hb_seterr(ENOMEM, "out of memory for the accounting "
				 "of %llu pages", (unsigned long long)nr_pages);
	return 0;
}

static void head_set_free(struct head_set *s)
{
	free(s->folio);
	free(s->buf);
	free(s->used);
}

/* The slot of @folio: its entry, or the empty slot where it belongs. */
static size_t head_set_slot(const struct head_set *s, uint64_t folio)
{
	size_t i = hash_folio(folio) & (s->cap - 1);

	while (s->used[i] && s->folio[i] != folio)
		i = (i + 1) & (s->cap - 1);
	return i;
}

/*
 * headpage_already_acct(): the head is among the earlier pages of this
 * buffer (always), or of an earlier buffer of the call (only while the
 * table is filled in the loop, acct_batch_dedup).
 */
static bool head_already_charged(const struct hb_kmodel *km,
				 const struct head_set *s, size_t slot,
				 unsigned int buf)
{
	if (!s->used[slot])
		return false;
	return s->buf[slot] == buf || km->acct_batch_dedup;
}

/*
 * io_buffer_account_pin() for buffer @buf: the pages it charges.  The
 * head is remembered for this buffer whether or not it was charged, as
 * the kernel's later scans see it in the page array or the table.
 */
static uint64_t account_buffer(const struct hb_kmodel *km,
			       const struct hb_page *pages, unsigned int nr,
			       unsigned int buf, struct head_set *s,
			       bool *have_last, uint64_t *last)
{
	uint64_t acct = 0;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		const struct hb_page *p = &pages[i];
		size_t slot;

		if (!p->order) {
			acct++;
			continue;
		}
		if (*have_last && *last == p->folio)
			continue;
		*have_last = true;
		*last = p->folio;
		slot = head_set_slot(s, p->folio);
		if (!head_already_charged(km, s, slot, buf))
			acct += 1ULL << p->order;
		/* with the batch dedup, being in the set is what counts */
		if (!s->used[slot] || !km->acct_batch_dedup) {
			s->used[slot] = true;
			s->folio[slot] = p->folio;
			s->buf[slot] = buf;
		}
	}
	return acct;
}

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

int hb_model_account(const struct hb_kmodel *km, const struct hb_page *pages,
		     const unsigned int *buf_pages, unsigned int nr_bufs,
		     uint64_t *charged_bytes)
{
	struct head_set s = { 0 };
	uint64_t total = 0, acct = 0, last = 0;
	bool have_last = false;
	unsigned int b;
	int ret;

	*charged_bytes = 0;
	if (!nr_bufs)
		return 0;
	if (!pages || !buf_pages)
		return hb_seterr(EINVAL, "no page map for the accounting");
	for (b = 0; b < nr_bufs; b++)
		total += buf_pages[b];
	ret = check_pages(pages, total);
	if (ret)
		return ret;
	ret = head_set_init(&s, total);
	if (ret)
		goto out;
	for (b = 0; b < nr_bufs; b++) {
		acct += account_buffer(km, pages, buf_pages[b], b, &s,
				       &have_last, &last);
		pages += buf_pages[b];
	}
	*charged_bytes = acct << HB_PAGE_SHIFT;
out:
	head_set_free(&s);
	return ret;
}

bool hb_model_memlock_checked(bool cap_ipc_lock)
{
	/* io_uring_create(): ctx->user only when !capable(CAP_IPC_LOCK) */
	return !cap_ipc_lock;
}

bool hb_model_vmpin_charged(const struct hb_kmodel *km, bool cap_ipc_lock)
{
	return !km->vmpin_needs_user || !cap_ipc_lock;
}
