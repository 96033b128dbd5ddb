/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/job/, layer 4, the top: one job's plan, analysis, verdict and
 * report, and the running kernel's model.  Private: includes only the
 * layers below and the public headers.
 */
#ifndef HB_JOB_H
#define HB_JOB_H

#include "hugebuf-report.h"
#include "resource/resource.h"
#include "hugebuf-job.h"

#include <time.h>

/* ------------------------------------------------------------------ */
/* job plan: one I/O job's buffers and options, checked whole          */
/* ------------------------------------------------------------------ */


/* ------------------------------------------------------------------ */
/* the job object (hugebuf-job.h)                                      */
/* ------------------------------------------------------------------ */

/*
 * One job's plan, buffers and findings, owned once: the framework fills
 * the plan's inputs and reads its results, lib/job/job.c does the rest.
 */
struct hb_job {
	struct hb_jobplan plan;		/* checked: km, backing, layout */
	hb_job_say_fn say;
	void *say_arg;
	/* the buffers: our mapping, or a slice of a shared one (@map) */
	struct hb_buf buf;
	bool buf_ok;
	char *map;			/* this job's part of the mapping */
	uint64_t map_len;
	struct iovec *iovecs;		/* registered; set-up only */
	struct timespec t_new;		/* hb_job_new() */
	/* passthrough: the analysis' imus, kept for the prediction */
	struct hb_analysis an;
	bool an_kept;
	/* the first I/O's pages: its device requests are predicted at the end */
	struct hb_probe io0;
	bool io0_ok;
	/* the report's findings */
	struct hb_bufstats st;
	uint64_t buffer_len;		/* the first registered buffer */
	double register_usec;
	long vmpin_kb;
	double ready_usec;		/* hb_job_new() to buffers registered */
	unsigned int vec_bvecs;		/* model: bvecs of one vectored I/O */
	struct hb_file_limits limits;	/* the first file's (statx) */
	bool limits_ok;
	char dev[64];
	bool dev_ok;
	uint64_t dev_r0, dev_w0;
};

#endif /* HB_JOB_H */
