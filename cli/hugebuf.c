// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf: what this machine offers for hugepage-backed io_uring fixed
 * buffers (info), what a kernel would build for a buffer (plan, pure
 * model), and whether the running kernel did what the model says (check).
 *
 * Exit status: 0 success / matches, 1 does not match the model, 2 usage
 * error, 3 a resource or system call failed (the message says which).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <liburing.h>

#include "hugebuf.h"

#define EXIT_MATCH	0
#define EXIT_MISMATCH	1
#define EXIT_USAGE	2
#define EXIT_SYSTEM	3

/* A synthetic, 1 GiB aligned user address for plans (any would do). */
#define PLAN_BASE	0x7f0000000000ULL
/* Reads per request count: other I/O only adds, so take the minimum. */
#define READ_TRIES	10
/* Rounds of READ_TRIES while the minimum is still above the model. */
#define READ_ROUNDS	4
/* Kernel memory measurements per check: take the median. */
#define KMEM_ROUNDS	3

static const char *prog = "hugebuf";

static void usage(FILE *f)
{
	fprintf(f,
"usage: %s info [--json]\n"
"       %s plan --backing=B --size=S [--offset=N] [--kernel=K] [--json]\n"
"                   [--bvecs] [--dev=DISK |\n"
"                   --queue-limits=BYTES,SEGS,SEGSIZE]\n"
"       %s check [--backing=B] [--size=S] [--offset=N] [--file=PATH] [--json]\n"
"                   [--moved]\n"
"\n"
"  info   hugepage pools, THP/mTHP, memlock, CAP_IPC_LOCK, the kernel's\n"
"         coalescing generation and whether the exact folio probe works\n"
"  plan   the imu a kernel builds for a buffer of backing B (pure model,\n"
"         nothing is allocated); with --dev (queue limits of /sys/block/DISK)\n"
"         or --queue-limits, the block requests one READ_FIXED of it takes\n"
"  check  allocate, probe, register and measure what the running kernel\n"
"         did (block requests per READ_FIXED with --file, kernel memory);\n"
"         --moved (thp only): the buffer starts 1 MiB into a THP and is\n"
"         moved by mremap to a 2 MiB + 4 KiB address (non-congruent)\n"
"\n"
"  B: 4k, thp, mthp:64K, hugetlb[:2M|:1G], memfd[:2M|:1G], libhugetlbfs\n"
"  S, N: bytes, 0x hex, or K/M/G suffixes; K: 6.1, 6.3, 6.12, 6.16, X.Y,\n"
"     6.1+hugebuf (default: the running kernel, or $HUGEBUF_KERNEL)\n"
"\n"
"exit: 0 ok / matches the model, 1 does not match, 2 usage error,\n"
"      3 a resource is missing or a system call failed\n",
		prog, prog, prog);
}

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

static int system_error(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", prog, what, hb_errmsg());
	return EXIT_SYSTEM;
}

/* ------------------------------------------------------------------ */
/* JSON output                                                          */
/* ------------------------------------------------------------------ */

/* Every JSON string goes through lib's one escaper (hb_str_json). */
static void json_str(const char *s)
{
	struct hb_str b;

	hb_str_init(&b);
	hb_str_json(&b, s);
	fputs(b.oom ? "\"\"" : b.s, stdout);
	hb_str_free(&b);
}

static void json_kv_str(const char *key, const char *val, bool comma)
{
	json_str(key);
	fputs(": ", stdout);
	json_str(val);
	if (comma)
		putchar(',');
}

static const char *yes_no(bool v)
{
	return v ? "yes" : "no";
}

static const char *json_bool(bool v)
{
	return v ? "true" : "false";
}

/* ------------------------------------------------------------------ */
/* options                                                              */
/* ------------------------------------------------------------------ */

struct opts {
	bool json, bvecs, moved;
	bool have_backing, have_size, have_offset, have_kernel;
	struct hb_backing backing;
	uint64_t size, offset;
	struct hb_kmodel km;
	const char *file;
	/* plan: block-layer limits for predicted_requests */
	bool have_limits;
	uint64_t max_bytes, max_seg;
	unsigned int max_segs;
	const char *dev;
};

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
		       opt == OPT_LIMITS;
	if (!strcmp(cmd, "check"))
		return opt == OPT_BACKING || opt == OPT_SIZE ||
		       opt == OPT_OFFSET || opt == OPT_FILE ||
		       opt == OPT_MOVED;
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
	if (o->have_limits)
		return usage_error("--dev and --queue-limits both give the "
				   "queue limits: use one of them");
	if (!*arg || strchr(arg, '/') || !strcmp(arg, ".") ||
	    !strcmp(arg, ".."))
		return usage_error("--dev=%s: give a whole-disk name from "
				   "/sys/block, e.g. --dev=vda", arg);
	if (hb_blkdev_queue_limits(arg, &o->max_bytes, &o->max_segs,
				   &o->max_seg))
		return usage_error("--dev=%s: %s", arg, hb_errmsg());
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
		if (o->size > HB_MAX_BUF_LEN)
			return usage_error("--size=%s: one registered buffer "
					   "is at most 1G (io_buffer_validate):"
					   " use --size=1G or less", arg);
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
	case OPT_DEV:
		return parse_dev(o, arg);
	case OPT_LIMITS:
		return parse_limits(o, arg);
	}
	return usage_error("unknown option");
}

