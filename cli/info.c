// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf info: hugepage pools, THP/mTHP, memlock, CAP_IPC_LOCK, the
 * kernel's coalescing generation (by version and by behaviour) and
 * whether the exact folio probe works, as text or as one JSON object.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

static void fmt_limit(uint64_t v, char *buf, size_t len)
{
	if (v == UINT64_MAX)
		snprintf(buf, len, "unlimited");
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
}

/*
 * The kernel's generation by version and by behaviour (lib/job/kdetect.c);
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
		fprintf(stderr, "%s: %s\n", CLI_NAME, d->warning);
}

static void info_detect_json(struct hb_json *j, const struct hb_kdetect *d)
{
	if (!d) {
		hb_json_null(j, "kernel_detect");
		return;
	}
	hb_json_obj(j, "kernel_detect");
	hb_json_str(j, "upstream", d->upstream);
	hb_json_str(j, "version", d->version_km.name);
	hb_json_str(j, "behaviour", d->behaviour_ok ? d->behaviour_km.name : "");
	hb_json_str(j, "chosen", d->chosen.name);
	hb_json_str(j, "source", d->source);
	hb_json_bool(j, "agreed", d->agreed);
	hb_json_tri(j, "first_bvec_vaddr", d->first_bvec_vaddr);
	hb_json_tri(j, "coalesce_single", d->coalesce_single);
	hb_json_tri(j, "coalesce_multi", d->coalesce_multi);
	hb_json_tri(j, "batch_dedup", d->batch_dedup);
	hb_json_u64(j, "usec", d->usec);
	hb_json_str(j, "summary", d->summary);
	hb_json_str(j, "warning", d->warning);
	hb_json_str(j, "note", d->note);
	hb_json_end(j);
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

static void info_kernel_json(struct hb_json *j, const struct hb_kmodel *km,
			     const char *release)
{
	hb_json_obj(j, "kernel");
	hb_json_str(j, "release", release);
	hb_json_str(j, "model", km->name);
	hb_json_str(j, "generation", hb_kgen_name(km->gen));
	hb_json_u64(j, "imu_header", km->imu_header);
	hb_json_bool(j, "exact_nr_segs", km->exact_nr_segs);
	hb_json_u64(j, "imu_cache_bvecs", km->imu_cache_bvecs);
	hb_json_end(j);
}

static void info_pools_json(struct hb_json *j, const struct hb_sysinfo *si)
{
	unsigned int i;

	hb_json_arr(j, "pools");
	for (i = 0; i < si->nr_pools; i++) {
		const struct hb_pool *p = &si->pools[i];

		hb_json_obj(j, NULL);
		hb_json_u64(j, "page_size", p->page_size);
		hb_json_u64(j, "nr", p->nr);
		hb_json_u64(j, "free", p->free);
		hb_json_u64(j, "resv", p->resv);
		hb_json_u64(j, "surplus", p->surplus);
		hb_json_bool(j, "default",
			     p->page_size == si->default_hugepage);
		hb_json_end(j);
	}
	hb_json_end(j);
}

static void info_thp_json(struct hb_json *j, const struct hb_sysinfo *si)
{
	unsigned int i;
	char a[32];

	hb_json_obj(j, "thp");
	hb_json_str(j, "enabled", si->thp_enabled);
	hb_json_u64(j, "pmd_size", si->thp_pmd_size);
	hb_json_end(j);
	hb_json_arr(j, "mthp");
	for (i = 0; i < si->nr_mthp; i++) {
		hb_json_obj(j, NULL);
		hb_json_u64(j, "size", si->mthp[i].size);
		hb_json_str(j, "name",
			    hb_fmt_size(si->mthp[i].size, a, sizeof(a)));
		hb_json_str(j, "enabled", si->mthp[i].enabled);
		hb_json_bool(j, "usable",
			     hb_mthp_usable(si, si->mthp[i].size));
		hb_json_end(j);
	}
	hb_json_end(j);
}

/* RLIMIT_MEMLOCK: 0 with memlock_unlimited for RLIM_INFINITY */
static uint64_t memlock_json(uint64_t v)
{
	return v == UINT64_MAX ? 0 : v;
}

static int info_json(const struct hb_sysinfo *si, const struct hb_kmodel *km)
{
	struct hb_str out;
	struct hb_json j;

	hb_str_init(&out);
	hb_json_init(&j, &out);
	hb_json_obj(&j, NULL);
	info_kernel_json(&j, km, si->release);
	info_detect_json(&j, hb_kdetect_cached());
	info_pools_json(&j, si);
	info_thp_json(&j, si);
	hb_json_obj(&j, "memlock");
	hb_json_u64(&j, "cur", memlock_json(si->memlock_cur));
	hb_json_u64(&j, "max", memlock_json(si->memlock_max));
	hb_json_end(&j);
	hb_json_bool(&j, "memlock_unlimited", si->memlock_cur == UINT64_MAX);
	hb_json_bool(&j, "cap_ipc_lock", si->cap_ipc_lock);
	hb_json_bool(&j, "pagemap_pfn", si->pagemap_pfn);
	hb_json_bool(&j, "kpageflags", si->kpageflags);
	hb_json_str(&j, "probe", si->pagemap_pfn && si->kpageflags ?
		    "exact" : "degraded");
	hb_json_end(&j);
	return print_json(&j);
}

int cmd_info(int argc, char **argv)
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
		return info_json(&si, &km);
	info_text(&si, &km);
	return EXIT_MATCH;
}
