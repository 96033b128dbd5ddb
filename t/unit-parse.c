// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the parsers every front end shares: hb_parse_size()
 * (sizes, hex, suffixes, junk, overflow), hb_backing_parse() (every
 * backing, defaults, bad sizes, round trip through hb_backing_str()) and
 * hb_kmodel_running() (HUGEBUF_KERNEL wins over uname, bad values are
 * errors that name the variable).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>
#include <sys/utsname.h>

#include "helpers.h"
/* hb_seterr(), lib's own */
#include "job/job.h"

struct size_case {
	const char *s;
	uint64_t want;
};

static const struct size_case good_sizes[] = {
	{ "0", 0 },
	{ "1", 1 },
	{ "4096", 4096 },
	{ "4k", 4096 },
	{ "4K", 4096 },
	{ "4KiB", 4096 },
	{ "4kb", 4096 },
	{ "2M", 2ULL << 20 },
	{ "8MiB", 8ULL << 20 },
	{ "512m", 512ULL << 20 },
	{ "1G", 1ULL << 30 },
	{ "1g", 1ULL << 30 },
	{ "0x1234", 0x1234 },
	{ "0x10M", 16ULL << 20 },
	{ "512B", 512 },
	{ "3T", 3ULL << 40 },
	/* a leading 0 is decimal, not octal */
	{ "010K", 10ULL << 10 },
};

static const char *const bad_sizes[] = {
	"", "-1", "abc", "4X", "1.5M", " 4", "4k junk", "4 k", "M", "0xZ",
	"4kk", "4MiBs", "99999999999999999999", "16777216T",
	"18446744073709551615K", "+5", "0x", "0x0x5", "0x-1",
};

static int test_sizes(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(good_sizes); i++) {
		uint64_t v = 0xdeadbeef;

		if (hb_parse_size(good_sizes[i].s, &v)) {
			ret = t_fail("hb_parse_size(\"%s\") failed: %s",
				     good_sizes[i].s, hb_errmsg());
			continue;
		}
		if (v != good_sizes[i].want)
			ret = t_fail("hb_parse_size(\"%s\") = %llu, expected "
				     "%llu", good_sizes[i].s,
				     (unsigned long long)v,
				     (unsigned long long)good_sizes[i].want);
	}
	for (i = 0; i < T_ARRAY_SIZE(bad_sizes); i++) {
		uint64_t v = 0x5a5a;
		int err;

		hb_seterr(0, "%s", "");
		err = hb_parse_size(bad_sizes[i], &v);
		if (err >= 0) {
			ret = t_fail("hb_parse_size(\"%s\") accepted junk "
				     "(= %llu)", bad_sizes[i],
				     (unsigned long long)v);
			continue;
		}
		if (v != 0x5a5a)
			ret = t_fail("hb_parse_size(\"%s\") wrote its output "
				     "on failure", bad_sizes[i]);
		if (!strstr(hb_errmsg(), "size"))
			ret = t_fail("hb_parse_size(\"%s\"): message '%s' does "
				     "not say what was wrong", bad_sizes[i],
				     hb_errmsg());
	}
	if (hb_parse_size(NULL, &(uint64_t){ 0 }) >= 0)
		ret = t_fail("hb_parse_size(NULL) succeeded");
	return ret;
}

static uint64_t sysfs_u64(const char *path, uint64_t deflt)
{
	unsigned long long v;
	FILE *f = fopen(path, "re");

	if (!f)
		return deflt;
	if (fscanf(f, "%llu", &v) != 1)
		v = deflt;
	fclose(f);
	return v;
}

static uint64_t meminfo_hugepagesize(void)
{
	char line[256];
	unsigned long long kb = 2048;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return 2ULL << 20;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Hugepagesize: %llu kB", &kb) == 1)
			break;
	fclose(f);
	return (uint64_t)kb << 10;
}

struct backing_case {
	const char *s;
	enum hb_backing_kind kind;
	uint64_t size;		/* 0: filled in at run time */
};

/*
 * hugetlbfs:PATH: the refusal names the path; on a hugetlbfs mount (when
 * /dev/hugepages is one) a file there takes the mount's page size and
 * prints back as the same backing.
 */
