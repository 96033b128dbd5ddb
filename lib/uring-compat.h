/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io_uring interfaces newer than Debian 12's liburing 2.3, written from the
 * kernel's uapi values (include/uapi/linux/io_uring.h).  Include after
 * <liburing.h>.  t/unit-uring-compat.c checks the values against the
 * running kernel's opcode probe and, where a newer header is installed,
 * against that header.
 */
#ifndef HUGEBUF_URING_COMPAT_H
#define HUGEBUF_URING_COMPAT_H

#include <stdbool.h>
#include <stdlib.h>
#include <sys/uio.h>

/* enum io_uring_op: 6.15 (9ef4cbbcb4ac "add infra for importing vectored
 * reg buffers" and the READV/WRITEV_FIXED opcodes after IORING_OP_EPOLL_WAIT)
 */
#define HB_IORING_OP_READV_FIXED	60
#define HB_IORING_OP_WRITEV_FIXED	61

/*
 * READV_FIXED: a READV whose iovecs all lie inside registered buffer
 * @buf_index (addr = iovec array, len = count, off = file offset).
 */
static inline void hb_prep_readv_fixed(struct io_uring_sqe *sqe, int fd,
				       const struct iovec *iov,
				       unsigned int nr, unsigned long long off,
				       int buf_index)
{
	io_uring_prep_rw(HB_IORING_OP_READV_FIXED, sqe, fd, iov, nr, off);
	sqe->buf_index = buf_index;
}

static inline void hb_prep_writev_fixed(struct io_uring_sqe *sqe, int fd,
					const struct iovec *iov,
					unsigned int nr,
					unsigned long long off, int buf_index)
{
	io_uring_prep_rw(HB_IORING_OP_WRITEV_FIXED, sqe, fd, iov, nr, off);
	sqe->buf_index = buf_index;
}

/* Whether the running kernel has opcode @op (IORING_REGISTER_PROBE). */
static inline bool hb_uring_op_supported(struct io_uring *ring, int op)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	bool ok;

	if (!p)
		return false;
	ok = io_uring_opcode_supported(p, op);
	io_uring_free_probe(p);
	return ok;
}

#endif /* HUGEBUF_URING_COMPAT_H */