/* hb_alloc()'s rule: the offset lies inside the first folio (2M for 4k) */
static int check_offset(const struct opts *o)
{
	char fs[32];

	if (o->offset < hb_backing_align(&o->backing))
		return 0;
	hb_fmt_size(hb_backing_align(&o->backing), fs, sizeof(fs));
	return usage_error("--offset=0x%llx: the head offset must lie inside "
			   "the first %s of the buffer: use an offset below %s",
			   (unsigned long long)o->offset, fs, fs);
}

static int parse_opts(const char *cmd, int argc, char **argv, struct opts *o)
{
	int opt, ret;

	memset(o, 0, sizeof(*o));
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "", long_opts, NULL)) != -1) {
		if (opt == '?' || opt == ':') {
			return usage_error("%s: unknown option or missing "
					   "value '%s': see '%s --help'", cmd,
					   argv[optind - 1], prog);
		}
		if (opt == OPT_HELP) {
			usage(stdout);
			exit(EXIT_MATCH);
		}
		if (!opt_allowed(cmd, opt))
			return usage_error("%s does not take --%s: see '%s "
					   "--help'", cmd, opt_name(opt),
					   prog);
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

/* ------------------------------------------------------------------ */
/* info                                                                 */
/* ------------------------------------------------------------------ */

static void fmt_limit(uint64_t v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
}

/*
 * The kernel's generation by version and by behaviour (lib/kdetect.c);
 * behaviour wins where they disagree, and the warning says so.
 */
static void info_detect_text(const struct hb_kdetect *d)
{
	if (!d) {
		printf("detection:       failed: %s\n", hb_errmsg());
		return;
	}
	printf("detection:       %s (chosen: %s, from %s, %u us)\n",
	       d->summary, d->chosen.name, d->source, d->usec);
	if (d->note[0])
		printf("                 %s\n", d->note);
	if (d->warning[0])
		fprintf(stderr, "%s: %s\n", prog, d->warning);
}

static const char *tri_json(int v)
{
	return v < 0 ? "null" : v ? "true" : "false";
}

static void info_detect_json(const struct hb_kdetect *d)
{
	if (!d) {
		printf(" \"kernel_detect\": null,\n");
		return;
	}
	printf(" \"kernel_detect\": {");
	json_kv_str("upstream", d->upstream, true);
	json_kv_str("version", d->version_km.name, true);
	json_kv_str("behaviour", d->behaviour_ok ? d->behaviour_km.name : "",
		    true);
	json_kv_str("chosen", d->chosen.name, true);
	json_kv_str("source", d->source, true);
	printf(" \"agreed\": %s, \"first_bvec_vaddr\": %s, "
	       "\"coalesce_single\": %s, \"coalesce_multi\": %s, "
	       "\"batch_dedup\": %s, \"usec\": %u, ", json_bool(d->agreed),
	       tri_json(d->first_bvec_vaddr), tri_json(d->coalesce_single),
	       tri_json(d->coalesce_multi), tri_json(d->batch_dedup), d->usec);
	json_kv_str("summary", d->summary, true);
	json_kv_str("warning", d->warning, true);
	json_kv_str("note", d->note, false);
	printf("},\n");
}

static void info_text(const struct hb_sysinfo *si, const struct hb_kmodel *km)
{
	char a[32], b[32];
	unsigned int i;

	printf("kernel:          %s\n", si->release);
	printf("coalescing:      model %s: %s (imu header %u B%s)\n",
	       km->name, hb_kgen_name(km->gen), km->imu_header,
	       getenv("HUGEBUF_KERNEL") ? ", from HUGEBUF_KERNEL" : "");
	info_detect_text(hb_kdetect_cached());
	if (!si->nr_pools)
		printf("hugetlb pools:   none (no /sys/kernel/mm/hugepages)\n");
	for (i = 0; i < si->nr_pools; i++) {
		const struct hb_pool *p = &si->pools[i];

		printf("%s %s: %lu pages, %lu free, %lu reserved, %lu "
		       "surplus%s\n", i ? "                " :
		       "hugetlb pools:  ",
		       hb_fmt_size(p->page_size, a, sizeof(a)), p->nr,
		       p->free, p->resv, p->surplus,
		       p->page_size == si->default_hugepage ? " (default)" :
		       "");
	}
	printf("THP:             %s, PMD size %s\n", si->thp_enabled,
	       hb_fmt_size(si->thp_pmd_size, a, sizeof(a)));
	printf("mTHP:           ");
	if (!si->nr_mthp)
		printf(" none (Linux 6.8+)");
	for (i = 0; i < si->nr_mthp; i++)
		printf(" %s=%s%s", hb_fmt_size(si->mthp[i].size, a, sizeof(a)),
		       si->mthp[i].enabled,
		       hb_mthp_usable(si, si->mthp[i].size) ? "(usable)" : "");
	printf("\n");
	fmt_limit(si->memlock_cur, a, sizeof(a));
	fmt_limit(si->memlock_max, b, sizeof(b));
	printf("memlock:         %s (hard %s); CAP_IPC_LOCK: %s%s\n", a, b,
	       yes_no(si->cap_ipc_lock),
	       si->cap_ipc_lock ? " (registration ignores RLIMIT_MEMLOCK)" :
	       "");
	printf("folio probe:     pagemap PFNs %s, /proc/kpageflags %s: %s\n",
	       si->pagemap_pfn ? "readable" : "hidden",
	       si->kpageflags ? "readable" : "not readable",
	       si->pagemap_pfn && si->kpageflags ? "exact" :
	       "degraded (run as root for the exact folio map)");
}

static void info_json(const struct hb_sysinfo *si, const struct hb_kmodel *km)
{
	char a[32];
	unsigned int i;

	printf("{\"kernel\": {");
	json_kv_str("release", si->release, true);
	json_kv_str("model", km->name, true);
	json_kv_str("generation", hb_kgen_name(km->gen), true);
	printf("\"imu_header\": %u, \"exact_nr_segs\": %s, "
	       "\"imu_cache_bvecs\": %u},\n", km->imu_header,
	       json_bool(km->exact_nr_segs), km->imu_cache_bvecs);
	info_detect_json(hb_kdetect_cached());
	printf(" \"pools\": [");
	for (i = 0; i < si->nr_pools; i++) {
		const struct hb_pool *p = &si->pools[i];

		printf("%s{\"page_size\": %llu, \"nr\": %lu, \"free\": %lu, "
		       "\"resv\": %lu, \"surplus\": %lu, \"default\": %s}",
		       i ? ", " : "", (unsigned long long)p->page_size, p->nr,
		       p->free, p->resv, p->surplus,
		       json_bool(p->page_size == si->default_hugepage));
	}
	printf("],\n \"thp\": {");
	json_kv_str("enabled", si->thp_enabled, true);
	printf("\"pmd_size\": %llu},\n \"mthp\": [",
	       (unsigned long long)si->thp_pmd_size);
	for (i = 0; i < si->nr_mthp; i++) {
		printf("%s{\"size\": %llu, ", i ? ", " : "",
		       (unsigned long long)si->mthp[i].size);
		json_kv_str("name", hb_fmt_size(si->mthp[i].size, a,
						sizeof(a)), true);
		json_kv_str("enabled", si->mthp[i].enabled, true);
		printf("\"usable\": %s}",
		       json_bool(hb_mthp_usable(si, si->mthp[i].size)));
	}
	printf("],\n \"memlock\": {\"cur\": %s%llu, \"max\": %s%llu},\n",
	       "", (unsigned long long)(si->memlock_cur == UINT64_MAX ? 0 :
					si->memlock_cur), "",
	       (unsigned long long)(si->memlock_max == UINT64_MAX ? 0 :
					si->memlock_max));
	printf(" \"memlock_unlimited\": %s, \"cap_ipc_lock\": %s,\n",
	       json_bool(si->memlock_cur == UINT64_MAX),
	       json_bool(si->cap_ipc_lock));
	printf(" \"pagemap_pfn\": %s, \"kpageflags\": %s, "
	       "\"probe\": \"%s\"}\n", json_bool(si->pagemap_pfn),
	       json_bool(si->kpageflags),
	       si->pagemap_pfn && si->kpageflags ? "exact" : "degraded");
}

static int cmd_info(int argc, char **argv)
{
	struct hb_sysinfo si;
	struct hb_kmodel km;
	struct opts o;
	int ret;

	ret = parse_opts("info", argc, argv, &o);
	if (ret)
		return ret;
	if (hb_sysinfo_read(&si) || hb_kmodel_running(&km))
		return system_error("reading system information");
	if (o.json)
		info_json(&si, &km);
	else
		info_text(&si, &km);
	return EXIT_MATCH;
}

/* ------------------------------------------------------------------ */
/* plan                                                                 */
/* ------------------------------------------------------------------ */

static void plan_bvecs_text(const struct hb_imu *imu)
{
	unsigned int i;

	for (i = 0; i < imu->nr_bvecs; i++)
		printf("  bvec %u: folio %llu page %u offset %u len %u\n", i,
		       (unsigned long long)imu->bvec[i].folio,
		       imu->bvec[i].page_idx, imu->bvec[i].offset,
		       imu->bvec[i].len);
}

static void plan_bvecs_json(const struct hb_imu *imu)
{
	unsigned int i;

	printf(", \"bvecs\": [");
	for (i = 0; i < imu->nr_bvecs; i++)
		printf("%s{\"folio\": %llu, \"page\": %u, \"offset\": %u, "
		       "\"len\": %u}", i ? ", " : "",
		       (unsigned long long)imu->bvec[i].folio,
		       imu->bvec[i].page_idx, imu->bvec[i].offset,
		       imu->bvec[i].len);
	printf("]");
}

static int cmd_plan(int argc, char **argv)
{
	struct hb_page *pages;
	struct hb_imu imu;
	unsigned int reqs = 0;
	char bs[HB_BACKING_STR_MAX], sz[32];
	uint64_t uaddr, nr;
	struct opts o;
	int ret;

	ret = parse_opts("plan", argc, argv, &o);
	if (ret)
		return ret;
	if (!o.have_backing)
		return usage_error("plan needs --backing: e.g. "
				   "--backing=hugetlb:2M");
	if (!o.have_size)
		return usage_error("plan needs --size: e.g. --size=512M");
	if (!o.have_kernel && hb_kmodel_running(&o.km))
		return usage_error("%s", hb_errmsg());

	uaddr = PLAN_BASE + o.offset;
	nr = hb_nr_pages(uaddr, o.size);
	pages = calloc(nr, sizeof(*pages));
	if (!pages)
		return system_error("allocating the page map");
	/* folio ids: the synthetic address / folio size */
	if (hb_layout_synth(o.backing.folio_size, o.offset, o.size,
			    PLAN_BASE / o.backing.folio_size, pages)) {
		free(pages);
		return system_error("building the page map");
	}
	ret = hb_imu_build(&o.km, pages, uaddr, o.size, &imu);
	free(pages);
	if (ret)
		return system_error("modelling the registration");
	if (o.have_limits)
		reqs = hb_predict_requests(&imu, o.max_bytes, o.max_segs,
					   o.max_seg);

	hb_backing_str(&o.backing, bs, sizeof(bs));
	hb_fmt_size(o.size, sz, sizeof(sz));
	if (o.json) {
		printf("{");
		json_kv_str("backing", bs, true);
		printf(" \"size\": %llu, \"offset\": %llu, ",
		       (unsigned long long)o.size,
		       (unsigned long long)o.offset);
		json_kv_str("kernel", o.km.name, true);
		json_kv_str("generation", hb_kgen_name(o.km.gen), true);
		printf(" \"nr_pages\": %u, \"folio_shift\": %u, "
		       "\"nr_bvecs\": %u, \"coalesced\": %s, "
		       "\"imu_bytes\": %llu, \"alloc_bytes\": %llu",
		       imu.nr_pages, imu.folio_shift, imu.nr_bvecs,
		       json_bool(imu.coalesced),
		       (unsigned long long)imu.imu_bytes,
		       (unsigned long long)imu.alloc_bytes);
		if (o.have_limits)
			printf(", \"predicted_requests\": %u, "
			       "\"max_sectors_bytes\": %llu, "
			       "\"max_segments\": %u, "
			       "\"max_segment_size\": %llu", reqs,
			       (unsigned long long)o.max_bytes, o.max_segs,
			       (unsigned long long)o.max_seg);
		if (o.bvecs)
			plan_bvecs_json(&imu);
		printf("}\n");
	} else {
		printf("buffer:      %s of %s at offset 0x%llx\n", sz, bs,
		       (unsigned long long)o.offset);
		printf("kernel:      %s: %s\n", o.km.name,
		       hb_kgen_name(o.km.gen));
		printf("pages:       %u pinned\n", imu.nr_pages);
		printf("folio_shift: %u\n", imu.folio_shift);
		printf("nr_bvecs:    %u\n", imu.nr_bvecs);
		printf("coalesced:   %s\n", yes_no(imu.coalesced));
		printf("imu:         %llu B (header %u + %u x %u)\n",
		       (unsigned long long)imu.imu_bytes, o.km.imu_header,
		       imu.nr_bvecs, HB_BVEC_BYTES);
		printf("allocation:  %llu B%s\n",
		       (unsigned long long)imu.alloc_bytes,
		       !imu.alloc_bytes && o.km.imu_cache_bvecs ?
		       " (served from the ring's imu cache)" : "");
		if (o.have_limits)
			printf("requests:    %u per READ_FIXED of the whole "
			       "buffer%s%s (max_sectors %llu B, max_segments "
			       "%u, max_segment_size %llu B)\n", reqs,
			       o.dev ? " on " : "", o.dev ? o.dev : "",
			       (unsigned long long)o.max_bytes, o.max_segs,
			       (unsigned long long)o.max_seg);
		if (o.bvecs)
			plan_bvecs_text(&imu);
	}
	hb_imu_free(&imu);
	return EXIT_MATCH;
}

/* ------------------------------------------------------------------ */
/* check                                                                */
/* ------------------------------------------------------------------ */

struct check {
	struct opts o;
	struct hb_kmodel km;
	struct hb_buf buf;
	char *addr;		/* the buffer under test (moved or buf.addr) */
	void *resv;		/* --moved: the reservation it was moved into */
	size_t resv_len;
	struct hb_analysis an;	/* probe + the running kernel's model */
	struct hb_imu none;	/* hypothesis: no coalescing */
	struct hb_imu multi;	/* hypothesis: multi-folio coalescing */
	struct io_uring ring;
	bool ring_ok;

	/* block requests */
	bool reads_done;
	char dev[64], reads_note[200];
	uint64_t max_bytes, max_seg;
	unsigned int max_segs;
	uint64_t reqs;
	unsigned int rounds;
	unsigned int pred_reqs, pred_none, pred_multi;

	/* kernel memory */
	bool kmem_done;
	char kmem_note[200];
	unsigned int k;
	long kmem_kb;
	long pred_kb, none_kb, multi_kb;
};

/* Fill @fd up to @size bytes with non-zero data so reads hit the disk. */
static int fill_file(int fd, uint64_t size)
{
	static char chunk[1 << 20];
	struct stat st;
	uint64_t off;
	size_t i;

	if (fstat(fd, &st))
		return hb_seterr(errno, "fstat: %s", strerror(errno));
	if ((uint64_t)st.st_size >= size)
		return 0;
	for (i = 0; i < sizeof(chunk); i++)
		chunk[i] = (char)(i * 131 + 7);
	/* one allocation request first keeps the extent contiguous */
	if (posix_fallocate(fd, 0, size))
		return hb_seterr(ENOSPC, "cannot allocate %llu bytes for the "
				 "check file: free some disk space",
				 (unsigned long long)size);
	for (off = st.st_size; off < size; ) {
		size_t n = size - off < sizeof(chunk) ? size - off :
			   sizeof(chunk);
		ssize_t w = pwrite(fd, chunk, n, off);

		if (w <= 0)
			return hb_seterr(w < 0 ? errno : EIO, "writing the "
					 "check file failed: %s",
					 strerror(w < 0 ? errno : EIO));
		off += w;
	}
	if (fsync(fd))
		return hb_seterr(errno, "fsync of the check file failed: %s",
				 strerror(errno));
	return 0;
}

static int open_check_file(struct check *c, const char *path)
{
	int fd, ret;

	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return hb_seterr(errno, "cannot open --file=%s: %s", path,
				 strerror(errno));
	ret = fill_file(fd, c->o.size);
	close(fd);
	if (ret)
		return ret;
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0)
		return hb_seterr(errno, "cannot open --file=%s with O_DIRECT: "
				 "%s (put it on a disk file system such as "
				 "/var/tmp, not tmpfs)", path, strerror(errno));
	return fd;
}

