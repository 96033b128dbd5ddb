// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reporting: the one-line FAIL/SKIP/info lines and the exit codes.
 * See t/helpers.h.
 */
#include <stdarg.h>
#include <stdio.h>

#include "internal.h"

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

int t_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline(t_in_cases ? "  case skipped: " : "SKIP: ", fmt, ap);
	va_end(ap);
	return T_EXIT_SKIP;
}

int t_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vline("FAIL: ", fmt, ap);
	va_end(ap);
	return T_EXIT_FAIL;
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
