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


#endif /* HB_JOB_H */
