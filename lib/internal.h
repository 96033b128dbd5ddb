/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private helpers of lib/: not part of the API.
 */
#ifndef HUGEBUF_INTERNAL_H
#define HUGEBUF_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include "hugebuf.h"

#define HB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define HB_ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define HB_ALIGN_DOWN(x, a)	((x) & ~((uint64_t)(a) - 1))
#define HB_IS_POW2(x)		((x) != 0 && ((x) & ((x) - 1)) == 0)

/* Read a whole small file (sysfs, procfs) into buf, NUL terminated. */
int hb_read_file(const char *path, char *buf, size_t len);
/* Read an unsigned integer from a one-value sysfs/procfs file. */
int hb_read_ulong(const char *path, unsigned long *val);
/* Value of "Key:" in /proc/meminfo or /proc/self/status, in kB. */
long hb_proc_kb(const char *file, const char *key);
/* log2 of a power of two */
unsigned int hb_ilog2(uint64_t v);

#endif /* HUGEBUF_INTERNAL_H */