/*
 * Block requests per O_DIRECT READ_FIXED of the whole buffer.  Returns an
 * exit code; a missing --file or unaligned buffer is a note, not an error.
 */
static int measure_reads(struct check *c)
{
	unsigned int lbs;
	int fd, ret;

	if (!c->o.file) {
		snprintf(c->reads_note, sizeof(c->reads_note), "not measured: "
			 "pass --file=PATH on a disk file system to count "
			 "block requests");
		return 0;
	}
	if (hb_blkdev_of_path(c->o.file, c->dev, sizeof(c->dev)))
		return system_error("--file");
	if (hb_blkdev_queue_limits(c->dev, &c->max_bytes, &c->max_segs,
				   &c->max_seg))
		return system_error("--file");
	lbs = hb_dio_align(c->o.file);
	if ((uintptr_t)c->addr % lbs || c->o.size % lbs) {
		snprintf(c->reads_note, sizeof(c->reads_note), "not measured: "
			 "O_DIRECT needs the buffer address and size aligned "
			 "to %u bytes (use an --offset and --size that are "
			 "multiples of %u)", lbs, lbs);
		return 0;
	}
	fd = open_check_file(c, c->o.file);
	if (fd < 0)
		return system_error("--file");
	ret = hb_register_buffers(&c->ring, &(struct iovec){
					  .iov_base = c->addr,
					  .iov_len = c->o.size }, 1);
	if (ret) {
		close(fd);
		return system_error("registering the buffer");
	}
	c->pred_reqs = hb_predict_requests(&c->an.imu[0], c->max_bytes,
					   c->max_segs, c->max_seg);
	/*
	 * Other I/O on the disk only adds requests: while the minimum is
	 * above the prediction, look again (a busy disk can stay busy for
	 * a whole round).
	 */
	c->reqs = UINT64_MAX;
	for (c->rounds = 0; c->rounds < READ_ROUNDS &&
			    (c->reqs == UINT64_MAX || c->reqs > c->pred_reqs);
	     c->rounds++) {
		uint64_t n;

		ret = hb_count_read_requests(&c->ring, fd, true, 0,
					     c->addr, c->o.size, 0, c->dev,
					     READ_TRIES, &n);
		if (ret)
			break;
		if (n < c->reqs)
			c->reqs = n;
	}
	io_uring_unregister_buffers(&c->ring);
	close(fd);
	if (ret)
		return system_error("counting block requests");
	c->pred_none = hb_predict_requests(&c->none, c->max_bytes,
					   c->max_segs, c->max_seg);
	c->pred_multi = hb_predict_requests(&c->multi, c->max_bytes,
					    c->max_segs, c->max_seg);
	c->reads_done = true;
	return 0;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return (x > y) - (x < y);
}

