// SPDX-License-Identifier: GPL-2.0-only
/*
 * clone_buffers: the numjobs clones of one job (thread=1, so one process)
 * share one registered region instead of each pinning its own.  The
 * first job to start allocates every job's slice of buffers in one
 * mapping and registers all of them; every other job clones its slice of
 * that table into its own ring with IORING_REGISTER_CLONE_BUFFERS (6.12,
 * 7cc2a6eadcd7; with an offset and count since 6.13, else the whole table
 * and an index offset), which pins nothing again: the imus are reference
 * counted.  The source ring stays open until every clone has cloned (the
 * kernel needs its fd for that), and the mapping until the last job is
 * done (fio's buffers point into it).  Processes share pages instead
 * through backing=hugetlbfs:PATH (mem=mmaphuge:FILE).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hugebuf-engine.h"
#include "base/uring-compat.h"

/* how long a clone waits for the source's mapping or table */
#define HBE_SHARE_WAIT_SEC	120

struct hbe_share {
	struct hbe_share *next;
	char name[HB_JOB_NAME_MAX];	/* the job's name: its numjobs clones */
	unsigned int nr_jobs;
	unsigned int joined;	/* slices handed out */
	unsigned int refs;	/* jobs still using the mapping */
	unsigned int cloned;	/* clones that have their table */
	int error;		/* the source failed: errno */
	bool mapped, registered, src_done;
	bool same;		/* clone_buffers=same: one slice for all */
	struct hb_buf buf;	/* every job's slice */
	uint64_t slice;		/* bytes per job (whole alignment units) */
	unsigned int nr_iov;	/* registered buffers per job */
	struct io_uring src;	/* the source ring, once the source is done */
	bool src_kept;
	int src_fd;
};

static pthread_mutex_t hbe_share_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t hbe_share_cond = PTHREAD_COND_INITIALIZER;
static struct hbe_share *hbe_shares;

static struct hbe_share *hbe_share_find(const char *name)
{
	struct hbe_share *s;

	for (s = hbe_shares; s; s = s->next)
		if (!strcmp(s->name, name))
			return s;
	return NULL;
}

/* Wait (lock held) until @cond holds or the source failed. */
static int hbe_share_wait(struct hbe_share *s, const bool *cond)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += HBE_SHARE_WAIT_SEC;
	while (!*cond && !s->error)
		if (pthread_cond_timedwait(&hbe_share_cond, &hbe_share_lock,
					   &until) == ETIMEDOUT)
			return -ETIMEDOUT;
	return -s->error;
}

/*
 * The jobs that share: every thread with this job's name (numjobs clones
 * carry their parent's name; fio sets numjobs to 1 in each clone, so the
 * count comes from the thread table).
 */
static unsigned int hbe_share_jobs(struct thread_data *td)
{
	unsigned int i, n = 0;

	for (i = 0; i < thread_number; i++)
		n += !strcmp(tnumber_to_td(i)->o.name, td->o.name);
	return n ? n : 1;
}

/*
 * The first job maps every job's slice: the plan's length at its head
 * offset, rounded up to whole alignment units so every slice starts on
 * one (clone_buffers=same: one slice for all).
 */
static int hbe_share_map(struct hbe_share *s, const struct hb_jobplan *p)
{
	uint64_t align = hb_backing_align(&p->b);
	unsigned int slices = s->same ? 1 : s->nr_jobs;

	s->slice = (p->head + p->len + align - 1) / align * align;
	return hb_alloc(&p->b, slices * s->slice - p->head, p->head, &s->buf);
}

int hbe_share_attach(struct thread_data *td, struct hbe_data *hd)
{
	const struct hb_jobplan *p = &hd->job->plan;
	struct hbe_share *s;
	int ret = 0;

	pthread_mutex_lock(&hbe_share_lock);
	s = hbe_share_find(td->o.name);
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s) {
			pthread_mutex_unlock(&hbe_share_lock);
			return -ENOMEM;
		}
		strcpy(s->name, td->o.name);
		s->nr_jobs = hbe_share_jobs(td);
		s->same = p->clone == HB_JOB_CLONE_SAME;
		s->buf.memfd = -1;
		s->src_fd = -1;
		s->next = hbe_shares;
		hbe_shares = s;
		/* the source maps outside the lock's waiters' way */
		ret = hbe_share_map(s, p);
		if (ret) {
			s->error = -ret;
			log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
		}
		s->mapped = !ret;
		pthread_cond_broadcast(&hbe_share_cond);
	} else {
		ret = hbe_share_wait(s, &s->mapped);
		if (ret)
			log_err(HBE_LOG_PREFIX "clone_buffers: the first job of "
				"'%s' has no buffers for this one (%s)\n",
				s->name, strerror(-ret));
	}
	if (!ret && s->joined >= s->nr_jobs) {
		log_err(HBE_LOG_PREFIX "clone_buffers: more jobs named '%s' "
			"than the %u that started: give each job its own "
			"name\n", s->name, s->nr_jobs);
		ret = -EINVAL;
	}
	if (!ret) {
		hd->share = s;
		hd->share_idx = s->joined++;
		hd->job->map = (char *)s->buf.map +
			       (s->same ? 0 : hd->share_idx * s->slice);
		hd->job->map_len = s->slice;
		s->refs++;
	}
	pthread_mutex_unlock(&hbe_share_lock);
	return ret;
}

