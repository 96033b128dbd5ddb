// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the accounting model, hb_model_account(): what one
 * IORING_REGISTER_BUFFERS call charges to user->locked_vm, per kernel
 * generation.  Each case names the kernel code it mirrors:
 *  - io_buffer_account_pin(): an order-0 page is one page, every time;
 *    a compound page is charged whole, once per head;
 *  - last_hpage (carried across the buffers of one call, every version);
 *  - headpage_already_acct() finding earlier buffers of the same call
 *    only while io_sqe_buffers_register() fills the table in its loop:
 *    up to 6.12 (and our 6.1 backport); lost in the 6.13 table rework
 *    (3597f2786b68);
 *  - coalescing (57bebf807e2a, a8edbb424b13) does not change the charge;
 *  - RLIMIT_MEMLOCK only without CAP_IPC_LOCK (io_uring_create());
 *  - VmPin for every ring up to 6.18 (measured on the host), only without
 *    CAP_IPC_LOCK on 7.x (7.2.13's io_buffer_account_pin() returns
 *    without ctx->user; measured in its guest).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "helpers.h"

#define MAX_PAGES	4096

struct batch {
	struct hb_page pages[MAX_PAGES];
	unsigned int per_buf[16];
	unsigned int nr_bufs, nr;
};

/* Append a buffer of @len bytes @head_offset into folios of @folio_size. */
static void add_buf(struct batch *b, uint64_t folio_size, uint64_t head_offset,
		    uint64_t len, uint64_t first_folio)
{
	unsigned int n = (unsigned int)hb_nr_pages(head_offset, len);

	if (b->nr + n > MAX_PAGES || b->nr_bufs >= T_ARRAY_SIZE(b->per_buf))
		abort();
	if (hb_layout_synth(folio_size, head_offset, len, first_folio,
			    b->pages + b->nr))
		abort();
	b->per_buf[b->nr_bufs++] = n;
	b->nr += n;
}

static int expect_charge(const char *what, const char *kernel,
			 const struct batch *b, uint64_t want)
{
	struct hb_kmodel km;
	uint64_t got = ~0ULL;

	if (hb_kmodel_parse(kernel, &km))
		return t_fail("%s: kernel %s: %s", what, kernel, hb_errmsg());
	if (hb_model_account(&km, b->pages, b->per_buf, b->nr_bufs, &got))
		return t_fail("%s (%s): %s", what, kernel, hb_errmsg());
	if (got != want)
		return t_fail("%s (%s): charged %llu KiB, expected %llu KiB",
			      what, kernel, (unsigned long long)(got >> 10),
			      (unsigned long long)(want >> 10));
	return T_EXIT_PASS;
}

/* The same charge on every kernel lib models (hb_kmodel_known()). */
static int expect_all(const char *what, const struct batch *b, uint64_t want)
{
	const char *const *kernels;
	unsigned int i, nr = hb_kmodel_known(&kernels);
	int ret = T_EXIT_PASS;

	for (i = 0; i < nr; i++)
		ret = t_worst(ret, expect_charge(what, kernels[i], b, want));
	return ret;
}

/* io_buffer_account_pin(): a non-compound page adds one page. */
static int test_small_pages(void)
{
	static struct batch b;
	int ret;

	memset(&b, 0, sizeof(b));
	add_buf(&b, T_SZ_4K, 0x123, 64 << 10, 100);
	/* 0x123 + 64 KiB touches 17 pages */
	ret = expect_all("4 KiB pages at +0x123", &b, 17 * T_SZ_4K);
	/* the same 4 KiB pages again: order 0 is never deduplicated */
	add_buf(&b, T_SZ_4K, 0x123, 64 << 10, 100);
	return t_worst(ret, expect_all("4 KiB pages twice", &b,
				       34 * T_SZ_4K));
}

/*
 * A compound page is charged whole (page_size(hpage)), even for a buffer
 * that uses 4 KiB of it: kernel notes "a 2 MiB hugetlb buffer at +0x1234
 * is charged 512 pages per touched folio".
 */
static int test_whole_hugepage(void)
{
	static struct batch b;
	int ret;

	memset(&b, 0, sizeof(b));
	add_buf(&b, T_SZ_2M, 0x1234, 4096, 7);
	ret = expect_all("4 KiB inside a 2 MiB page", &b, T_SZ_2M);
	memset(&b, 0, sizeof(b));
	/* 0x1234 + 4 MiB touches three 2 MiB folios */
	add_buf(&b, T_SZ_2M, 0x1234, 4 << 20, 7);
	ret = t_worst(ret, expect_all("4 MiB at +0x1234", &b, 3 * T_SZ_2M));
	memset(&b, 0, sizeof(b));
	add_buf(&b, 64 << 10, 0, 256 << 10, 7);
	return t_worst(ret, expect_all("mTHP 64K folios", &b, 256 << 10));
}

/*
 * last_hpage is declared in io_sqe_buffers_register() and carried from one
 * buffer to the next: neighbours in the iovec array sharing a hugepage are
 * charged once on every kernel, 6.13+ included.
 */
