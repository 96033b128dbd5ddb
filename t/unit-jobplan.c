// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/job/jobplan.c's rule for fio 3.41's NVMe command variants
 * (check_nvme_extras()): readfua, writefua, write_mode other than write,
 * verify_mode=compare and deac are fields of NVMe commands, which a plan
 * without passthrough does not send, and md_per_io_size is not sent yet:
 * each is refused in one line that names the option and fio's
 * io_uring_cmd, and a plan without them is not refused for them.  The
 * plan is a 4 KiB job without files, so not passthrough (the checks after
 * this one need no pool).
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

static void base_plan(struct hb_jobplan *p)
{
	memset(p, 0, sizeof(*p));
	p->backing = "4k";
	p->depth = 1;
	p->max_bs = 4096;
	p->min_len = 4096;
	p->fixedbufs = true;
}

enum extra { READ_FUA, WRITE_FUA, WMODE, COMPARE, DEAC, MD };

struct ecase {
	enum extra kind;
	const char *wmode;		/* for WMODE */
	const char *names;		/* what the message must name */
};

static void set_extra(struct hb_jobplan *p, const struct ecase *c)
{
	switch (c->kind) {
	case READ_FUA:
		p->read_fua = true;
		break;
	case WRITE_FUA:
		p->write_fua = true;
		break;
	case WMODE:
		p->write_mode = c->wmode;
		break;
	case COMPARE:
		p->verify_compare = true;
		break;
	case DEAC:
		p->deac = true;
		break;
	case MD:
		p->md_per_io_size = 8;
		break;
	}
}

static const struct ecase cases[] = {
	{ READ_FUA, NULL, "readfua=1" },
	{ WRITE_FUA, NULL, "writefua=1" },
	{ WMODE, "zeroes", "write_mode=zeroes" },
	{ WMODE, "uncor", "write_mode=uncor" },
	{ WMODE, "verify", "write_mode=verify" },
	{ COMPARE, NULL, "verify_mode=compare" },
	{ DEAC, NULL, "deac=1" },
	{ MD, NULL, "md_per_io_size" },
};

static int check_refused(const struct ecase *c)
{
	struct hb_jobplan p;
	int ret;

	base_plan(&p);
	set_extra(&p, c);
	ret = hb_jobplan_check(&p);
	if (ret != -EINVAL)
		return t_fail("%s: returned %d, expected -EINVAL (%s)",
			      c->names, ret, hb_errmsg());
	if (!strstr(hb_errmsg(), c->names) ||
	    !strstr(hb_errmsg(), "io_uring_cmd") || strchr(hb_errmsg(), '\n'))
		return t_fail("%s: message '%s' must name '%s' and fio's "
			      "io_uring_cmd on one line", c->names, hb_errmsg(),
			      c->names);
	t_info("%s: %s", c->names, hb_errmsg());
	return t_pass();
}

/* without them, whatever the plan's outcome, they are not the reason */
static int check_plain(void)
{
	struct hb_jobplan p;

	base_plan(&p);
	if (hb_jobplan_check(&p) && strstr(hb_errmsg(), "NVMe"))
		return t_fail("a plain plan is refused as an NVMe variant: %s",
			      hb_errmsg());
	return t_pass();
}

int main(void)
{
	int ret = check_plain();
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++)
		if (check_refused(&cases[i]))
			ret = T_EXIT_FAIL;
	return t_done(ret);
}
