// SPDX-License-Identifier: GPL-2.0-only
/*
 * Every kind of consumer of a registered hugepage buffer
 * (docs/kernel-rules.md §5.4: the importers of 6.1 and later;
 * docs/regression-matrix.md).
 *
 * The imu's bvec table is handed on as is: to the block layer for
 * O_DIRECT (bio_iov_bvec_set()), copied from/to the page cache for
 * buffered I/O, walked by iov_iter for files without ->read_iter
 * semantics of their own (/dev/zero, liburing issue #549), and turned into
 * skb frags by SEND_ZC with IORING_RECVSEND_FIXED_BUF (multi-page frags
 * from one folio).  A buffer of two 2 MiB hugetlb folios is registered and
 * used across the folio seam by:
 *  - O_DIRECT and buffered READ_FIXED/WRITE_FIXED on an ext4 file, and
 *    /dev/zero (the data sweep);
 *  - O_DIRECT READ_FIXED from the raw block device under the scratch
 *    directory, READ-ONLY (never written), compared with a plain O_DIRECT
 *    read of the same sectors;
 *  - SEND_ZC of the fixed buffer over TCP loopback, the receiver compares
 *    the bytes (skipped where the kernel has no SEND_ZC);
 * plus the model's import against the probe, the block request count, and
 * VmPin / free hugepages back at their baseline.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "helpers.h"

#define BUF_LEN (2 * T_SZ_2M)
#define FILE_SIZE (BUF_LEN + (64 << 10))
#define SEAM_OFF (T_SZ_2M - (512 << 10))
#define SEAM_LEN (1 << 20)
#define DEV_OFF (64ULL << 20)
#define SEED_SEND 0xc0ffULL

/* O_DIRECT read of the same device range into plain memory */
static int ref_read(int fd, char *ref, uint64_t len, uint64_t off)
{
	return pread(fd, ref, len, off) == (ssize_t)len ? 0 : -1;
}

static int raw_device(const struct t_regbuf *rb, struct t_file *f)
{
	char path[64], *ref1 = NULL, *ref2 = NULL;
	int fd, tries, res, ret = T_EXIT_PASS;

	if (!f->blkdev[0]) {
		return t_skip_check("raw block device: no block device under "
				    "%s",
				    f->dir);
	}
	snprintf(path, sizeof(path), "/dev/%s", f->blkdev);
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	if (fd < 0) {
		return t_skip_check("raw block device: open %s read-only: %s",
				    path, strerror(errno));
	}
	if (posix_memalign((void **)&ref1, 4096, SEAM_LEN) ||
	    posix_memalign((void **)&ref2, 4096, SEAM_LEN)) {
		ret = t_fail("out of memory");
		goto out;
	}
	/* the file system may write there meanwhile: retry a changed range */
	for (tries = 0; tries < 5; tries++) {
		if (ref_read(fd, ref1, SEAM_LEN, DEV_OFF)) {
			t_skip_check("raw block device: %s is smaller than "
				     "%llu bytes or unreadable",
				     path, DEV_OFF + SEAM_LEN);
			goto out;
		}
		memset(rb->addr + SEAM_OFF, 0xa5, SEAM_LEN);
		res = t_io(rb->ring, IORING_OP_READ_FIXED, fd,
			   rb->addr + SEAM_OFF, SEAM_LEN, DEV_OFF, rb->idx);
		if (res != SEAM_LEN) {
			ret = t_fail_val("READ_FIXED O_DIRECT from the raw "
					 "device",
					 SEAM_LEN, res);
			goto out;
		}
		if (ref_read(fd, ref2, SEAM_LEN, DEV_OFF) ||
		    memcmp(ref1, ref2, SEAM_LEN))
			continue;
		if (memcmp(ref1, rb->addr + SEAM_OFF, SEAM_LEN)) {
			size_t i = 0;

			while (ref1[i] == rb->addr[SEAM_OFF + i])
				i++;
			ret = t_fail(
				"READ_FIXED from %s across the folio seam: "
				"byte 0x%zx of %d differs from a plain "
				"O_DIRECT read",
				path, i, SEAM_LEN);
			goto out;
		}
		t_info("raw block device %s: READ_FIXED O_DIRECT across the "
		       "folio seam matches a plain read",
		       path);
		ret = t_pass();
		goto out;
	}
	t_skip_check("raw block device: the range kept changing");
out:
	free(ref1);
	free(ref2);
	close(fd);
	return ret;
}

static bool send_zc_supported(struct io_uring *ring)
{
	struct io_uring_probe *p = io_uring_get_probe_ring(ring);
	bool ok = p && io_uring_opcode_supported(p, IORING_OP_SEND_ZC);

	if (p)
		io_uring_free_probe(p);
	return ok;
}