/* Δ(SUnreclaim + VmallocUsed) over K registrations, median of rounds. */
static int measure_kmem(struct check *c)
{
	long d[KMEM_ROUNDS];
	unsigned int i;
	int ret;

	c->k = c->o.size <= (256ULL << 20) ? 16 : 4;
	for (i = 0; i < KMEM_ROUNDS; i++) {
		ret = hb_measure_reg_kmem(&c->ring, c->addr, c->o.size,
					  c->k, &d[i]);
		if (ret == -ENOMEM) {
			snprintf(c->kmem_note, sizeof(c->kmem_note),
				 "not measured: %u registrations exceed "
				 "RLIMIT_MEMLOCK (run as root or raise ulimit "
				 "-l)", c->k);
			return 0;
		}
		if (ret)
			return system_error("measuring kernel memory");
	}
	qsort(d, KMEM_ROUNDS, sizeof(d[0]), cmp_long);
	c->kmem_kb = d[KMEM_ROUNDS / 2];
	c->pred_kb = (long)(c->k * c->an.imu[0].alloc_bytes >> 10);
	c->none_kb = (long)(c->k * c->none.alloc_bytes >> 10);
	c->multi_kb = (long)(c->k * c->multi.alloc_bytes >> 10);
	c->kmem_done = true;
	return 0;
}

