// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the one decision over io_uring features
 * (lib/model/ringfeat.c, hb_uf_decide()): for what a job wants and what a kernel
 * has, each feature is used, falls back with one line saying what the
 * engine does instead (the job did not ask for it), or is refused with
 * one line naming the option, the feature, the release and the fix (the
 * job asked for it).  The kernels are feature masks (hb_uf_upto() of a
 * release), so 5.10 and 6.1 are decided on any host.  Last, the probe of
 * the running kernel (lib/resource/ringprobe.c) must find at least what upstream
 * had at its release: a feature may be carried back, never taken away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "helpers.h"

/* What the engine's default job wants: DEFER_TASKRUN, ring fd, CQSIZE. */
static void job_default(struct hb_uf_job *j)
{
	memset(j, 0, sizeof(*j));
	j->want[HB_UF_CQSIZE] = HB_UF_BY_DEFAULT;
	j->want[HB_UF_DEFER_TASKRUN] = HB_UF_BY_DEFAULT;
	j->want[HB_UF_RING_FD] = HB_UF_BY_DEFAULT;
}

static void ask(struct hb_uf_job *j, enum hb_ufeat f, const char *by)
{
	j->want[f] = HB_UF_ASKED;
	j->asked_by[f] = by;
}

/* Every word must be in @line. */
static int has_words(const char *what, const char *line,
		     const char *const *words)
{
	for (; *words; words++)
		if (!strstr(line, *words))
			return t_fail("%s: '%s' not in \"%s\"", what, *words,
				      line);
	if (strchr(line, '\n'))
		return t_fail("%s: more than one line: \"%s\"", what, line);
	return t_pass();
}

/* The table: what each feature needs and what it costs. */
static int test_table(void)
{
	static const struct {
		enum hb_ufeat f;
		int major, minor;
		const char *name;
	} rows[] = {
		{ HB_UF_CQSIZE, 5, 6, "IORING_SETUP_CLAMP" },
		{ HB_UF_DEFER_TASKRUN, 6, 1, "IORING_SETUP_DEFER_TASKRUN" },
		{ HB_UF_RING_FD, 5, 18, "IORING_REGISTER_RING_FDS" },
		{ HB_UF_FILES_SPARSE, 5, 19, "IORING_RSRC_REGISTER_SPARSE" },
		{ HB_UF_URING_CMD, 5, 19, "IORING_OP_URING_CMD" },
		{ HB_UF_CLONE_BUFFERS, 6, 12, "IORING_REGISTER_CLONE_BUFFERS" },
		{ HB_UF_READV_FIXED, 6, 15, "IORING_OP_READV_FIXED" },
		{ HB_UF_DONTCACHE, 6, 14, "RWF_DONTCACHE" },
	};
	int ret = T_EXIT_PASS;
	unsigned int i;

	if (T_ARRAY_SIZE(rows) != HB_UF_NR)
		return t_fail("%zu rows here, %d features in lib",
			      T_ARRAY_SIZE(rows), HB_UF_NR);
	for (i = 0; i < T_ARRAY_SIZE(rows); i++) {
		int ma, mi;

		hb_uf_release(rows[i].f, &ma, &mi);
		if (ma != rows[i].major || mi != rows[i].minor ||
		    !strstr(hb_uf_feature(rows[i].f), rows[i].name))
			ret = t_fail("feature %d: %s %d.%d, expected %s %d.%d",
				     rows[i].f, hb_uf_feature(rows[i].f), ma,
				     mi, rows[i].name, rows[i].major,
				     rows[i].minor);
		else
			t_pass();
	}
	/* the masks of some releases */
	if (hb_uf_upto(5, 5) != 0 ||
	    hb_uf_upto(5, 10) != HB_UF_BIT(HB_UF_CQSIZE) ||
	    hb_uf_upto(6, 1) != (HB_UF_ALL & ~(HB_UF_BIT(HB_UF_CLONE_BUFFERS) |
					       HB_UF_BIT(HB_UF_READV_FIXED) |
					       HB_UF_BIT(HB_UF_DONTCACHE))) ||
	    hb_uf_upto(6, 12) != (HB_UF_ALL & ~(HB_UF_BIT(HB_UF_READV_FIXED) |
						HB_UF_BIT(HB_UF_DONTCACHE))) ||
	    hb_uf_upto(6, 14) != (HB_UF_ALL & ~HB_UF_BIT(HB_UF_READV_FIXED)) ||
	    hb_uf_upto(6, 15) != HB_UF_ALL || hb_uf_upto(7, 2) != HB_UF_ALL)
		ret = t_fail("hb_uf_upto: 5.5 %#x 5.10 %#x 6.1 %#x 6.12 %#x "
			     "6.15 %#x 7.2 %#x", hb_uf_upto(5, 5),
			     hb_uf_upto(5, 10), hb_uf_upto(6, 1),
			     hb_uf_upto(6, 12), hb_uf_upto(6, 15),
			     hb_uf_upto(7, 2));
	else
		t_pass();
	return ret;
}

