// SPDX-License-Identifier: GPL-2.0-only
/*
 * io_uring buffer registration over liburing, with every errno the kernel
 * returns turned into a message that names the cause and the fix.  The
 * errno meanings follow io_uring/rsrc.c (io_buffer_validate,
 * io_sqe_buffers_register, io_pin_pages) and mm/gup.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <linux/capability.h>

#include <liburing.h>

#include "resource/resource.h"

const char *hb_register_strerror(int err)
{
	switch (err < 0 ? -err : err) {
	case 0:
		return "success";
	case ENOMEM:
		return "pinning the buffers exceeds RLIMIT_MEMLOCK: raise it "
		       "with ulimit -l or run with CAP_IPC_LOCK";
	case EFAULT:
		return "a buffer is over 1 GiB, has zero length, or is not "
		       "anonymous/shmem/hugetlbfs memory (file-backed "
		       "mappings cannot be pinned long-term)";
	case EOVERFLOW:
		return "a buffer's address range wraps around the end of the "
		       "address space";
	case EINVAL:
		return "too many buffers (more than 16384) or bad arguments";
	case EBUSY:
		return "buffers are already registered on this ring: "
		       "unregister them first";
	case EOPNOTSUPP:
		return "file-backed memory other than shmem/hugetlbfs cannot "
		       "be registered (kernels before 6.5 say EOPNOTSUPP)";
	case ENXIO:
		return "no buffer table registered on this ring: register "
		       "buffers (or a sparse table) first";
	case EPERM:
		return "io_uring is disabled for this process "
		       "(/proc/sys/kernel/io_uring_disabled)";
	default:
		return "unexpected error from io_uring_register";
	}
}

/* Pages a buffer pins, as io_pin_pages counts them. */
static uint64_t pinned_bytes(const struct iovec *iov, unsigned int nr)
{
	uint64_t sum = 0;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		uint64_t a = (uintptr_t)iov[i].iov_base;

		sum += HB_ALIGN_UP(a + iov[i].iov_len, HB_PAGE_SIZE) -
		       HB_ALIGN_DOWN(a, HB_PAGE_SIZE);
	}
	return sum;
}

static int enomem_message(const struct iovec *iov, unsigned int nr)
{
	uint64_t need = pinned_bytes(iov, nr);
	struct rlimit rl = { 0, 0 };
	char lim[32];

	getrlimit(RLIMIT_MEMLOCK, &rl);
	if (rl.rlim_cur == RLIM_INFINITY)
		snprintf(lim, sizeof(lim), "unlimited");
	else
		snprintf(lim, sizeof(lim), "%llu KiB",
			 (unsigned long long)rl.rlim_cur >> 10);
	return hb_seterr(ENOMEM, "registering %llu MiB needs RLIMIT_MEMLOCK "
			 ">= %llu KiB plus what this user already has locked, "
			 "whole hugepages counted (ulimit -l is %s): raise it "
			 "with ulimit -l or run with CAP_IPC_LOCK",
			 (unsigned long long)(need >> 20),
			 (unsigned long long)(need >> 10), lim);
}

/* Name the first buffer io_buffer_validate() rejects with EFAULT. */
static int efault_message(const struct iovec *iov, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (!iov[i].iov_len)
			return hb_seterr(EFAULT, "buffer %u has zero length: "
					 "give every buffer a length", i);
		if (iov[i].iov_len > HB_MAX_BUF_LEN)
			return hb_seterr(EFAULT, "buffer %u is %zu bytes, over "
					 "the 1 GiB per-buffer limit: split it "
					 "with hb_region_iovecs()", i,
					 iov[i].iov_len);
		if (!iov[i].iov_base)
			return hb_seterr(EFAULT, "buffer %u has a NULL address "
					 "and a length", i);
	}
	return hb_seterr(EFAULT, "a buffer is not mapped, or is file-backed "
			 "memory that cannot be pinned long-term: use "
			 "anonymous, shmem or hugetlb memory");
}

static int einval_message(unsigned int nr)
{
	if (nr > HB_MAX_REG_BUFFERS)
		return hb_seterr(EINVAL, "%u buffers are more than the %u a "
				 "ring can register: register fewer, larger "
				 "buffers", nr, HB_MAX_REG_BUFFERS);
	return hb_seterr(EINVAL, "io_uring_register_buffers rejected the "
			 "arguments (%u buffers): check the ring and the "
			 "iovec array", nr);
}

