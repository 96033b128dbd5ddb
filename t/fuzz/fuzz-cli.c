// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer target: the hugebuf CLI's argument parser and its pure "plan"
 * command, called as functions: the target links the CLI's objects (all of
 * cli/ but main.c, whose main() would clash with libFuzzer's; t/fuzz/run.sh
 * builds them) and calls cmd_plan() / cmd_info() as main() would for
 * "plan" / "info".  "check" (allocates, does I/O) is not fuzzed; "info"
 * reads /proc and /sys only.  The input is split at NUL or newline bytes
 * into at most 8 arguments after the command.  Every run must end with
 * exit status 0 (success) or 2 (usage) and, for 2, exactly one line on
 * stderr that starts with "hugebuf: "; 3 (a resource) is allowed for plan
 * only when memory for the page map is missing.  Arguments that would
 * reach --help (which exit()s) are left out.
 */
#include <getopt.h>

#include "cli.h"
#include "fuzz.h"

#define MAX_ARGS	10

static char *err_buf;
static size_t err_len;

static void reset_getopt(void)
{
	static const struct option none[] = { { 0 } };
	char arg0[] = "x";
	char *argv[2] = { arg0, NULL };

	/* optind = 0 makes glibc forget the previous argv (nextchar) */
	optind = 0;
	getopt_long(1, argv, "", none, NULL);
}

/* what cli/main.c does with argv[1] for the two commands fuzzed */
static int run_cli(int argc, char **argv)
{
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc - 1, argv + 1);
	return cmd_plan(argc - 1, argv + 1);
}

static bool reaches_help(const char *a)
{
	return !strncmp(a, "--h", 3);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const cmds[] = { "plan", "plan", "plan", "info" };
	char buf[512], *argv[MAX_ARGS + 1], *p, *end;
	FILE *saved_err, *saved_out;
	int argc = 0, rc, nl = 0;
	size_t i;

	if (!size)
		return 0;
	argv[argc++] = (char *)"hugebuf";
	argv[argc++] = (char *)cmds[data[0] % 4];
	data++;
	size--;
	if (size >= sizeof(buf))
		size = sizeof(buf) - 1;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (i = 0; i < size; i++)
		if (buf[i] == '\n')
			buf[i] = '\0';
	for (p = buf, end = buf + size; p < end && argc < MAX_ARGS;
	     p += strlen(p) + 1) {
		if (reaches_help(p))
			return 0;
		argv[argc++] = p;
	}
	argv[argc] = NULL;

	reset_getopt();
	saved_out = stdout;
	saved_err = stderr;
	stdout = fopen("/dev/null", "w");
	stderr = open_memstream(&err_buf, &err_len);
	if (!stdout || !stderr)
		abort();
	rc = run_cli(argc, argv);
	fclose(stdout);
	fclose(stderr);
	stdout = saved_out;
	stderr = saved_err;

	for (i = 0; i < err_len; i++)
		nl += err_buf[i] == '\n';
	if (rc != 0 && rc != 2)
		fz_finding("%s: exit %d: %s", argv[1], rc, err_buf);
	if (rc == 2 && (nl != 1 || strncmp(err_buf, "hugebuf: ", 9) ||
			err_buf[err_len - 1] != '\n'))
		fz_finding("%s: usage error is not one 'hugebuf: ' line: '%s'",
			   argv[1], err_buf);
	free(err_buf);
	err_buf = NULL;
	return 0;
}
