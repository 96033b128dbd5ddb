// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the parsers the CLI and the engine share.
 *  - hb_parse_size() against a reference parser written here from its
 *    contract (decimal, or 0x hex; a leading 0 is still decimal; optional
 *    k/m/g/t, then nothing, "B", "b", "iB" or "ib"; junk, a sign, a
 *    blank and overflow are errors);
 *  - hb_backing_parse(): a backing it accepts prints (hb_backing_str())
 *    and parses back to itself, with a power-of-two folio of >= 4 KiB;
 *  - hb_kmodel_parse(): "A.B[.-+...]" with 2 <= A <= 99 and B <= 999 must
 *    give the generation of kernel A.B (rules restated below), input
 *    that does not start with a digit (or a blank or a sign, which
 *    strtol() skips) must be refused.
 * Every refusal leaves a one-line message (unless the input itself holds
 * a newline: messages quote it).
 */
#include <ctype.h>
#include <errno.h>

#include "fuzz.h"

static void one_line(const char *input, const char *what)
{
	const char *m = hb_errmsg();

	if (!*m || !strcmp(m, "no error"))
		fz_finding("%s('%s') failed without a message", what, input);
	if (!strchr(input, '\n') && strchr(m, '\n'))
		fz_finding("%s('%s'): multi-line message: %s", what, input, m);
}

static int digit_val(char c, unsigned int base)
{
	int v;

	if (c >= '0' && c <= '9')
		v = c - '0';
	else if (c >= 'a' && c <= 'f')
		v = c - 'a' + 10;
	else if (c >= 'A' && c <= 'F')
		v = c - 'A' + 10;
	else
		return -1;
	return v < (int)base ? v : -1;
}

/* 0: ok; -1: invalid; the value in *out */
static int ref_size(const char *s, uint64_t *out)
{
	unsigned int base = 10, shift = 0;
	uint64_t v = 0;
	bool overflow = false;
	const char *d;
	int dv;

	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	for (d = s; (dv = digit_val(*d, base)) >= 0; d++) {
		if (v > (UINT64_MAX - (uint64_t)dv) / base)
			overflow = true;
		v = v * base + (uint64_t)dv;
	}
	if (d == s || overflow)
		return -1;
	switch (tolower((unsigned char)*d)) {
	case '\0':
		break;
	case 'b':
		if (d[1])
			return -1;
		break;
	case 'k':
		shift = 10;
		goto unit;
	case 'm':
		shift = 20;
		goto unit;
	case 'g':
		shift = 30;
		goto unit;
	case 't':
		shift = 40;
unit:
		d++;
		if (*d && strcmp(d, "B") && strcmp(d, "b") &&
		    strcmp(d, "iB") && strcmp(d, "ib"))
			return -1;
		break;
	default:
		return -1;
	}
	if (shift && v > (UINT64_MAX >> shift))
		return -1;
	*out = v << shift;
	return 0;
}

static void check_size(const char *s)
{
	uint64_t got = 0, want = 0;
	int r = hb_parse_size(s, &got), w = ref_size(s, &want);

	if ((r == 0) != (w == 0))
		fz_finding("hb_parse_size('%s') %s, the reference %s", s,
			   r ? "refuses" : "accepts",
			   w ? "refuses" : "accepts");
	if (!r && got != want)
		fz_finding("hb_parse_size('%s') = %llu, reference %llu", s,
			   (unsigned long long)got, (unsigned long long)want);
	if (r)
		one_line(s, "hb_parse_size");
}

static void check_backing(const char *s)
{
	struct hb_backing b, b2;
	char buf[HB_BACKING_STR_MAX];

	if (hb_backing_parse(s, &b)) {
		one_line(s, "hb_backing_parse");
		return;
	}
	if (b.folio_size < FZ_PG || (b.folio_size & (b.folio_size - 1)))
		fz_finding("backing '%s': folio size %llu", s,
			   (unsigned long long)b.folio_size);
	hb_backing_str(&b, buf, sizeof(buf));
	if (hb_backing_parse(buf, &b2))
		fz_finding("backing '%s' prints as '%s', which does not "
			   "parse: %s", s, buf, hb_errmsg());
	if (b2.kind != b.kind || b2.folio_size != b.folio_size)
		fz_finding("backing '%s' -> '%s' -> kind %d size %llu", s, buf,
			   (int)b2.kind, (unsigned long long)b2.folio_size);
}