static int test_last_hpage(void)
{
	static struct batch b;

	memset(&b, 0, sizeof(b));
	add_buf(&b, T_SZ_2M, 0, 1 << 20, 5);
	add_buf(&b, T_SZ_2M, 1 << 20, 1 << 20, 5);
	return expect_all("two halves of one hugepage, neighbours", &b,
			  T_SZ_2M);
}

/*
 * headpage_already_acct() over the ring's table: the same hugepage in
 * buffers 0 and 2 (another in between).  Up to 6.12 the table is filled
 * in the loop and buffer 2 is charged nothing; since the 6.13 rework
 * (3597f2786b68) the table is published after the loop and buffer 2 pays
 * again.  Kernel notes: one region twice in one call, VmPin 2x on 6.18,
 * 1x on 6.1.
 */
static int test_batch_dedup(void)
{
	static struct batch b;
	int ret = T_EXIT_PASS;

	memset(&b, 0, sizeof(b));
	add_buf(&b, T_SZ_2M, 0, 1 << 20, 5);
	add_buf(&b, T_SZ_2M, 0, 4096, 9);
	add_buf(&b, T_SZ_2M, 1 << 20, 1 << 20, 5);
	ret = t_worst(ret, expect_charge("A, B, A again", "6.1", &b,
					 2 * T_SZ_2M));
	ret = t_worst(ret, expect_charge("A, B, A again", "6.1+hugebuf", &b,
					 2 * T_SZ_2M));
	ret = t_worst(ret, expect_charge("A, B, A again", "6.12", &b,
					 2 * T_SZ_2M));
	ret = t_worst(ret, expect_charge("A, B, A again", "6.13", &b,
					 3 * T_SZ_2M));
	ret = t_worst(ret, expect_charge("A, B, A again", "6.18", &b,
					 3 * T_SZ_2M));

	/* one 8 MiB region registered twice in one call */
	memset(&b, 0, sizeof(b));
	add_buf(&b, T_SZ_2M, 0, 8 << 20, 20);
	add_buf(&b, T_SZ_2M, 0, 8 << 20, 20);
	ret = t_worst(ret, expect_charge("one region twice", "6.1", &b,
					 8 << 20));
	ret = t_worst(ret, expect_charge("one region twice", "6.18", &b,
					 16 << 20));
	return ret;
}

/*
 * Within one buffer the earlier pages are always scanned: a hugepage
 * mapped twice in one buffer (pages H, G, H) is charged once everywhere.
 */
static int test_same_buffer_twice(void)
{
	static struct batch b;
	unsigned int i;

	memset(&b, 0, sizeof(b));
	for (i = 0; i < 3; i++) {
		b.pages[i].folio = i == 1 ? 2 : 1;
		b.pages[i].idx = i;
		b.pages[i].order = 9;
	}
	b.per_buf[0] = 3;
	b.nr_bufs = 1;
	b.nr = 3;
	return expect_all("H, G, H in one buffer", &b, 2 * T_SZ_2M);
}

/* Pages out of their folio are refused, not charged. */
static int test_bad_input(void)
{
	struct hb_page p = { .folio = 1, .idx = 4, .order = 2 };
	unsigned int one = 1;
	struct hb_kmodel km;
	uint64_t got = 5;
	int ret = T_EXIT_PASS;

	hb_kmodel_for_version(6, 18, &km);
	if (hb_model_account(&km, &p, &one, 1, &got) >= 0)
		ret = t_fail("page idx 4 in an order-2 folio was accepted");
	if (hb_model_account(&km, NULL, NULL, 0, &got) || got)
		ret = t_fail("an empty batch does not charge 0");
	return ret;
}

/* io_uring_create(): ctx->user (the RLIMIT_MEMLOCK check) without CAP_IPC_LOCK */
static int test_memlock_checked(void)
{
	if (!hb_model_memlock_checked(false) || hb_model_memlock_checked(true))
		return t_fail("RLIMIT_MEMLOCK must be checked exactly "
			      "without CAP_IPC_LOCK");
	return T_EXIT_PASS;
}

static int test_vmpin_charged(void)
{
	struct hb_kmodel k618, k72;

	hb_kmodel_for_version(6, 18, &k618);
	hb_kmodel_for_version(7, 2, &k72);
	if (!hb_model_vmpin_charged(&k618, true) ||
	    !hb_model_vmpin_charged(&k618, false))
		return t_fail("6.18 charges VmPin to every ring");
	if (hb_model_vmpin_charged(&k72, true) ||
	    !hb_model_vmpin_charged(&k72, false))
		return t_fail("7.2 charges VmPin only without CAP_IPC_LOCK");
	return T_EXIT_PASS;
}

int main(void)
{
	int ret = T_EXIT_PASS;

	ret = t_worst(ret, t_sub(test_small_pages()));
	ret = t_worst(ret, t_sub(test_whole_hugepage()));
	ret = t_worst(ret, t_sub(test_last_hpage()));
	ret = t_worst(ret, t_sub(test_batch_dedup()));
	ret = t_worst(ret, t_sub(test_same_buffer_twice()));
	ret = t_worst(ret, t_sub(test_bad_input()));
	ret = t_worst(ret, t_sub(test_memlock_checked()));
	ret = t_worst(ret, t_sub(test_vmpin_charged()));
	return t_done(ret);
}
