// SPDX-License-Identifier: GPL-2.0-only
/* The helper file of the kernel/probe/ guest programs: see probe-util.h. */
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>

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

/*
 * The counted functions.  Each symbol may have several entries in
 * /proc/kallsyms: its compiler clones ("sym.isra.0", "sym.constprop.0",
 * "sym.part.0"; not "sym.cold", a moved-out block with no entry) and
 * static functions of that name in other files.  Each entry is one counter.
 */
#define PROBE_MAX_CTRS 192
#define PROBE_MAX_CPUS 16

enum ctr_kind { CTR_KPROBE, CTR_HWBP };

struct ctr {
	size_t sym; /* index into the caller's list */
	enum ctr_kind kind;
	char ev[64]; /* the kprobe event's name */
	int fd[PROBE_MAX_CPUS]; /* CTR_HWBP: one perf event per CPU */
};

static struct {
	const char *tracefs;
	size_t nsyms, n;
	struct ctr c[PROBE_MAX_CTRS];
	/* the calls and misses at probe_count_begin() */
	unsigned long t0[PROBE_MAX_CTRS], m0;
} pc;

/* whether kallsyms name @name is @sym or one of its clones */
static bool same_function(const char *name, const char *sym)
{
	size_t l = strlen(sym);

	if (strncmp(name, sym, l))
		return false;
	return !name[l] || (name[l] == '.' && strcmp(name + l, ".cold") &&
			    strncmp(name + l, ".cold.", 6));
}

/* a kprobe event name (letters, digits, '_') for entry @k of @name */
static void event_name(char *ev, size_t len, const char *name, int k)
{
	size_t i;

	snprintf(ev, len, k ? "%s_%d" : "%s", name, k);
	for (i = 0; ev[i]; i++)
		if (ev[i] == '.')
			ev[i] = '_';
}

/*
 * A CPU-wide hardware execute breakpoint at @addr on every CPU, counting
 * its hits (perf_event_open(), PERF_TYPE_BREAKPOINT, HW_BREAKPOINT_X):
 * what counts a function that kprobe events refuse.  0, or -errno.
 */
static int hwbp_open(struct ctr *c, unsigned long addr)
{
	struct perf_event_attr a;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int cpu, ret = -ENODEV;

	memset(&a, 0, sizeof(a));
	a.type = PERF_TYPE_BREAKPOINT;
	a.size = sizeof(a);
	a.bp_type = HW_BREAKPOINT_X;
	a.bp_addr = addr;
	a.bp_len = sizeof(long);
	a.disabled = 1;
	for (cpu = 0; cpu < PROBE_MAX_CPUS; cpu++) {
		c->fd[cpu] = -1;
		if (cpu >= ncpu)
			continue;
		c->fd[cpu] =
			(int)syscall(SYS_perf_event_open, &a, -1, cpu, -1, 0);
		if (c->fd[cpu] >= 0)
			ret = 0;
		else if (errno != ENODEV) /* an offline CPU */
			return -errno;
	}
	return ret;
}

static void hwbp_close(struct ctr *c)
{
	int cpu;

	for (cpu = 0; cpu < PROBE_MAX_CPUS; cpu++)
		if (c->fd[cpu] >= 0)
			close(c->fd[cpu]);
}

/*
 * One counter for kallsyms entry @name at @addr (0: addresses hidden) of
 * @pc.nsyms's symbol @i, by name when @unique, by address otherwise.
 * 0, or -errno of the refusal.
 */
static int ctr_add(size_t i, const char *name, unsigned long addr, bool unique,
		   int k)
{
	struct ctr *c = &pc.c[pc.n];
	char def[256];
	int ret;

	if (pc.n == PROBE_MAX_CTRS)
		return -ENOSPC;
	if (!unique && !addr)
		return -EADDRNOTAVAIL;
	memset(c, 0, sizeof(*c));
	c->sym = i;
	event_name(c->ev, sizeof(c->ev), name, k);
	/* one left by a run that did not end */
	snprintf(def, sizeof(def), "-:hbprof/%s", c->ev);
	probe_trace_write(pc.tracefs, "kprobe_events", def, true);
	if (unique)
		snprintf(def, sizeof(def), "p:hbprof/%s %s", c->ev, name);
	else
		snprintf(def, sizeof(def), "p:hbprof/%s 0x%lx", c->ev, addr);
	ret = probe_trace_write(pc.tracefs, "kprobe_events", def, true);
	c->kind = CTR_KPROBE;
	/*
	 * 6.1 without KPROBE_EVENTS_ON_NOTRACE (Debian's configs) refuses a
	 * function with no ftrace entry (trace_kprobe.c:
	 * within_notrace_func(), EINVAL), e.g. all of lib/ (lib/Makefile
	 * removes CC_FLAGS_FTRACE), where sg_next() is.  A breakpoint
	 * register still counts it.
	 */
	if (ret == -EINVAL && addr) {
		c->kind = CTR_HWBP;
		ret = hwbp_open(c, addr);
	}
	if (!ret)
		pc.n++;
	return ret;
}

