// SPDX-License-Identifier: GPL-2.0-only
/*
 * hugebuf: what this machine offers for hugepage-backed io_uring fixed
 * buffers (info), what a kernel would build for a buffer (plan, pure
 * model), and whether the running kernel did what the model says (check).
 *
 * Exit status: 0 success / matches, 1 does not match the model, 2 usage
 * error, 3 a resource or system call failed (the message says which).
 * This file: the usage, the dispatch, the one-line messages and the JSON
 * output; a command each in cli/info.c, cli/plan.c and cli/check.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/*
 * The project's version, from the VERSION file: the Makefile passes it
 * with -DHB_VERSION.  A build outside the Makefile (t/fuzz/) has none.
 */
#ifndef HB_VERSION
#define HB_VERSION	"unknown"
#endif

#define USAGE_WIDTH	78

/*
 * @head, then @list broken at its spaces into lines of USAGE_WIDTH at
 * most, the continuation lines indented by @indent.
 */
static void print_wrapped(FILE *f, const char *head, const char *list,
			  int indent)
{
	int col = fprintf(f, "%s", head);
	const char *p = list;

	while (*p) {
		int n = (int)strcspn(p, " ");

		if (p != list && col + 1 + n > USAGE_WIDTH) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (p != list) {
			col += fprintf(f, " ");
		}
		col += fprintf(f, "%.*s", n, p);
		p += n;
		p += strspn(p, " ");
	}
	fputc('\n', f);
}

void usage(FILE *f)
{
	fprintf(f,
"usage: %s --version | -V\n"
"       %s info [--json]\n"
"       %s plan --backing=B --size=S [--offset=N] [--kernel=K] [--json]\n"
"                   [--bvecs] [--plain] [--dev=DISK |\n"
"                   --queue-limits=BYTES,SEGS,SEGSIZE]\n"
"                   [--iommu[=strict|lazy|direct] [--pt]]\n"
"       %s check [--backing=B] [--size=S] [--offset=N] [--file=PATH] [--json]\n"
"                   [--moved]\n"
"\n"
"  info   hugepage pools, THP/mTHP, memlock, CAP_IPC_LOCK, the kernel's\n"
"         coalescing generation and whether the exact folio probe works\n"
"  plan   the imu a kernel builds for a buffer of backing B (pure model,\n"
"         nothing is allocated); with --dev (queue limits of /sys/block/DISK)\n"
"         or --queue-limits, the block requests one READ_FIXED of it takes;\n"
"         --plain: what one plain O_DIRECT read of it does in the block\n"
"         layer (bios, page batches, adds, merge tests, bvecs, releases);\n"
"         --iommu (needs the limits): the DMA mapping of that READ_FIXED on\n"
"         NVMe behind an Intel IOMMU (IOVAs, map_pages, PTEs, IOTLB syncs),\n"
"         strict by default; --pt: NVMe passthrough instead of a bio\n"
"  check  allocate, probe, register and measure what the running kernel\n"
"         did (block requests per READ_FIXED with --file, kernel memory);\n"
"         --moved (thp only): the buffer starts 1 MiB into a THP and is\n"
"         moved by mremap to a 2 MiB + 4 KiB address (non-congruent)\n"
"\n", CLI_NAME, CLI_NAME, CLI_NAME, CLI_NAME);
	print_wrapped(f, "  B: ", hb_backing_spellings(), 5);
	fprintf(f,
"  S, N: bytes, 0x hex, or K/M/G suffixes; K: 6.1, 6.3, 6.12, 6.16, X.Y,\n"
"     6.1+hugebuf (default: the running kernel, or $HUGEBUF_KERNEL)\n"
"\n"
"exit: 0 ok / matches the model, 1 does not match, 2 usage error,\n"
"      3 a resource is missing or a system call failed\n");
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", CLI_NAME);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

int system_error(const char *what)
{
	fprintf(stderr, "%s: %s: %s\n", CLI_NAME, what, hb_errmsg());
	return EXIT_SYSTEM;
}

/*
 * The finished document on one line of stdout, and its string freed.
 * Returns EXIT_MATCH, or EXIT_SYSTEM (with the one line) when it could not
 * be written whole.
 */
int print_json(struct hb_json *j)
{
	bool ok = hb_json_ok(j);

	if (ok)
		printf("%s\n", j->out->s);
	else if (j->out->oom)
		fprintf(stderr, "%s: out of memory for the JSON output: free "
			"some memory and run it again\n", CLI_NAME);
	else
		fprintf(stderr, "%s: internal error: the JSON output is not "
			"one balanced value: please report it\n", CLI_NAME);
	hb_str_free(j->out);
	return ok ? EXIT_MATCH : EXIT_SYSTEM;
}

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
