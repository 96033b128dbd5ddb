/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the engine: its one way into the kernel on the I/O path,
 * shared by the fast path (engines/hugebuf.c) and the piece machine
 * (engines/pieces.c).  Inline: neither pays a call for it.
 */
#ifndef HUGEBUF_ENGINE_ENTER_H
#define HUGEBUF_ENGINE_ENTER_H

#include <errno.h>
#include <signal.h>

#include <liburing.h>

#include "hugebuf-engine.h"

/*
 * liburing's io_uring_enter() through the GOT rather than a PLT stub (one
 * jump less per entry).
 */
extern int io_uring_enter(unsigned int fd, unsigned int to_submit,
			  unsigned int min_complete, unsigned int flags,
			  sigset_t *sig) __attribute__((noplt));

/*
 * The engine's only way into the kernel on the I/O path: one
 * io_uring_enter() that submits every prepared SQE and, with
 * IORING_ENTER_GETEVENTS, runs the ring's task work (with DEFER_TASKRUN
 * that is what posts completions) and waits for @wait CQEs.  An SQPOLL
 * ring that need not wait enters only to wake its thread.  Returns the
 * SQEs submitted or -errno.
 */
static inline __attribute__((always_inline)) int hbe_enter(struct hbe_data *hd,
							   unsigned int wait)
{
	struct io_uring_sq *sq = &hd->ring.sq;
	unsigned int tail = sq->sqe_tail;
	unsigned int flags = IORING_ENTER_GETEVENTS;
	int ret;

	if (hd->sqpoll) {
		ret = wait ? io_uring_submit_and_wait(&hd->ring, wait) :
			     io_uring_submit(&hd->ring);
		goto out;
	}
	/*
	 * Not SQPOLL: what liburing 2.3's io_uring_submit_and_wait() and
	 * io_uring_submit_and_get_events() do for such a ring, without
	 * their tests of the ring's mode (one call, not three): publish
	 * the SQ tail (the kernel reads it in io_submit_sqes()), then one
	 * io_uring_enter() with GETEVENTS, submitting everything between
	 * the kernel's SQ head and the tail, by the registered ring index
	 * when there is one (enter_ring_fd is the fd otherwise).
	 */
	if (sq->sqe_head != tail) {
		sq->sqe_head = tail;
		io_uring_smp_store_release(sq->ktail, tail);
	}
	if (hd->ring_fd_registered)
		flags |= IORING_ENTER_REGISTERED_RING;
	ret = io_uring_enter(hd->ring.enter_ring_fd, tail - *sq->khead, wait,
			     flags, NULL);
out:
	if (ret >= 0)
		hd->sqes_pending = 0;
	return ret;
}

/* errors of an entry that a later one retries: nothing is lost */
static inline bool hbe_enter_retry(int ret)
{
	return ret == -EINTR || ret == -EAGAIN || ret == -EBUSY ||
	       ret == -ETIME;
}

/* A fast slot's CQE for its whole transfer: the io_u is done as it is. */
static inline bool hbe_cqe_whole(struct hbe_slot *s, int res)
{
	return s->fast && res >= 0 &&
	       (unsigned long long)res == s->io_u->xfer_buflen;
}

#endif
