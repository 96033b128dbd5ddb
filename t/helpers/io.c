// SPDX-License-Identifier: GPL-2.0-only
/*
 * io_uring: a ring, one-shot I/O, registration (and refused
 * registrations), and the data checks of one READ_FIXED / WRITE_FIXED
 * through a registered buffer, with guard bytes around it.
 * See t/helpers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers-priv.h"
#include "job/job.h"

/* ------------------------------------------------------------------ */
/* io_uring                                                             */
/* ------------------------------------------------------------------ */

/*
 * One ring of the task kept open for its whole life, on the kernels whose
 * io-wq has the idle exit race (hb_kmodel's iowq_exit_race present or not
 * known: 7.0 - 7.2 and 7.3 before 7.3.2 have it, 6.18.y and 6.19.y have
 * the idle exit of 38aa434ab933): when a task's last ring goes,
 * io_uring_del_tctx_node() (io_uring/tctx.c) tells its io-wq workers to
 * exit, and a worker on its way out of io_wq_worker() (io_uring/io-wq.c)
 * is still on the free list until io_worker_exit(); a buffered write
 * punted by the next ring in that window is never run.  The cases of a
 * test each open a ring and close it, so without this ring every case
 * would start in that window: with it the task's ring list is never
 * empty and the workers never exit that way.  t/iowq-idle-exit.c, which
 * looks for the race, opens its rings with t_ring_init_alone().  Per thread, as the
 * kernel's task context is; a child of fork() inherits the flag and not
 * the protection (its task has no node for the inherited ring).
 */
static __thread bool anchor_done;
static __thread struct io_uring anchor_ring;

static void t_ring_anchor(void)
{
	struct hb_kmodel km;

	if (anchor_done)
		return;
	anchor_done = true;
	if (hbi_kmodel_version(&km) ||
	    km.iowq_exit_race == HB_KBUG_ABSENT)
		return;
	/*
	 * io_uring_create() adds the task's node: nothing to submit.  A
	 * failure is the caller's ring's to report.
	 */
	io_uring_queue_init(1, &anchor_ring, 0);
}

int t_ring_init(struct io_uring *ring, unsigned int entries)
{
	t_ring_anchor();
	return t_ring_init_alone(ring, entries);
}

int t_ring_init_alone(struct io_uring *ring, unsigned int entries)
{
	int ret = io_uring_queue_init(entries, ring, 0);

	if (ret == -EINVAL || ret == -ENOSYS || ret == -EPERM)
		return t_skip("io_uring is not available (%s): enable "
			      "CONFIG_IO_URING / kernel.io_uring_disabled=0",
			      strerror(-ret));
	if (ret)
		return t_fail("io_uring_queue_init: %s", strerror(-ret));
	return T_EXIT_PASS;
}

/*
 * How long one I/O of a test may take before the test says so itself:
 * far beyond any I/O here, even a guest's under TCG with a second guest
 * beside it, and well inside kernel/ktest.sh's per-program timeout (300 s),
 * so that an I/O that never completes fails with the caller's message
 * naming it instead of the program being killed without a word.
 */
#define T_IO_TIMEOUT_SEC 120

/* write @s to the procfs or sysfs file @path; failure is ignored */
static void t_write_quiet(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return;
	n = write(fd, s, strlen(s));
	(void)n;	/* the dump is best effort */
	close(fd);
}

/* the ring's own view of its queues (io_uring_show_fdinfo(), 5.6+) */
static void t_print_ring_fdinfo(struct io_uring *ring)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", ring->ring_fd);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "ring fdinfo: %s", line);
	fclose(f);
}

/*
 * The block layer's view of every disk (blk-mq debugfs, 4.11+): a
 * queue's state flags (QUIESCED, STOPPED), and per hardware queue the
 * requests started and not completed (busy), those waiting to be
 * dispatched (dispatch) and those still in a software queue: a request
 * that waits for a queue run that never comes is in the last two, and
 * no driver timeout ever fires for it (the timer starts at dispatch).
 */
static void t_print_blk_mq_state(void)
{
	static const char *const pats[] = {
		"/sys/kernel/debug/block/*/state",
		"/sys/kernel/debug/block/*/hctx*/state",
		"/sys/kernel/debug/block/*/hctx*/busy",
		"/sys/kernel/debug/block/*/hctx*/dispatch",
		"/sys/kernel/debug/block/*/hctx*/ctx*/*_rq_list",
	};
	char line[256];
	glob_t g;
	size_t i, j;
	FILE *f;

	for (i = 0; i < T_ARRAY_SIZE(pats); i++) {
		if (glob(pats[i], 0, NULL, &g))
			continue;
		for (j = 0; j < g.gl_pathc; j++) {
			f = fopen(g.gl_pathv[j], "re");
			if (!f)
				continue;
			while (fgets(line, sizeof(line), f))
				fprintf(stderr, "%s: %s", g.gl_pathv[j], line);
			fclose(f);
		}
		globfree(&g);
	}
}