static int register_error(int err, const struct iovec *iov, unsigned int nr)
{
	switch (err) {
	case ENOMEM:
		return enomem_message(iov, nr);
	case EFAULT:
		return efault_message(iov, nr);
	case EOVERFLOW:
		return hb_seterr(EOVERFLOW, "a buffer's address range wraps "
				 "around the end of the address space: check "
				 "the addresses and lengths");
	case EINVAL:
		return einval_message(nr);
	default:
		return hb_seterr(err, "registering %u buffers failed: %s (%s)",
				 nr, hb_register_strerror(err), strerror(err));
	}
}

int hb_register_buffers(struct io_uring *ring, const struct iovec *iov,
			unsigned int nr)
{
	int ret;

	if (!ring || !iov || !nr)
		return hb_seterr(EINVAL, "nothing to register: need a ring and "
				 "at least one buffer");
	if (nr > HB_MAX_REG_BUFFERS)
		return einval_message(nr);
	ret = io_uring_register_buffers(ring, iov, nr);
	if (ret < 0)
		return register_error(-ret, iov, nr);
	return 0;
}

int hb_register_sparse(struct io_uring *ring, unsigned int nr)
{
	int ret;

	if (!ring || !nr)
		return hb_seterr(EINVAL, "a sparse table needs a ring and at "
				 "least one slot");
	if (nr > HB_MAX_REG_BUFFERS)
		return einval_message(nr);
	ret = io_uring_register_buffers_sparse(ring, nr);
	if (ret == -EINVAL) {
		/*
		 * No IORING_RSRC_REGISTER_SPARSE (5.19): 5.13 - 5.18 and
		 * 5.10.162+ (5.15's io_uring) take an iovec of NULL base and
		 * zero length as an empty slot (c3a40789f6ba), the same slot
		 * the flag makes; older kernels refuse it with EFAULT.
		 */
		struct iovec *empty = calloc(nr, sizeof(*empty));
		int alt;

		if (!empty)
			return hb_seterr(ENOMEM, "out of memory for %u empty "
					 "slots", nr);
		alt = io_uring_register_buffers(ring, empty, nr);
		free(empty);
		if (!alt)
			return 0;
	}
	if (ret < 0)
		return hb_seterr(-ret, "registering a sparse table of %u slots "
				 "failed: %s (%s)", nr,
				 hb_register_strerror(ret), strerror(-ret));
	return 0;
}

/*
 * IORING_REGISTER_BUFFERS2 updates stop at the first failing slot and
 * return how many were done, hiding the errno (__io_sqe_buffers_update
 * returns "done ? done : err"): retry the failing slot alone to learn it.
 */
int hb_register_update(struct io_uring *ring, unsigned int off,
		       const struct iovec *iov, unsigned int nr)
{
	int ret;

	if (!ring || !iov || !nr)
		return hb_seterr(EINVAL, "nothing to update: need a ring and "
				 "at least one buffer");
	ret = io_uring_register_buffers_update_tag(ring, off, iov, NULL, nr);
	if (ret < 0)
		return register_error(-ret, iov, nr);
	if ((unsigned int)ret < nr) {
		unsigned int bad = ret;

		ret = io_uring_register_buffers_update_tag(ring, off + bad,
							   iov + bad, NULL, 1);
		if (ret < 0) {
			char msg[512];

			register_error(-ret, iov + bad, 1);
			snprintf(msg, sizeof(msg), "%s", hb_errmsg());
			return hb_seterr(ret, "slot %u: %s", off + bad, msg);
		}
		return hb_seterr(EIO, "only %u of %u slots were updated "
				 "(slot %u failed, then succeeded alone)", bad,
				 nr, off + bad);
	}
	return 0;
}

/*
 * A ring whose registrations are charged: with CAP_IPC_LOCK the thread's
 * effective set drops it for io_uring_queue_init() and raises it again
 * (capset() changes this thread only).  *@checked: RLIMIT_MEMLOCK applies
 * to the ring.  0, or -1 when no such ring could be made.
 */
int hb_ring_init_charged(struct io_uring *ring, unsigned int entries,
			 bool *checked)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2], drop[2];
	int ret;

	*checked = true;
	if (!hb_sys_cap_ipc_lock())
		return io_uring_queue_init(entries, ring, 0) ? -1 : 0;
	if (syscall(SYS_capget, &hdr, data))
		return -1;
	memcpy(drop, data, sizeof(drop));
	drop[CAP_IPC_LOCK / 32].effective &= ~(1U << (CAP_IPC_LOCK % 32));
	if (syscall(SYS_capset, &hdr, drop))
		return -1;
	ret = io_uring_queue_init(entries, ring, 0);
	/* permitted still holds it: raising it again cannot fail */
	syscall(SYS_capset, &hdr, data);
	return ret ? -1 : 0;
}
