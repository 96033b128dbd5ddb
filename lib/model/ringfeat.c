// SPDX-License-Identifier: GPL-2.0-only
/*
 * The io_uring features a job may use that not every kernel has, and the
 * one decision over them: for each, used (the kernel has it), a fallback
 * (the job did not ask for it: one line saying what happens instead), or
 * a refusal (the job asked for it: one line naming the option, the
 * feature, the release that added it and the fix).  Pure: what the job
 * wants and what the kernel has (lib/resource/ringprobe.c) come in, the actions
 * and their lines go out, so the table is tested without a kernel that
 * lacks anything (t/unit-ringfeat.c).
 *
 * The releases are upstream's; a distribution kernel may carry a feature
 * back (Debian's 5.10.y has 5.15's io_uring: EXT_ARG, RSRC_TAGS, FILES2),
 * which is why the kernel is asked rather than its version.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"

static const struct hb_uf_row {
	const char *feature;	/* the kernel's name for it */
	int major, minor;	/* the upstream release that added it */
	/*
	 * What the engine does instead when the job did not ask for it;
	 * NULL: nothing, the engine needs it (a refusal either way).
	 */
	const char *instead;
	const char *fix;	/* the refusal's fix */
} rows[HB_UF_NR] = {
	[HB_UF_CQSIZE] = {
		/* 5.5 (CQSIZE) and 5.6 (CLAMP); READ/WRITE and PROBE 5.6 */
		"IORING_SETUP_CQSIZE + IORING_SETUP_CLAMP", 5, 6, NULL,
		"run Linux 5.6 or later",
	},
	[HB_UF_DEFER_TASKRUN] = {
		/* SINGLE_ISSUER 6.0, DEFER_TASKRUN 6.1, TASKRUN_FLAG 5.19 */
		"IORING_SETUP_SINGLE_ISSUER + IORING_SETUP_DEFER_TASKRUN",
		6, 1,
		"the ring runs without deferred task work (as defer_taskrun=0)",
		"set defer_taskrun=0, or leave it unset to fall back",
	},
	[HB_UF_RING_FD] = {
		/* io_uring_register_ring_fd(), e7a6c00dc77a */
		"IORING_REGISTER_RING_FDS", 5, 18,
		"io_uring_enter() takes the ring's file descriptor",
		"nothing asks for it",
	},
	[HB_UF_FILES_SPARSE] = {
		/* io_uring_register_files_sparse(): the flag of FILES2 */
		"IORING_RSRC_REGISTER_SPARSE", 5, 19,
		"registerfiles registers a table of empty (-1) slots with "
		"IORING_REGISTER_FILES and fills each at open",
		"drop registerfiles",
	},
	[HB_UF_URING_CMD] = {
		/* ee692a21e9bf; 128-byte SQEs and 32-byte CQEs with it */
		"IORING_OP_URING_CMD with IORING_SETUP_SQE128 + CQE32", 5, 19,
		NULL,
		"use the namespace's block device (/dev/nvmeXnY) without "
		"cmd_type, or run Linux 5.19 or later",
	},
	[HB_UF_CLONE_BUFFERS] = {
		/* 7cc2a6eadcd7 */
		"IORING_REGISTER_CLONE_BUFFERS", 6, 12, NULL,
		"drop clone_buffers (every job registers its own buffers), "
		"or run Linux 6.12 or later",
	},
	[HB_UF_READV_FIXED] = {
		/* 9ef4cbbcb4ac */
		"IORING_OP_READV_FIXED", 6, 15, NULL,
		"drop vec_iovecs, or run Linux 6.15 or later",
	},
	[HB_UF_DONTCACHE] = {
		/* b9f958d4f146; fio 3.33's RWF_UNCACHED 0x40 never merged */
		"RWF_DONTCACHE", 6, 14,
		"uncached buffered I/O goes through the page cache as usual",
		"drop uncached, or run Linux 6.14 or later",
	},
};

const char *hb_uf_feature(enum hb_ufeat f)
{
	return f < HB_UF_NR ? rows[f].feature : "?";
}

void hb_uf_release(enum hb_ufeat f, int *major, int *minor)
{
	*major = f < HB_UF_NR ? rows[f].major : 0;
	*minor = f < HB_UF_NR ? rows[f].minor : 0;
}

unsigned int hb_uf_upto(int major, int minor)
{
	unsigned int f, mask = 0;

	for (f = 0; f < HB_UF_NR; f++)
		if (rows[f].major < major ||
		    (rows[f].major == major && rows[f].minor <= minor))
			mask |= HB_UF_BIT(f);
	return mask;
}

int hb_uf_decide(const struct hb_uf_job *job, unsigned int have,
		 const char *kernel, struct hb_uf_decision *d)
{
	int ret = 0;
	unsigned int f;

	memset(d, 0, sizeof(*d));
	if (!kernel || !*kernel)
		kernel = "?";
	for (f = 0; f < HB_UF_NR; f++) {
		const struct hb_uf_row *r = &rows[f];
		unsigned int want = job->want[f];
		const char *by = job->asked_by[f];
		char *line = d->line[f];

		if (want == HB_UF_NOT_USED) {
			d->act[f] = HB_UF_OFF;
			continue;
		}
		if (have & HB_UF_BIT(f)) {
			d->act[f] = HB_UF_USE;
			continue;
		}
		if (want == HB_UF_BY_DEFAULT && r->instead) {
			d->act[f] = HB_UF_FALLBACK;
			d->nr_fallbacks++;
			snprintf(line, HB_UF_LINE_MAX, "kernel %s has no %s "
				 "(Linux %d.%d+): %s", kernel, r->feature,
				 r->major, r->minor, r->instead);
			continue;
		}
		d->act[f] = HB_UF_REFUSE;
		d->nr_refused++;
		if (want == HB_UF_ASKED && by && *by)
			snprintf(line, HB_UF_LINE_MAX, "%s needs %s (Linux "
				 "%d.%d+), which kernel %s does not have: %s",
				 by, r->feature, r->major, r->minor, kernel,
				 r->fix);
		else
			snprintf(line, HB_UF_LINE_MAX, "the engine needs %s "
				 "(Linux %d.%d+), which kernel %s does not "
				 "have: %s", r->feature, r->major, r->minor,
				 kernel, r->fix);
		/* the first refusal is the job's error */
		if (!ret)
			ret = hb_seterr(EOPNOTSUPP, "%s", line);
	}
	return ret;
}
