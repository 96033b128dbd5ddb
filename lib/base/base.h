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

/* Set the thread's message (printf style); returns -err for chaining. */
int hb_seterr(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Read a whole small file (sysfs, procfs) into buf, NUL terminated. */
int hb_read_file(const char *path, char *buf, size_t len);
/* Read an unsigned integer from a one-value sysfs/procfs file. */
int hb_read_ulong(const char *path, unsigned long *val);
/*
 * /proc/meminfo and /proc/self/status are under 2 KiB: a buffer of this
 * size holds either whole, read once for all the fields it has.
 */
#define HB_PROC_FILE_MAX	8192
/* The text after "Key:" at the start of a line of @buf, or NULL. */
const char *hb_proc_value(const char *buf, const char *key);
/* Value of "Key:" in /proc/meminfo or /proc/self/status, in kB. */
long hb_proc_kb(const char *file, const char *key);
/*
 * Write a zero byte at the start of every 4 KiB page of [@map, @map +
 * @len), so each is faulted in writable (a memset's faults at a 512th of
 * its stores).
 */
void hb_touch_pages(void *map, size_t len);
/* log2 of a power of two */
unsigned int hb_ilog2(uint64_t v);

/* ------------------------------------------------------------------ */
/* json: the growing string's writers and the JSON writer             */
/* ------------------------------------------------------------------ */

void hb_str_printf(struct hb_str *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A JSON string literal for @s: quotes, escapes, UTF-8 kept as is. */
void hb_str_json(struct hb_str *b, const char *s);

/*
 * A JSON document member by member into an hb_str: commas and closing
 * brackets are tracked per level.  @key is the member's name inside an
 * object and NULL at the top or inside an array; strings go through
 * hb_str_json().  Members are separated by ", " and keys by ": " (by ","
 * and ":" after hb_json_init_compact(), the report_json lines).  A
 * misuse (a key where none belongs, an unbalanced end, nesting deeper than
 * HB_JSON_MAX_DEPTH, a second top-level value) stops the output:
 * hb_json_ok() is false then, and also after an allocation failure.
 */
#define HB_JSON_MAX_DEPTH	8

struct hb_json {
	struct hb_str *out;
	unsigned int depth;
	char close[HB_JSON_MAX_DEPTH];	/* '}' or ']' per open level */
	bool more[HB_JSON_MAX_DEPTH];	/* the level has a member: comma */
	bool done;			/* the top-level value was begun */
	bool bad;
	bool compact;			/* "," and ":" without spaces */
};

void hb_json_init(struct hb_json *j, struct hb_str *out);
void hb_json_init_compact(struct hb_json *j, struct hb_str *out);
void hb_json_obj(struct hb_json *j, const char *key);
void hb_json_arr(struct hb_json *j, const char *key);
/* Close the innermost object or array. */
void hb_json_end(struct hb_json *j);
void hb_json_str(struct hb_json *j, const char *key, const char *val);
void hb_json_u64(struct hb_json *j, const char *key, uint64_t val);
void hb_json_i64(struct hb_json *j, const char *key, int64_t val);
/* @val with @decimals digits after the point; null when not finite */
void hb_json_fixed(struct hb_json *j, const char *key, double val,
		   unsigned int decimals);
void hb_json_bool(struct hb_json *j, const char *key, bool val);
/* null, false, true for @val < 0, 0, > 0 (a tristate) */
void hb_json_tri(struct hb_json *j, const char *key, int val);
void hb_json_null(struct hb_json *j, const char *key);
/* One complete, balanced value was written and nothing was lost. */
bool hb_json_ok(const struct hb_json *j);

#endif /* HB_BASE_H */
