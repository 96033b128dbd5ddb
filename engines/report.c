// SPDX-License-Identifier: GPL-2.0-only
/*
 * The engine's report: the init-time notes, and the job-end report
 * through lib's job (lib/job/job.c) and its one writer (lib/job/report.c).  fio glue only; the buffer plan is engines/options.c's
 * translation of the job and lib/job/jobplan.c's rules.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "hugebuf-engine.h"

#include "verify.h"

void hbe_note_kernel(void)
{
	static bool said;
	const struct hb_kdetect *d = hb_kdetect_cached();

	if (said || !d || !d->warning[0])
		return;
	said = true;
	hbe_note(HBE_LOG_PREFIX "%s\n", d->warning);
}

/*
 * experimental_verify keeps no log: do_verify() replays the job's I/O
 * sequence and checks every write's seed at its offset, in order, so a
 * block written twice (norandommap) holds the later write and fails.  fio
 * 3.33's io_uring engine passes such a job only because it builds its SQE
 * in ->prep, before the replay turns the write into a read, and writes the
 * expected data instead of reading it (fio master preps again after the
 * flip).
 */
void hbe_warn_replay(struct thread_data *td)
{
	if (!td->o.experimental_verify || !td->o.norandommap ||
	    !td_write(td) || !td->o.do_verify || td->o.verify == VERIFY_NONE)
		return;
	hbe_note(HBE_LOG_PREFIX "warning: experimental_verify replays writes "
		 "in order and a block norandommap writes twice fails the "
		 "check: drop norandommap or experimental_verify\n");
}

/* ------------------------------------------------------------------ */
/* report                                                              */
/* ------------------------------------------------------------------ */

/* The job-end report: lib's job writes it from what fio counted. */
void hbe_report(struct thread_data *td, struct hbe_data *hd)
{
	struct hbe_options *o = hbe_opts(td);
	struct hb_job_end e = {
		.name = td->o.name,
		.subjob = td->subjob_number,
		/* fio's count of whole reads and writes done */
		.ios = td->io_blocks[DDIR_READ] + td->io_blocks[DDIR_WRITE],
		.write_ios = td->io_blocks[DDIR_WRITE],
		/*
		 * The counters are per device: other jobs' I/O lands there.
		 * ramp_time: fio zeroes io_blocks when the ramp ends
		 * (reset_all_stats()), the device counts from open.
		 */
		.approximate = thread_number > 1 || td->o.ramp_time,
		.direct = td->o.odirect,
		.shared = !hd->share ? "" : hd->share_idx ? "clone" : "source",
		.pt = hd->pt ? &hd->pt->r : NULL,
		.atomic_unreg = hd->u.write_unreg,
		.atomic_unreg_writes = hd->unreg_writes,
		.md = hd->md_on ? &hd->md : NULL,
	};
	const char *path;
	struct hb_str text;
	int ret;

	path = o->report_json && *o->report_json ? o->report_json :
	       getenv("HUGEBUF_REPORT_JSON");
	if (path && !*path)
		path = NULL;
	if (!o->report && !path)
		return;
	hb_str_init(&text);
	ret = hb_job_report(hd->job, &e, HBE_LOG_PREFIX,
			    o->report ? &text : NULL, path);
	if (text.s)
		hbe_note("%s", text.s);
	hb_str_free(&text);
	if (ret)
		log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
}