/*
 * One case: a job on a kernel; the expected action of every feature, and
 * words each line must hold.
 */
struct dcase {
	const char *name;
	const char *kernel;	/* hb_uf_upto() of it */
	void (*job)(struct hb_uf_job *j);
	unsigned char act[HB_UF_NR];
	const char *words[HB_UF_NR][6];
};

static void job_asks_defer(struct hb_uf_job *j)
{
	job_default(j);
	ask(j, HB_UF_DEFER_TASKRUN, "defer_taskrun=1");
}

static void job_sqpoll_files(struct hb_uf_job *j)
{
	/* sqpoll: no DEFER_TASKRUN; registerfiles by the sparse table */
	job_default(j);
	j->want[HB_UF_DEFER_TASKRUN] = HB_UF_NOT_USED;
	j->want[HB_UF_FILES_SPARSE] = HB_UF_BY_DEFAULT;
}

static void job_nvme(struct hb_uf_job *j)
{
	job_default(j);
	ask(j, HB_UF_URING_CMD, "cmd_type=nvme");
}

static void job_clone(struct hb_uf_job *j)
{
	job_default(j);
	ask(j, HB_UF_CLONE_BUFFERS, "clone_buffers=split");
}

static void job_vec(struct hb_uf_job *j)
{
	job_default(j);
	ask(j, HB_UF_READV_FIXED, "vec_iovecs=4");
}

static void job_everything(struct hb_uf_job *j)
{
	job_asks_defer(j);
	j->want[HB_UF_FILES_SPARSE] = HB_UF_BY_DEFAULT;
	ask(j, HB_UF_URING_CMD, "cmd_type=nvme");
	ask(j, HB_UF_CLONE_BUFFERS, "clone_buffers=same");
	ask(j, HB_UF_READV_FIXED, "vec_iovecs=2");
}

/* a required feature the job cannot ask for, by default */
static void job_plain(struct hb_uf_job *j)
{
	job_default(j);
	j->want[HB_UF_DEFER_TASKRUN] = HB_UF_NOT_USED;
	j->want[HB_UF_RING_FD] = HB_UF_NOT_USED;
}

#define U	HB_UF_USE
#define F	HB_UF_FALLBACK
#define R	HB_UF_REFUSE
#define O	HB_UF_OFF

