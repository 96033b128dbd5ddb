// SPDX-License-Identifier: GPL-2.0-only
/*
 * The job object (lib/job/job.c) places and registers what the plan
 * says: after hb_job_prepare() slot i's buffer is at map + head + i *
 * stride with one registered iovec per slot (layout per-io), the
 * registration is timed and the set-up iovecs are gone after
 * hb_job_register(), and the report names the plan's layout and block
 * size.  A 4 KiB plan of 4 slots of 8 KiB, no files: no pool needed.
 * Nothing is said on the way (4 KiB pages have nothing to coalesce).
 */
#include <errno.h>
#include <string.h>

#include "helpers.h"
#include "hugebuf-job.h"

#define SLOTS	4
#define BS	8192

static unsigned int said;

static void say(void *arg, bool error, const char *line)
{
	(void)arg;
	said++;
	t_info("the job said (%s): %s", error ? "error" : "note", line);
}

static int check_placed(const struct hb_job *j)
{
	const struct hb_jobplan *p = &j->plan;
	unsigned int i;

	if (p->nr_iovecs != SLOTS)
		return t_fail_val("registered iovecs (per-io)", SLOTS,
				  p->nr_iovecs);
	for (i = 0; i < SLOTS; i++) {
		char *want = j->map + p->head + (uint64_t)i * p->stride;

		if (j->iovecs[i].iov_base != want)
			return t_fail("slot %u at %p, the plan says %p", i,
				      j->iovecs[i].iov_base, (void *)want);
		if (j->iovecs[i].iov_len < BS)
			return t_fail_val("slot's iovec length",
					  BS, j->iovecs[i].iov_len);
	}
	if (j->buffer_len != j->iovecs[0].iov_len)
		return t_fail_val("the report's buffer length",
				  j->iovecs[0].iov_len, j->buffer_len);
	return t_pass();
}

static int check_report(const struct hb_job *j)
{
	struct hb_job_end e = { .name = "unit-job", .shared = "" };
	struct hb_str text;
	int ret;

	hb_str_init(&text);
	ret = hb_job_report(j, &e, "t: ", &text, NULL);
	if (ret || !text.s || !strstr(text.s, "per-io"))
		ret = t_fail("report (%d): no 'per-io' in '%s'", ret,
			     text.s ? text.s : "");
	else
		ret = t_pass();
	hb_str_free(&text);
	return ret;
}

int main(void)
{
	struct hb_job_prep how = { .coalesce_check = HB_JOB_CHECK_OFF };
	enum hb_job_step failed;
	struct io_uring ring;
	struct hb_job *j;
	int ret;

	j = hb_job_new(say, NULL);
	if (!j)
		return t_done(t_fail("hb_job_new: out of memory"));
	j->plan.backing = "4k";
	j->plan.depth = SLOTS;
	j->plan.max_bs = BS;
	j->plan.min_len = (uint64_t)SLOTS * BS;
	j->plan.fixedbufs = true;
	ret = hb_jobplan_check(&j->plan);
	if (ret)
		return t_done(t_fail("hb_jobplan_check: %s", hb_errmsg()));
	ret = hb_job_alloc(j);
	if (ret)
		return t_done(t_fail("hb_job_alloc: %s", hb_errmsg()));
	ret = hb_job_prepare(j, &how, &failed);
	if (ret)
		return t_done(t_fail("hb_job_prepare: step %d: %s", failed,
				     hb_errmsg()));
	ret = check_placed(j);
	if (t_ring_init(&ring, 4) == T_EXIT_PASS) {
		if (hb_job_register(j, &ring, NULL, NULL))
			ret = t_fail("hb_job_register: %s", hb_errmsg());
		else if (j->iovecs || j->register_usec <= 0 ||
			 j->ready_usec <= 0)
			ret = t_fail("registered: iovecs %p kept, %.1f us to "
				     "register, %.1f us to ready", j->iovecs,
				     j->register_usec, j->ready_usec);
		else
			ret = t_worst(ret, t_pass());
		io_uring_queue_exit(&ring);
	}
	ret = t_worst(ret, check_report(j));
	if (said)
		ret = t_fail_val("lines said for a 4 KiB job", 0, said);
	hb_job_free(j);
	return t_done(ret);
}
