/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * io_uring interfaces newer than, or missing from, Debian 12's liburing
 * 2.3, written from the kernel's uapi values (include/uapi/linux/
 * io_uring.h, nvme_ioctl.h).  Include after <liburing.h>.  No newer uapi
 * header is packaged for Debian 12 (liburing 2.9 and linux-libc-dev 6.12
 * predate READV_FIXED), so the tests that use these check the data they
 * move: t/regbuf-vectored.c, t/regbuf-clone.c, t/regbuf-passthrough.c.
 */
#ifndef HUGEBUF_URING_COMPAT_H
#define HUGEBUF_URING_COMPAT_H

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include <linux/nvme_ioctl.h>

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

/*
 * IORING_REGISTER_CLONE_BUFFERS (6.12, 7cc2a6eadcd7): give a ring the
 * registered buffers of another ring without pinning again.  src_off,
 * dst_off and nr arrived in 6.13 (before, the fields were padding that
 * must be zero, and the whole table was cloned).
 */
#define HB_IORING_REGISTER_CLONE_BUFFERS	30
#define HB_IORING_REGISTER_SRC_REGISTERED	(1U << 0)
#define HB_IORING_REGISTER_DST_REPLACE		(1U << 1)

struct hb_clone_buffers {
	__u32 src_fd;
	__u32 flags;
	__u32 src_off;
	__u32 dst_off;
	__u32 nr;
	__u32 pad[3];
};

/* Clone @nr buffers from @src's slot @src_off into @dst at @dst_off. */
static inline int hb_clone_buffers(struct io_uring *dst, struct io_uring *src,
				   unsigned int src_off, unsigned int dst_off,
				   unsigned int nr, unsigned int flags)
{
	struct hb_clone_buffers arg = {
		.src_fd = (__u32)src->ring_fd,
		.flags = flags,
		.src_off = src_off,
		.dst_off = dst_off,
		.nr = nr,
	};

	int ret = io_uring_register(dst->ring_fd,
				    HB_IORING_REGISTER_CLONE_BUFFERS, &arg, 1);

	/* liburing built on libc's syscall() returns -1 and sets errno */
	return ret == -1 ? -errno : ret;
}

/* NVM command set opcodes (NVMe base spec 2.0, "Opcodes for NVM") */
#define HB_NVME_CMD_FLUSH	0x00
#define HB_NVME_CMD_WRITE	0x01
#define HB_NVME_CMD_READ	0x02

/*
 * One NVMe command of namespace @nsid through IORING_OP_URING_CMD (5.19,
 * ee692a21e9bf) in a 128-byte SQE (the ring needs IORING_SETUP_SQE128 and
 * CQE32).  Read/write: @len bytes at byte @off of the namespace, both
 * whole 2^@lba_shift blocks (NLB in cdw12 is zero-based), from @addr;
 * with @fixed, @addr lies in registered buffer @buf_index
 * (IORING_URING_CMD_FIXED, 6.1, 9cda70f622cd).  Flush: no data.  The CQE's
 * res is 0, a negative errno, or the NVMe status.
 */
static inline void hb_prep_nvme_io(struct io_uring_sqe *sqe, int fd,
				   uint8_t opcode, uint32_t nsid, void *addr,
				   uint32_t len, uint64_t off,
				   unsigned int lba_shift, bool fixed,
				   unsigned int buf_index)
{
	struct nvme_uring_cmd *cmd = (struct nvme_uring_cmd *)sqe->cmd;
	uint64_t slba = off >> lba_shift;

	io_uring_prep_rw(IORING_OP_URING_CMD, sqe, fd, NULL, 0, 0);
	sqe->cmd_op = NVME_URING_CMD_IO;
	memset(cmd, 0, sizeof(*cmd));
	cmd->opcode = opcode;
	cmd->nsid = nsid;
	if (opcode == HB_NVME_CMD_FLUSH)
		return;
	cmd->addr = (uintptr_t)addr;
	cmd->data_len = len;
	cmd->cdw10 = slba & 0xffffffffu;
	cmd->cdw11 = slba >> 32;
	cmd->cdw12 = ((len >> lba_shift) - 1) & 0xffff;
	if (fixed) {
		sqe->uring_cmd_flags = IORING_URING_CMD_FIXED;
		sqe->buf_index = buf_index;
	}
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
