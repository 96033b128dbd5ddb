/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hugebuf CLI's shared pieces: the parsed options (cli/opts.c), the
 * exit codes, messages and JSON output (cli/output.h), and one entry point
 * per command (cli/info.c, cli/plan.c, cli/check.c).
 */
#ifndef HUGEBUF_CLI_H
#define HUGEBUF_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "hugebuf.h"
#include "hugebuf-report.h"
#include "output.h"


/* plan --iommu: the DMA-mapping mode modelled (struct hb_iommu_cfg) */
enum iommu_mode {
	IOMMU_OFF = 0,
	IOMMU_STRICT,	/* iommu.strict=1: IOTLB sync per unmap */
	IOMMU_LAZY,	/* iommu.strict=0: IOVAs go to the flush queue */
	IOMMU_DIRECT,	/* identity domain or no IOMMU: dma-direct */
};

struct opts {
	bool json, bvecs, moved, plain;
	/* plan --iommu[=MODE], --pt (NVMe passthrough instead of a bio) */
	enum iommu_mode iommu;
	bool pt;
	bool have_backing, have_size, have_offset, have_kernel;
	struct hb_backing backing;
	enum hb_contig_mode contig;	/* check --contig, 4k only */
	uint64_t size, offset;
	struct hb_kmodel km;
	const char *file;
	/* plan: block-layer limits for predicted_requests */
	bool have_limits;
	uint64_t max_bytes, max_seg;
	unsigned int max_segs;
	const char *dev;
	/* plan --buffers=N (0: one), --one-by-one: the registration's cost */
	unsigned int nr_bufs;
	bool one_by_one;
};

/* IORING_MAX_REG_BUFFERS; and what the plan's page map may cover */
#define PLAN_MAX_BUFS		16384U
#define PLAN_MAX_TOTAL		(16ULL << 30)

/* cli/opts.c: parses argv[1..] of command @cmd; returns an exit code */
int parse_opts(const char *cmd, int argc, char **argv, struct opts *o);
int check_offset(const struct opts *o);
int check_size_limit(const struct opts *o, const struct hb_kmodel *km,
		     uint64_t uaddr);

int cmd_info(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_check(int argc, char **argv);

static inline const char *yes_no(bool v)
{
	return v ? "yes" : "no";
}

#endif
