/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one settle rule of the C tests and the guest probes: a counter that
 * other activity (or the kernel's deferred work) can move is read until it
 * reaches what the check expects, or stands still, within a bound; never
 * read once.
 */
#ifndef HUGEBUF_T_SETTLE_H
#define HUGEBUF_T_SETTLE_H

#include <stdbool.h>
#include <stdint.h>

/* how t_settle() judges a reading against @want */
enum t_settle_until {
	T_SETTLE_EQ,	/* the reading equals @want */
	T_SETTLE_GE,	/* at least @want (a pool others may give back to) */
	T_SETTLE_STILL,	/* unchanged for T_SETTLE_STILL_MS (@want unused) */
};

/* the tests' bound of a wait, and how long "standing still" lasts */
#define T_SETTLE_MS		5000
#define T_SETTLE_STILL_MS	300

/*
 * t_settle(): wait for @read(@arg) to reach @want (T_SETTLE_EQ: equal it,
 * T_SETTLE_GE: at least it) or, with T_SETTLE_STILL, to stand still for
 * T_SETTLE_STILL_MS; polled every 10 ms for @bound_ms at most (the tests
 * pass T_SETTLE_MS, a probe its own bound).  *@last gets the last reading,
 * which the caller judges; true when the wait ended because the rule was
 * met, false when the bound ran out or the counter could not be read.
 * A negative reading means the counter cannot be read (the readers return
 * -1 then: no such pool, no VmPin line, no nr_foll_pin_* fields): the wait
 * ends at once, as waiting cannot make it readable.  A count that comes
 * back was only late; a leak never comes back, so a long bound hides none.
 */
bool t_settle(long (*read)(void *arg), void *arg, long want,
	      enum t_settle_until until, int bound_ms, long *last);

/* the rule applied to this process's VmPin (kB), T_SETTLE_MS bound */
long t_settle_vmpin(long want);
/* ... to the free hugepages of size @hp_size: at least @want */
long t_settle_hp_free(uint64_t hp_size, long want);

#endif /* HUGEBUF_T_SETTLE_H */
