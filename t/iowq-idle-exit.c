// SPDX-License-Identifier: GPL-2.0-only
/*
 * io-wq's idle exit race (docs/known-issues.md, "7.0: a buffered
 * WRITE_FIXED on the second NVMe controller hangs"; the model's
 * iowq_exit_race, lib/model/kmodel.c).  When a task's last ring goes,
 * io_uring_del_tctx_node() (io_uring/tctx.c) sets IO_WQ_BIT_EXIT_ON_IDLE
 * and wakes the task's io-wq workers; the task's next ring clears it.  A
 * worker that saw the bit leaves io_wq_worker()'s loop (io_uring/io-wq.c)
 * but, up to 7.3.1, stays on the free list until io_worker_exit(): a
 * request that io_wq_enqueue() hands it in between is never run.
 *
 * ROUNDS times: the task's only ring writes a registered 64 KiB buffer,
 * buffered, to a scratch file (no O_DIRECT: ext4 punts it to io-wq, it
 * has no FOP_BUFFER_WASYNC; where the first write leaves no "iou-wrk-"
 * thread the file system ran it inline, and IOSQE_ASYNC sends every write
 * to io-wq), so the task's worker is idle; the ring is closed, a pause
 * that differs from round to round, and the same write on the next ring,
 * waited for with t_submit_wait()'s timeout.  The next ring is opened
 * and its buffer registered by a thread of its own beforehand, so that
 * the task's node comes with the write's own io_uring_enter(): the
 * window between the task's rings is the pause alone.
 *
 * Judged against the model of the running release (hbi_kmodel_version()):
 * a write that never completes is a FAIL where the model says the race is
 * absent, and the known bug, seen, where it says present or not known (a
 * hang cannot be retried, and whether a round meets the race is luck: a
 * slow worker, a loaded TCG guest).  The rounds stop there.  Every write
 * completed is a pass on every kernel.  Its rings come from
 * t_ring_init_alone(): t_ring_init()'s anchor ring, which keeps a task's
 * ring list from going empty, would hide the race.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "helpers.h"
#include "job/job.h"

#define ROUNDS		400
#define BUF_LEN		(64U << 10)
#define FILE_SEED	0x1dfe
#define BUF_SEED	0x1dff
/* the pause after a close: 2^0 to 2^MAX_PAUSE_SHIFT loops */
#define MAX_PAUSE_SHIFT	17

struct next_ring {
	struct io_uring ring;
	void *buf;
	int ret;
};

/* in a thread of its own: the ring and its buffer, no node of the task */
static void *open_next(void *arg)
{
	struct next_ring *n = arg;
	struct iovec iov = { n->buf, BUF_LEN };

	n->ret = t_ring_init_alone(&n->ring, 4);
	if (n->ret)
		return NULL;
	n->ret = t_register(&n->ring, &iov, 1);
	if (n->ret)
		io_uring_queue_exit(&n->ring);
	return NULL;
}

static int next_ring(struct next_ring *n)
{
	pthread_t th;
	int err;

	err = pthread_create(&th, NULL, open_next, n);
	if (err)
		return t_fail("pthread_create: %s", strerror(err));
	pthread_join(th, NULL);
	return n->ret;
}

/* whether the task has an io-wq worker: a thread named "iou-wrk-TID" */
static bool has_iowq_worker(void)
{
	char path[300], comm[32];
	struct dirent *de;
	bool found = false;
	DIR *d;
	FILE *f;

	d = opendir("/proc/self/task");
	if (!d)
		return false;
	while (!found && (de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/comm",
			 de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f))
			found = !strncmp(comm, "iou-wrk-", 8);
		fclose(f);
	}
	closedir(d);
	return found;
}

static void pause_loops(unsigned int round)
{
	unsigned long n = 1UL << (round % (MAX_PAUSE_SHIFT + 1));
	volatile unsigned long i;

	for (i = 0; i < n; i++)
		;
}

