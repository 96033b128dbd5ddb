/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The hugebuf CLI's exit codes and its shared output (cli/output.c): what
 * every command and the fuzz target (t/fuzz/fuzz-cli.c) link against.
 */
#ifndef HUGEBUF_CLI_OUTPUT_H
#define HUGEBUF_CLI_OUTPUT_H

#include <stdio.h>

#include "hugebuf.h"
#include "job/job.h"

#define CLI_NAME	"hugebuf"

#define EXIT_MATCH	0
#define EXIT_MISMATCH	1
#define EXIT_USAGE	2
#define EXIT_SYSTEM	3

/* The usage text (for --help on stdout, after a bad command on stderr). */
void usage(FILE *f);
/* "hugebuf: <message>" on stderr; returns EXIT_USAGE. */
int usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "hugebuf: <what>: <hb_errmsg()>" on stderr; returns EXIT_SYSTEM. */
int system_error(const char *what);
/*
 * The finished document @j on one line of stdout, its string freed:
 * EXIT_MATCH, or EXIT_SYSTEM with one line when it was not whole.
 */
int print_json(struct hb_json *j);

#endif
