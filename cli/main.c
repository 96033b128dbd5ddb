// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf: what this machine offers for hugepage-backed io_uring fixed
 * buffers (info), what a kernel would build for a buffer (plan, pure
 * model), and whether the running kernel did what the model says (check).
 *
 * Exit status: 0 success / matches, 1 does not match the model, 2 usage
 * error, 3 a resource or system call failed (the message says which).
 * This file: the dispatch; the usage, the messages and the JSON output are
 * cli/output.c's, a command each in cli/info.c, cli/plan.c and cli/check.c.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"

/*
 * The project's version, from the VERSION file: the Makefile passes it
 * with -DHB_VERSION.  A build outside the Makefile has none.
 */
#ifndef HB_VERSION
#define HB_VERSION	"unknown"
#endif

int main(int argc, char **argv)
{
	const char *cmd;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") ||
	    !strcmp(cmd, "help")) {
		usage(stdout);
		return EXIT_MATCH;
	}
	if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) {
		if (argc > 2)
			return usage_error("%s takes no arguments", cmd);
		printf("%s %s\n", CLI_NAME, HB_VERSION);
		return EXIT_MATCH;
	}
	if (!strcmp(cmd, "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(cmd, "plan"))
		return cmd_plan(argc - 1, argv + 1);
	if (!strcmp(cmd, "check"))
		return cmd_check(argc - 1, argv + 1);
	return usage_error("unknown command '%s': use info, plan or check "
			   "(see '%s --help')", cmd, CLI_NAME);
}
