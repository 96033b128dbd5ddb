// SPDX-License-Identifier: GPL-2.0-only
/*
 * The bottom of lib's output: a growing string, and a JSON writer over it
 * that places every comma, bracket and escape itself.  The report
 * (lib/job/report.c) and the CLI's --json documents are written through it, so
 * no caller escapes a string or places a separator by hand, and a job name
 * of any bytes still gives a document that parses.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/base.h"

void hb_str_init(struct hb_str *b)
{
	memset(b, 0, sizeof(*b));
}

void hb_str_free(struct hb_str *b)
{
	free(b->s);
	hb_str_init(b);
}

static bool str_reserve(struct hb_str *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 256;
	char *n;

	if (b->oom)
		return false;
	if (b->len + more + 1 <= b->cap)
		return true;
	while (cap < b->len + more + 1)
		cap *= 2;
	n = realloc(b->s, cap);
	if (!n) {
		b->oom = true;
		return false;
	}
	b->s = n;
	b->cap = cap;
	return true;
}

void hb_str_printf(struct hb_str *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !str_reserve(b, n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, n + 1, fmt, ap);
	va_end(ap);
	b->len += n;
}

/*
 * RFC 8259 §7: '"', '\\' and the controls below 0x20 must be escaped;
 * everything else, UTF-8 included, may stand as is.  Bytes that are not
 * valid UTF-8 would make the document invalid, so they become U+FFFD.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned int n, i;

	if (*s < 0x80)
		return 1;
	if ((*s & 0xe0) == 0xc0 && *s >= 0xc2)
		n = 2;
	else if ((*s & 0xf0) == 0xe0)
		n = 3;
	else if ((*s & 0xf8) == 0xf0 && *s <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void hb_str_json(struct hb_str *b, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	hb_str_printf(b, "\"");
	while (*p) {
		size_t n = utf8_len(p);

		if (*p == '"' || *p == '\\')
			hb_str_printf(b, "\\%c", *p);
		else if (*p == '\n')
			hb_str_printf(b, "\\n");
		else if (*p == '\t')
			hb_str_printf(b, "\\t");
		else if (*p < 0x20)
			hb_str_printf(b, "\\u%04x", *p);
		else if (!n)
			hb_str_printf(b, "\\ufffd");
		else
			hb_str_printf(b, "%.*s", (int)n, (const char *)p);
		p += n ? n : 1;
	}
	hb_str_printf(b, "\"");
}

/*
 * A JSON document written member by member: each level remembers whether
 * it has a member yet (the comma) and how it closes, so no caller places
 * a comma or a bracket by hand.
 */
void hb_json_init(struct hb_json *j, struct hb_str *out)
{
	memset(j, 0, sizeof(*j));
	j->out = out;
}

void hb_json_init_compact(struct hb_json *j, struct hb_str *out)
{
	hb_json_init(j, out);
	j->compact = true;
}

/* The comma and the key before a value; false once the document is bad. */
static bool json_member(struct hb_json *j, const char *key)
{
	bool in_obj = j->depth && j->close[j->depth - 1] == '}';

	if (j->bad || (in_obj != !!key) || (!j->depth && j->done)) {
		j->bad = true;
		return false;
	}
	if (!j->depth) {
		j->done = true;
	} else {
		if (j->more[j->depth - 1])
			hb_str_printf(j->out, "%s", j->compact ? "," : ", ");
		j->more[j->depth - 1] = true;
	}
	if (key) {
		hb_str_json(j->out, key);
		hb_str_printf(j->out, "%s", j->compact ? ":" : ": ");
	}
	return true;
}

static void json_open(struct hb_json *j, const char *key, char open,
		      char close)
{
	if (j->depth >= HB_JSON_MAX_DEPTH) {
		j->bad = true;
		return;
	}
	if (!json_member(j, key))
		return;
	hb_str_printf(j->out, "%c", open);
	j->close[j->depth] = close;
	j->more[j->depth] = false;
	j->depth++;
}

void hb_json_obj(struct hb_json *j, const char *key)
{
	json_open(j, key, '{', '}');
}

void hb_json_arr(struct hb_json *j, const char *key)
{
	json_open(j, key, '[', ']');
}

void hb_json_end(struct hb_json *j)
{
	if (j->bad || !j->depth) {
		j->bad = true;
		return;
	}
	j->depth--;
	hb_str_printf(j->out, "%c", j->close[j->depth]);
}

void hb_json_str(struct hb_json *j, const char *key, const char *val)
{
	if (json_member(j, key))
		hb_str_json(j->out, val);
}

void hb_json_u64(struct hb_json *j, const char *key, uint64_t val)
{
	if (json_member(j, key))
		hb_str_printf(j->out, "%llu", (unsigned long long)val);
}

void hb_json_i64(struct hb_json *j, const char *key, int64_t val)
{
	if (json_member(j, key))
		hb_str_printf(j->out, "%lld", (long long)val);
}

/*
 * JSON has no NaN or infinity (RFC 8259 §6): such a value is null, so the
 * document still parses.
 */
void hb_json_fixed(struct hb_json *j, const char *key, double val,
		   unsigned int decimals)
{
	if (!json_member(j, key))
		return;
	if (isfinite(val))
		hb_str_printf(j->out, "%.*f", (int)decimals, val);
	else
		hb_str_printf(j->out, "null");
}

void hb_json_bool(struct hb_json *j, const char *key, bool val)
{
	if (json_member(j, key))
		hb_str_printf(j->out, "%s", val ? "true" : "false");
}

void hb_json_tri(struct hb_json *j, const char *key, int val)
{
	if (json_member(j, key))
		hb_str_printf(j->out, "%s",
			      val < 0 ? "null" : val ? "true" : "false");
}

void hb_json_null(struct hb_json *j, const char *key)
{
	hb_json_tri(j, key, -1);
}

bool hb_json_ok(const struct hb_json *j)
{
	return !j->bad && !j->depth && j->done && !j->out->oom;
}
