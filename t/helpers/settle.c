// SPDX-License-Identifier: GPL-2.0-only
/*
 * t_settle(): the one settle rule of the C tests and probes (settle.h).
 *
 * Why a counter is not read once: io_uring unpins and unaccounts the
 * buffers of a closed ring in io_ring_exit_work(), a workqueue item that
 * runs after close() returns (5.1 to 7.x); 6.1 frees a cleared table slot
 * only once its node's references drop (io_rsrc_node_ref_zero()); the
 * block layer counts a request in diskstats at its completion, which may
 * follow the CQE; a plain read can let its pages go from a work item after
 * the call returned (bio_check_pages_dirty() punts to bio_dirty_work when
 * a page is no longer dirty, 5.10 to 7.3); and the hugepage pool is the
 * machine's, so another process may take or give back pages meanwhile.
 * Under a CPU hog each of these lags by scheduler time slices, hence a
 * bound of seconds.
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

/* @v, read after it stood @still_ms unchanged, meets @until against @want */
static bool settle_met(long v, long want, enum t_settle_until until,
		       int still_ms)
{
	if (v < 0)
		return false;
	switch (until) {
	case T_SETTLE_EQ:
		return v == want;
	case T_SETTLE_GE:
		return v >= want;
	case T_SETTLE_STILL:
		return still_ms >= T_SETTLE_STILL_MS;
	}
	return false;
}

bool t_settle(long (*read)(void *arg), void *arg, long want,
	      enum t_settle_until until, int bound_ms, long *last)
{
	long v = read(arg), prev = v;
	int waited = 0, still = 0;

	while (v >= 0 && !settle_met(v, want, until, still) &&
	       waited < bound_ms) {
		settle_sleep(T_SETTLE_POLL_MS);
		waited += T_SETTLE_POLL_MS;
		v = read(arg);
		still = v == prev ? still + T_SETTLE_POLL_MS : 0;
		prev = v;
	}
	*last = v;
	return settle_met(v, want, until, still);
}

static long read_vmpin(void *arg)
{
	(void)arg;
	return hb_vmpin_kb();
}

long t_settle_vmpin(long want)
{
	long v;

	t_settle(read_vmpin, NULL, want, T_SETTLE_EQ, T_SETTLE_MS, &v);
	return v;
}

static long read_hp_free(void *arg)
{
	return hb_hugepages_free(*(const uint64_t *)arg);
}

long t_settle_hp_free(uint64_t hp_size, long want)
{
	long v;

	t_settle(read_hp_free, &hp_size, want, T_SETTLE_GE, T_SETTLE_MS, &v);
	return v;
}