/*
 * An I/O with no completion: what every task and every CPU of the kernel
 * is doing, on its console (a kernel/ktest.sh guest's serial log, kept
 * with KTEST_KEEP=1).  sysrq 'w' shows the blocked (D state) tasks, 't'
 * every task, 'l' every CPU's backtrace: a task that spins in the kernel
 * is not blocked, so only 'l' catches it.  sched_show_task() prints at
 * KERN_INFO, under the guests' loglevel=5, so the console loglevel goes
 * to 8 first and stays there: the console may print after the write to
 * sysrq-trigger returns.  Only where HB_TEST_SYSRQ=1 (the guests' env,
 * kernel/kboot.sh): on a shared host the dump would flood its log.
 * Root only; every failure is ignored.
 */
static void t_dump_kernel_state(struct io_uring *ring)
{
	const char *on = getenv("HB_TEST_SYSRQ");

	t_print_ring_fdinfo(ring);
	if (!on || strcmp(on, "1"))
		return;
	fprintf(stderr, "dumping blocked tasks, all tasks and all CPUs' "
		"backtraces to the kernel console (sysrq w, t, l)\n");
	t_print_blk_mq_state();
	fflush(stderr);
	t_write_quiet("/proc/sys/kernel/printk", "8");
	t_write_quiet("/proc/sysrq-trigger", "w");
	t_write_quiet("/proc/sysrq-trigger", "t");
	t_write_quiet("/proc/sysrq-trigger", "l");
}

int t_submit_wait(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = T_IO_TIMEOUT_SEC };
	struct io_uring_cqe *cqe;
	int ret;

	ret = io_uring_submit(ring);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = io_uring_wait_cqe_timeout(ring, &cqe, &ts);
	if (ret == -ETIME) {
		fprintf(stderr, "no completion %d s after the submission: the "
			"I/O is still in flight\n", T_IO_TIMEOUT_SEC);
		t_dump_kernel_state(ring);
	}
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}

int t_io(struct io_uring *ring, int op, int fd, void *addr, unsigned int len,
	 uint64_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	if (!sqe)
		return -EBUSY;
	switch (op) {
	case IORING_OP_READ_FIXED:
		io_uring_prep_read_fixed(sqe, fd, addr, len, off, idx);
		break;
	case IORING_OP_WRITE_FIXED:
		io_uring_prep_write_fixed(sqe, fd, addr, len, off, idx);
		break;
	case IORING_OP_READ:
		io_uring_prep_read(sqe, fd, addr, len, off);
		break;
	case IORING_OP_WRITE:
		io_uring_prep_write(sqe, fd, addr, len, off);
		break;
	default:
		return -EINVAL;
	}
	return t_submit_wait(ring);
}

int t_register(struct io_uring *ring, const struct iovec *iov, unsigned int nr)
{
	int ret = hb_register_buffers(ring, iov, nr);

	if (!ret)
		return T_EXIT_PASS;
	if (ret == -ENOMEM && geteuid() != 0)
		return t_skip("registration needs more RLIMIT_MEMLOCK: %s",
			      hb_errmsg());
	return t_fail("registering %u buffer(s): %s (%s)", nr, hb_errmsg(),
		      strerror(-ret));
}

int t_register_refused(struct io_uring *ring, void *addr, uint64_t len,
		       int want, int also, long base_kb, const char *what,
		       const char *why, int *got)
{
	struct iovec iov = { addr, len };
	char when[128]; /* leaves room in t_vmpin_expect()'s message */
	int k;

	k = io_uring_register_buffers(ring, &iov, 1);
	if (got)
		*got = k;
	if (!k) {
		io_uring_unregister_buffers(ring);
		return t_fail("%s: registered, but %s", what, why);
	}
	/* k is never 0 here, so an @also of 0 matches nothing */
	if (k != want && k != also)
		return t_fail_val(what, want, k);
	snprintf(when, sizeof(when), "%s: after the refusal", what);
	return t_vmpin_expect(base_kb, 0, when);
}

static int check_range(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
		       const char *what)
{
	if (boff > rb->len || len > rb->len - boff || len > (1U << 31))
		return t_fail("%s: test bug: I/O [0x%llx, +0x%llx) is not "
			      "inside the 0x%llx-byte buffer",
			      what, (unsigned long long)boff,
			      (unsigned long long)len,
			      (unsigned long long)rb->len);
	return T_EXIT_PASS;
}

/* Guard sizes below and above [boff, boff+len) inside the buffer. */
static void guards(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
		   uint64_t *lo, uint64_t *hi)
{
	uint64_t after = rb->len - boff - len;

	*lo = boff < T_GUARD_BYTES ? boff : T_GUARD_BYTES;
	*hi = after < T_GUARD_BYTES ? after : T_GUARD_BYTES;
}

