// SPDX-License-Identifier: GPL-2.0-only
/*
 * regbench: registration time against lib's count model, one backing and
 * one size per run (bench/bench.py's registration section, bench/README.md).
 *
 *   regbench [-c CASES] [-n NR] [-r REPEAT] [-m] [-M] [-t EVENTS]
 *            [-f FUNCS] BACKING SIZE
 *
 * It allocates SIZE bytes of BACKING with lib's allocator (every page
 * faulted in; -m writes every byte on top), probes the real folio layout,
 * asks lib's model what registering it costs (pages, bvecs, heads,
 * scan_reads, ring_lookups) and times, each on a fresh charged ring
 * (hb_ring_init_charged(): the accounting runs as for a normal user;
 * where RLIMIT_MEMLOCK cannot be raised to SIZE, a ring of root's own
 * with CAP_IPC_LOCK, "ring": "cap_ipc_lock" in the JSON: up to 7.1 the
 * accounting walk is the same, only the limit check is left out):
 *   one    one buffer of SIZE, in one IORING_REGISTER_BUFFERS;
 *   call   NR buffers of SIZE/NR (the same memory) in one call;
 *   each   the same NR buffers one by one: a sparse table, one update each.
 * CASES is a comma list of those, run in that order (default
 * "one,call,each"); each case runs REPEAT times (default 1) on the same
 * mapping, the first registration of the mapping being rep 0 of the first
 * case.  Every measurement is one line of JSON on stdout:
 *   {"type": "regbench", "backing": ..., "size": ..., "case": ...,
 *    "rep": ..., "register_us": ..., "unregister_us": ..., "model": {...},
 *    ...}
 * and an error or skip is one line too ({"error": ...} / {"skip": ...}),
 * exit 1 / 77.  Times are printed, never judged.
 *
 * -M prints the model's counts alone: nothing is registered.
 * -t counts trace events (e.g. "kmem:mm_page_alloc,vmalloc:alloc_vmap_area")
 * and -f calls of kernel functions (the function tracer's filter) of this
 * task during each registration and unregistration, in a tracefs instance
 * of its own (/sys/kernel/tracing/instances/regbench-PID, removed after):
 * "events" and "unreg_events" in the JSON, with "lost" when the buffer
 * overflowed.  An mTHP or THP backing is made the only THP size for the
 * run (t_thp_only(), every mode restored at exit and on SIGINT/SIGTERM).
 */
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "hugebuf-report.h"
#include "../t/helpers.h"

#define RB_MAX_BUFS 1024
/* one run's size: at most 1 GiB, a buffer every kernel registers */
#define RB_MAX_SIZE	(1ULL << 30)
#define RB_MAX_CASES 16
#define RB_MAX_KEYS 64
#define RB_TRACEFS "/sys/kernel/tracing"

enum rb_case { RB_ONE, RB_CALL, RB_EACH };

static const char *const case_names[] = { "one", "call", "each" };

struct rb_run {
	const char *backing;
	uint64_t size;
	unsigned int nr; /* buffers of the table cases */
	struct hb_buf buf;
	struct hb_probe pr;
	struct hb_kmodel km;
	double alloc_us, memset_us;
	/*
	 * a ring made without CAP_IPC_LOCK, whose registrations are charged
	 * and checked against RLIMIT_MEMLOCK; else root's own ring (no
	 * ctx->user), where up to 7.1 the same accounting walk runs and only
	 * the limit check is left out
	 */
	bool charged;
};

/* ------------------------------------------------------------------ */
/* output                                                               */
/* ------------------------------------------------------------------ */

static void put_line(struct hb_str *s)
{
	printf("%s\n", s->s ? s->s : "{}");
	fflush(stdout);
	hb_str_free(s);
}

/* one {"type": "regbench", ..., KEY: MSG} line: an error or a skip */
static int say(const char *backing, uint64_t size, const char *key,
	       const char *msg, int ret)
{
	struct hb_json j;
	struct hb_str s;

	hb_str_init(&s);
	hb_json_init_compact(&j, &s);
	hb_json_obj(&j, NULL);
	hb_json_str(&j, "type", "regbench");
	hb_json_str(&j, "backing", backing);
	hb_json_u64(&j, "size", size);
	hb_json_str(&j, key, msg);
	hb_json_end(&j);
	put_line(&s);
	return ret;
}