/* strictly "A.B" then nothing, "+", or '.'/'-' and anything */
static int ref_version(const char *s, int *major, int *minor)
{
	long a = 0, b = 0;
	const char *d = s;

	if (!isdigit((unsigned char)*d))
		return -1;
	for (; isdigit((unsigned char)*d); d++)
		a = a > 1000 ? a : a * 10 + (*d - '0');
	if (*d++ != '.' || !isdigit((unsigned char)*d))
		return -1;
	for (; isdigit((unsigned char)*d); d++)
		b = b > 10000 ? b : b * 10 + (*d - '0');
	if (a < 2 || a > 99 || b > 999)
		return -1;
	if (*d && strcmp(d, "+") && *d != '.' && *d != '-')
		return -1;
	*major = (int)a;
	*minor = (int)b;
	return 0;
}

/*
 * The generation of X.Y.Z: 3a3c6d61577d (6.16) reached 6.12.36 and
 * 6.15.5, so those sublevels have the fixed first-bvec offset.
 */
static enum hb_kgen ref_gen(int major, int minor, int sub)
{
	int v = major * 1000 + minor;

	if (v < 6003)
		return HB_KGEN_NONE;
	if (v < 6012)
		return HB_KGEN_SINGLE;
	if ((v == 6012 && sub >= 36) || (v == 6015 && sub >= 5))
		return HB_KGEN_MULTI_FIXED;
	if (v < 6016)
		return HB_KGEN_MULTI;
	return HB_KGEN_MULTI_FIXED;
}

/*
 * The sublevel of "X.Y.Z...": the number after the second dot; none, or
 * one of 100000 or more (no kernel has one), counts as 0.
 */
static int ref_sublevel(const char *s)
{
	const char *p = s;
	long v = 0;

	/* "X.Y.Z": the dot must follow the minor's digits directly */
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.')
		return 0;
	while (isdigit((unsigned char)*p))
		p++;
	if (*p++ != '.' || !isdigit((unsigned char)*p))
		return 0;
	for (; isdigit((unsigned char)*p) && v < 100000; p++)
		v = v * 10 + (*p - '0');
	return v < 100000 && !isdigit((unsigned char)*p) ? (int)v : 0;
}

/* "6.1.<digits>+hugebuf" also names the backport */
static bool ref_backport_sublevel(const char *s)
{
	const char *d;

	if (strncmp(s, "6.1.", 4) || !isdigit((unsigned char)s[4]))
		return false;
	for (d = s + 4; isdigit((unsigned char)*d); d++)
		;
	return !strcmp(d, "+hugebuf");
}

static void check_kernel(const char *s)
{
	struct hb_kmodel km;
	int major, minor, r, w;
	bool lax;

	r = hb_kmodel_parse(s, &km);
	if (r)
		one_line(s, "hb_kmodel_parse");
	/*
	 * the backport: the 6.16 coalescing rules and, with io_uring 2/5, an
	 * exact nr_segs counted from bvec[0]'s bv_len (nr_segs_from_head)
	 */
	if (!strcmp(s, "6.1+hugebuf") || ref_backport_sublevel(s)) {
		if (r || km.gen != HB_KGEN_MULTI_FIXED || !km.exact_nr_segs ||
		    !km.nr_segs_from_head)
			fz_finding("6.1+hugebuf: %d gen %d exact %d from_head %d",
				   r, (int)km.gen, km.exact_nr_segs,
				   km.nr_segs_from_head);
		return;
	}
	w = ref_version(s, &major, &minor);
	/* blanks and signs inside the rest are not checked either way */
	lax = strchr(s, ' ') || strchr(s, '+') || strchr(s, '-') ||
	      strpbrk(s, "\t\n\v\f\r");
	if (!w && r)
		fz_finding("hb_kmodel_parse('%s') refuses kernel %d.%d: %s", s,
			   major, minor, hb_errmsg());
	if (!w && (km.gen != ref_gen(major, minor, ref_sublevel(s)) ||
		   km.exact_nr_segs != (major * 1000 + minor >= 6015)))
		fz_finding("kernel '%s': generation %d exact %d, reference "
			   "%d", s, (int)km.gen, km.exact_nr_segs,
			   (int)ref_gen(major, minor, ref_sublevel(s)));
	if (w && !r && !lax)
		fz_finding("hb_kmodel_parse('%s') accepts it as %s", s,
			   km.name);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char s[256];

	if (size >= sizeof(s))
		size = sizeof(s) - 1;
	memcpy(s, data, size);
	s[size] = '\0';
	check_size(s);
	check_backing(s);
	check_kernel(s);
	return 0;
}
