// SPDX-License-Identifier: GPL-2.0-only
/*
 * The piece machine: the I/O that is not one SQE from a slot's template.
 * An io_u becomes pieces, one SQE each: chunk_size cuts it into several,
 * vec_iovecs cuts its one piece into iovecs (READV/WRITEV_FIXED), an NVMe
 * command, a sync, nonvectored=0 without fixedbufs (READV of one iovec)
 * and force_async are one piece.  A short transfer is resubmitted for the
 * remainder and -EAGAIN as it is; the io_u completes when its last piece
 * does.  A fast slot whose CQE was not its whole transfer continues here
 * as one piece.  hugebuf.c's fast path calls in only for such I/O.
 */
#include <errno.h>
#include <string.h>

#include <liburing.h>

#include "hugebuf-engine.h"
#include "base/uring-compat.h"
#include "enter.h"

static void hbe_prep_rw(struct hbe_data *hd, struct io_uring_sqe *sqe,
			int fd, struct hbe_piece *pc, bool fixed)
{
	struct io_u *io_u = pc->slot->io_u;
	bool rd = io_u->ddir == DDIR_READ;

	if (fixed && pc->viov) {
		/* vec_iovecs: READV/WRITEV_FIXED over cuts of the buffer */
		const struct hb_jobplan *p = &hd->job->plan;
		unsigned int n = hb_vec_split(pc->addr, pc->len, p->vec_iovecs,
					      p->vec_offset, p->dio_align,
					      pc->viov);

		if (rd)
			hb_prep_readv_fixed(sqe, fd, pc->viov, n, pc->off,
					    pc->slot->buf_index);
		else
			hb_prep_writev_fixed(sqe, fd, pc->viov, n, pc->off,
					     pc->slot->buf_index);
	} else if (fixed) {
		if (rd)
			io_uring_prep_read_fixed(sqe, fd, pc->addr, pc->len,
						 pc->off, pc->slot->buf_index);
		else
			io_uring_prep_write_fixed(sqe, fd, pc->addr, pc->len,
						  pc->off, pc->slot->buf_index);
	} else if (hd->u.vectored) {
		pc->iov.iov_base = pc->addr;
		pc->iov.iov_len = pc->len;
		if (rd)
			io_uring_prep_readv(sqe, fd, &pc->iov, 1, pc->off);
		else
			io_uring_prep_writev(sqe, fd, &pc->iov, 1, pc->off);
	} else if (rd) {
		io_uring_prep_read(sqe, fd, pc->addr, pc->len, pc->off);
	} else {
		io_uring_prep_write(sqe, fd, pc->addr, pc->len, pc->off);
	}
	sqe->rw_flags = hd->u.rw_flags | (rd ? 0 : hd->u.write_flags);
	if (hd->meta.on)
		hbe_meta_prep(hd, sqe, pc);
	/*
	 * As fio's io_uring: the submitter may be an SQPOLL thread, so the
	 * priority goes in every SQE (cmdprio* may raise it per I/O).
	 */
	sqe->ioprio = io_u->ioprio;
}

static void hbe_prep_piece(struct thread_data *td, struct hbe_data *hd,
			  struct io_uring_sqe *sqe, struct hbe_piece *pc)
{
	struct hbe_options *o = hbe_opts(td);
	struct io_u *io_u = pc->slot->io_u;
	struct fio_file *f = io_u->file;
	int fd = o->registerfiles ? f->fileno : f->fd;
	bool unreg = hd->u.write_unreg && io_u->ddir == DDIR_WRITE;

