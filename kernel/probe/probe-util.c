// SPDX-License-Identifier: GPL-2.0-only
/* Helpers of the kernel/probe/ guest programs: see probe-util.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "probe-util.h"

int probe_put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, val, strlen(val)) == (ssize_t)strlen(val) ? 0 : -errno;
	close(fd);
	return ret;
}

long probe_get_num(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}

long probe_field(const char *file, const char *key)
{
	char line[256];
	size_t kl = strlen(key);
	long v = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) &&
		    (line[kl] == ' ' || line[kl] == ':')) {
			v = strtol(line + kl + 1 + (line[kl] == ':'), NULL,
				   10);
			break;
		}
	fclose(f);
	return v;
}

long probe_pins_held(void)
{
	probe_put("/proc/sys/vm/stat_refresh", "1");
	return probe_field("/proc/vmstat", "nr_foll_pin_acquired") -
	       probe_field("/proc/vmstat", "nr_foll_pin_released");
}

int probe_rw_fixed(struct io_uring *ring, int write, int fd, void *addr,
		   unsigned int len, off_t off, int idx)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int ret;

	if (write)
		io_uring_prep_write_fixed(sqe, fd, addr, len, off, idx);
	else
		io_uring_prep_read_fixed(sqe, fd, addr, len, off, idx);
	ret = io_uring_submit(ring);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	ret = io_uring_wait_cqe(ring, &cqe);
	if (ret)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(ring, cqe);
	return ret;
}