static int tcp_pair(int *tx, int *rx)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t alen = sizeof(a);
	int l, one = 1;

	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (l < 0)
		return -errno;
	if (bind(l, (struct sockaddr *)&a, sizeof(a)) || listen(l, 1) ||
	    getsockname(l, (struct sockaddr *)&a, &alen))
		goto fail;
	*tx = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (*tx < 0 || connect(*tx, (struct sockaddr *)&a, sizeof(a)))
		goto fail;
	*rx = accept(l, NULL, NULL);
	if (*rx < 0)
		goto fail;
	setsockopt(*tx, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	close(l);
	return 0;
fail:
	close(l);
	return -errno;
}

/*
 * Reap the send's CQE and its notification without blocking: @pending
 * counts both; a result without IORING_CQE_F_MORE has no notification.
 */
static void reap_send(struct io_uring *ring, int *res, int *pending)
{
	struct io_uring_cqe *cqe;

	while (!io_uring_peek_cqe(ring, &cqe)) {
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			(*pending)--;
		} else {
			*res = cqe->res;
			if (!(cqe->flags & IORING_CQE_F_MORE))
				(*pending)--;
			(*pending)--;
		}
		io_uring_cqe_seen(ring, cqe);
	}
}

static int send_zc(const struct t_regbuf *rb)
{
	char *rx_buf = malloc(SEAM_LEN);
	uint64_t sent = 0, got = 0;
	int tx = -1, rx = -1, ret = T_EXIT_PASS, err;

	if (!rx_buf)
		return t_fail("out of memory");
	if (!send_zc_supported(rb->ring)) {
		t_skip_check("SEND_ZC: not supported by this kernel");
		goto out;
	}
	err = tcp_pair(&tx, &rx);
	if (err) {
		t_skip_check("SEND_ZC: no TCP loopback: %s", strerror(-err));
		goto out;
	}
	t_pattern_fill(rb->addr + SEAM_OFF, SEAM_LEN, SEED_SEND, SEAM_OFF);
	while (sent < SEAM_LEN) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(rb->ring);
		int res = 0, pending = 2;

		io_uring_prep_send_zc_fixed(sqe, tx, rb->addr + SEAM_OFF + sent,
					    SEAM_LEN - sent, 0, 0, rb->idx);
		if (io_uring_submit(rb->ring) != 1) {
			ret = t_fail("submitting SEND_ZC");
			goto out;
		}
		/* receive while the ring sends */
		while (pending > 0) {
			ssize_t n = 0;

			reap_send(rb->ring, &res, &pending);
			if (pending <= 0)
				break;
			if (got < SEAM_LEN)
				n = recv(rx, rx_buf + got, SEAM_LEN - got,
					 MSG_DONTWAIT);
			if (n > 0)
				got += n;
			else /* task work posts the CQEs on the way back */
				usleep(1000);
		}
		if (res == -EINVAL || res == -EOPNOTSUPP) {
			t_skip_check("SEND_ZC with a fixed buffer: %s",
				     strerror(-res));
			goto out;
		}
		if (res <= 0) {
			ret = t_fail_val("SEND_ZC of the fixed buffer",
					 SEAM_LEN - sent, res);
			goto out;
		}
		sent += res;
	}
	while (got < SEAM_LEN) {
		ssize_t n = recv(rx, rx_buf + got, SEAM_LEN - got, 0);

		if (n <= 0) {
			ret = t_fail("receiving: %s",
				     n ? strerror(errno) : "connection closed");
			goto out;
		}
		got += n;
	}
	ret = t_pattern_verify("SEND_ZC fixed buffer across the folio seam, "
			       "received bytes",
			       rx_buf, SEAM_LEN, SEED_SEND, SEAM_OFF);
	if (!ret)
		t_info("SEND_ZC of 1 MiB across the folio seam over TCP "
		       "loopback: data ok");
out:
	if (tx >= 0)
		close(tx);
	if (rx >= 0)
		close(rx);
	free(rx_buf);
	return ret;
}

static int consumers(const struct t_case *c, const struct t_regbuf *rb,
		     const struct t_model *m, struct t_file *f)
{
	int ret;

	(void)c;
	(void)m;
	ret = raw_device(rb, f);
	if (!ret)
		ret = send_zc(rb);
	return ret;
}

static const struct t_case cases[] = {
	{
		.name = "hugetlb 2M x2, every consumer",
		.backing = "hugetlb:2M",
		.len = BUF_LEN,
		.pool_size = T_SZ_2M,
		.requests = true,
		.registered = consumers,
	},
};

int main(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		return t_done(t_skip("takes no arguments"));
	return t_done(
		t_run_cases(cases, T_ARRAY_SIZE(cases), FILE_SIZE, 0xc0c));
}