	if (hd->pt) {
		if (hbe_nvme_prep(td, hd, sqe, fd, pc, o->fixedbufs,
				  pc->slot->buf_index)) {
			/* not whole LBAs: fail the io_u, the NOP says so */
			pc->slot->error = EINVAL;
			io_uring_prep_nop(sqe);
		}
	} else if (io_u->ddir == DDIR_TRIM) {
		hbe_trim_prep(td, hd, sqe, fd, pc, 0, 0);
	} else if (ddir_rw(io_u->ddir)) {
		/* atomic writes unregistered: IORING_OP_WRITE, counted */
		hd->unreg_writes += unreg;
		hbe_prep_rw(hd, sqe, fd, pc, o->fixedbufs && !unreg);
	} else {
		io_uring_prep_fsync(sqe, fd, io_u->ddir == DDIR_DATASYNC ?
					     IORING_FSYNC_DATASYNC : 0);
	}
	if (o->registerfiles)
		sqe->flags |= IOSQE_FIXED_FILE;
	if (hd->u.force_async && ++hd->prepped >= hd->u.force_async) {
		hd->prepped = 0;
		sqe->flags |= IOSQE_ASYNC;
	}
	io_uring_sqe_set_data(sqe, pc);
}

static int hbe_submit_piece(struct thread_data *td, struct hbe_data *hd,
			   struct hbe_piece *pc)
{
	struct io_uring_sqe *sqe;

	sqe = io_uring_get_sqe(&hd->ring);
	while (!sqe) {
		/* SQ full (more pieces than entries): send what is there */
		int ret = hbe_enter(hd, 0);

		if (ret < 0 && !hbe_enter_retry(ret))
			return ret;
		sqe = io_uring_get_sqe(&hd->ring);
	}
	hbe_prep_piece(td, hd, sqe, pc);
	pc->slot->pending++;
	hd->sqes_pending++;
	return 0;
}

/*
 * A fast slot whose CQE was not its whole transfer continues as the one
 * piece hbe_queue_pieces() would have made of it.
 */
static void hbe_fast_to_piece(struct hbe_slot *s)
{
	struct io_u *io_u = s->io_u;
	struct hbe_piece *pc = &s->pieces[0];

	s->fast = false;
	s->pending = 1;
	s->nr_pieces = 1;
	s->done = 0;
	s->error = 0;
	s->eof = false;
	pc->off = io_u->offset;
	pc->addr = io_u->xfer_buf;
	pc->len = io_u->xfer_buflen;
}

/* A slot about to go out as @n pieces of @io_u. */
void hbe_slot_start(struct hbe_slot *s, struct io_u *io_u, unsigned int n)
{
	s->io_u = io_u;
	s->fast = false;
	s->pending = 0;
	s->nr_pieces = n;
	s->done = 0;
	s->error = 0;
	s->eof = false;
}

/*
 * The slot's pieces, set up by the caller (hbe_slot_start() and each
 * piece's file range and address), one SQE each.
 */
enum fio_q_status hbe_submit_slot(struct thread_data *td, struct hbe_data *hd,
				  struct io_u *io_u)
{
	struct hbe_slot *s = hbe_slot_of(hd, io_u);
	unsigned int i;
	int ret;

	for (i = 0; i < s->nr_pieces; i++) {
		ret = hbe_submit_piece(td, hd, &s->pieces[i]);
		if (ret) {
			/* earlier pieces are in flight; fail the rest */
			s->error = -ret;
			if (!s->pending) {
				io_u->error = -ret;
				return FIO_Q_COMPLETED;
			}
			break;
		}
	}
	hd->queued[hd->nr_queued++] = io_u;
	return FIO_Q_QUEUED;
}

/*
 * Everything else: a sync, and the jobs whose I/O is pieces
 * (chunk_size), cut into iovecs (vec_iovecs) or NVMe commands.
 */
enum fio_q_status
hbe_queue_pieces(struct thread_data *td, struct hbe_data *hd,
		 struct io_u *io_u)
{
	struct hbe_options *o = hd->o;
	struct hbe_slot *s = hbe_slot_of(hd, io_u);
	unsigned long long left, chunk, off;
	char *addr;
	unsigned int n;

	/* only chunk_size cuts an io_u into more than one piece */
	chunk = io_u->xfer_buflen;
	n = 1;
	if (o->chunk_size && ddir_rw(io_u->ddir) && chunk > o->chunk_size) {
		chunk = o->chunk_size;
		n = (io_u->xfer_buflen + chunk - 1) / chunk;
	}

