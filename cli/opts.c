// SPDX-License-Identifier: GPL-2.0-only
/*
 * The CLI's options: one table of long options, which command takes
 * which, and their values parsed and checked into struct opts.  Every bad
 * value is one usage_error() line that names the option and the fix.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

enum {
	OPT_JSON = 256,
	OPT_BVECS,
	OPT_BACKING,
	OPT_SIZE,
	OPT_OFFSET,
	OPT_KERNEL,
	OPT_FILE,
	OPT_DEV,
	OPT_LIMITS,
	OPT_MOVED,
	OPT_PLAIN,
	OPT_IOMMU,
	OPT_PT,
	OPT_BUFFERS,
	OPT_ONE_BY_ONE,
	OPT_CONTIG,
	OPT_HELP,
};

static const struct option long_opts[] = {
	{ "json", no_argument, NULL, OPT_JSON },
	{ "bvecs", no_argument, NULL, OPT_BVECS },
	{ "backing", required_argument, NULL, OPT_BACKING },
	{ "size", required_argument, NULL, OPT_SIZE },
	{ "offset", required_argument, NULL, OPT_OFFSET },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ "file", required_argument, NULL, OPT_FILE },
	{ "dev", required_argument, NULL, OPT_DEV },
	{ "queue-limits", required_argument, NULL, OPT_LIMITS },
	{ "moved", no_argument, NULL, OPT_MOVED },
	{ "plain", no_argument, NULL, OPT_PLAIN },
	{ "iommu", optional_argument, NULL, OPT_IOMMU },
	{ "pt", no_argument, NULL, OPT_PT },
	{ "buffers", required_argument, NULL, OPT_BUFFERS },
	{ "one-by-one", no_argument, NULL, OPT_ONE_BY_ONE },
	{ "contig", required_argument, NULL, OPT_CONTIG },
	{ "help", no_argument, NULL, OPT_HELP },
	{ NULL, 0, NULL, 0 },
};

/* Which options each command takes. */
static bool opt_allowed(const char *cmd, int opt)
{
	if (opt == OPT_JSON || opt == OPT_HELP)
		return true;
	if (!strcmp(cmd, "plan"))
		return opt == OPT_BVECS || opt == OPT_BACKING ||
		       opt == OPT_SIZE || opt == OPT_OFFSET ||
		       opt == OPT_KERNEL || opt == OPT_DEV ||
		       opt == OPT_LIMITS || opt == OPT_PLAIN ||
		       opt == OPT_IOMMU || opt == OPT_PT ||
		       opt == OPT_BUFFERS || opt == OPT_ONE_BY_ONE;
	if (!strcmp(cmd, "check"))
		return opt == OPT_BACKING || opt == OPT_SIZE ||
		       opt == OPT_OFFSET || opt == OPT_FILE ||
		       opt == OPT_MOVED || opt == OPT_CONTIG;
	return false;
}

static const char *opt_name(int opt)
{
	const struct option *o;

	for (o = long_opts; o->name; o++)
		if (o->val == opt)
			return o->name;
	return "?";
}

/* --dev=vda: the queue limits of /sys/block/vda */
static int parse_dev(struct opts *o, const char *arg)
{
	struct hb_queue_limits lim;

	if (o->have_limits)
		return usage_error("--dev and --queue-limits both give the "
				   "queue limits: use one of them");
	if (!*arg || strchr(arg, '/') || !strcmp(arg, ".") ||
	    !strcmp(arg, ".."))
		return usage_error("--dev=%s: give a whole-disk name from "
				   "/sys/block, e.g. --dev=vda", arg);
	if (hb_blkdev_queue_limits(arg, false, &lim))
		return usage_error("--dev=%s: %s", arg, hb_errmsg());
	o->max_bytes = lim.max_hw_bytes;
	o->max_segs = lim.max_segments;
	o->max_seg = lim.max_segment_size;
	o->dev = arg;
	o->have_limits = true;
	return 0;
}

/* --queue-limits=MAXBYTES,MAXSEGS,MAXSEGSIZE (max_sectors_kb * 1024, ...) */
static int parse_limits(struct opts *o, const char *arg)
{
	char a[64], b[64], c[64], extra;
	uint64_t segs;

	if (o->have_limits)
		return usage_error("--dev and --queue-limits both give the "
				   "queue limits: use one of them");
	if (strlen(arg) >= sizeof(a) ||
	    sscanf(arg, "%63[^,],%63[^,],%63[^,]%c", a, b, c, &extra) != 3 ||
	    hb_parse_size(a, &o->max_bytes) || hb_parse_size(b, &segs) ||
	    hb_parse_size(c, &o->max_seg) || o->max_bytes < 512 || !segs ||
	    segs > UINT32_MAX || o->max_seg < 512)
		return usage_error("--queue-limits=%s: give MAXBYTES,MAXSEGS,"
				   "MAXSEGSIZE, e.g. --queue-limits=1M,128,64K "
				   "(bytes >= 512, segments >= 1)", arg);
	o->max_segs = segs;
	o->have_limits = true;
	return 0;
}

