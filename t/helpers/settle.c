// SPDX-License-Identifier: GPL-2.0-only
/*
 * t_settle(): the one settle rule of the C tests (settle.h).
 *
 * Why a counter is not read once: io_uring unpins and unaccounts the
 * buffers of a closed ring in io_ring_exit_work(), a workqueue item that
 * runs after close() returns (5.1 to 7.x); 6.1 frees a cleared table slot
 * only once its node's references drop (io_rsrc_node_ref_zero()); the
 * block layer counts a request in diskstats at its completion, which may
 * follow the CQE; and the hugepage pool is the machine's, so another
 * process may take or give back pages meanwhile.  Under a CPU hog each
 * of these lags by scheduler time slices, hence a bound of seconds.
 */
#include <time.h>

#include "hugebuf.h"
#include "settle.h"

#define T_SETTLE_POLL_MS 10

static void settle_sleep(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static int settle_met(long v, long want, enum t_settle_until until)
{
	switch (until) {
	case T_SETTLE_EQ:
		return v == want;
	case T_SETTLE_GE:
		return v >= want;
	case T_SETTLE_STILL:
		break;
	}
	return 0;
}

long t_settle(long (*read)(void *arg), void *arg, long want,
	      enum t_settle_until until)
{
	long v = read(arg), last = v;
	int waited = 0, still = 0;

	while (v >= 0 && waited < T_SETTLE_MS && !settle_met(v, want, until)) {
		if (until == T_SETTLE_STILL && still >= T_SETTLE_STILL_MS)
			break;
		settle_sleep(T_SETTLE_POLL_MS);
		waited += T_SETTLE_POLL_MS;
		v = read(arg);
		still = v == last ? still + T_SETTLE_POLL_MS : 0;
		last = v;
	}
	return v;
}

static long read_vmpin(void *arg)
{
	(void)arg;
	return hb_vmpin_kb();
}

long t_settle_vmpin(long want)
{
	return t_settle(read_vmpin, NULL, want, T_SETTLE_EQ);
}

static long read_hp_free(void *arg)
{
	return hb_hugepages_free(*(const uint64_t *)arg);
}

long t_settle_hp_free(uint64_t hp_size, long want)
{
	return t_settle(read_hp_free, &hp_size, want, T_SETTLE_GE);
}
