/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/base/, the bottom layer (util.c, json.c): errors, small-file
 * reads, arithmetic and the JSON writer.  Private: includes only the
 * public headers.
 */
#ifndef HB_BASE_H
#define HB_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "hugebuf.h"

#define HB_ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define HB_ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))
#define HB_ALIGN_DOWN(x, a)	((x) & ~((uint64_t)(a) - 1))
#define HB_IS_POW2(x)		((x) != 0 && ((x) & ((x) - 1)) == 0)


/* Read a whole small file (sysfs, procfs) into buf, NUL terminated. */
int hbi_read_file(const char *path, char *buf, size_t len);
/* Read an unsigned integer from a one-value sysfs/procfs file. */
int hbi_read_ulong(const char *path, unsigned long *val);
/*
 * /proc/meminfo and /proc/self/status are under 2 KiB: a buffer of this
 * size holds either whole, read once for all the fields it has.
 */
#define HB_PROC_FILE_MAX	8192
/* The text after "Key:" at the start of a line of @buf, or NULL. */
const char *hbi_proc_value(const char *buf, const char *key);
/*
 * Write a nonzero byte at the start of every 4 KiB page of [@map, @map +
 * @len), so each is faulted in writable (a memset's faults at a 512th of
 * its stores) and none is zero-filled: from 6.12 (dafff3f4c850, "mm:
 * split underused THPs") every new anonymous THP is on the deferred
 * split queue, and its shrinker splits one whose pages are mostly zero
 * under memory pressure, between the probe and the registration.
 */
void hbi_touch_pages(void *map, size_t len);
/* log2 of a power of two */
unsigned int hbi_ilog2(uint64_t v);

/* ------------------------------------------------------------------ */
/* json: the growing string's writers and the JSON writer             */
/* ------------------------------------------------------------------ */

void hbi_str_printf(struct hb_str *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A JSON string literal for @s: quotes, escapes, UTF-8 kept as is. */
void hbi_str_json(struct hb_str *b, const char *s);


#endif /* HB_BASE_H */