/*
 * The one verdict (lib/verdict.c) over what was measured, beside the
 * running kernel's model and two hypotheses over the same probed pages:
 * no coalescing (< 6.3) and multi-folio coalescing.
 */
static void check_verdict(const struct check *c,
			  struct hb_coalesce_verdict *v)
{
	struct hb_coalesce_evidence e = {
		.can_coalesce = c->multi.coalesced,
		.requests = { .done = c->reads_done, .measured = c->reqs,
			      .model = c->pred_reqs, .none = c->pred_none,
			      .multi = c->pred_multi },
		.kmem = { .done = c->kmem_done, .measured = c->kmem_kb,
			  .model = c->pred_kb, .none = c->none_kb,
			  .multi = c->multi_kb },
	};

	hb_coalesce_verdict(&e, v);
}

static void print_nodes(const struct hb_bufstats *st)
{
	unsigned int n;

	if (!st->nr_nodes)
		return;
	printf("numa:           ");
	for (n = 0; n < HB_MAX_NODES; n++)
		if (st->node_folios[n])
			printf(" node%u=%u folios", n, st->node_folios[n]);
	printf("\n");
}

static void check_text(const struct check *c)
{
	struct hb_coalesce_verdict v;
	const struct hb_probe *p = &c->an.probe[0];
	char bs[HB_BACKING_STR_MAX], sz[32], a[32], b[32];
	const struct hb_imu *imu = &c->an.imu[0];

	hb_backing_str(&c->o.backing, bs, sizeof(bs));
	printf("buffer:          %s of %s at offset 0x%llx (mapping %s)%s\n",
	       hb_fmt_size(c->o.size, sz, sizeof(sz)), bs,
	       (unsigned long long)c->o.offset,
	       hb_fmt_size(c->buf.map_len, a, sizeof(a)),
	       c->o.backing.kind == HB_BACKING_THP ||
	       c->o.backing.kind == HB_BACKING_MTHP ?
	       (c->buf.huge_verified ? ", huge folios verified" :
		", huge folios NOT verified") : "");
	if (c->o.moved)
		printf("moved:           to %p (2 MiB + 4 KiB), first page 1 MiB "
		       "into its folio\n", (void *)c->addr);
	printf("probe:           %s: %u pages in %u folios of %s..%s (%s)\n",
	       p->source == HB_PROBE_KPAGEFLAGS ? "exact" : "degraded",
	       p->nr_pages, p->nr_folios,
	       hb_fmt_size(p->min_folio, a, sizeof(a)),
	       hb_fmt_size(p->max_folio, b, sizeof(b)), p->note);
	print_nodes(&c->an.st);
	printf("model:           %s (%s): %u bvecs, folio_shift %u, "
	       "coalesced %s, imu %llu B, allocation %llu B\n", c->km.name,
	       hb_kgen_name(c->km.gen), imu->nr_bvecs, imu->folio_shift,
	       yes_no(imu->coalesced), (unsigned long long)imu->imu_bytes,
	       (unsigned long long)imu->alloc_bytes);
	if (c->reads_done)
		printf("block requests:  %llu per %s READ_FIXED on %s (min of "
		       "%u), model %u [max_sectors %s, max_segments %u, "
		       "max_segment_size %s; uncoalesced would be %u]\n",
		       (unsigned long long)c->reqs, sz, c->dev,
		       READ_TRIES * c->rounds,
		       c->pred_reqs, hb_fmt_size(c->max_bytes, a, sizeof(a)),
		       c->max_segs, hb_fmt_size(c->max_seg, b, sizeof(b)),
		       c->pred_none);
	else
		printf("block requests:  %s\n", c->reads_note);
	if (c->kmem_done)
		printf("kernel memory:   %+ld kB over %u registrations "
		       "(SUnreclaim+VmallocUsed, median of %u), model %ld kB "
		       "[uncoalesced would be %ld kB]\n", c->kmem_kb, c->k,
		       KMEM_ROUNDS, c->pred_kb, c->none_kb);
	else
		printf("kernel memory:   %s\n", c->kmem_note);
	check_verdict(c, &v);
	printf("kernel coalesced: %s; matches model: %s\n",
	       hb_tristate_name(v.coalesced), yes_no(v.matches_model));
}

