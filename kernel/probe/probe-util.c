// SPDX-License-Identifier: GPL-2.0-only
/* The helper file of the kernel/probe/ guest programs: see probe-util.h. */
#include <glob.h>

#include "probe-util.h"

int probe_write(const char *path, const char *val, int flags)
{
	ssize_t len = (ssize_t)strlen(val);
	int fd = open(path, O_WRONLY | flags), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, len) == len ? 0 : -errno;
	close(fd);
	return ret;
}

bool probe_same_function(const char *name, const char *sym)
{
	size_t l = strlen(sym);

	return !strncmp(name, sym, l) && (!name[l] || name[l] == '.');
}

/* add one per-CPU table's rows for @syms to @hits and @usec */
static void ftrace_add_table(FILE *f, const char *const *syms, size_t n,
			     unsigned long *hits, double *usec)
{
	char line[512], name[256];
	unsigned long h;
	double u;
	size_t j;

	while (fgets(line, sizeof(line), f)) {
		u = 0;
		if (sscanf(line, "%255s %lu %lf", name, &h, &u) < 2)
			continue;
		for (j = 0; j < n; j++) {
			if (!probe_same_function(name, syms[j]))
				continue;
			hits[j] += h;
			usec[j] += u;
		}
	}
}

int probe_ftrace_sum(const char *tracefs, const char *const *syms, size_t n,
		     unsigned long *hits, double *usec)
{
	char pat[512];
	glob_t g;
	size_t i;
	FILE *f;

	memset(hits, 0, n * sizeof(*hits));
	memset(usec, 0, n * sizeof(*usec));
	snprintf(pat, sizeof(pat), "%s/trace_stat/function*", tracefs);
	if (glob(pat, 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc; i++) {
		f = fopen(g.gl_pathv[i], "r");
		if (!f)
			continue;
		ftrace_add_table(f, syms, n, hits, usec);
		fclose(f);
	}
	globfree(&g);
	return 0;
}

int probe_trace_write(const char *tracefs, const char *file, const char *s,
		      bool append)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	return probe_write(path, s, append ? O_APPEND : O_TRUNC);
}

/* mark in @traced every one of @syms the filter file lists */
static int filter_listed(const char *tracefs, const char *const *syms,
			 size_t n, int *traced)
{
	char path[512], line[256], name[256];
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/set_ftrace_filter", tracefs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s", name) == 1)
			for (i = 0; i < n; i++)
				traced[i] |= probe_same_function(name, syms[i]);
	fclose(f);
	return 0;
}

int probe_ftrace_filter(const char *tracefs, const char *const *syms,
			size_t n, int *traced, const char *tag)
{
	char clone[160];
	size_t i;
	int k = 0;

	memset(traced, 0, n * sizeof(*traced));
	if (probe_trace_write(tracefs, "set_ftrace_filter", "\n", false))
		return -1;
	for (i = 0; i < n; i++) {
		probe_trace_write(tracefs, "set_ftrace_filter", syms[i], true);
		snprintf(clone, sizeof(clone), "%s.*", syms[i]);
		probe_trace_write(tracefs, "set_ftrace_filter", clone, true);
	}
	if (filter_listed(tracefs, syms, n, traced))
		return -1;
	for (i = 0; i < n; i++) {
		k += traced[i];
		if (!traced[i])
			printf("%s untraceable=%s\n", tag, syms[i]);
	}
	return k;
}

int probe_kprobe_profile(const char *tracefs, const char *event,
			 unsigned long *hits, unsigned long *misses)
{
	char path[512], line[256], name[128];
	unsigned long h, m;
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_profile", tracefs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%127s %lu %lu", name, &h, &m) == 3 &&
		    !strcmp(name, event)) {
			*hits = h;
			*misses = m;
			ret = 0;
		}
	fclose(f);
	return ret;
}

long probe_disk_ios(const char *disk, bool write)
{
	uint64_t r, w;

	if (hb_blkdev_ios(disk, &r, &w))
		return -1;
	return (long)(write ? w : r);
}

int probe_put(const char *path, const char *val)
{
	return probe_write(path, val, 0);
}

long probe_get_num(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

/* A "key value" line of /proc/vmstat; -1 when there is none. */
static long vmstat_field(const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtol(line + kl + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

long probe_pins_held(void)
{
	probe_put("/proc/sys/vm/stat_refresh", "1");
	return vmstat_field("nr_foll_pin_acquired") -
	       vmstat_field("nr_foll_pin_released");
}

/* this thread's fail-nth, opened once so that arming it allocates nothing */
static int fail_nth_fd = -1;

int probe_fault_setup(const char *tag)
{
	static const char *const knobs[][2] = {
		{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/failslab/verbose", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
	};
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (probe_put(knobs[i][0], knobs[i][1])) {
			printf("%s skip=no fault injection (%s: %s; needs CONFIG_FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS and debugfs mounted)\n",
			       tag, knobs[i][0], strerror(errno));
			return -1;
		}
	if (fail_nth_fd < 0)
		fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth_fd < 0) {
		printf("%s skip=no fault injection (/proc/thread-self/fail-nth: %s; needs CONFIG_FAULT_INJECTION)\n",
		       tag, strerror(errno));
		return -1;
	}
	return 0;
}

int probe_fail_nth_arm(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(fail_nth_fd, buf, len, 0) == len ? 0 : -errno;
}

long probe_fail_nth_disarm(void)
{
	char buf[32];
	ssize_t n = pread(fail_nth_fd, buf, sizeof(buf) - 1, 0);

	if (pwrite(fail_nth_fd, "0", 1, 0) != 1 || n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

int probe_rw_fixed(struct io_uring *ring, bool write, int fd, void *addr,
		   unsigned int len, off_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	if (write)
		io_uring_prep_write_fixed(sqe, fd, addr, len, off, idx);
	else
		io_uring_prep_read_fixed(sqe, fd, addr, len, off, idx);
	ret = io_uring_submit(ring);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

int probe_alloc(const char *backing, size_t len, size_t head_offset,
		struct hb_buf *buf)
{
	struct hb_backing b;
	int ret;

	memset(buf, 0, sizeof(*buf));
	ret = hb_backing_parse(backing, &b);
	if (!ret)
		ret = hb_alloc(&b, len, head_offset, buf);
	if (ret)
		fprintf(stderr, "%s: %s\n", backing, hb_errmsg());
	return ret;
}

bool probe_thp_backed(const void *addr, size_t len)
{
	struct hb_probe p;
	bool ok;

	if (hb_probe(addr, len, NULL, &p))
		return false;
	ok = p.source == HB_PROBE_KPAGEFLAGS && p.min_folio >= PROBE_HPAGE;
	hb_probe_free(&p);
	return ok;
}

uint8_t probe_pat(uint64_t seed, uint64_t off)
{
	uint64_t w = ((off >> 3) ^ (seed << 48)) * 0x9e3779b97f4a7c15ULL +
		     0x1234567ULL;

	return (uint8_t)(w >> ((off & 7) * 8));
}

void probe_pat_fill(void *buf, size_t len, uint64_t seed, uint64_t off)
{
	uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = probe_pat(seed, off + i);
}

long probe_pat_check(const void *buf, size_t len, uint64_t seed, uint64_t off)
{
	const uint8_t *p = buf;
	size_t i;

	for (i = 0; i < len; i++)
		if (p[i] != probe_pat(seed, off + i))
			return (long)i;
	return -1;
}
