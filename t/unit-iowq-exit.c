// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of the model's io-wq idle exit race (lib/model/kmodel.c,
 * iowq_exit_race()): 38aa434ab933's exit-on-idle state (7.0, and
 * backported to 6.18.y and 6.19.y at sublevels not known) strands a
 * punted request when io_wq_enqueue() picks a worker that is on its way
 * out of io_wq_worker(); 7.3.2's stable update (7.3.4 read) and 7.4 have
 * the fix.  A bare series ("7.3") is the series as it ships today.
 */
#include "helpers.h"

struct race_row {
	const char *kernel;
	enum hb_kbug want;
};

static const struct race_row rows[] = {
	{ "5.10", HB_KBUG_ABSENT },
	{ "6.1", HB_KBUG_ABSENT },
	{ "6.1+hugebuf", HB_KBUG_ABSENT },
	{ "6.12.118", HB_KBUG_ABSENT },
	{ "6.16", HB_KBUG_ABSENT },
	{ "6.18", HB_KBUG_UNKNOWN },
	{ "6.18.44", HB_KBUG_UNKNOWN },
	{ "6.19", HB_KBUG_UNKNOWN },
	{ "7.0", HB_KBUG_PRESENT },
	{ "7.0.13", HB_KBUG_PRESENT },
	{ "7.1.13", HB_KBUG_PRESENT },
	{ "7.2.13", HB_KBUG_PRESENT },
	{ "7.3.1", HB_KBUG_PRESENT },
	{ "7.3.2", HB_KBUG_ABSENT },
	{ "7.3.4", HB_KBUG_ABSENT },
	{ "7.3", HB_KBUG_ABSENT },
	{ "7.4", HB_KBUG_ABSENT },
};

static int check_row(const struct race_row *r)
{
	struct hb_kmodel km;

	if (hb_kmodel_parse(r->kernel, &km))
		return t_fail("%s: %s", r->kernel, hb_errmsg());
	if (km.iowq_exit_race != r->want)
		return t_fail("%s: the io-wq idle exit race %s, expected %s",
			      r->kernel, t_kbug_name(km.iowq_exit_race),
			      t_kbug_name(r->want));
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