static int test_hugetlbfs_backing(void)
{
	const char *mnt = "/dev/hugepages";
	struct hb_backing b;
	char str[HB_BACKING_STR_MAX];
	struct statfs sf;
	int ret = T_EXIT_PASS;

	if (hb_backing_parse("hugetlbfs:/proc/x", &b) >= 0 ||
	    !strstr(hb_errmsg(), "/proc/x") || strchr(hb_errmsg(), '\n'))
		ret = t_fail("hugetlbfs:/proc/x: want a one-line refusal "
			     "naming the path, got '%s'", hb_errmsg());
	if (statfs(mnt, &sf) || (uint32_t)sf.f_type != 0x958458f6)
		return ret;	/* no hugetlbfs mounted there */
	if (hb_backing_parse("hugetlbfs:/dev/hugepages/hb-unit", &b)) {
		return t_fail("hugetlbfs:/dev/hugepages/hb-unit refused: %s",
			      hb_errmsg());
	}
	hb_backing_str(&b, str, sizeof(str));
	if (b.kind != HB_BACKING_HUGETLBFS ||
	    b.folio_size != (uint64_t)sf.f_bsize ||
	    strcmp(str, "hugetlbfs:/dev/hugepages/hb-unit"))
		ret = t_fail("hugetlbfs:/dev/hugepages/hb-unit = kind %d size "
			     "%llu '%s'", b.kind,
			     (unsigned long long)b.folio_size, str);
	return ret;
}

static int test_backings(void)
{
	uint64_t pmd = sysfs_u64("/sys/kernel/mm/transparent_hugepage/"
				 "hpage_pmd_size", 2ULL << 20);
	struct backing_case good[] = {
		{ "4k", HB_BACKING_4K, 4096 },
		{ "4K", HB_BACKING_4K, 4096 },
		{ "thp", HB_BACKING_THP, pmd },
		{ "mthp:64K", HB_BACKING_MTHP, 64 << 10 },
		{ "mthp:16k", HB_BACKING_MTHP, 16 << 10 },
		{ "mthp:2M", HB_BACKING_MTHP, 2 << 20 },
		{ "hugetlb", HB_BACKING_HUGETLB, 2 << 20 },
		{ "hugetlb:2M", HB_BACKING_HUGETLB, 2 << 20 },
		{ "hugetlb:1G", HB_BACKING_HUGETLB, 1ULL << 30 },
		{ "memfd", HB_BACKING_MEMFD, 2 << 20 },
		{ "memfd:1G", HB_BACKING_MEMFD, 1ULL << 30 },
		{ "libhugetlbfs", HB_BACKING_LIBHUGETLBFS,
		  meminfo_hugepagesize() },
		{ "shm", HB_BACKING_SHM, 4096 },
		{ "shm:4K", HB_BACKING_SHM, 4096 },
		{ "shm:2M", HB_BACKING_SHM, 2 << 20 },
		{ "shm:1G", HB_BACKING_SHM, 1ULL << 30 },
	};
	static const char *const bad[] = {
		"", "bogus", "mthp", "mthp:", "mthp:3K", "mthp:4K", "mthp:0",
		"hugetlb:abc", "hugetlb:3M", "hugetlb:", "4k:2M", "thp:2M",
		"hugetlbx", "memfd:-2M", "libhugetlbfs:2M",
		"averyveryveryverylongbackingname:2M",
		"shm:3M", "shm:", "shm:abc", "hugetlbfs", "hugetlbfs:",
		/* not on hugetlbfs (statfs magic): a one-line refusal */
		"hugetlbfs:/proc", "hugetlbfs:/proc/no-such-file",
	};
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(good); i++) {
		struct hb_backing b, b2;
		char str[HB_BACKING_STR_MAX];

		memset(&b, 0xa5, sizeof(b));
		if (hb_backing_parse(good[i].s, &b)) {
			ret = t_fail("hb_backing_parse(\"%s\") failed: %s",
				     good[i].s, hb_errmsg());
			continue;
		}
		if (b.kind != good[i].kind || b.folio_size != good[i].size) {
			ret = t_fail("hb_backing_parse(\"%s\") = kind %d size "
				     "%llu, expected kind %d size %llu",
				     good[i].s, b.kind,
				     (unsigned long long)b.folio_size,
				     good[i].kind,
				     (unsigned long long)good[i].size);
			continue;
		}
		hb_backing_str(&b, str, sizeof(str));
		if (hb_backing_parse(str, &b2) || b2.kind != b.kind ||
		    b2.folio_size != b.folio_size)
			ret = t_fail("backing \"%s\" does not round trip "
				     "through \"%s\"", good[i].s, str);
	}
	for (i = 0; i < T_ARRAY_SIZE(bad); i++) {
		struct hb_backing b;

		hb_seterr(0, "%s", "");
		if (hb_backing_parse(bad[i], &b) >= 0) {
			ret = t_fail("hb_backing_parse(\"%s\") accepted it as "
				     "kind %d size %llu", bad[i], b.kind,
				     (unsigned long long)b.folio_size);
			continue;
		}
		if (!strstr(hb_errmsg(), "backing") &&
		    !strstr(hb_errmsg(), "size"))
			ret = t_fail("hb_backing_parse(\"%s\"): message '%s' "
				     "names neither the backing nor the size",
				     bad[i], hb_errmsg());
	}
	if (hb_backing_parse(NULL, &(struct hb_backing){ 0 }) >= 0)
		ret = t_fail("hb_backing_parse(NULL) succeeded");
	if (test_hugetlbfs_backing())
		ret = T_EXIT_FAIL;
	return ret;
}

