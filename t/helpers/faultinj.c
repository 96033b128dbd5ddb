// SPDX-License-Identifier: GPL-2.0-only
/*
 * The kernel's per-task fault injection (fail-nth), for the guest probes
 * of kernel/probe/.  See t/helpers.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "helpers-priv.h"

/* this thread's fail-nth, opened once so that arming it allocates nothing */
static int fail_nth_fd = -1;

int t_fault_setup(const char *tag)
{
	static const char *const knobs[][2] = {
		{ "/sys/kernel/debug/failslab/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/failslab/verbose", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/ignore-gfp-wait", "N" },
		{ "/sys/kernel/debug/fail_page_alloc/min-order", "0" },
		{ "/sys/kernel/debug/fail_page_alloc/verbose", "0" },
	};
	size_t i;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++)
		if (t_knob_write(knobs[i][0], knobs[i][1], 0)) {
			printf("%s skip=no fault injection (%s: %s; needs CONFIG_FAILSLAB, FAIL_PAGE_ALLOC, FAULT_INJECTION_DEBUG_FS and debugfs mounted)\n",
			       tag, knobs[i][0], strerror(errno));
			return -1;
		}
	if (fail_nth_fd < 0)
		fail_nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	if (fail_nth_fd < 0) {
		printf("%s skip=no fault injection (/proc/thread-self/fail-nth: %s; needs CONFIG_FAULT_INJECTION)\n",
		       tag, strerror(errno));
		return -1;
	}
	return 0;
}

int t_fail_nth_arm(int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%d", n);

	return pwrite(fail_nth_fd, buf, len, 0) == len ? 0 : -errno;
}

long t_fail_nth_disarm(void)
{
	char buf[32];
	ssize_t n = pread(fail_nth_fd, buf, sizeof(buf) - 1, 0);

	if (pwrite(fail_nth_fd, "0", 1, 0) != 1 || n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 10);
}
