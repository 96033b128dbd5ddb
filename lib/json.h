/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private (not installed): the JSON writer over hb_str (lib/json.c).
 */
#ifndef HUGEBUF_JSON_H
#define HUGEBUF_JSON_H

#include <stdbool.h>
#include <stdint.h>

#include "hugebuf.h"

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

#endif /* HUGEBUF_JSON_H */
