/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Small helpers the guest programs of kernel/probe/ share (linked into
 * each; they run as static binaries in the qemu guests).
 */
#ifndef HUGEBUF_PROBE_UTIL_H
#define HUGEBUF_PROBE_UTIL_H

#include <liburing.h>
#include <sys/types.h>

/* Write @val to a sysfs/procfs/debugfs file: 0 or -errno. */
int probe_put(const char *path, const char *val);
/* The number a one-value file holds, -1 when it cannot be read. */
long probe_get_num(const char *path);
/* A "key value" line of /proc/vmstat or "key: value" of /proc/meminfo. */
long probe_field(const char *file, const char *key);
/*
 * FOLL_PIN pins held system-wide: acquired - released of /proc/vmstat,
 * after folding the per-CPU deltas in (vm.stat_refresh).
 */
long probe_pins_held(void);
/*
 * One READ_FIXED / WRITE_FIXED of registered buffer @idx, waited for:
 * cqe->res, or -errno when the submission failed.
 */
int probe_rw_fixed(struct io_uring *ring, int write, int fd, void *addr,
		   unsigned int len, off_t off, int idx);

#endif
