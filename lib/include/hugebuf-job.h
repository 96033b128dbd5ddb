/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One I/O job's buffers from its checked plan to its report, in a few
 * calls: allocate, prepare (place, probe, model, verdict), register and
 * report.  The framework keeps its options, its ring and its hooks.
 */
#ifndef HUGEBUF_JOB_H
#define HUGEBUF_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "hugebuf.h"
#include "hugebuf-report.h"

#ifdef __cplusplus
extern "C" {
#endif

struct io_uring;

/*
 * Each line the job has for its user, without prefix or newline: an
 * @error when the call that says it fails, else a note or a warning.
 */
typedef void (*hb_job_say_fn)(void *arg, bool error, const char *line);

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
	int64_t t_new_ns;		/* hb_job_new(), CLOCK_MONOTONIC */
	/* passthrough: the analysis' imus, kept for the prediction */
	struct hb_analysis an;
	bool an_kept;
	/* the first I/O's pages: its device requests are predicted at the end */
	struct hb_probe io0;
	bool io0_ok;
	/* the report's findings */
	struct hb_bufstats st;
	uint64_t buffer_len;		/* the first registered buffer */
	bool one_size;			/* hb_job_prep's, for a second model */
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

/* A job with an empty plan, its set-up clock started; NULL: no memory. */
struct hb_job *hb_job_new(hb_job_say_fn say, void *arg);
void hb_job_free(struct hb_job *j);

/* Allocate the checked plan's buffers (not for a shared table). */
int hb_job_alloc(struct hb_job *j);

enum hb_job_check {
	HB_JOB_CHECK_OFF = 0,
	HB_JOB_CHECK_WARN,		/* buffers that will not coalesce */
	HB_JOB_CHECK_REQUIRE,		/* the same, an error */
};

/* the step hb_job_prepare() failed at */
enum hb_job_step {
	HB_JOB_STEP_LAYOUT = 1,
	HB_JOB_STEP_PROBE,
	HB_JOB_STEP_VERDICT,
};

struct hb_job_prep {
	/* every read is one max_bs I/O: the first I/O's requests predicted */
	bool one_size;
	enum hb_job_check coalesce_check;
};

/*
 * The buffers once placed: their registration iovecs, lib's analysis
 * (probe, registration model, import, accounting), the first I/O's
 * pages, the warnings and the coalescing verdict, the vectored model.
 * 0, or -errno with *@failed set and the line said.
 */
int hb_job_prepare(struct hb_job *j, const struct hb_job_prep *how,
		   enum hb_job_step *failed);

/*
 * Register the buffers in @ring (fixed buffers only), timed and their
 * pins counted; @table, when set, registers them instead (a shared
 * table) and says its own errors.  contig=pin: the pages the registration
 * faulted in are probed and modelled again.  Then the buffers are ready:
 * the set-up time ends and what only set-up needed is freed.
 */
int hb_job_register(struct hb_job *j, struct io_uring *ring,
		    int (*table)(void *arg), void *arg);

/* A file the job opened: its limits, and its device's counters at open. */
void hb_job_file_opened(struct hb_job *j, const char *path, bool char_dev);

/*
 * NVMe passthrough: what the kernel does with the job's largest command
 * (@len bytes) from every I/O slot's buffer on a queue of @lim, into @r.
 * A command the kernel would refuse is an error, said.
 */
int hb_job_pt_predict(const struct hb_job *j, const char *path,
		      const struct hb_queue_limits *lim, uint64_t len,
		      struct hb_pt_report *r);

/*
 * md_per_io_size: what the kernel makes of each slot's metadata buffer
 * (@md_len bytes per command) on a queue of @lim, into @r
 * (hb_model_md_map()); a prediction the model cannot make is said in
 * @r->not_predicted, not an error.
 */
int hb_job_md_predict(const struct hb_job *j,
		      const struct hb_queue_limits *lim, uint64_t md_len,
		      bool passthrough, struct hb_md_report *r);

/*
 * The same for reads and writes with a PI attribute, on the queue of the
 * block device hb_job_file_opened() found under the job's first file
 * (call it after that): no device, or no limits in sysfs, is said in
 * @r->not_predicted.
 */
int hb_job_md_predict_dev(const struct hb_job *j, uint64_t md_len,
			  struct hb_md_report *r);

/* What the framework knows of the job at its end. */
struct hb_job_end {
	const char *name;		/* any bytes */
	unsigned int subjob;
	uint64_t ios, write_ios;	/* whole reads and writes done */
	bool approximate;	/* others' I/O or a ramp in the device counters */
	bool direct;		/* O_DIRECT: the device counters are the job's */
	const char *shared;		/* "", "source" or "clone" */
	const struct hb_pt_report *pt;	/* NULL: not passthrough */
	/* RWF_ATOMIC writes sent unregistered: the model's atomic_ubuf_only */
	bool atomic_unreg;
	uint64_t atomic_unreg_writes;
	const struct hb_md_report *md;	/* NULL: no md_per_io_size */
};

/*
 * The job-end report: text lines each starting with @prefix into @text
 * (NULL: none), one JSON line appended to @json_path (NULL: none).
 */
int hb_job_report(const struct hb_job *j, const struct hb_job_end *e,
		  const char *prefix, struct hb_str *text,
		  const char *json_path);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_JOB_H */
