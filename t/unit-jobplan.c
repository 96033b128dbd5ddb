// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of lib/job/jobplan.c's rule for fio 3.41's NVMe command variants
 * (check_nvme_extras()): readfua, writefua, write_mode other than write,
 * verify_mode=compare and deac are fields of NVMe commands, which a plan
 * without passthrough does not send: each is refused in one line that
 * names the option and fio's io_uring_cmd, and a plan without them is not
 * refused for them.  The plan is a 4 KiB job without files, so not
 * passthrough (the checks after this one need no pool); with
 * cmd_type=nvme it is, and takes them all.  md_per_io_size is taken by
 * both, its buffers placed after the data in what the plan allocates.
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
	bool plain_ok;			/* taken without passthrough too */
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
	{ READ_FUA, NULL, "readfua=1", false },
	{ WRITE_FUA, NULL, "writefua=1", false },
	{ WMODE, "zeroes", "write_mode=zeroes", false },
	{ WMODE, "uncor", "write_mode=uncor", false },
	{ WMODE, "verify", "write_mode=verify", false },
	{ COMPARE, NULL, "verify_mode=compare", false },
	{ DEAC, NULL, "deac=1", false },
	{ MD, NULL, "md_per_io_size", true },
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

/*
 * Through passthrough (cmd_type=nvme; a plan without files passes its
 * char-device rule) the same fields are the commands' own: not refused;
 * nor is md_per_io_size without it (plain reads and writes carry it).
 */
static int check_passthrough(const struct ecase *c)
{
	struct hb_jobplan p;
	int ret;

	base_plan(&p);
	p.cmd_type = "nvme";
	set_extra(&p, c);
	ret = hb_jobplan_check(&p);
	if (ret || !p.passthrough)
		return t_fail("%s through passthrough: returned %d, "
			      "passthrough %d (%s)", c->names, ret,
			      p.passthrough, ret ? hb_errmsg() : "");
	if (!c->plain_ok)
		return t_pass();
	base_plan(&p);
	set_extra(&p, c);
	ret = hb_jobplan_check(&p);
	if (ret)
		return t_fail("%s without passthrough: returned %d (%s)",
			      c->names, ret, hb_errmsg());
	return t_pass();
}

/*
 * md_per_io_size: a buffer per slot after the last slot's data, page
 * aligned, inside the length the plan allocates.
 */
static int check_md_place(void)
{
	struct hb_jobplan p;
	uint64_t data_end;
	int ret;

	base_plan(&p);
	p.cmd_type = "nvme";
	p.depth = 3;
	p.md_per_io_size = 520;
	ret = hb_jobplan_check(&p);
	if (ret)
		return t_fail("md plan refused: %s", hb_errmsg());
	data_end = (uint64_t)(p.depth - 1) * p.stride + p.max_bs;
	if (p.md_off < data_end || p.md_off % 4096 ||
	    p.len < p.md_off + (uint64_t)p.depth * p.md_per_io_size)
		return t_fail("md_off %llu, len %llu: want >= %llu, page "
			      "aligned, and %u x %u bytes inside len",
			      (unsigned long long)p.md_off,
			      (unsigned long long)p.len,
			      (unsigned long long)data_end, p.depth,
			      p.md_per_io_size);
	t_info("md_off %llu after %llu bytes of data, len %llu",
	       (unsigned long long)p.md_off, (unsigned long long)data_end,
	       (unsigned long long)p.len);
	return t_pass();
}

int main(void)
{
	int ret = check_plain();
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++) {
		if (!cases[i].plain_ok && check_refused(&cases[i]))
			ret = T_EXIT_FAIL;
		if (check_passthrough(&cases[i]))
			ret = T_EXIT_FAIL;
	}
	if (check_md_place())
		ret = T_EXIT_FAIL;
	return t_done(ret);
}
