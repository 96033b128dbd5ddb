// SPDX-License-Identifier: GPL-2.0-only
/*
 * The probe's physical contiguity (issue 44) is the buffer's: hb_probe()'s
 * runs, longest run and adjacent pairs against the PFNs this test reads
 * from /proc/self/pagemap itself, for 4 KiB buffers as the allocator gives
 * them and scattered on purpose, and for a THP buffer when the machine
 * gives one.  Without CAP_SYS_ADMIN the PFNs read as 0 (4.2,
 * 1c90308e7a77): the probe must then say it does not know, and so it must
 * in a child that dropped to an unprivileged user.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define NOBODY		65534
#define BUF_LEN		(8ULL << 20)

struct ref {
	uint64_t runs, longest, adjacent;
	bool known;
};

/* The runs over @pfn, counted as run starts and run ends. */
static void ref_count(const uint64_t *pfn, uint64_t nr, struct ref *r)
{
	uint64_t start = 0, i;

	memset(r, 0, sizeof(*r));
	r->known = true;
	for (i = 0; i < nr; i++)
		if (!pfn[i])
			r->known = false;
	for (i = 1; i <= nr; i++) {
		if (i < nr && pfn[i] == pfn[i - 1] + 1)
			continue;
		/* a run [start, i) ends here */
		r->runs++;
		r->adjacent += i - start - 1;
		if (i - start > r->longest)
			r->longest = i - start;
		start = i;
	}
}

static int check_buffer(const char *what, const struct hb_buf *buf)
{
	uint64_t nr = buf->len / T_SZ_4K, *pfn;
	struct hb_probe p;
	struct ref r;
	int ret;

	pfn = calloc(nr, sizeof(*pfn));
	if (!pfn)
		return t_fail("%s: out of memory", what);
	if (hb_probe(buf->addr, buf->len, &buf->backing, &p)) {
		free(pfn);
		return t_fail("%s: probe: %s", what, hb_errmsg());
	}
	ret = t_read_pfns(buf->addr, nr, pfn);
	if (ret) {
		ret = t_fail("%s: reading pagemap: %s", what, strerror(-ret));
		goto out;
	}
	ref_count(pfn, nr, &r);
	ret = T_EXIT_PASS;
	if (p.contig.nr_pages != nr || p.contig.known != r.known)
		ret = t_fail("%s: probe has %llu pages known %d, pagemap %llu "
			     "known %d", what,
			     (unsigned long long)p.contig.nr_pages,
			     p.contig.known, (unsigned long long)nr, r.known);
	else if (r.known && (p.contig.nr_runs != r.runs ||
			     p.contig.longest != r.longest ||
			     p.contig.adjacent != r.adjacent))
		ret = t_fail("%s: probe %llu runs, longest %llu, %llu "
			     "adjacent; pagemap %llu, %llu, %llu", what,
			     (unsigned long long)p.contig.nr_runs,
			     (unsigned long long)p.contig.longest,
			     (unsigned long long)p.contig.adjacent,
			     (unsigned long long)r.runs,
			     (unsigned long long)r.longest,
			     (unsigned long long)r.adjacent);
	if (!ret && r.known)
		t_info("%s: %llu runs, longest %llu pages, %.1f%% of pairs "
		       "adjacent", what, (unsigned long long)r.runs,
		       (unsigned long long)r.longest,
		       100 * hb_contig_share(&p.contig));
	else if (!ret)
		t_info("%s: PFNs hidden, not known", what);
out:
	hb_probe_free(&p);
	free(pfn);
	return ret ? ret : t_pass();
}

static int check_backing(const char *backing, const char *contig)
{
	char what[64];
	struct hb_buf buf;
	int ret;

	snprintf(what, sizeof(what), "%s contig=%s", backing, contig);
	if (!strcmp(backing, "thp")) {
		ret = t_alloc_thp(BUF_LEN, 0, &buf, what);
	} else {
		struct hb_backing b;

		if (hb_backing_parse(backing, &b) ||
		    hb_contig_mode_parse(contig, &b.contig))
			return t_fail("test bug: %s: %s", what, hb_errmsg());
		ret = hb_alloc(&b, BUF_LEN, 0, &buf) ?
		      t_fail("%s: %s", what, hb_errmsg()) : T_EXIT_PASS;
	}
	if (ret)
		return ret;
	ret = check_buffer(what, &buf);
	hb_free(&buf);
	return ret;
}

/* As nobody the PFNs are hidden: the probe must say it does not know. */
static int check_unprivileged(void)
{
	int status;
	pid_t pid;

	if (geteuid())
		return t_skip_check("already unprivileged: the checks above "
				    "ran without PFNs");
	pid = fork();
	if (pid < 0)
		return t_fail("fork failed");
	if (!pid) {
		struct hb_buf buf;
		struct hb_probe p;
		struct hb_backing b;

		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		/* setuid() made /proc/self root's: the probe must open it */
		prctl(PR_SET_DUMPABLE, 1, 0, 0, 0);
		if (hb_backing_parse("4k", &b) || hb_alloc(&b, BUF_LEN, 0,
							    &buf) ||
		    hb_probe(buf.addr, buf.len, &b, &p))
			_exit(3);
		_exit(p.contig.known || p.contig.nr_runs ? 1 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return t_fail("the unprivileged child did not exit");
	if (WEXITSTATUS(status))
		return t_fail("unprivileged probe: %s (child exit %d)",
			      WEXITSTATUS(status) == 1 ? "contiguity taken "
			      "as known without PFNs" : "could not run",
			      WEXITSTATUS(status));
	return t_pass();
}

int main(void)
{
	int ret = t_sub(check_backing("4k", "given"));

	ret = t_worst(ret, t_sub(check_backing("4k", "scattered")));
	ret = t_worst(ret, t_sub(check_backing("thp", "given")));
	return t_done(t_worst(ret, t_sub(check_unprivileged())));
}