/* The source registers every job's slice: its own iovecs, shifted. */
static int hbe_share_register_all(struct hbe_data *hd)
{
	struct hbe_share *s = hd->share;
	const struct iovec *iov = hd->job->iovecs;
	unsigned int n = hd->job->plan.nr_iovecs, j, i;
	unsigned int slices = s->same ? 1 : s->nr_jobs;
	struct iovec *all;
	int ret;

	all = calloc((size_t)n * slices, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (j = 0; j < slices; j++)
		for (i = 0; i < n; i++) {
			all[j * n + i] = iov[i];
			all[j * n + i].iov_base = (char *)iov[i].iov_base +
				((int64_t)j - hd->share_idx) *
				(int64_t)s->slice;
		}
	ret = hb_register_buffers(&hd->ring, all, n * slices);
	free(all);
	return ret;
}

/* A clone takes its slice of the source's table. */
static int hbe_share_clone(struct hbe_data *hd)
{
	struct hbe_share *s = hd->share;
	struct io_uring src;
	int ret;

	memset(&src, 0, sizeof(src));
	src.ring_fd = s->src_fd;
	unsigned int first = s->same ? 0 : hd->share_idx * s->nr_iov;

	/* 6.13: just this job's buffers, at slot 0 */
	ret = hb_clone_buffers(&hd->ring, &src, first, 0, s->nr_iov, 0);
	if (ret == -EINVAL) {
		/* 6.12: the whole table, and an index offset */
		ret = hb_clone_buffers(&hd->ring, &src, 0, 0, 0, 0);
		hd->buf_index_base = first;
	}
	return ret;
}

/* The source ring can go once it is done and every clone has cloned. */
static void hbe_share_release_src(struct hbe_share *s)
{
	if (s->src_kept && s->src_done && s->cloned + 1 >= s->nr_jobs) {
		io_uring_queue_exit(&s->src);
		s->src_kept = false;
	}
}

int hbe_share_register(struct thread_data *td, struct hbe_data *hd)
{
	struct hbe_share *s = hd->share;
	int ret;

	pthread_mutex_lock(&hbe_share_lock);
	if (hd->share_idx == 0) {
		ret = hbe_share_register_all(hd);
		if (ret) {
			log_err(HBE_LOG_PREFIX "%s\n", hb_errmsg());
			s->error = -ret;
		} else {
			s->nr_iov = hd->job->plan.nr_iovecs;
			s->src_fd = hd->ring.ring_fd;
			s->registered = true;
		}
		pthread_cond_broadcast(&hbe_share_cond);
	} else {
		ret = hbe_share_wait(s, &s->registered);
		if (!ret)
			ret = hbe_share_clone(hd);
		/* init refused a kernel without the op: this is another */
		if (ret)
			log_err(HBE_LOG_PREFIX "clone_buffers: cloning the "
				"table of '%s' failed: %s (clone_buffers=off "
				"registers per job)\n", s->name,
				strerror(-ret));
		else
			s->cloned++;
		hbe_share_release_src(s);
	}
	pthread_mutex_unlock(&hbe_share_lock);
	if (ret)
		td_verror(td, -ret, "clone_buffers");
	return ret ? 1 : 0;
}

void hbe_share_detach(struct hbe_data *hd)
{
	struct hbe_share *s = hd->share, **pp;

	if (!s)
		return;
	pthread_mutex_lock(&hbe_share_lock);
	if (hd->share_idx == 0 && hd->ring_ok) {
		/*
		 * Keep the source ring for clones still to clone; the last
		 * of them closes it.  A registered ring fd is an index into
		 * the table of the task that registered it (5.18,
		 * e7a6c00dc77a), and liburing's io_uring_queue_exit() drops
		 * that index from the calling task's table, whichever ring
		 * it is: so this thread unregisters it first.
		 */
		if (hd->ring_fd_registered)
			io_uring_unregister_ring_fd(&hd->ring);
		s->src = hd->ring;
		s->src_kept = true;
		hd->ring_ok = false;
	}
	if (hd->share_idx == 0)
		s->src_done = true;
	hbe_share_release_src(s);
	if (--s->refs == 0) {
		if (s->src_kept)
			io_uring_queue_exit(&s->src);
		hb_free(&s->buf);
		for (pp = &hbe_shares; *pp; pp = &(*pp)->next)
			if (*pp == s) {
				*pp = s->next;
				break;
			}
		free(s);
	}
	hd->share = NULL;
	pthread_mutex_unlock(&hbe_share_lock);
}