/* ------------------------------------------------------------------ */
/* trace counts: a tracefs instance of this run, this task's events    */
/* ------------------------------------------------------------------ */

static char trace_dir[96];

/*
 * Per key its count (or byte sum); per event or function name also the
 * trace time of its first and last line, from the window's first line.
 */
struct rb_counts {
	unsigned int nr;
	char key[RB_MAX_KEYS][80];
	uint64_t val[RB_MAX_KEYS];
	double first[RB_MAX_KEYS], last[RB_MAX_KEYS];
	bool timed[RB_MAX_KEYS];
	double t0;
	bool have_t0;
	bool lost;
};

static void trace_close(void)
{
	if (!trace_dir[0])
		return;
	t_trace_write(trace_dir, "tracing_on", "0", false);
	t_trace_write(trace_dir, "current_tracer", "nop", false);
	t_trace_write(trace_dir, "events/enable", "0", false);
	rmdir(trace_dir);
	trace_dir[0] = '\0';
}

static void trace_close_and_die(int sig)
{
	trace_close();
	t_thp_restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* each "SYS:NAME" of the comma list @events, enabled */
static int trace_enable_events(char *events, char *why, size_t len)
{
	char *tok, *save = NULL, file[160];
	int ret;

	for (tok = strtok_r(events, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');

		if (!colon) {
			snprintf(why, len, "event %s is not SYS:NAME", tok);
			return -EINVAL;
		}
		*colon = '/';
		snprintf(file, sizeof(file), "events/%s/enable", tok);
		ret = t_trace_write(trace_dir, file, "1", false);
		if (ret) {
			snprintf(why, len, "%s: %s", file, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* the function tracer on the functions of the comma list @funcs */
static int trace_enable_funcs(char *funcs, char *why, size_t len)
{
	char *tok, *save = NULL;
	int ret;

	ret = t_trace_write(trace_dir, "set_ftrace_filter", "", false);
	for (tok = strtok_r(funcs, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save))
		ret = t_trace_write(trace_dir, "set_ftrace_filter", tok, true);
	if (ret) {
		snprintf(why, len, "set_ftrace_filter: %s", strerror(-ret));
		return ret;
	}
	ret = t_trace_write(trace_dir, "current_tracer", "function", false);
	if (ret)
		snprintf(why, len, "current_tracer function: %s",
			 strerror(-ret));
	return ret;
}

static int trace_open(char *events, char *funcs, char *why, size_t len)
{
	char pid[24];
	int ret;

	snprintf(trace_dir, sizeof(trace_dir), "%s/instances/regbench-%d",
		 RB_TRACEFS, (int)getpid());
	if (mkdir(trace_dir, 0700)) {
		snprintf(why, len, "%s: %s", trace_dir, strerror(errno));
		trace_dir[0] = '\0';
		return -errno;
	}
	signal(SIGINT, trace_close_and_die);
	signal(SIGTERM, trace_close_and_die);
	atexit(trace_close);
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	ret = t_trace_write(trace_dir, "tracing_on", "0", false);
	if (!ret)
		ret = t_trace_write(trace_dir, "buffer_size_kb", "65536", false);
	if (!ret)
		ret = t_trace_write(trace_dir, "set_event_pid", pid, false);
	if (!ret && funcs)
		ret = t_trace_write(trace_dir, "set_ftrace_pid", pid, false);
	if (ret) {
		snprintf(why, len, "%s: %s", trace_dir, strerror(-ret));
		return ret;
	}
	if (events && trace_enable_events(events, why, len))
		return -EINVAL;
	if (funcs && trace_enable_funcs(funcs, why, len))
		return -EINVAL;
	return 0;
}

/* @key's slot, made when new; -1 when the table is full */
static int count_slot(struct rb_counts *c, const char *key)
{
	unsigned int i;

	for (i = 0; i < c->nr; i++)
		if (!strcmp(c->key[i], key))
			return (int)i;
	if (c->nr == RB_MAX_KEYS)
		return -1;
	snprintf(c->key[c->nr], sizeof(c->key[0]), "%s", key);
	return (int)c->nr++;
}

static void count_add(struct rb_counts *c, const char *key, uint64_t v)
{
	int i = count_slot(c, key);

	if (i >= 0)
		c->val[i] += v;
}

/* @key seen at trace time @ts (seconds) */
static void count_time(struct rb_counts *c, const char *key, double ts)
{
	int i = count_slot(c, key);

	if (!c->have_t0) {
		c->t0 = ts;
		c->have_t0 = true;
	}
	if (i < 0)
		return;
	if (!c->timed[i])
		c->first[i] = ts - c->t0;
	c->last[i] = ts - c->t0;
	c->timed[i] = true;
}

/* the value of " @field=N" in @line, or -1 */
static long long field_of(const char *line, const char *field)
{
	char pat[32];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", field);
	p = strstr(line, pat);
	return p ? strtoll(p + strlen(pat), NULL, 0) : -1;
}

/*
 * One trace line: "task-pid [cpu] flags ts: name: fields" for an event,
 * "task-pid [cpu] flags ts: func <-parent" for a function.  Events with
 * an order= count per order; kmalloc's bytes_alloc= and
 * alloc_vmap_area's size= are summed as well.
 */
static void count_line(struct rb_counts *c, const char *line)
{
	const char *p = strstr(line, "] ");
	char name[48], key[80];	/* name, " order=", a long long */
	long long v;

	const char *ts;

	if (!p || line[0] == '#')
		return;
	p = strstr(p, ": ");
	if (!p || sscanf(p + 2, "%47s", name) != 1)
		return;
	if (name[strlen(name) - 1] == ':')
		name[strlen(name) - 1] = '\0';
	count_add(c, name, 1);
	/* the timestamp is the word before ": " */
	for (ts = p; ts > line && ts[-1] != ' '; ts--)
		;
	count_time(c, name, strtod(ts, NULL));
	v = field_of(line, "order");
	if (v >= 0) {
		snprintf(key, sizeof(key), "%s order=%lld", name, v);
		count_add(c, key, 1);
	}
	v = field_of(line, "bytes_alloc");
	if (v < 0)
		v = field_of(line, "size");
	if (v >= 0) {
		snprintf(key, sizeof(key), "%s bytes", name);
		count_add(c, key, (uint64_t)v);
	}
}

/* what the instance holds, counted, then emptied */
static void trace_collect(struct rb_counts *c)
{
	char path[160], line[512];
	unsigned long held, written;
	FILE *fp;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/trace", trace_dir);
	fp = fopen(path, "re");
	if (!fp)
		return;
	while (fgets(line, sizeof(line), fp)) {
		if (sscanf(line, "# entries-in-buffer/entries-written: %lu/%lu",
			   &held, &written) == 2)
			c->lost = held != written;
		count_line(c, line);
	}
	fclose(fp);
	t_trace_write(trace_dir, "trace", "", false);
}

static void trace_on(bool on)
{
	if (trace_dir[0])
		t_trace_write(trace_dir, "tracing_on", on ? "1" : "0", false);
}

static void json_counts(struct hb_json *j, const char *key,
			const struct rb_counts *c)
{
	unsigned int i;

	hb_json_obj(j, key);
	for (i = 0; i < c->nr; i++)
		hb_json_u64(j, c->key[i], c->val[i]);
	if (c->lost)
		hb_json_bool(j, "lost", true);
	/* each name's first and last line, microseconds into the window */
	hb_json_obj(j, "spans_us");
	for (i = 0; i < c->nr; i++) {
		if (!c->timed[i])
			continue;
		hb_json_arr(j, c->key[i]);
		hb_json_fixed(j, NULL, c->first[i] * 1e6, 1);
		hb_json_fixed(j, NULL, c->last[i] * 1e6, 1);
		hb_json_end(j);
	}
	hb_json_end(j);
	hb_json_end(j);
}

/* ------------------------------------------------------------------ */
/* the model                                                            */
/* ------------------------------------------------------------------ */

/* buffer @k of @nr back to back over the run's probed pages */
static void reg_buf_of(const struct rb_run *r, unsigned int nr, unsigned int k,
		       struct hb_reg_buf *rb)
{
	uint64_t len = r->size / nr;

	rb->pages = r->pr.pages + k * (len / HB_PAGE_SIZE);
	rb->uaddr = (uintptr_t)r->buf.addr + k * len;
	rb->len = len;
}

/*
 * The charge of @c: one register op, or a sparse table of empty slots
 * (op 0: buffers of no pages) and one update op per buffer
 */
static int model_charge(const struct rb_run *r, enum rb_case c,
			const struct hb_reg_buf *rb, unsigned int nr,
			int64_t *charged)
{
	static struct hb_acct_op ops[RB_MAX_BUFS + 1];
	static unsigned int bp[RB_MAX_BUFS], none[RB_MAX_BUFS];
	static int64_t after[RB_MAX_BUFS + 1];
	unsigned int k, n = 0;
	int ret;

	memset(ops, 0, sizeof(ops));
	for (k = 0; k < nr; k++)
		bp[k] = (unsigned int)(rb[k].len / HB_PAGE_SIZE);
	ops[n].kind = HB_ACCT_REGISTER;
	ops[n].nr_bufs = nr;
	ops[n].pages = c == RB_EACH ? NULL : rb[0].pages;
	ops[n++].buf_pages = c == RB_EACH ? none : bp;
	for (k = 0; c == RB_EACH && k < nr; k++) {
		ops[n].kind = HB_ACCT_UPDATE;
		ops[n].slot = k;
		ops[n].nr_bufs = 1;
		ops[n].pages = rb[k].pages;
		ops[n++].buf_pages = &bp[k];
	}
	ret = hb_model_account_ops(&r->km, ops, n, after);
	if (!ret)
		*charged = after[n - 1];
	return ret;
}

static int model_case(const struct rb_run *r, enum rb_case c,
		      struct hb_reg_cost *cost, int64_t *charged)
{
	static struct hb_reg_buf rb[RB_MAX_BUFS];
	unsigned int nr = c == RB_ONE ? 1 : r->nr, k;
	int ret;

	for (k = 0; k < nr; k++)
		reg_buf_of(r, nr, k, &rb[k]);
	ret = hb_model_register_cost(
		&r->km, rb, nr,
		c == RB_EACH ? HB_REG_ONE_BY_ONE : HB_REG_ONE_CALL, cost);
	if (ret)
		return ret;
	return model_charge(r, c, rb, nr, charged);
}

/* ------------------------------------------------------------------ */
/* one measurement                                                      */
/* ------------------------------------------------------------------ */

struct rb_meas {
	double sparse_us, register_us, unregister_us;
	long vmpin_kb, vmpin_left_kb;
	struct rb_counts reg, unreg;
};

/* register @c's buffers the way it says on a fresh charged ring, timed */
static int measure_case(const struct rb_run *r, enum rb_case c,
			struct rb_meas *m)
{
	static struct iovec iov[RB_MAX_BUFS];
	unsigned int nr = c == RB_ONE ? 1 : r->nr, k;
	struct io_uring ring;
	double t0, t1, t2;
	long v0, v1;
	bool checked;
	int ret = 0;

	for (k = 0; k < nr; k++) {
		iov[k].iov_base = (char *)r->buf.addr + k * (r->size / nr);
		iov[k].iov_len = r->size / nr;
	}
	if (r->charged ? hb_ring_init_charged(&ring, 4, &checked) :
			 io_uring_queue_init(4, &ring, 0))
		return -EIO;
	if (c == RB_EACH) {
		t0 = t_now_usec();
		ret = hb_register_sparse(&ring, nr);
		m->sparse_us = t_now_usec() - t0;
	}
	v0 = hb_vmpin_kb();
	trace_on(true);
	t0 = t_now_usec();
	for (k = 0; !ret && c == RB_EACH && k < nr; k++)
		ret = hb_register_update(&ring, k, &iov[k], 1);
	if (!ret && c != RB_EACH)
		ret = hb_register_buffers(&ring, iov, nr);
	t1 = t_now_usec();
	trace_on(false);
	if (trace_dir[0])
		trace_collect(&m->reg);
	v1 = hb_vmpin_kb();
	trace_on(true);
	t2 = t_now_usec();
	io_uring_unregister_buffers(&ring);
	m->unregister_us = t_now_usec() - t2;
	trace_on(false);
	if (trace_dir[0])
		trace_collect(&m->unreg);
	m->register_us = t1 - t0;
	m->vmpin_kb = v1 - v0;
	m->vmpin_left_kb = hb_vmpin_kb() - v0;
	io_uring_queue_exit(&ring);
	return ret;
}

static void json_model(struct hb_json *j, const struct hb_reg_cost *cost,
		       int64_t charged)
{
	hb_json_obj(j, "model");
	hb_json_u64(j, "pages", cost->pages);
	hb_json_u64(j, "bvecs", cost->bvecs);
	hb_json_u64(j, "heads", cost->heads);
	hb_json_u64(j, "scan_reads", cost->scan_reads);
	hb_json_u64(j, "ring_lookups", cost->ring_lookups);
	hb_json_i64(j, "charged_kb", charged / 1024);
	hb_json_end(j);
}

static bool model_only;

static int run_case(const struct rb_run *r, enum rb_case c, unsigned int rep)
{
	struct hb_reg_cost cost;
	struct rb_meas m;
	struct hb_json j;
	struct hb_str s;
	int64_t charged = 0;
	char msg[320];
	int ret;

	memset(&m, 0, sizeof(m));
	ret = model_case(r, c, &cost, &charged);
	if (ret) {
		snprintf(msg, sizeof(msg), "model: %s", hb_errmsg());
		return say(r->backing, r->size, "error", msg, 1);
	}
	ret = model_only ? 0 : measure_case(r, c, &m);
	if (ret) {
		snprintf(msg, sizeof(msg), "%s: %s", case_names[c],
			 hb_errmsg());
		return say(r->backing, r->size, "error", msg, 1);
	}
	hb_str_init(&s);
	hb_json_init_compact(&j, &s);
	hb_json_obj(&j, NULL);
	hb_json_str(&j, "type", "regbench");
	hb_json_str(&j, "backing", r->backing);
	hb_json_u64(&j, "size", r->size);
	hb_json_str(&j, "case", case_names[c]);
	hb_json_u64(&j, "nr_bufs", c == RB_ONE ? 1 : r->nr);
	hb_json_u64(&j, "rep", rep);
	hb_json_str(&j, "ring", r->charged ? "charged" : "cap_ipc_lock");
	if (!model_only) {
		hb_json_fixed(&j, "register_us", m.register_us, 1);
		hb_json_fixed(&j, "unregister_us", m.unregister_us, 1);
		if (c == RB_EACH)
			hb_json_fixed(&j, "sparse_us", m.sparse_us, 1);
		hb_json_i64(&j, "vmpin_kb", m.vmpin_kb);
		hb_json_i64(&j, "vmpin_left_kb", m.vmpin_left_kb);
	}
	json_model(&j, &cost, charged);
	hb_json_u64(&j, "folio_min", r->pr.min_folio);
	hb_json_u64(&j, "folio_max", r->pr.max_folio);
	hb_json_u64(&j, "folios", r->pr.nr_folios);
	hb_json_str(&j, "probe",
		    r->pr.source == HB_PROBE_KPAGEFLAGS ? "kpageflags" :
							  "recipe");
	hb_json_fixed(&j, "alloc_us", r->alloc_us, 0);
	if (r->memset_us > 0)
		hb_json_fixed(&j, "memset_us", r->memset_us, 0);
	hb_json_str(&j, "kmodel", r->km.name);
	if (trace_dir[0]) {
		json_counts(&j, "events", &m.reg);
		json_counts(&j, "unreg_events", &m.unreg);
	}
	hb_json_end(&j);
	put_line(&s);
	return 0;
}

/* ------------------------------------------------------------------ */
/* setup                                                                */
/* ------------------------------------------------------------------ */

/* an mTHP or THP backing: its folio size alone, as root */
static int thp_setup(const struct hb_backing *b, char *why, size_t len)
{
	struct hb_sysinfo si;
	uint64_t size;

	if (b->kind != HB_BACKING_MTHP && b->kind != HB_BACKING_THP)
		return 0;
	if (hb_sysinfo_read(&si))
		return -1;
	size = b->kind == HB_BACKING_THP ? si.thp_pmd_size : b->folio_size;
	if (t_thp_only(size)) {
		snprintf(why, len, "cannot make %llu kB the only THP size",
			 (unsigned long long)(size >> 10));
		return -1;
	}
	return 0;
}

static int parse_cases(char *list, enum rb_case *cases, unsigned int *nr)
{
	char *tok, *save = NULL;
	unsigned int i;

	*nr = 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < 3 && strcmp(tok, case_names[i]); i++)
			;
		if (i == 3 || *nr == RB_MAX_CASES)
			return -1;
		cases[(*nr)++] = (enum rb_case)i;
	}
	return *nr ? 0 : -1;
}

/* RLIMIT_MEMLOCK admits a charge of @size bytes on top of what is held */
static bool memlock_holds(uint64_t size)
{
	struct rlimit rl;
	long held = hb_vmpin_kb();

	if (getrlimit(RLIMIT_MEMLOCK, &rl))
		return false;
	return rl.rlim_cur == RLIM_INFINITY ||
	       rl.rlim_cur >= size + (uint64_t)(held > 0 ? held : 0) * 1024;
}

static int usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s [-c one,call,each] [-n NR] [-r REPEAT] [-m] [-M] "
		"[-t SYS:EVENT,...] [-f FUNC,...] BACKING SIZE\n",
		argv0);
	return 2;
}

static int setup(struct rb_run *r, bool touch, char *why, size_t len)
{
	struct hb_backing b;
	double t0;

	if (hb_kmodel_running(&r->km) || hb_backing_parse(r->backing, &b) ||
	    thp_setup(&b, why, len)) {
		if (!why[0])
			snprintf(why, len, "%s", hb_errmsg());
		return 77;
	}
	t0 = t_now_usec();
	if (hb_alloc(&b, r->size, 0, &r->buf)) {
		snprintf(why, len, "alloc: %s", hb_errmsg());
		return 77;
	}
	r->alloc_us = t_now_usec() - t0;
	if (touch) {
		t0 = t_now_usec();
		memset(r->buf.addr, 0x5a, r->size);
		r->memset_us = t_now_usec() - t0;
	}
	if (hb_probe(r->buf.addr, r->size, &b, &r->pr)) {
		snprintf(why, len, "probe: %s", hb_errmsg());
		hb_free(&r->buf);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	char case_list[64] = "one,call,each", why[320] = "";
	char *events = NULL, *funcs = NULL;
	enum rb_case cases[RB_MAX_CASES];
	unsigned int nr_cases, i, rep, repeat = 1;
	struct rb_run r = { .nr = 64 };
	bool touch = false;
	int opt, ret = 0;

	while ((opt = getopt(argc, argv, "c:n:r:mMt:f:")) != -1) {
		switch (opt) {
		case 'c':
			snprintf(case_list, sizeof(case_list), "%s", optarg);
			break;
		case 'n':
			r.nr = (unsigned int)atoi(optarg);
			break;
		case 'r':
			repeat = (unsigned int)atoi(optarg);
			break;
		case 'm':
			touch = true;
			break;
		case 'M':
			model_only = true;
			break;
		case 't':
			events = optarg;
			break;
		case 'f':
			funcs = optarg;
			break;
		default:
			return usage(argv[0]);
		}
	}
	if (optind + 2 != argc || parse_cases(case_list, cases, &nr_cases) ||
	    !r.nr || r.nr > RB_MAX_BUFS || !repeat)
		return usage(argv[0]);
	r.backing = argv[optind];
	if (hb_parse_size(argv[optind + 1], &r.size) || !r.size ||
	    r.size > RB_MAX_SIZE || r.size % (r.nr * HB_PAGE_SIZE))
		return say(r.backing, 0, "error",
			   "SIZE: a multiple of NR "
			   "pages, at most 1G",
			   2);
	/*
	 * root may lift its own RLIMIT_MEMLOCK (CAP_SYS_RESOURCE): the charged
	 * rings check it; where it stays below the run's size, the rings are
	 * root's own
	 */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	r.charged = memlock_holds(r.size);
	ret = setup(&r, touch, why, sizeof(why));
	if (ret)
		return say(r.backing, r.size, ret == 77 ? "skip" : "error", why,
			   ret);
	if ((events || funcs) && trace_open(events, funcs, why, sizeof(why)))
		ret = say(r.backing, r.size, "error", why, 1);
	for (i = 0; !ret && i < nr_cases; i++)
		for (rep = 0; !ret && rep < repeat; rep++)
			ret = run_case(&r, cases[i], rep);
	trace_close();
	hb_probe_free(&r.pr);
	hb_free(&r.buf);
	t_thp_restore();
	return ret;
}
