// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reporting: the one-line FAIL/SKIP/info lines, the test's tally of
 * sub-checks and its closing line and exit code.  See t/helpers.h.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "helpers-priv.h"

/* ------------------------------------------------------------------ */
/* reporting                                                            */
/* ------------------------------------------------------------------ */

static void vline(const char *prefix, const char *fmt, va_list ap)
{
	fputs(prefix, stdout);
	vfprintf(stdout, fmt, ap);
	fputc('\n', stdout);
	fflush(stdout);
}

/* inside t_run_cases(): a case's SKIP is an info line, not the test's */
static bool t_in_cases;

void t_set_in_cases(bool on)
{
	t_in_cases = on;
}

/* ------------------------------------------------------------------ */
/* the tally                                                            */
/* ------------------------------------------------------------------ */

#define T_MAX_REASONS 6
#define T_REASON_LEN 100

/*
 * Every FAIL line is one failed sub-check, every SKIP or "skip:" line one
 * skipped sub-check, every t_pass() one passed sub-check.  The distinct
 * skip reasons (the first T_MAX_REASONS, cut to T_REASON_LEN - 1 bytes)
 * go to the closing line.
 */
static struct {
	unsigned long passed, failed, skipped;
	unsigned int nr_reasons, more_reasons;
	char reasons[T_MAX_REASONS][T_REASON_LEN];
} t_tally;

static void add_reason(const char *r)
{
	unsigned int i;

	for (i = 0; i < t_tally.nr_reasons; i++)
		if (!strncmp(t_tally.reasons[i], r, T_REASON_LEN - 1))
			return;
	if (t_tally.nr_reasons == T_MAX_REASONS) {
		t_tally.more_reasons++;
		return;
	}
	snprintf(t_tally.reasons[t_tally.nr_reasons++], T_REASON_LEN, "%s", r);
}

static void count_skip(const char *fmt, va_list ap)
{
	char r[T_REASON_LEN];

	t_tally.skipped++;
	vsnprintf(r, sizeof(r), fmt, ap);
	add_reason(r);
}

int t_pass(void)
{
	t_tally.passed++;
	return T_EXIT_PASS;
}

int t_sub(int ret)
{
	if (ret == T_EXIT_PASS)
		t_pass();
	return ret;
}

int t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(t_in_cases ? "  case skipped: " : "SKIP: ", fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	count_skip(fmt, ap);
	va_end(ap);
	return T_EXIT_SKIP;
}

int t_skip_check(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("  skip: ", fmt, ap);
	va_end(ap);
	va_start(ap, fmt);
	count_skip(fmt, ap);
	va_end(ap);
	return T_EXIT_PASS;
}

int t_fail(const char *fmt, ...)
{
	va_list ap;

	t_tally.failed++;
	va_start(ap, fmt);
	vline("FAIL: ", fmt, ap);
	va_end(ap);
	return T_EXIT_FAIL;
}

/* "P passed, F failed, S skipped[: reason; reason]" */
static void print_counts(void)
{
	unsigned int i;

	printf("%lu passed, %lu failed, %lu skipped", t_tally.passed,
	       t_tally.failed, t_tally.skipped);
	for (i = 0; i < t_tally.nr_reasons; i++)
		printf("%s%s", i ? "; " : ": ", t_tally.reasons[i]);
	if (t_tally.more_reasons)
		printf("; %u more reasons", t_tally.more_reasons);
}

int t_done(int ret)
{
	const char *verdict = "PASS";

	if (ret == T_EXIT_FAIL && !t_tally.failed)
		t_tally.failed++; /* a FAIL that printed no FAIL line */
	if (t_tally.failed) {
		ret = T_EXIT_FAIL;
		verdict = "FAIL";
	} else if (ret != T_EXIT_PASS || !t_tally.passed) {
		/* nothing failed, but nothing was checked, or not all */
		if (!t_tally.skipped) {
			t_tally.skipped++;
			add_reason(t_tally.passed ? "the test gave up early" :
						    "no check ran");
		}
		ret = T_EXIT_SKIP;
		verdict = "SKIP";
	}
	printf("%s: %s (", verdict, program_invocation_short_name);
	print_counts();
	printf(")\n");
	fflush(stdout);
	return ret;
}

void t_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("  ", fmt, ap);
	va_end(ap);
}

int t_fail_val(const char *what, long long expected, long long got)
{
	return t_fail("%s (expected %lld, got %lld)", what, expected, got);
}

int t_fail_hex(const char *what, uint64_t expected, uint64_t got)
{
	return t_fail("%s (expected 0x%llx, got 0x%llx)", what,
		      (unsigned long long)expected, (unsigned long long)got);
}

int t_worst(int a, int b)
{
	if (a == T_EXIT_FAIL || b == T_EXIT_FAIL)
		return T_EXIT_FAIL;
	if (a == T_EXIT_SKIP || b == T_EXIT_SKIP)
		return T_EXIT_SKIP;
	return a ? a : b;
}
