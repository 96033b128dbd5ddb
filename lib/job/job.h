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

/* ------------------------------------------------------------------ */
/* job plan: one I/O job's buffers and options, checked whole          */
/* ------------------------------------------------------------------ */

/*
 * The running kernel's model from its release alone (uname, Debian's
 * /proc/version), without the experiments of hb_kmodel_detect() and
 * without HUGEBUF_KERNEL: for the facts that follow the release, not the
 * buffers, such as a known kernel bug.  0 or -errno.
 */
int hbi_kmodel_version(struct hb_kmodel *km);

#endif /* HB_JOB_H */