static int check_guards(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
			const char *what)
{
	uint64_t lo, hi;
	char msg[160];
	int ret;

	guards(rb, boff, len, &lo, &hi);
	snprintf(msg, sizeof(msg), "%s: guard below the I/O", what);
	ret = t_pattern_verify(msg, rb->addr + boff - lo, lo, T_BG_SEED,
			       boff - lo);
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg), "%s: guard above the I/O", what);
	return t_pattern_verify(msg, rb->addr + boff + len, hi, T_BG_SEED,
				boff + len);
}

void t_fill_background(const struct t_regbuf *rb, uint64_t boff, uint64_t len)
{
	uint64_t lo, hi;

	guards(rb, boff, len, &lo, &hi);
	t_pattern_fill(rb->addr + boff - lo, lo + len + hi, T_BG_SEED,
		       boff - lo);
}

/* "@what: @op of @len bytes at buffer offset @boff returned <res>" */
static void io_failed(char *msg, size_t msg_len, const char *what,
		      const char *op, uint64_t boff, uint64_t len, int res)
{
	snprintf(msg, msg_len,
		 "%s: %s of %llu bytes at buffer offset 0x%llx returned %s",
		 what, op, (unsigned long long)len, (unsigned long long)boff,
		 res < 0 ? strerror(-res) : "a short count");
}

int t_read_fixed_check(const struct t_regbuf *rb, int fd, uint64_t seed,
		       uint64_t foff, uint64_t boff, uint64_t len,
		       const char *what)
{
	char msg[160];
	int ret, res;

	ret = check_range(rb, boff, len, what);
	if (ret)
		return ret;
	t_fill_background(rb, boff, len);
	res = t_io(rb->ring, IORING_OP_READ_FIXED, fd, rb->addr + boff, len,
		   foff, rb->idx);
	if (res != (int)len) {
		io_failed(msg, sizeof(msg), what, "READ_FIXED", boff, len, res);
		return t_fail_val(msg, len, res);
	}
	snprintf(msg, sizeof(msg), "%s: READ_FIXED data", what);
	ret = t_pattern_verify(msg, rb->addr + boff, len, seed, foff);
	if (ret)
		return ret;
	return check_guards(rb, boff, len, what);
}

/* The file bytes next to a written range must be untouched. */
static int check_file_neighbours(struct t_file *f, uint64_t foff, uint64_t len,
				 const char *what)
{
	uint64_t lo = foff < T_GUARD_BYTES ? foff : T_GUARD_BYTES;
	uint64_t end = foff + len;
	uint64_t hi =
		f->size - end < T_GUARD_BYTES ? f->size - end : T_GUARD_BYTES;
	char msg[160];
	int ret;

	snprintf(msg, sizeof(msg), "%s: file bytes before the write", what);
	ret = t_file_verify(f, msg, foff - lo, lo, f->seed);
	if (ret)
		return ret;
	snprintf(msg, sizeof(msg), "%s: file bytes after the write", what);
	return t_file_verify(f, msg, end, hi, f->seed);
}

int t_write_fixed_check(const struct t_regbuf *rb, struct t_file *f, int fd,
			uint64_t seed, uint64_t foff, uint64_t boff,
			uint64_t len, const char *what)
{
	char msg[160];
	int ret, res;

	ret = check_range(rb, boff, len, what);
	if (ret)
		return ret;
	if (foff > f->size || len > f->size - foff)
		return t_fail("%s: test bug: write beyond the scratch file",
			      what);
	t_pattern_fill(rb->addr + boff, len, seed, foff);
	ret = t_file_poison(f, foff, len);
	if (ret)
		return ret;
	res = t_io(rb->ring, IORING_OP_WRITE_FIXED, fd, rb->addr + boff, len,
		   foff, rb->idx);
	if (res != (int)len) {
		io_failed(msg, sizeof(msg), what, "WRITE_FIXED", boff, len,
			  res);
		ret = t_fail_val(msg, len, res);
		goto restore;
	}
	if (fd == f->fd && fdatasync(fd)) {
		ret = t_fail("%s: fdatasync: %s", what, strerror(errno));
		goto restore;
	}
	snprintf(msg, sizeof(msg), "%s: WRITE_FIXED data in the file", what);
	ret = t_file_verify(f, msg, foff, len, seed);
	if (!ret)
		ret = check_file_neighbours(f, foff, len, what);
restore:
	return t_worst(ret, t_file_restore(f, foff, len));
}

static bool all_zero(const char *p, uint64_t len, uint64_t *bad)
{
	uint64_t i;

	for (i = 0; i < len; i++) {
		if (p[i]) {
			*bad = i;
			return false;
		}
	}
	return true;
}