/* one buffered WRITE_FIXED of the whole buffer at file offset 0 */
static int write_once(struct next_ring *n, int fd, bool force_async)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&n->ring);

	if (!sqe)
		return -EBUSY;
	io_uring_prep_write_fixed(sqe, fd, n->buf, BUF_LEN, 0, 0);
	if (force_async)
		sqe->flags |= IOSQE_ASYNC;
	return t_submit_wait(&n->ring);
}

/* a write with no completion: the modelled bug, or a FAIL */
static int judge_stranded(const struct hb_kmodel *km, unsigned int round)
{
	if (km->iowq_exit_race == HB_KBUG_ABSENT)
		return t_fail("round %u: a buffered WRITE_FIXED punted to io-wq "
			      "right after the task's only ring was closed "
			      "never completed, on %s, which the model says "
			      "has the fix of io-wq's idle exit race (7.3.2, "
			      "io_worker_retire())", round, km->name);
	t_info("round %u: the write never completed: io-wq's idle exit race "
	       "(io_wq_worker() / io_worker_exit()), seen on %s, which the "
	       "model %s", round, km->name,
	       km->iowq_exit_race == HB_KBUG_PRESENT ?
	       "says has it (7.0 - 7.3.1)" :
	       "did not know: docs/known-issues.md is to name it");
	return t_pass();
}

static int run_rounds(const struct hb_kmodel *km, struct t_file *f,
		      void *buf)
{
	struct next_ring cur = { .buf = buf }, next = { .buf = buf };
	bool force_async = false;
	unsigned int round;
	int ret;

	ret = next_ring(&cur);
	if (ret)
		return ret;
	ret = write_once(&cur, f->fd, false);
	if (ret != (int)BUF_LEN) {
		io_uring_queue_exit(&cur.ring);
		return t_fail("the first buffered WRITE_FIXED: %d, expected %u",
			      ret, BUF_LEN);
	}
	if (!has_iowq_worker()) {
		force_async = true;
		t_info("%s ran the buffered write inline: IOSQE_ASYNC sends "
		       "each write to io-wq", f->dir);
	}
	for (round = 1; round <= ROUNDS; round++) {
		ret = next_ring(&next);
		if (ret)
			break;
		/* the task's only ring: the workers are told to exit */
		io_uring_queue_exit(&cur.ring);
		pause_loops(round);
		cur = next;
		ret = write_once(&cur, f->fd, force_async);
		if (ret == -ETIME) {
			ret = judge_stranded(km, round);
			break;
		}
		if (ret != (int)BUF_LEN) {
			ret = t_fail("round %u: buffered WRITE_FIXED: %d, "
				     "expected %u", round, ret, BUF_LEN);
			break;
		}
		ret = T_EXIT_PASS;
	}
	io_uring_queue_exit(&cur.ring);
	if (!ret && round > ROUNDS) {
		t_info("%u rounds, every write completed (model: the race %s "
		       "on %s)", ROUNDS, t_kbug_name(km->iowq_exit_race),
		       km->name);
		ret = t_pass();
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct hb_kmodel km;
	struct t_file f;
	void *buf;
	int ret;

	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	if (hbi_kmodel_version(&km))
		return t_done(t_fail("the running kernel's release: %s",
				     hb_errmsg()));
	buf = mmap(NULL, BUF_LEN, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (buf == MAP_FAILED)
		return t_done(t_fail("mmap: %s", strerror(errno)));
	t_pattern_fill(buf, BUF_LEN, BUF_SEED, 0);
	ret = t_file_create(&f, BUF_LEN, FILE_SEED, false);
	if (!ret) {
		ret = run_rounds(&km, &f, buf);
		if (!ret)
			ret = t_file_verify(&f, "the file after the writes",
					    0, BUF_LEN, BUF_SEED);
		t_file_close(&f);
	}
	munmap(buf, BUF_LEN);
	return t_done(ret);
}
