// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit test of the job plan's contig= rule (lib/job/jobplan.c
 * plan_contig(), through hb_contig_check()): contig=pin leaves a 4k
 * buffer for the registration's long-term pin to fault in (issue 44), so
 * a plan without fixed buffers, one whose framework writes the buffers
 * before registering them (fio: a job that writes) and one with
 * md_per_io_size (metadata buffers outside the registration) and one
 * with clone_buffers (the first job faults in what the others probe) are each
 * refused in one line naming the option to change; a read-only, fixed
 * 4k plan takes it, and any other backing is refused.
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"

static void pin_plan(struct hb_jobplan *p, const char *backing)
{
	memset(p, 0, sizeof(*p));
	p->backing = backing;
	p->contig = HB_CONTIG_PIN;
	p->depth = 2;
	p->max_bs = 65536;
	p->min_len = 4096;
	p->fixedbufs = true;
}

struct pcase {
	const char *what;
	const char *backing;
	bool unregistered, fills, md, clone;
	const char *names;	/* the message names this fix */
};

static const struct pcase cases[] = {
	{ "fixedbufs=0", "4k", true, false, false, false, "use fixedbufs=1" },
	{ "a writing job", "4k", false, true, false, false,
	  "use a read-only rw=" },
	{ "md_per_io_size", "4k", false, false, true, false,
	  "drop md_per_io_size" },
	{ "clone_buffers", "4k", false, false, false, true,
	  "drop clone_buffers" },
	{ "backing=thp", "thp", false, false, false, false, "use backing=4k" },
};

static int check_refused(const struct pcase *c)
{
	struct hb_jobplan p;
	int ret;

	pin_plan(&p, c->backing);
	p.fixedbufs = !c->unregistered;
	p.fills_buffers = c->fills;
	if (c->md) {
		p.cmd_type = "nvme";
		p.md_per_io_size = 8;
	}
	if (c->clone) {
		p.clone = HB_JOB_CLONE_SPLIT;
		p.threads = true;
	}
	ret = hb_jobplan_check(&p);
	if (ret != -EINVAL)
		return t_fail("contig=pin with %s: returned %d, expected "
			      "-EINVAL (%s)", c->what, ret, hb_errmsg());
	if (!strstr(hb_errmsg(), "contig=pin") ||
	    !strstr(hb_errmsg(), c->names) || strchr(hb_errmsg(), '\n'))
		return t_fail("contig=pin with %s: '%s' must name contig=pin "
			      "and '%s' on one line", c->what, hb_errmsg(),
			      c->names);
	t_info("%s: %s", c->what, hb_errmsg());
	return t_pass();
}

/* read-only fixed 4k: taken, and the backing to allocate says pin */
static int check_taken(void)
{
	struct hb_jobplan p;

	pin_plan(&p, "4k");
	if (hb_jobplan_check(&p))
		return t_fail("a read-only fixed 4k plan with contig=pin: %s",
			      hb_errmsg());
	if (p.b.contig != HB_CONTIG_PIN)
		return t_fail_val("the plan's backing contig", HB_CONTIG_PIN,
				  p.b.contig);
	return t_pass();
}

int main(void)
{
	int ret = t_sub(check_taken());
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(cases); i++)
		ret = t_worst(ret, t_sub(check_refused(&cases[i])));
	return t_done(ret);
}