struct kernel_case {
	const char *env;
	enum hb_kgen gen;
	const char *name;
	unsigned int header;
};

static int test_kmodel_env(void)
{
	static const struct kernel_case good[] = {
		{ "6.1", HB_KGEN_NONE, "6.1", 32 },
		{ "6.3", HB_KGEN_SINGLE, "6.3", 32 },
		{ "6.11", HB_KGEN_SINGLE, "6.11", 32 },
		{ "6.12", HB_KGEN_MULTI, "6.12", 32 },
		{ "6.12.117", HB_KGEN_MULTI_FIXED, "6.12.117", 32 },
		{ "6.16", HB_KGEN_MULTI_FIXED, "6.16", 56 },
		{ "5.10", HB_KGEN_NONE, "5.10", 32 },
		{ "6.1+hugebuf", HB_KGEN_MULTI_FIXED, "6.1+hugebuf", 24 },
	};
	static const char *const bad[] = { "banana", "6", "6.", "six.one",
					   "x6.1" };
	const struct hb_kdetect *d;
	struct hb_kmodel km, want;
	int ret = T_EXIT_PASS;
	unsigned int i;

	for (i = 0; i < T_ARRAY_SIZE(good); i++) {
		setenv("HUGEBUF_KERNEL", good[i].env, 1);
		memset(&km, 0, sizeof(km));
		if (hb_kmodel_running(&km)) {
			ret = t_fail("HUGEBUF_KERNEL=%s: %s", good[i].env,
				     hb_errmsg());
			continue;
		}
		if (km.gen != good[i].gen || strcmp(km.name, good[i].name) ||
		    km.imu_header != good[i].header)
			ret = t_fail("HUGEBUF_KERNEL=%s gave gen %d name %s "
				     "header %u, expected gen %d name %s header "
				     "%u", good[i].env, km.gen, km.name,
				     km.imu_header, good[i].gen, good[i].name,
				     good[i].header);
	}
	for (i = 0; i < T_ARRAY_SIZE(bad); i++) {
		setenv("HUGEBUF_KERNEL", bad[i], 1);
		hb_seterr(0, "%s", "");
		if (hb_kmodel_running(&km) >= 0) {
			ret = t_fail("HUGEBUF_KERNEL=%s was accepted as %s",
				     bad[i], km.name);
			continue;
		}
		if (!strstr(hb_errmsg(), "HUGEBUF_KERNEL"))
			ret = t_fail("HUGEBUF_KERNEL=%s: message '%s' does not "
				     "name the variable", bad[i], hb_errmsg());
	}

	/*
	 * unset (and empty): the release decides, confirmed by behaviour
	 * (lib/job/kdetect.c).  The version's model (uname, Debian's
	 * /proc/version, our -hugebuf suffix) and the behaviour must agree
	 * on the kernels we test, and the running model is that one.
	 */
	unsetenv("HUGEBUF_KERNEL");
	d = hb_kdetect_cached();
	if (!d)
		return t_worst(ret, t_fail("kernel detection failed: %s",
					   hb_errmsg()));
	want = d->version_km;
	if (!d->agreed)
		ret = t_fail("%s", d->summary);
	if (hb_kmodel_running(&km) || km.gen != want.gen)
		ret = t_fail("without HUGEBUF_KERNEL the model is '%s' (%s), "
			     "the version says %s (%s)", km.name,
			     hb_kgen_name(km.gen), want.name,
			     hb_kgen_name(want.gen));
	setenv("HUGEBUF_KERNEL", "", 1);
	if (hb_kmodel_running(&km) || km.gen != want.gen)
		ret = t_fail("an empty HUGEBUF_KERNEL is not ignored");
	unsetenv("HUGEBUF_KERNEL");
	return ret;
}

int main(void)
{
	int ret = T_EXIT_PASS;

	ret = t_worst(ret, t_sub(test_sizes()));
	ret = t_worst(ret, t_sub(test_backings()));
	ret = t_worst(ret, t_sub(test_kmodel_env()));
	return t_done(ret);
}
