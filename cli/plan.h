/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf plan, between its two files: cli/plan.c checks the options and
 * runs the models into a struct pred, cli/plan-output.c prints it as text
 * or as one JSON document.
 */
#ifndef HUGEBUF_CLI_PLAN_H
#define HUGEBUF_CLI_PLAN_H

#include "cli.h"

/* What the plain output says it assumed about the page frames. */
#define PLAIN_ASSUMPTION	"no PFNs: folios never physically adjacent"

/*
 * What the --iommu output says it assumed about the page frames: the plan
 * has none, so plan_pfns() makes them up this way.
 */
#define IOMMU_ASSUMPTION                                                  \
	"synthetic PFNs: pages of one folio contiguous, folios never "     \
	"physically adjacent, each folio aligned to its size"

struct pred {
	struct opts o;
	struct hb_imu imu;
	unsigned int reqs;	/* with o.have_limits */
	/* registering o.nr_bufs such buffers (hb_model_register_cost()) */
	struct hb_reg_cost cost;
	/* --plain: under o.km, and under o.km with plain_folio_runs flipped */
	struct hb_plain_pred plain, other;
	/*
	 * --iommu: the namespace's limits as the modelled path sees them,
	 * the IOMMU, and the I/O under o.km and under io_km (o.km with the
	 * other coalescing); io_why: the kernel's reason for a refusal
	 */
	struct hb_queue_limits lim;
	struct hb_iommu_cfg icfg;
	struct hb_kmodel io_km;
	struct hb_iommu_pred io, io_other;
	const char *io_why;
	/* the contrast could not be modelled (e.g. a bounced passthrough) */
	char other_err[256];
};

/* cli/plan-output.c: the plan on stdout */
void plan_text(const struct pred *p);
/* returns print_json()'s exit code */
int plan_json(const struct pred *p);

#endif
