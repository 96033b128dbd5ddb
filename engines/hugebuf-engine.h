/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Private to the engine: its options (engines/options.c) and what they
 * mean for the buffer plan, shared with the fio glue in engines/hugebuf.c.
 */
#ifndef HUGEBUF_ENGINE_H
#define HUGEBUF_ENGINE_H

#include "fio.h"
#include "optgroup.h"
#include "engines/cmdprio.h"

#include "hugebuf.h"

#define HBE_LOG_PREFIX	"hugebuf: "

enum hbe_layout {
	HBE_LAYOUT_PER_IO = 0,	/* one registered buffer per io_u */
	HBE_LAYOUT_REGION,	/* io_us carved from <= 1 GiB regions */
};

enum hbe_check {
	HBE_CHECK_OFF = 0,
	HBE_CHECK_WARN,
	HBE_CHECK_REQUIRE,
};

struct hbe_options {
	void *pad;		/* fio stores the thread_data pointer here */
	/* ours */
	char *backing;		/* NULL: hugetlb, or what mem= says */
	char *hugepage_size;
	unsigned int layout;
	unsigned long long head_offset;
	unsigned int defer_taskrun;
	unsigned long long chunk_size;
	unsigned int coalesce_check;
	unsigned int report;
	char *report_json;
	/* fio's io_uring engine, same names, types and meaning */
	unsigned int hipri;
	unsigned int fixedbufs;
	unsigned int registerfiles;
	unsigned int sqpoll;		/* sqthread_poll */
	unsigned int sqpoll_cpu;	/* sqthread_poll_cpu */
	unsigned int sqpoll_cpu_set;
	int nonvectored;
	unsigned int uncached;
	unsigned int nowait;
	unsigned int force_async;
	struct cmdprio_options cmdprio_options;
};

/* what the options ask of the ring and of every SQE */
struct hbe_uring_opts {
	bool vectored;		/* READV/WRITEV for non-fixed I/O */
	int rw_flags;		/* RWF_* on every read/write SQE */
	unsigned int force_async; /* IOSQE_ASYNC on every Nth SQE */
};

extern struct fio_option hbe_option_table[];

/* An info line: stdout as log_info(), stderr when stdout must stay JSON. */
void hbe_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The backing and head offset the job asks for: backing=/hugepage_size=
 * (ours) or fio's mem=, hugepage-size and iomem_align, which map onto the
 * same lib backings.  A contradiction between the two is a one-line
 * error naming both; so is a hugepage size the system does not have.
 */
int hbe_options_plan(struct thread_data *td, struct hbe_options *o,
		     struct hb_backing *b, uint64_t *head_offset);

/*
 * nonvectored, uncached, nowait, force_async for the running kernel:
 * kernel dependent ones say in one line what they do here.
 */
int hbe_options_uring(struct thread_data *td, struct hbe_options *o,
		      struct hbe_uring_opts *u);

#endif
