// SPDX-License-Identifier: GPL-2.0-only
/*
 * backing=libhugetlbfs from several threads of one process at once, as
 * fio's thread=1 jobs allocate their buffers.  lib/resource/alloc.c loads
 * libhugetlbfs on first use under pthread_once: no thread may find its
 * function pointers half set (a second job used to call a NULL
 * gethugepagesize), and every thread gets a buffer of the library's pages
 * or the same error.  Each round is a fresh child process (the load
 * happens once per process), whose NR_THREADS threads are released by a
 * barrier into their first hb_alloc(), STAGGER_US apart, and the load's
 * window is widened: lib's dlsym() of gethugepagesize, the last of the
 * three, waits WIDEN_US first, so the later threads arrive while the
 * first is inside (before pthread_once they found get_huge_pages set and
 * called the NULL gethugepagesize).  A round fails when the child dies
 * of a signal or a thread got no buffer; a machine without
 * libhugetlbfs.so.0 is a skip.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helpers.h"

#define NR_THREADS 8
#define NR_ROUNDS 200
#define EXIT_NO_LIB T_EXIT_SKIP
#define STAGGER_US 200
#define WIDEN_US (NR_THREADS * STAGGER_US)

/*
 * lib's own dlsym() calls (libhugebuf.a is linked into this program)
 * come here: the program's definition comes before libc's.  Statically
 * linked there is no next dlsym to find, and no widening.
 */
static void *(*next_dlsym)(void *, const char *);

static bool find_next_dlsym(void)
{
	if (!next_dlsym)
		*(void **)&next_dlsym =
			dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
	if (!next_dlsym)
		*(void **)&next_dlsym =
			dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
	return next_dlsym;
}

/*
 * Not under AddressSanitizer: its runtime resolves its interceptors
 * through dlsym() before main, where this wrapper has nothing to call yet
 * (SIGSEGV).  The ASan build skips; the plain build runs the race.
 */
#ifndef __SANITIZE_ADDRESS__
void *dlsym(void *handle, const char *name)
{
	if (!find_next_dlsym())
		return NULL;
	if (!strcmp(name, "gethugepagesize"))
		usleep(WIDEN_US);
	return next_dlsym(handle, name);
}
#endif

struct worker {
	pthread_t thread;
	pthread_barrier_t *start;
	const struct hb_backing *b;
	struct hb_buf buf;
	unsigned int nr;
	int ret;
	char why[256];
};

static void *worker_alloc(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(w->start);
	usleep(w->nr * STAGGER_US);
	w->ret = hb_alloc(w->b, T_SZ_2M, 0, &w->buf);
	if (w->ret)
		snprintf(w->why, sizeof(w->why), "%s", hb_errmsg());
	else
		memset(w->buf.addr, 0x5a, T_SZ_2M);
	return NULL;
}

/* one round, in the child: 0, EXIT_NO_LIB, or 1 with a FAIL line */
static int one_round(const struct hb_backing *b, unsigned int round)
{
	struct worker w[NR_THREADS];
	pthread_barrier_t start;
	unsigned int i, failed = 0, nolib = 0;

	memset(w, 0, sizeof(w));
	pthread_barrier_init(&start, NULL, NR_THREADS);
	for (i = 0; i < NR_THREADS; i++) {
		w[i].start = &start;
		w[i].b = b;
		w[i].nr = i;
		if (pthread_create(&w[i].thread, NULL, worker_alloc, &w[i])) {
			printf("FAIL: round %u: pthread_create failed\n",
			       round);
			_exit(T_EXIT_FAIL);
		}
	}
	for (i = 0; i < NR_THREADS; i++)
		pthread_join(w[i].thread, NULL);
	for (i = 0; i < NR_THREADS; i++) {
		if (!w[i].ret) {
			hb_free(&w[i].buf);
			continue;
		}
		if (w[i].ret == -ENOENT && strstr(w[i].why, "not available"))
			nolib++;
		else if (!failed++)
			printf("FAIL: round %u thread %u: %s\n", round, i,
			       w[i].why);
	}
	if (nolib == NR_THREADS) {
		printf("SKIP: %s\n", w[0].why);
		return EXIT_NO_LIB;
	}
	if (nolib && !failed)
		printf("FAIL: round %u: %u of %u threads found no "
		       "libhugetlbfs\n",
		       round, nolib, NR_THREADS);
	return failed || nolib ? T_EXIT_FAIL : T_EXIT_PASS;
}

int main(void)
{
	unsigned int round, bad = 0;
	struct hb_backing b;
	int ret, status;
	pid_t pid;

	ret = t_need_hugepages(T_SZ_2M, NR_THREADS);
	if (ret)
		return t_done(ret);
#ifdef __SANITIZE_ADDRESS__
	return t_done(t_skip("built with AddressSanitizer, whose runtime needs "
			     "dlsym() before main: the race window is widened "
			     "only in the plain build (t/runtests.sh)"));
#endif
	if (!find_next_dlsym())
		return t_done(t_skip("no dlsym() to wrap (statically linked): "
				     "run the dynamically linked t/%s.t",
				     "libhugetlbfs-threads"));
	if (hb_backing_parse("libhugetlbfs", &b))
		return t_done(t_fail("libhugetlbfs: %s", hb_errmsg()));
	for (round = 0; round < NR_ROUNDS && bad < 3; round++) {
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return t_done(t_fail("fork: %s", strerror(errno)));
		if (!pid)
			_exit(one_round(&b, round));
		if (waitpid(pid, &status, 0) != pid)
			return t_done(t_fail("waitpid: %s", strerror(errno)));
		if (WIFSIGNALED(status)) {
			t_fail("round %u: the process died of %s", round,
			       strsignal(WTERMSIG(status)));
			bad++;
		} else if (WEXITSTATUS(status) == EXIT_NO_LIB && !round) {
			return t_done(T_EXIT_SKIP);
		} else if (WEXITSTATUS(status)) {
			/* the child printed its FAIL line */
			bad++;
		}
	}
	if (bad)
		return t_done(t_fail("%u of %u rounds failed", bad, round));
	t_info("%u rounds of %u threads, each with its own 2 MiB buffer from "
	       "get_huge_pages()",
	       round, NR_THREADS);
	t_pass();
	return t_done(T_EXIT_PASS);
}
