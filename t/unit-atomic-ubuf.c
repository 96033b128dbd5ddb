// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of the model's rule for RWF_ATOMIC's buffers (lib/model/
 * kmodel.c, atomic_ubuf_only()): from 6.11 (c34fc6f26ab8), where the flag
 * came, generic_atomic_write_valid() takes only a user-memory iterator,
 * so a registered buffer's write is refused EINVAL; before 6.11 there is
 * no RWF_ATOMIC at all, and neither our 6.1 series nor its single fixes
 * bring it.  Every release the tests hold the model to is a row.
 */
#include "helpers.h"

struct atomic_row {
	const char *kernel;
	bool ubuf_only;
};

static const struct atomic_row rows[] = {
	{ "5.10", false },
	{ "6.1", false },
	{ "6.1+hugebuf", false },
	{ "6.1.192-hbfix-memlock", false },
	{ "6.3", false },
	{ "6.10", false },
	{ "6.10.14", false },
	{ "6.11", true },
	{ "6.11.0", true },
	{ "6.12", true },
	{ "6.12.118", true },
	{ "6.13", true },
	{ "6.15", true },
	{ "6.16", true },
	{ "6.18", true },
	{ "7.0.13", true },
	{ "7.2", true },
	{ "7.3", true },
	{ "7.3.4", true },
	{ "7.4", true },
};

static int check_row(const struct atomic_row *r)
{
	struct hb_kmodel km;

	if (hb_kmodel_parse(r->kernel, &km))
		return t_fail("%s: %s", r->kernel, hb_errmsg());
	if (km.atomic_ubuf_only != r->ubuf_only)
		return t_fail("%s: RWF_ATOMIC from a registered buffer %s, "
			      "expected %s", r->kernel,
			      km.atomic_ubuf_only ? "refused" : "not refused",
			      r->ubuf_only ? "refused (EINVAL)" :
					     "not refused by this rule");
	return T_EXIT_PASS;
}

int main(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(rows); i++)
		ret = t_worst(ret, t_sub(check_row(&rows[i])));
	ret = t_worst(ret, t_sub(t_known_kernels_have_rows(rows,
			sizeof(rows[0]), T_ARRAY_SIZE(rows))));
	return t_done(ret);
}
