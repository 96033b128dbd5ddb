// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of hb_model_clone_seq(): the charge after each step of the
 * sequence efde156d91ba ("io_uring/rsrc: fix accounting for cloned
 * buffers with huge pages", 7.4) is about, and the exit the reproducer
 * t/liburing/fixed-clone-acct.c should give, per kernel generation
 * (docs/kernel-rules.md §6.5).  H is one 2 MiB hugepage: A [H 0-1M],
 * B clones A, B's slot 0 := [H 1-2M], A unregisters, B unregisters.
 * Each row is worked by hand from lib/model/account.c's rules:
 *  - up to 7.1 the shared imu carries A's charge (acct_pages) to its last
 *    reference, B's own buffer is charged nothing (headpage_already_acct()
 *    finds H in B's table): 2048 three times, then 0, 0;
 *  - 7.2 and 7.3: B's own buffer is free (the clone's reference made H
 *    old in B), A un-charges H with the shared imu's last reference and
 *    B again with its own: 2048 three times, 0, then -2048, the bug;
 *  - 7.4 as modelled: the clone charges B, each ring un-charges what it
 *    paid: 2048, 4096, 4096, 2048, 0.
 */
#include "helpers.h"

struct clone_row {
	const char *kernel;
	int exit;
	int64_t kb[HB_CLONE_STEPS];
};

static const struct clone_row rows[] = {
	{ "5.10", 77, { 0 } },
	{ "6.1", 77, { 0 } },
	{ "6.1+hugebuf", 77, { 0 } },
	{ "6.11", 77, { 0 } },
	{ "6.12", 0, { 2048, 2048, 2048, 0, 0 } },
	{ "6.12.118", 0, { 2048, 2048, 2048, 0, 0 } },
	{ "6.18", 0, { 2048, 2048, 2048, 0, 0 } },
	{ "7.1", 0, { 2048, 2048, 2048, 0, 0 } },
	{ "7.2", 1, { 2048, 2048, 2048, 0, -2048 } },
	{ "7.2.13", 1, { 2048, 2048, 2048, 0, -2048 } },
	{ "7.3.4", 1, { 2048, 2048, 2048, 0, -2048 } },
	{ "7.4", 0, { 2048, 4096, 4096, 2048, 0 } },
};

static int check_row(const struct clone_row *r)
{
	int64_t kb[HB_CLONE_STEPS] = { 0 };
	struct hb_kmodel km;
	unsigned int i;
	int got;

	if (hb_kmodel_parse(r->kernel, &km))
		return t_fail("%s: %s", r->kernel, hb_errmsg());
	got = hb_model_clone_seq(&km, kb);
	if (got != r->exit)
		return t_fail("%s: the reproducer's exit %d, expected %d",
			      r->kernel, got, r->exit);
	for (i = 0; got != 77 && i < HB_CLONE_STEPS; i++)
		if (kb[i] != r->kb[i])
			return t_fail("%s: step %u charges %lld kB, expected "
				      "%lld", r->kernel, i + 1,
				      (long long)kb[i], (long long)r->kb[i]);
	return T_EXIT_PASS;
}

int main(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(rows); i++)
		ret = t_worst(ret, t_sub(check_row(&rows[i])));
	return t_done(ret);
}
