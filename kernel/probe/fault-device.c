// SPDX-License-Identifier: GPL-2.0-only
/*
 * fault-device: a failing disk under registered hugepage buffers, run in
 * the qemu guest by kernel/ktest.sh (the host has no device-mapper for
 * dm-error; the guest kernel has request fault injection).
 *
 * The file is written in full first, so that the O_DIRECT writes below
 * touch no file-system metadata. Then fail_make_request (should_fail_bio(),
 * CONFIG_FAIL_MAKE_REQUEST) is armed for the disk under the file
 * (/sys/block/DISK/make-it-fail) and, through task-filter, for this task
 * only: the journal thread's writes never fail. CHUNKS WRITE_FIXED of
 * CHUNK bytes each, from different offsets of one registered 8 MiB
 * hugetlb buffer, each with its own pattern; about half fail with -EIO.
 * With the injection off again, every chunk the kernel acknowledged is
 * read back with READ_FIXED (O_DIRECT) and compared byte for byte.
 * Then VmPin, HugePages_Free and the pins held (nr_foll_pin_acquired -
 * nr_foll_pin_released) must be back at their baseline.
 *
 * Output: one "FAILDEV ..." line; exit 0 pass, 1 fail, 77 no injection.
 *
 * Usage: fault-device FILE DISK   (e.g. /nvme/faildev.dat nvme0n1)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../t/helpers.h"

#define BUF_LEN		(8u << 20)
#define CHUNK		(128u << 10)
#define CHUNKS		64
#define DBG		"/sys/kernel/debug/fail_make_request/"

/* chunk c holds the pattern of its file offset c * CHUNK */
#define SEED		3

/* fail_make_request for this task on DISK, with probability pct */
static int arm(const char *disk, int pct)
{
	char path[256], val[16];

	snprintf(path, sizeof(path), "/sys/block/%s/make-it-fail", disk);
	snprintf(val, sizeof(val), "%d", pct);
	if (t_knob_write(DBG "verbose", "0", 0) ||
	    t_knob_write(DBG "task-filter", pct ? "Y" : "N", 0) ||
	    t_knob_write(DBG "times", "-1", 0) ||
	    t_knob_write(DBG "interval", "1", 0) ||
	    t_knob_write(DBG "probability", val, 0) ||
	    t_knob_write("/proc/self/make-it-fail", pct ? "1" : "0", 0) ||
	    t_knob_write(path, pct ? "1" : "0", 0))
		return -1;
	return 0;
}

int main(int argc, char **argv)
{
	long vmpin0, hp0, held0, vmpin1, hp1, held1;
	unsigned int c, acked = 0, failed = 0, bad = 0, other = 0;
	int ok[CHUNKS], fd, ret;
	struct io_uring ring;
	struct iovec iov;
	struct hb_buf hb;
	uint8_t *buf, *p;
	long bad_at;

	if (argc != 3) {
		fprintf(stderr, "usage: %s FILE DISK\n", argv[0]);
		return 2;
	}
	if (access(DBG "probability", W_OK)) {
		printf("FAILDEV skip=no fail_make_request in debugfs\n");
		return 77;
	}
	vmpin0 = hb_vmpin_kb();
	hp0 = hb_hugepages_free(T_SZ_2M);
	held0 = t_pins_held();
	if (t_alloc_errno("hugetlb:2M", BUF_LEN, 0, &hb)) {
		printf("FAILDEV error=alloc:%s\n", hb_errmsg());
		return 1;
	}
	buf = hb.addr;
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		printf("FAILDEV error=setup:%s\n", strerror(errno));
		return 1;
	}
	/* allocate and initialise every block before the O_DIRECT writes */
	memset(buf, 0xee, BUF_LEN);
	for (c = 0; c < CHUNKS; c++)
		if (pwrite(fd, buf, CHUNK, (off_t)c * CHUNK) != CHUNK) {
			printf("FAILDEV error=prefill\n");
			return 1;
		}
	fsync(fd);
	close(fd);
	fd = open(argv[1], O_RDWR | O_DIRECT);
	if (fd < 0 || io_uring_queue_init(4, &ring, 0)) {
		printf("FAILDEV error=open\n");
		return 1;
	}
	iov.iov_base = buf;
	iov.iov_len = BUF_LEN;
	ret = io_uring_register_buffers(&ring, &iov, 1);
	if (ret) {
		printf("FAILDEV error=register:%s\n", strerror(-ret));
		return 1;
	}
	/* chunk c comes from buffer offset (c * 3 % 64) * CHUNK: every folio */
	for (c = 0; c < CHUNKS; c++)
		t_pattern_fill(buf + (c * 3 % CHUNKS) * CHUNK, CHUNK, SEED,
			       (uint64_t)c * CHUNK);
	if (arm(argv[2], 50)) {
		printf("FAILDEV skip=cannot arm fail_make_request on %s\n",
		       argv[2]);
		arm(argv[2], 0);
		return 77;
	}
	for (c = 0; c < CHUNKS; c++) {
		p = buf + (c * 3 % CHUNKS) * CHUNK;
		ret = t_io(&ring, IORING_OP_WRITE_FIXED, fd, p, CHUNK,
			   (off_t)c * CHUNK, 0);
		ok[c] = ret == (int)CHUNK;
		acked += ok[c];
		failed += ret == -EIO;
		other += !ok[c] && ret != -EIO;
	}
	arm(argv[2], 0);
	/* read every acknowledged chunk back into a cleared buffer */
	memset(buf, 0, BUF_LEN);
	for (c = 0; c < CHUNKS; c++) {
		if (!ok[c])
			continue;
		p = buf + (c * 5 % CHUNKS) * CHUNK;
		ret = t_io(&ring, IORING_OP_READ_FIXED, fd, p, CHUNK,
			   (off_t)c * CHUNK, 0);
		bad_at = ret == (int)CHUNK ?
				 t_pattern_mismatch(p, CHUNK, SEED,
						    (uint64_t)c * CHUNK) :
				 0;
		bad += bad_at >= 0;
	}
	io_uring_unregister_buffers(&ring);
	io_uring_queue_exit(&ring);
	close(fd);
	hb_free(&hb);
	unlink(argv[1]);
	vmpin1 = hb_vmpin_kb();
	/* the ring's teardown (io_ring_exit_work()) is deferred work */
	t_settle(t_free_2m_of, NULL, hp0, T_SETTLE_EQ, 3000, &hp1);
	t_settle(t_pins_of, NULL, held0, T_SETTLE_EQ, 3000, &held1);
	printf("FAILDEV disk=%s chunks=%d acked=%u eio=%u other=%u bad=%u vmpin_delta_kb=%ld hugepages_free_delta=%ld pins_delta=%ld\n",
	       argv[2], CHUNKS, acked, failed, other, bad, vmpin1 - vmpin0,
	       hp1 - hp0, held1 - held0);
	return !(failed && acked && !other && !bad && vmpin1 == vmpin0 &&
		 hp1 == hp0 && held1 == held0);
}