int t_devzero_check(const struct t_regbuf *rb, uint64_t boff, uint64_t len,
		    const char *what)
{
	uint64_t bad, done;
	char msg[160];
	int fd, ret, res;

	ret = check_range(rb, boff, len, what);
	if (ret)
		return ret;
	fd = open("/dev/zero", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return t_skip("cannot open /dev/zero: %s", strerror(errno));
	t_fill_background(rb, boff, len);
	/*
	 * read_iter_zero() may stop early under IOCB_NOWAIT when the CPU is
	 * wanted elsewhere, and io_uring does not retry a short read of a
	 * non-regular file: go on from where it stopped, as a caller must.
	 */
	for (done = 0; done < len; done += res) {
		res = t_io(rb->ring, IORING_OP_READ_FIXED, fd,
			   rb->addr + boff + done, len - done, 0, rb->idx);
		if (res <= 0) {
			snprintf(msg, sizeof(msg),
				 "%s: READ_FIXED from "
				 "/dev/zero after %llu bytes",
				 what, (unsigned long long)done);
			ret = t_fail_val(msg, len - done, res);
			goto out;
		}
	}
	if (!all_zero(rb->addr + boff, len, &bad)) {
		ret = t_fail("%s: READ_FIXED from /dev/zero left non-zero data "
			     "at offset 0x%llx of %llu bytes",
			     what, (unsigned long long)bad,
			     (unsigned long long)len);
		goto out;
	}
	ret = check_guards(rb, boff, len, what);
	if (ret)
		goto out;
	t_pattern_fill(rb->addr + boff, len, T_BG_SEED, boff);
	res = t_io(rb->ring, IORING_OP_WRITE_FIXED, fd, rb->addr + boff, len, 0,
		   rb->idx);
	if (res != (int)len) {
		snprintf(msg, sizeof(msg), "%s: WRITE_FIXED to /dev/zero",
			 what);
		ret = t_fail_val(msg, len, res);
	} else {
		ret = t_pass(); /* WRITE_FIXED to /dev/zero took it all */
	}
out:
	close(fd);
	return ret;
}

int t_read_fixed_alias(const struct t_regbuf *rb, const struct t_file *f,
		       int fd, uint64_t period, uint64_t bg_seed, uint64_t boff,
		       uint64_t len, uint64_t foff, const char *name,
		       char *what, size_t what_len)
{
	uint64_t in = boff & (period - 1), first = period - in;
	int res, ret;

	if (first > len)
		first = len;
	t_pattern_fill(rb->addr, period, bg_seed, 0);
	res = t_io(rb->ring, IORING_OP_READ_FIXED, fd, rb->addr + boff, len,
		   foff, rb->idx);
	snprintf(what, what_len, "%s: READ_FIXED [0x%llx, +0x%llx)%s", name,
		 (unsigned long long)boff, (unsigned long long)len,
		 fd == f->dfd ? " O_DIRECT" : "");
	if (res != (int)len)
		return t_fail_val(what, len, res);
	/* the part in this alias lands at @in of the memory */
	ret = t_pattern_verify(what, rb->addr + in, first, f->seed, foff);
	/* the rest, in the next alias, at the memory's start */
	if (!ret && len > first)
		ret = t_pattern_verify(what, rb->addr, len - first, f->seed,
				       foff + first);
	return ret;
}

int t_write_fixed_alias(const struct t_regbuf *rb, struct t_file *f, int fd,
			uint64_t period, uint64_t seed, const char *name)
{
	uint64_t i, copies = rb->len / period;
	char *copy = malloc(period), what[160];
	int res, ret;

	if (!copy)
		return t_fail("out of memory for a %llu-byte read buffer",
			      (unsigned long long)period);
	t_pattern_fill(rb->addr, period, seed, 0);
	ret = t_file_poison(f, 0, rb->len);
	if (ret)
		goto out;
	snprintf(what, sizeof(what), "%s: WRITE_FIXED of all %llu aliases",
		 name, (unsigned long long)copies);
	res = t_io(rb->ring, IORING_OP_WRITE_FIXED, fd, rb->addr, rb->len, 0,
		   rb->idx);
	if (res != (int)rb->len) {
		ret = t_fail_val(what, rb->len, res);
		goto out;
	}
	for (i = 0; i < copies && !ret; i++) {
		if (pread(f->fd, copy, period, i * period) != (ssize_t)period) {
			ret = t_fail("%s: reading back the file: %s", what,
				     strerror(errno));
			break;
		}
		snprintf(what, sizeof(what),
			 "%s: WRITE_FIXED of all aliases, file copy %llu", name,
			 (unsigned long long)i);
		ret = t_pattern_verify(what, copy, period, seed, 0);
	}
out:
	free(copy);
	return t_worst(ret, t_file_restore(f, 0, rb->len));
}