static void check_json(const struct check *c)
{
	struct hb_coalesce_verdict v;
	const struct hb_probe *p = &c->an.probe[0];
	unsigned int n;
	bool first;
	const struct hb_imu *imu = &c->an.imu[0];
	char bs[HB_BACKING_STR_MAX];

	hb_backing_str(&c->o.backing, bs, sizeof(bs));
	printf("{");
	json_kv_str("backing", bs, true);
	printf(" \"size\": %llu, \"offset\": %llu, \"map_len\": %zu, "
	       "\"huge_verified\": %s,\n", (unsigned long long)c->o.size,
	       (unsigned long long)c->o.offset, c->buf.map_len,
	       json_bool(c->buf.huge_verified));
	printf(" \"moved\": %s,\n", json_bool(c->o.moved));
	printf(" \"probe\": {\"source\": \"%s\", \"nr_pages\": %u, "
	       "\"nr_folios\": %u, \"min_folio\": %llu, \"max_folio\": %llu, ",
	       p->source == HB_PROBE_KPAGEFLAGS ? "exact" : "degraded",
	       p->nr_pages, p->nr_folios,
	       (unsigned long long)p->min_folio,
	       (unsigned long long)p->max_folio);
	json_kv_str("note", p->note, false);
	printf(", \"nodes\": {");
	for (n = 0, first = true; n < HB_MAX_NODES; n++) {
		if (!c->an.st.node_folios[n])
			continue;
		printf("%s\"%u\": %u", first ? "" : ", ", n,
		       c->an.st.node_folios[n]);
		first = false;
	}
	printf("}},\n \"model\": {");
	json_kv_str("kernel", c->km.name, true);
	printf(" \"nr_bvecs\": %u, \"folio_shift\": %u, \"coalesced\": %s, "
	       "\"imu_bytes\": %llu, \"alloc_bytes\": %llu},\n",
	       imu->nr_bvecs, imu->folio_shift, json_bool(imu->coalesced),
	       (unsigned long long)imu->imu_bytes,
	       (unsigned long long)imu->alloc_bytes);
	if (c->reads_done) {
		printf(" \"requests\": {\"device\": ");
		json_str(c->dev);
		printf(", \"measured\": %llu, \"predicted\": %u, "
		       "\"uncoalesced\": %u, \"tries\": %u, "
		       "\"max_sectors_bytes\": %llu, \"max_segments\": %u, "
		       "\"max_segment_size\": %llu},\n",
		       (unsigned long long)c->reqs, c->pred_reqs, c->pred_none,
		       READ_TRIES * c->rounds,
		       (unsigned long long)c->max_bytes,
		       c->max_segs, (unsigned long long)c->max_seg);
	} else {
		printf(" \"requests\": {");
		json_kv_str("note", c->reads_note, false);
		printf("},\n");
	}
	if (c->kmem_done) {
		printf(" \"kmem\": {\"registrations\": %u, \"delta_kb\": %ld, "
		       "\"predicted_kb\": %ld, \"uncoalesced_kb\": %ld},\n",
		       c->k, c->kmem_kb, c->pred_kb, c->none_kb);
	} else {
		printf(" \"kmem\": {");
		json_kv_str("note", c->kmem_note, false);
		printf("},\n");
	}
	check_verdict(c, &v);
	printf(" \"kernel_coalesced\": \"%s\", \"matches_model\": %s}\n",
	       hb_tristate_name(v.coalesced), json_bool(v.matches_model));
}