static const struct dcase dcases[] = {
	{ "default job on 5.10", "5.10", job_default,
	  { U, F, F, O, O, O, O },
	  { [HB_UF_DEFER_TASKRUN] = { "kernel 5.10", "DEFER_TASKRUN",
				      "6.1", "defer_taskrun=0" },
	    [HB_UF_RING_FD] = { "kernel 5.10", "RING_FDS", "5.18",
				"file descriptor" } } },
	{ "default job on 6.1", "6.1", job_default,
	  { U, U, U, O, O, O, O }, { { 0 } } },
	{ "default job on 5.18", "5.18", job_default, { U, F, U, O, O, O, O },
	  { [HB_UF_DEFER_TASKRUN] = { "kernel 5.18", "6.1" } } },
	{ "defer_taskrun=1 on 5.10", "5.10", job_asks_defer,
	  { U, R, F, O, O, O, O },
	  { [HB_UF_DEFER_TASKRUN] = { "defer_taskrun=1 needs",
				      "IORING_SETUP_DEFER_TASKRUN", "6.1",
				      "kernel 5.10", "defer_taskrun=0" } } },
	{ "defer_taskrun=1 on 6.1", "6.1", job_asks_defer,
	  { U, U, U, O, O, O, O }, { { 0 } } },
	{ "sqpoll + registerfiles on 5.10", "5.10", job_sqpoll_files,
	  { U, O, F, F, O, O, O },
	  { [HB_UF_FILES_SPARSE] = { "kernel 5.10", "SPARSE", "5.19",
				     "IORING_REGISTER_FILES", "-1" } } },
	{ "registerfiles on 5.19", "5.19", job_sqpoll_files,
	  { U, O, U, U, O, O, O }, { { 0 } } },
	{ "cmd_type=nvme on 5.10", "5.10", job_nvme, { U, F, F, O, R, O, O },
	  { [HB_UF_URING_CMD] = { "cmd_type=nvme needs",
				  "IORING_OP_URING_CMD", "SQE128", "5.19",
				  "/dev/nvmeXnY" } } },
	{ "cmd_type=nvme on 5.19", "5.19", job_nvme,
	  { U, F, U, O, U, O, O }, { { 0 } } },
	{ "clone_buffers on 6.1", "6.1", job_clone, { U, U, U, O, O, R, O },
	  { [HB_UF_CLONE_BUFFERS] = { "clone_buffers=split needs",
				      "IORING_REGISTER_CLONE_BUFFERS",
				      "6.12", "kernel 6.1",
				      "drop clone_buffers" } } },
	{ "clone_buffers on 6.12", "6.12", job_clone,
	  { U, U, U, O, O, U, O }, { { 0 } } },
	{ "vec_iovecs on 6.12", "6.12", job_vec, { U, U, U, O, O, O, R },
	  /* t/fio-vectored.sh skips on these words */
	  { [HB_UF_READV_FIXED] = { "vec_iovecs=4",
				    "needs IORING_OP_READV_FIXED", "6.15",
				    "drop vec_iovecs" } } },
	{ "vec_iovecs on 6.15", "6.15", job_vec,
	  { U, U, U, O, O, O, U }, { { 0 } } },
	{ "everything on 5.10", "5.10", job_everything,
	  { U, R, F, F, R, R, R }, { { 0 } } },
	{ "everything on 6.15", "6.15", job_everything,
	  { U, U, U, U, U, U, U }, { { 0 } } },
	{ "plain job on 5.5", "5.5", job_plain, { R, O, O, O, O, O, O },
	  { [HB_UF_CQSIZE] = { "the engine needs", "IORING_SETUP_CQSIZE",
			       "5.6", "kernel 5.5", "Linux 5.6 or later" } } },
};

