/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one settle rule of the C tests: a counter that other activity (or
 * the kernel's deferred work) can move is read until it reaches what the
 * check expects, or stands still, within a bound; never read once.
 */
#ifndef HUGEBUF_T_SETTLE_H
#define HUGEBUF_T_SETTLE_H

#include <stdint.h>

/* how t_settle() judges a reading against @want */
enum t_settle_until {
	T_SETTLE_EQ,	/* the reading equals @want */
	T_SETTLE_GE,	/* at least @want (a pool others may give back to) */
	T_SETTLE_STILL,	/* unchanged for T_SETTLE_STILL_MS (@want unused) */
};

/* the bound of every wait, and how long "standing still" lasts */
#define T_SETTLE_MS		5000
#define T_SETTLE_STILL_MS	300

/*
 * @read(@arg) polled every 10 ms until it meets @until against @want, or
 * for T_SETTLE_MS at most; returns the last reading (the caller judges
 * it).  A negative reading (the counter cannot be read) ends the wait.
 */
long t_settle(long (*read)(void *arg), void *arg, long want,
	      enum t_settle_until until);

/* the rule applied to this process's VmPin (kB) */
long t_settle_vmpin(long want);
/* ... to the free hugepages of size @hp_size: at least @want */
long t_settle_hp_free(uint64_t hp_size, long want);

#endif /* HUGEBUF_T_SETTLE_H */