/*
 * The running kernel's model over the probed pages (hb_analyze), and two
 * hypotheses over the same pages to tell what the kernel did: no
 * coalescing (< 6.3) and multi-folio coalescing.
 */
static int check_models(struct check *c)
{
	struct hb_kmodel none = c->km, multi = c->km;
	struct iovec iov = { .iov_base = c->addr, .iov_len = c->o.size };
	uint64_t ua = (uintptr_t)c->addr;
	const struct hb_page *pages;

	if (hb_analyze(&c->km, &iov, 1, &c->o.backing, 0, 0, HB_ANALYZE_KEEP,
		       &c->an))
		return system_error("probing and modelling the buffer");
	pages = c->an.probe[0].pages;
	none.gen = HB_KGEN_NONE;
	multi.gen = HB_KGEN_MULTI_FIXED;
	if (hb_imu_build(&none, pages, ua, c->o.size, &c->none) ||
	    hb_imu_build(&multi, pages, ua, c->o.size, &c->multi))
		return system_error("modelling the registration");
	return 0;
}

/* Registering the buffer must fit RLIMIT_MEMLOCK (the one rule in lib/) */
static int check_memlock(struct check *c)
{
	struct hb_sysinfo si;

	if (hb_sysinfo_read(&si) ||
	    hb_check_memlock(&si, c->an.st.charged_bytes))
		return system_error("registering the buffer");
	return 0;
}