	hbe_slot_start(s, io_u, n);
	left = io_u->xfer_buflen;
	off = io_u->offset;
	addr = io_u->xfer_buf;
	for (unsigned int i = 0; i < n; i++) {
		struct hbe_piece *pc = &s->pieces[i];
		unsigned long long l = left < chunk ? left : chunk;

		pc->slot = s;
		pc->off = off;
		pc->addr = addr;
		pc->len = l;
		off += l;
		addr += l;
		left -= l;
	}
	return hbe_submit_slot(td, hd, io_u);
}

static void hbe_slot_done(struct hbe_data *hd, struct hbe_slot *s)
{
	struct io_u *io_u = s->io_u;

	if (s->error) {
		io_u->error = s->error;
	} else {
		io_u->error = 0;
		if (s->done < io_u->xfer_buflen)
			io_u->resid = io_u->xfer_buflen - s->done;
	}
	hd->events[hd->nr_events++] = io_u;
}

/*
 * One CQE.  A short transfer is resubmitted for the remainder (0 = end of
 * file: the rest is reported as resid); -EAGAIN is resubmitted as is.
 * The new SQE goes out with the engine's next entry.
 */
static int hbe_complete_piece(struct thread_data *td, struct hbe_data *hd,
			     struct hbe_piece *pc, int res)
{
	struct hbe_slot *s = pc->slot;
	bool rw = ddir_rw(s->io_u->ddir);

	s->pending--;
	/* a discard's success is 0: its whole range */
	if (!res && s->io_u->ddir == DDIR_TRIM)
		res = pc->len;
	/* RWF_NOWAIT: -EAGAIN is the answer, as in fio's io_uring */
	if (res == -EINTR || (res == -EAGAIN && !(hd->u.rw_flags &
						   RWF_NOWAIT)))
		goto resubmit;
	if (res < 0) {
		if (!s->error)
			s->error = -res;
	} else if (rw) {
		s->done += res;
		if (res == 0) {
			s->eof = true;
		} else if ((unsigned long long)res < pc->len && !s->eof &&
			   !s->error) {
			pc->off += res;
			pc->addr += res;
			pc->len -= res;
			goto resubmit;
		}
	}
	if (!s->pending)
		hbe_slot_done(hd, s);
	return 0;
resubmit:
	if (hbe_submit_piece(td, hd, pc)) {
		if (!s->error)
			s->error = EIO;
		if (!s->pending)
			hbe_slot_done(hd, s);
	}
	return 0;
}

/*
 * The CQ from its head, up to @max completed io_us, with any result:
 * short, -EAGAIN and errors go through the piece path, which may
 * resubmit.  One store of the head for the batch.
 */
void hbe_reap_pieces(struct thread_data *td, struct hbe_data *hd,
		     unsigned int max)
{
	struct io_uring_cq *cq = &hd->ring.cq;
	unsigned int shift = io_uring_cqe_shift(&hd->ring);
	unsigned int head = *cq->khead;
	unsigned int tail = io_uring_smp_load_acquire(cq->ktail);

	while (head != tail && hd->nr_events < max) {
		struct io_uring_cqe *cqe =
			&cq->cqes[(head & cq->ring_mask) << shift];
		struct hbe_piece *pc = io_uring_cqe_get_data(cqe);
		struct hbe_slot *s = pc->slot;
		int res = cqe->res;

		head++;
		if (hbe_cqe_whole(s, res)) {
			s->io_u->error = 0;
			hd->events[hd->nr_events++] = s->io_u;
			continue;
		}
		if (s->fast)
			hbe_fast_to_piece(s);
		if (hd->pt)
			res = hbe_nvme_result(hd, pc, res);
		else if (hd->meta.host)
			res = hbe_meta_result(hd, pc, res);
		hbe_complete_piece(td, hd, pc, res);
	}
	io_uring_smp_store_release(cq->khead, head);
}
