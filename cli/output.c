// SPDX-License-Identifier: GPL-2.0-only
/*
 * The hugebuf CLI's shared output: the usage text, the one-line messages
 * of a usage error and of a failed resource or system call, and the JSON
 * document on stdout.  Every command (cli/info.c, cli/plan.c, cli/check.c)
 * and the option parser (cli/opts.c) speak through these, so every bad
 * input is one "hugebuf: " line and every --json output one parsed value.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

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
"                   [--buffers=N] [--one-by-one]\n"
"       %s check [--backing=B] [--size=S] [--offset=N] [--file=PATH] [--json]\n"
"                   [--moved] [--contig=given|scattered|pin]\n"
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
"         strict by default; --pt: NVMe passthrough instead of a bio;\n"
"         and what registering costs (pages, bvecs, the accounting scan)\n"
"         for --buffers=N of them in one call or --one-by-one\n"
"  check  allocate, probe, register and measure what the running kernel\n"
"         did (block requests per READ_FIXED with --file, kernel memory);\n"
"         --moved (thp only): the buffer starts 1 MiB into a THP and is\n"
"         moved by mremap to a 2 MiB + 4 KiB address (non-congruent);\n"
"         --contig=scattered (4k only): no two neighbouring pages in\n"
"         neighbouring frames; --contig=pin (4k only): the pages left\n"
"         for the first registration to fault in, as fio's malloc ones\n"
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