static int test_decide(void)
{
	int ret = T_EXIT_PASS;
	unsigned int i, f;

	for (i = 0; i < T_ARRAY_SIZE(dcases); i++) {
		const struct dcase *c = &dcases[i];
		struct hb_uf_decision d;
		unsigned int have, refused = 0, fallbacks = 0;
		struct hb_uf_job j;
		int major, minor, r;
		char what[160];

		if (sscanf(c->kernel, "%d.%d", &major, &minor) != 2)
			abort();
		have = hb_uf_upto(major, minor);
		c->job(&j);
		r = hb_uf_decide(&j, have, c->kernel, &d);
		for (f = 0; f < HB_UF_NR; f++) {
			snprintf(what, sizeof(what), "%s: %s", c->name,
				 hb_uf_feature(f));
			refused += c->act[f] == R;
			fallbacks += c->act[f] == F;
			if (d.act[f] != c->act[f]) {
				ret = t_fail("%s: action %d, expected %d",
					     what, d.act[f], c->act[f]);
				continue;
			}
			/* a line exactly where there is something to say */
			if ((c->act[f] == F || c->act[f] == R) !=
			    !!d.line[f][0]) {
				ret = t_fail("%s: line \"%s\" for action %d",
					     what, d.line[f], d.act[f]);
				continue;
			}
			if (c->words[f][0])
				ret = t_worst(ret, has_words(what, d.line[f],
							     c->words[f]));
			else
				t_pass();
		}
		if (d.nr_refused != refused || d.nr_fallbacks != fallbacks ||
		    (refused ? r != -EOPNOTSUPP : r != 0)) {
			ret = t_fail("%s: returned %d with %u refused, %u "
				     "fallbacks; expected %u, %u", c->name, r,
				     d.nr_refused, d.nr_fallbacks, refused,
				     fallbacks);
			continue;
		}
		/* the job's error is its first refusal's line */
		for (f = 0; f < HB_UF_NR && d.act[f] != R; f++)
			;
		if (refused && strcmp(hb_errmsg(), d.line[f]))
			ret = t_fail("%s: hb_errmsg() \"%s\", not the first "
				     "refusal \"%s\"", c->name, hb_errmsg(),
				     d.line[f]);
		else
			t_pass();
	}
	return ret;
}

/* A job that does not ask never fails, whatever the kernel lacks. */
static int test_default_never_refused(void)
{
	static const enum hb_ufeat optional[] = {
		HB_UF_DEFER_TASKRUN, HB_UF_RING_FD, HB_UF_FILES_SPARSE,
	};
	struct hb_uf_decision d;
	struct hb_uf_job j;
	unsigned int have, i;

	memset(&j, 0, sizeof(j));
	for (i = 0; i < T_ARRAY_SIZE(optional); i++)
		j.want[optional[i]] = HB_UF_BY_DEFAULT;
	/* every subset of what the kernel may have */
	for (have = 0; have <= HB_UF_ALL; have++) {
		unsigned int missing = 0;

		if (hb_uf_decide(&j, have, "x", &d) || d.nr_refused)
			return t_fail("have %#x: refused a feature the job did "
				      "not ask for: %s", have, hb_errmsg());
		for (i = 0; i < T_ARRAY_SIZE(optional); i++)
			missing += !(have & HB_UF_BIT(optional[i]));
		if (d.nr_fallbacks != missing)
			return t_fail("have %#x: %u fallback lines for %u "
				      "missing features", have, d.nr_fallbacks,
				      missing);
	}
	return t_pass();
}

/* The running kernel has at least what upstream had at its release. */
static int test_probe_running(void)
{
	unsigned int have, want;
	struct utsname u;
	int major, minor;
	unsigned int f;

	if (getenv("HUGEBUF_URING_FEATURES"))
		return t_skip_check("HUGEBUF_URING_FEATURES hides features: "
				    "the probe is not the kernel's");
	if (hb_uf_probe(&have))
		return t_skip_check("no io_uring to probe: %s", hb_errmsg());
	if (uname(&u) || sscanf(u.release, "%d.%d", &major, &minor) != 2)
		return t_fail("uname: no release");
	want = hb_uf_upto(major, minor);
	t_info("kernel %s: probe %#x, upstream %d.%d has %#x", u.release,
	       have, major, minor, want);
	for (f = 0; f < HB_UF_NR; f++)
		if ((want & HB_UF_BIT(f)) && !(have & HB_UF_BIT(f)))
			return t_fail("kernel %s: the probe finds no %s, which "
				      "upstream %d.%d has", u.release,
				      hb_uf_feature(f), major, minor);
	return t_pass();
}

int main(void)
{
	int ret = T_EXIT_PASS;

	ret = t_worst(ret, t_sub(test_table()));
	ret = t_worst(ret, t_sub(test_decide()));
	ret = t_worst(ret, t_sub(test_default_never_refused()));
	ret = t_worst(ret, t_sub(test_probe_running()));
	return t_done(ret);
}