/* the kallsyms entries of @sym: their names, addresses and number */
struct ksym_list {
	char name[8][128];
	unsigned long addr[8];
	int n;
};

static int ksyms_of(const char *sym, struct ksym_list *l)
{
	char line[512], name[128], type;
	unsigned long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	l->n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx %c %127s", &addr, &type, name) == 3 &&
		    (type == 't' || type == 'T') && same_function(name, sym) &&
		    l->n < 8) {
			strcpy(l->name[l->n], name);
			l->addr[l->n++] = addr;
		}
	fclose(f);
	return 0;
}

/* whether @l holds @name once only */
static bool ksym_unique(const struct ksym_list *l, int k)
{
	int j;

	for (j = 0; j < l->n; j++)
		if (j != k && !strcmp(l->name[j], l->name[k]))
			return false;
	return true;
}

int probe_count_open(const char *tracefs, const char *const *syms, size_t n,
		     int *counted, const char *tag)
{
	struct ksym_list l;
	size_t i;
	int k, ret, err, nc = 0;

	probe_count_close();
	if (n > PROBE_MAX_CTRS)
		return -1;
	pc.tracefs = tracefs;
	pc.nsyms = n;
	if (access(tracefs, F_OK) ||
	    probe_trace_write(tracefs, "kprobe_events", "", true)) {
		printf("%s skip=no kprobe events in %s (needs CONFIG_KPROBE_EVENTS and tracefs mounted)\n",
		       tag, tracefs);
		return -1;
	}
	for (i = 0; i < n; i++) {
		counted[i] = 0;
		err = ksyms_of(syms[i], &l);
		for (k = 0; k < l.n; k++) {
			ret = ctr_add(i, l.name[k], l.addr[k],
				      ksym_unique(&l, k), k);
			if (ret)
				err = ret;
			else
				counted[i]++;
		}
		nc += !!counted[i];
		if (!l.n)
			printf("%s untraceable=%s why=not-in-kallsyms\n", tag,
			       syms[i]);
		else if (!counted[i])
			printf("%s untraceable=%s why=%s\n", tag, syms[i],
			       strerrorname_np(-err) ? strerrorname_np(-err) :
						       "?");
		else if (pc.c[pc.n - 1].kind == CTR_HWBP)
			printf("%s counter=%s how=breakpoint\n", tag, syms[i]);
	}
	if (!nc)
		printf("%s skip=none of the functions can be counted in %s\n",
		       tag, tracefs);
	return nc;
}

int probe_count_enable(bool on)
{
	size_t i;
	int cpu, ret;

	ret = probe_trace_write(pc.tracefs, "events/hbprof/enable",
				on ? "1" : "0", false);
	for (i = 0; i < pc.n; i++)
		if (pc.c[i].kind == CTR_HWBP)
			for (cpu = 0; cpu < PROBE_MAX_CPUS; cpu++)
				if (pc.c[i].fd[cpu] >= 0)
					ioctl(pc.c[i].fd[cpu],
					      on ? PERF_EVENT_IOC_ENABLE :
						   PERF_EVENT_IOC_DISABLE,
					      0);
	return ret;
}

/*
 * One line of kprobe_profile, "EVENT hits misses" (the event's name
 * alone: trace_kprobe.c's probes_profile_seq_show(), 6.1 to 7.x): the
 * event's name in @ev, 0; -1 for another line.
 */
static int kprofile_line(const char *line, char *ev, size_t len,
			 unsigned long *h, unsigned long *m)
{
	char name[128];
	const char *e;

	if (sscanf(line, "%127s %lu %lu", name, h, m) != 3)
		return -1;
	e = strchr(name, '/') ? strchr(name, '/') + 1 : name;
	snprintf(ev, len, "%s", e);
	return 0;
}