/*
 * --moved: the buffer is the second half of a THP and the THPs after it,
 * moved by mremap() to an address 4 KiB past a 2 MiB boundary, so its
 * first page sits 1 MiB into its folio while the address says 4 KiB: the
 * case 3a3c6d61577d (6.16, 6.12.36) fixed.
 */
static int move_thp(struct check *c)
{
	size_t two = 2ULL << 20;
	uintptr_t dst;
	void *moved;

	c->resv_len = c->o.size + two + HB_PAGE_SIZE;
	c->resv = mmap(NULL, c->resv_len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (c->resv == MAP_FAILED) {
		c->resv = NULL;
		return hb_seterr(errno, "reserving %zu bytes: %s", c->resv_len,
				 strerror(errno));
	}
	dst = ((uintptr_t)c->resv + two - 1) / two * two + HB_PAGE_SIZE;
	moved = mremap((char *)c->buf.map + two / 2, c->o.size, c->o.size,
		       MREMAP_MAYMOVE | MREMAP_FIXED, (void *)dst);
	if (moved == MAP_FAILED)
		return hb_seterr(errno, "mremap of the THP buffer failed: %s",
				 strerror(errno));
	c->addr = moved;
	return 0;
}

static void check_cleanup(struct check *c)
{
	hb_imu_free(&c->none);
	hb_imu_free(&c->multi);
	if (c->ring_ok)
		io_uring_queue_exit(&c->ring);
	hb_analysis_free(&c->an);
	if (c->resv)
		munmap(c->resv, c->resv_len);
	if (c->addr && c->addr != c->buf.addr)
		hb_free_moved(&c->buf, 1 << 20, c->o.size);
	else
		hb_free(&c->buf);
}

static int cmd_check(int argc, char **argv)
{
	struct hb_coalesce_verdict v;
	struct check *c;
	int ret;

	c = calloc(1, sizeof(*c));
	if (!c)
		return system_error("out of memory");
	c->buf.memfd = -1;
	ret = parse_opts("check", argc, argv, &c->o);
	if (ret)
		goto out;
	if (!c->o.have_backing)
		hb_backing_parse("hugetlb:2M", &c->o.backing);
	if (!c->o.have_size)
		c->o.size = 8ULL << 20;
	ret = check_offset(&c->o);
	if (ret)
		goto out;
	if (hb_kmodel_running(&c->km)) {
		ret = usage_error("%s", hb_errmsg());
		goto out;
	}
	if (c->o.moved && (c->o.backing.kind != HB_BACKING_THP ||
			   c->o.offset || c->o.size % HB_PAGE_SIZE)) {
		ret = usage_error("--moved needs --backing=thp, no --offset and "
				  "a --size in whole 4 KiB pages");
		goto out;
	}
	ret = EXIT_SYSTEM;
	/* --moved takes the buffer from 1 MiB into the first THP */
	if (hb_alloc(&c->o.backing, c->o.size + (c->o.moved ? 1 << 20 : 0),
		     c->o.offset, &c->buf)) {
		system_error("allocating the buffer");
		goto out;
	}
	c->addr = c->buf.addr;
	if (c->o.moved && move_thp(c)) {
		system_error("--moved");
		goto out;
	}
	if (check_models(c) || check_memlock(c))
		goto out;
	ret = io_uring_queue_init(8, &c->ring, 0);
	if (ret) {
		fprintf(stderr, "%s: io_uring_queue_init failed: %s (is "
			"io_uring disabled in "
			"/proc/sys/kernel/io_uring_disabled?)\n", prog,
			strerror(-ret));
		ret = EXIT_SYSTEM;
		goto out;
	}
	c->ring_ok = true;
	ret = measure_reads(c);
	if (ret)
		goto out;
	ret = measure_kmem(c);
	if (ret)
		goto out;
	if (c->o.json)
		check_json(c);
	else
		check_text(c);
	check_verdict(c, &v);
	ret = v.matches_model ? EXIT_MATCH : EXIT_MISMATCH;
out:
	check_cleanup(c);
	free(c);
	return ret;
}

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return EXIT_MATCH;
	}
	if (!strcmp(cmd, "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(cmd, "plan"))
		return cmd_plan(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	return usage_error("unknown command '%s': use info, plan or check "
			   "(see '%s --help')", cmd, prog);
}