/* --iommu[=strict|lazy|direct]: bare --iommu is strict (iommu.strict=1) */
static int parse_iommu(struct opts *o, const char *arg)
{
	static const struct {
		const char *name;
		enum iommu_mode mode;
	} modes[] = {
		{ "strict", IOMMU_STRICT },
		{ "lazy", IOMMU_LAZY },
		{ "direct", IOMMU_DIRECT },
	};
	unsigned int i;

	if (!arg) {
		o->iommu = IOMMU_STRICT;
		return 0;
	}
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		if (!strcmp(arg, modes[i].name)) {
			o->iommu = modes[i].mode;
			return 0;
		}
	}
	return usage_error("--iommu=%s: unknown mode: use --iommu=strict, "
			   "--iommu=lazy or --iommu=direct", arg);
}

/*
 * --buffers=N: N buffers of --size back to back, at most the kernel's
 * table of IORING_MAX_REG_BUFFERS (16384) and 16 GiB in all (the plan's
 * page map takes 16 bytes a page)
 */
static int parse_buffers(struct opts *o, const char *arg)
{
	char *end;
	unsigned long n = strtoul(arg, &end, 10);

	if (!*arg || *end || !n || n > PLAN_MAX_BUFS)
		return usage_error("--buffers=%s: give a count of 1 to %u, "
				   "e.g. --buffers=64", arg, PLAN_MAX_BUFS);
	o->nr_bufs = (unsigned int)n;
	return 0;
}

static int parse_opt(struct opts *o, int opt, const char *arg)
{
	switch (opt) {
	case OPT_JSON:
		o->json = true;
		return 0;
	case OPT_BVECS:
		o->bvecs = true;
		return 0;
	case OPT_BACKING:
		if (hb_backing_parse(arg, &o->backing))
			return usage_error("--backing=%s: %s", arg,
					   hb_errmsg());
		o->have_backing = true;
		return 0;
	case OPT_SIZE:
		if (hb_parse_size(arg, &o->size))
			return usage_error("--size=%s: %s", arg, hb_errmsg());
		if (!o->size)
			return usage_error("--size=%s: a buffer needs at least "
					   "1 byte: use e.g. --size=8M", arg);
		o->have_size = true;
		return 0;
	case OPT_OFFSET:
		if (hb_parse_size(arg, &o->offset))
			return usage_error("--offset=%s: %s", arg,
					   hb_errmsg());
		o->have_offset = true;
		return 0;
	case OPT_KERNEL:
		if (hb_kmodel_parse(arg, &o->km))
			return usage_error("--kernel=%s: %s", arg,
					   hb_errmsg());
		o->have_kernel = true;
		return 0;
	case OPT_FILE:
		if (!*arg)
			return usage_error("--file= is empty: give a path on a "
					   "block-device file system, e.g. "
					   "--file=/var/tmp/hb-check.dat");
		o->file = arg;
		return 0;
	case OPT_MOVED:
		o->moved = true;
		return 0;
	case OPT_PLAIN:
		o->plain = true;
		return 0;
	case OPT_IOMMU:
		return parse_iommu(o, arg);
	case OPT_PT:
		o->pt = true;
		return 0;
	case OPT_BUFFERS:
		return parse_buffers(o, arg);
	case OPT_ONE_BY_ONE:
		o->one_by_one = true;
		return 0;
	case OPT_CONTIG:
		if (hb_contig_mode_parse(arg, &o->contig))
			return usage_error("--contig=%s: %s", arg, hb_errmsg());
		return 0;
	case OPT_DEV:
		return parse_dev(o, arg);
	case OPT_LIMITS:
		return parse_limits(o, arg);
	}
	return usage_error("unknown option");
}

/* hb_alloc()'s rule: the offset lies inside the first folio (2M for 4k) */
int check_offset(const struct opts *o)
{
	char fs[32];

	if (o->offset < hb_backing_align(&o->backing))
		return 0;
	hb_fmt_size(hb_backing_align(&o->backing), fs, sizeof(fs));
	return usage_error("--offset=0x%llx: the head offset must lie inside "
			   "the first %s of the buffer: use an offset below %s",
			   (unsigned long long)o->offset, fs, fs);
}

/*
 * --size against the kernel modelled (@km: --kernel, or the running
 * one): its per-buffer limit at the buffer's address (@uaddr).
 */
int check_size_limit(const struct opts *o, const struct hb_kmodel *km,
		     uint64_t uaddr)
{
	if (!hb_kmodel_check_buf_len(km, uaddr, o->size))
		return 0;
	return usage_error("--size=%llu: %s", (unsigned long long)o->size,
			   hb_errmsg());
}

int parse_opts(const char *cmd, int argc, char **argv, struct opts *o)
{
	int opt, ret;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			return usage_error("%s: unknown option or missing "
					   "value '%s': see '%s --help'", cmd,
					   argv[optind - 1], CLI_NAME);
		}
		if (opt == OPT_HELP) {
			usage(stdout);
			exit(EXIT_MATCH);
		}
		if (!opt_allowed(cmd, opt))
			return usage_error("%s does not take --%s: see '%s "
					   "--help'", cmd, opt_name(opt),
					   CLI_NAME);
		ret = parse_opt(o, opt, optarg);
		if (ret)
			return ret;
	}
	if (optind < argc)
		return usage_error("%s: unexpected argument '%s': options are "
				   "--name=value", cmd, argv[optind]);
	if (o->have_backing && o->have_offset)
		return check_offset(o);
	return 0;
}
