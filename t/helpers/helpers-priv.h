/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the helper files of t/helpers/ share among themselves and not with
 * the tests (those include t/helpers.h only).
 */
#ifndef HUGEBUF_T_HELPERS_PRIV_H
#define HUGEBUF_T_HELPERS_PRIV_H

#include "../helpers.h"

/*
 * Inside t_run_cases() a case's SKIP is an info line, not the test's
 * (report.c prints it, cases.c says when).
 */
void t_set_in_cases(bool on);

/* the background pattern: buffer offsets under a seed no file uses */
#define T_BG_SEED 0xb6b6b6ULL

/*
 * Fill [boff, boff+len) of the registered buffer and up to T_GUARD_BYTES
 * either side with the background pattern (io.c).
 */
void t_fill_background(const struct t_regbuf *rb, uint64_t boff, uint64_t len);

#endif /* HUGEBUF_T_HELPERS_PRIV_H */
