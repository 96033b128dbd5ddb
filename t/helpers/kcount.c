// SPDX-License-Identifier: GPL-2.0-only
/*
 * Call counts of kernel functions (kprobe events, or hardware breakpoints
 * where kprobe events refuse a function) and the tracefs files they use,
 * for the guest probes of kernel/probe/.  See t/helpers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/hw_breakpoint.h>
#include <linux/nvme_ioctl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helpers-priv.h"

/*
 * The counted functions.  Each symbol may have several entries in
 * /proc/kallsyms: its compiler clones ("sym.isra.0", "sym.constprop.0",
 * "sym.part.0"; not "sym.cold", a moved-out block with no entry) and
 * static functions of that name in other files.  Each entry is one counter.
 */
#define T_KCOUNT_MAX_CTRS 192
#define T_KCOUNT_MAX_CPUS 16

enum ctr_kind { CTR_KPROBE, CTR_HWBP };

struct ctr {
	size_t sym; /* index into the caller's list */
	enum ctr_kind kind;
	char ev[64]; /* the kprobe event's name */
	int fd[T_KCOUNT_MAX_CPUS]; /* CTR_HWBP: one perf event per CPU */
};

static struct {
	const char *tracefs;
	size_t nsyms, n;
	struct ctr c[T_KCOUNT_MAX_CTRS];
	/* the calls and misses at t_kcount_begin() */
	unsigned long t0[T_KCOUNT_MAX_CTRS], m0;
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
	for (cpu = 0; cpu < T_KCOUNT_MAX_CPUS; cpu++) {
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

	for (cpu = 0; cpu < T_KCOUNT_MAX_CPUS; cpu++)
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

	if (pc.n == T_KCOUNT_MAX_CTRS)
		return -ENOSPC;
	if (!unique && !addr)
		return -EADDRNOTAVAIL;
	memset(c, 0, sizeof(*c));
	c->sym = i;
	event_name(c->ev, sizeof(c->ev), name, k);
	/* one left by a run that did not end */
	snprintf(def, sizeof(def), "-:hbprof/%s", c->ev);
	t_trace_write(pc.tracefs, "kprobe_events", def, true);
	if (unique)
		snprintf(def, sizeof(def), "p:hbprof/%s %s", c->ev, name);
	else
		snprintf(def, sizeof(def), "p:hbprof/%s 0x%lx", c->ev, addr);
	ret = t_trace_write(pc.tracefs, "kprobe_events", def, true);
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

int t_kcount_open(const char *tracefs, const char *const *syms, size_t n,
		  int *counted, const char *tag)
{
	struct ksym_list l;
	size_t i;
	int k, ret, err, nc = 0;

	t_kcount_close();
	if (n > T_KCOUNT_MAX_CTRS)
		return -1;
	pc.tracefs = tracefs;
	pc.nsyms = n;
	if (access(tracefs, F_OK) ||
	    t_trace_write(tracefs, "kprobe_events", "", true)) {
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

int t_kcount_enable(bool on)
{
	size_t i;
	int cpu, ret;

	ret = t_trace_write(pc.tracefs, "events/hbprof/enable", on ? "1" : "0",
			    false);
	for (i = 0; i < pc.n; i++)
		if (pc.c[i].kind == CTR_HWBP)
			for (cpu = 0; cpu < T_KCOUNT_MAX_CPUS; cpu++)
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
			for (cpu = 0; cpu < T_KCOUNT_MAX_CPUS; cpu++)
				if (pc.c[i].fd[cpu] >= 0 &&
				    read(pc.c[i].fd[cpu], &v, sizeof(v)) ==
					    sizeof(v))
					hits[pc.c[i].sym] += v;
	return kprobe_profile_add(hits, misses);
}

void t_kcount_close(void)
{
	char def[80];
	size_t i;

	if (!pc.tracefs)
		return;
	t_kcount_enable(false);
	for (i = 0; i < pc.n; i++) {
		if (pc.c[i].kind == CTR_HWBP) {
			hwbp_close(&pc.c[i]);
			continue;
		}
		snprintf(def, sizeof(def), "-:hbprof/%s", pc.c[i].ev);
		t_trace_write(pc.tracefs, "kprobe_events", def, true);
	}
	pc.n = 0;
}

void t_kcount_begin(void)
{
	if (count_snap(pc.t0, &pc.m0))
		pc.m0 = ~0UL;
}

long t_kcount_end(unsigned long *hits)
{
	unsigned long misses;
	size_t i;

	if (pc.m0 == ~0UL || count_snap(hits, &misses))
		return -1;
	for (i = 0; i < pc.nsyms; i++)
		hits[i] -= pc.t0[i];
	return (long)(misses - pc.m0);
}

int t_trace_write(const char *tracefs, const char *file, const char *s,
		  bool append)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", tracefs, file);
	return t_knob_write(path, s, append ? O_APPEND : O_TRUNC);
}

int t_kprobe_profile(const char *tracefs, const char *event,
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

bool t_nvme_sgls(int fd)
{
	struct nvme_admin_cmd cmd;
	uint32_t sgls = 0;
	uint8_t *id;

	if (posix_memalign((void **)&id, 4096, 4096))
		return false;
	memset(&cmd, 0, sizeof(cmd));
	cmd.opcode = 0x06;
	cmd.cdw10 = 1;
	cmd.addr = (uint64_t)(uintptr_t)id;
	cmd.data_len = 4096;
	if (ioctl(fd, NVME_IOCTL_ADMIN_CMD, &cmd) == 0)
		memcpy(&sgls, id + 536, 4);
	free(id);
	return sgls & 3;
}