/*
 * The calls of every kprobe counter, summed per symbol, and the misses
 * among them.  A miss is a call whose hit was dropped because another
 * kprobe's handler was running on the CPU (an interrupt during an
 * ftrace-based kprobe's handler, which runs with interrupts on:
 * kprobe_ftrace_handler(), arch/x86/kernel/kprobes/ftrace.c); the kernel
 * counts it on the probe that was hit (kprobes_inc_nmissed_count()), so
 * hits + misses is the number of calls.
 */
static int kprobe_profile_add(unsigned long *hits, unsigned long *misses)
{
	char path[512], line[256], ev[128];
	unsigned long h, m;
	size_t i;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_profile", pc.tracefs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (kprofile_line(line, ev, sizeof(ev), &h, &m))
			continue;
		for (i = 0; i < pc.n; i++)
			if (pc.c[i].kind == CTR_KPROBE &&
			    !strcmp(ev, pc.c[i].ev)) {
				hits[pc.c[i].sym] += h + m;
				*misses += m;
			}
	}
	fclose(f);
	return 0;
}

/* every symbol's hits so far, and the misses */
static int count_snap(unsigned long *hits, unsigned long *misses)
{
	uint64_t v;
	size_t i;
	int cpu;

	memset(hits, 0, pc.nsyms * sizeof(*hits));
	*misses = 0;
	for (i = 0; i < pc.n; i++)
		if (pc.c[i].kind == CTR_HWBP)
			for (cpu = 0; cpu < PROBE_MAX_CPUS; cpu++)
				if (pc.c[i].fd[cpu] >= 0 &&
				    read(pc.c[i].fd[cpu], &v, sizeof(v)) ==
					    sizeof(v))
					hits[pc.c[i].sym] += v;
	return kprobe_profile_add(hits, misses);
}

void probe_count_close(void)
{
	char def[80];
	size_t i;

	if (!pc.tracefs)
		return;
	probe_count_enable(false);
	for (i = 0; i < pc.n; i++) {
		if (pc.c[i].kind == CTR_HWBP) {
			hwbp_close(&pc.c[i]);
			continue;
		}
		snprintf(def, sizeof(def), "-:hbprof/%s", pc.c[i].ev);
		probe_trace_write(pc.tracefs, "kprobe_events", def, true);
	}
	pc.n = 0;
}

void probe_count_begin(void)
{
	if (count_snap(pc.t0, &pc.m0))
		pc.m0 = ~0UL;
}

long probe_count_end(unsigned long *hits)
{
	unsigned long misses;
	size_t i;

	if (pc.m0 == ~0UL || count_snap(hits, &misses))
		return -1;
	for (i = 0; i < pc.nsyms; i++)
		hits[i] -= pc.t0[i];
	return (long)(misses - pc.m0);
}

double probe_now_usec(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int probe_trace_write(const char *tracefs, const char *file, const char *s,
		      bool append)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	return probe_write(path, s, append ? O_APPEND : O_TRUNC);
}

int probe_kprobe_profile(const char *tracefs, const char *event,
			 unsigned long *hits, unsigned long *misses)
{
	char path[512], line[256], ev[128];
	unsigned long h, m;
	int ret = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/kprobe_profile", tracefs);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!kprofile_line(line, ev, sizeof(ev), &h, &m) &&
		    !strcmp(ev, event)) {
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

void probe_sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

long probe_settle(long (*probe)(void *), void *arg, long want, int ms)
{
	long v = probe(arg);
	int t;

	for (t = 0; v != want && t < ms; t += 10) {
		probe_sleep_ms(10);
		v = probe(arg);
	}
	return v;
}

bool probe_quiet(int ms)
{
	long pins = probe_pins_held(), free = hb_hugepages_free(PROBE_HPAGE);
	long p, f;
	int t, still = 0;

	for (t = 0; t < ms && still < 300; t += 10) {
		probe_sleep_ms(10);
		p = probe_pins_held();
		f = hb_hugepages_free(PROBE_HPAGE);
		still = p == pins && f == free ? still + 10 : 0;
		pins = p;
		free = f;
	}
	return still >= 300;
}

long probe_pins_of(void *arg)
{
	(void)arg;
	return probe_pins_held();
}

long probe_free_2m_of(void *arg)
{
	(void)arg;
	return hb_hugepages_free(PROBE_HPAGE);
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
