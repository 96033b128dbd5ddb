/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hugebuf's job layer for an I/O engine: a job's plan, checked whole,
 * and the report of what it learnt (text and JSON).
 */
#ifndef HUGEBUF_REPORT_H
#define HUGEBUF_REPORT_H

#include "hugebuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* job plan: one I/O job's buffers and options, checked whole         */
/* ------------------------------------------------------------------ */

/* longest job name a shared (clone_buffers) table is found by, with NUL */
#define HB_JOB_NAME_MAX		128
/* most SQEs one I/O may be split into by chunk_size */
#define HB_JOB_MAX_PIECES	4096

enum hb_job_layout {
	HB_JOB_PER_IO = 0,	/* one registered buffer per I/O slot */
	HB_JOB_REGION,		/* slots carved from <= 1 GiB regions */
};

enum hb_job_clone {
	HB_JOB_CLONE_OFF = 0,
	HB_JOB_CLONE_SPLIT,	/* one registered table, a slice per job */
	HB_JOB_CLONE_SAME,	/* one table, all jobs on the same buffers */
};

/*
 * A job's buffer plan, in lib's words: what the engine translated from
 * its framework's options (fio's names appear only in the messages,
 * which name the option the user wrote).  The caller fills the inputs;
 * hb_jobplan_check() checks them whole and fills the results.
 */
struct hb_jobplan {
	/* --- inputs --- */
	/* backing= and hugepage_size= as written (NULL or "": unset) */
	const char *backing;
	const char *hugepage_size;
	/* fio's hugepage-size when the job sets it, else 0 */
	uint64_t fw_hugepage_size;
	/*
	 * fio's mem=, already in lib's words: @mem_name as written
	 * ("shmhuge", "mmaphuge:/mnt/f"; NULL: mem= not set), @mem_kind the
	 * backing it means ("4k", "shm", "hugetlb", "hugetlbfs:PATH") and
	 * @mem_page_size the hugepage size it takes (0: none).  A mem= that
	 * has no backing here comes with @mem_refused, its one line.
	 */
	const char *mem_name;
	const char *mem_kind;
	uint64_t mem_page_size;
	const char *mem_refused;
	uint64_t head_offset;		/* head_offset= (may be "negative") */
	unsigned int mem_align;		/* fio's iomem_align, 0: unset */
	unsigned int depth;		/* iodepth: I/O slots */
	uint64_t max_bs;		/* the largest block of any direction */
	uint64_t min_len;		/* bytes the framework's carving needs */
	enum hb_job_layout layout;
	bool fixedbufs;
	bool direct;			/* O_DIRECT */
	const char *const *files;	/* the job's files, @nr_files of them */
	unsigned int nr_files, open_files;
	bool registerfiles;
	unsigned int vec_iovecs;
	uint64_t vec_offset;
	uint64_t chunk_size;		/* 0: off (may be "negative") */
	enum hb_job_clone clone;
	bool threads;			/* the jobs share one process */
	bool verify;
	const char *job_name;
	const char *cmd_type;		/* NULL/"": by the files, "nvme", "none" */
	bool atomic_writes, uncached, nowait;
	/*
	 * fio 3.41's NVMe command variants (readfua, writefua, write_mode,
	 * verify_mode, deac, md_per_io_size): what the job asks for beyond
	 * plain Read and Write of data (@write_mode NULL: Write)
	 */
	bool read_fua, write_fua, verify_compare, deac;
	const char *write_mode;
	unsigned int md_per_io_size;

	/* --- results (valid when the check returned 0) --- */
	struct hb_kmodel km;		/* the running kernel's model */
	struct hb_backing b;		/* the backing to allocate */
	uint64_t head;			/* bytes into the first folio */
	uint64_t stride;		/* hb_slot_stride() */
	unsigned int slots_per_region;
	unsigned int nr_iovecs;		/* registered buffers */
	unsigned int max_pieces;	/* SQEs per I/O (chunk_size) */
	unsigned int dio_align;		/* direct: the strictest file's */
	uint64_t len;			/* bytes to allocate at @head */
	bool passthrough;		/* NVMe commands (cmd_type=nvme) */
	/* passthrough with direct=1: worth a note (set even on failure) */
	bool pt_direct_ignored;
};

/*
 * Check a job's plan whole: options that contradict each other or the
 * kernel's limits, the backing, the layout, and what allocating and
 * registering it needs (hb_preflight()).  0 with the results filled in,
 * or -errno and one line in hb_errmsg() naming the cause and the fix.
 * Nothing is allocated or pinned.
 */
int hb_jobplan_check(struct hb_jobplan *p);

/* ------------------------------------------------------------------ */
/* report: one writer for text and JSON                               */
/* ------------------------------------------------------------------ */

/* the job's file limits (lib/sysread/filelimits.c), for the report */
struct hb_file_limits;

/* What a job (engine) or a check (CLI) learnt about its buffers. */
/*
 * NVMe passthrough (the engine's cmd_type=nvme): the namespace, the
 * commands issued, and what hb_model_pt_map() predicts for the largest
 * command from each registered buffer.  A prediction, not an observation:
 * only a tracer sees the kernel's path.
 */
struct hb_pt_report {
	const char *device;		/* "/dev/ng0n1 nsid 1, 512-byte LBAs" */
	uint64_t commands;		/* read/write commands issued */
	uint64_t cmd_len;		/* bytes of the largest command */
	bool predicted;			/* limits known and buffers registered */
	unsigned int count[3];		/* buffers per enum hb_pt_path */
	unsigned int segs_min, segs_max;	/* DMA segments, direct ones */
	const char *why;		/* first reason that is not direct */
	const struct hb_queue_limits *lim;	/* NULL: not known */
};

struct hb_report {
	const char *job;		/* job name, any bytes */
	unsigned int subjob;
	struct hb_backing backing;
	const char *layout;		/* "per-io", "region" */
	uint64_t head_offset;
	bool fixedbufs;
	const char *kernel_model;	/* model name used */
	const char *kernel_detect;	/* "version says X, behaviour says Y" */
	unsigned int nr_buffers;
	uint64_t buffer_len, bs, stride;
	struct hb_bufstats st;
	double register_usec;		/* < 0: not registered */
	long vmpin_kb;			/* < 0: not measured */
	const char *device;		/* NULL or "": no device counters */
	uint64_t dev_reads, dev_writes, ios;
	bool requests_approximate;
	/* NULL: not known; else what the job's file allows (statx) */
	const struct hb_file_limits *limits;
	/* vectored fixed I/O: iovecs per I/O (0: off), the model's bvecs */
	unsigned int vec_iovecs, vec_bvecs;
	/* "", "source" or "clone" (a table cloned from another ring) */
	const char *shared;
	double ready_usec;		/* setup until the first I/O can go */
	const struct hb_pt_report *pt;	/* NULL: not a passthrough job */
	/*
	 * Device requests one I/O of bs makes, modelled and under the two
	 * hypotheses (NULL: not predicted), and the job's write I/Os: the
	 * writer judges coalescing with the one verdict when the device
	 * counters saw this job's reads alone.
	 */
	const struct hb_req_pred *pred;
	uint64_t write_ios;
	/*
	 * fixedbufs=0: the plain O_DIRECT model (hb_model_plain()) of the
	 * I/O @pred is for (NULL: not modelled; @pred then holds its
	 * requests and the hypotheses every page apart / every folio apart),
	 * and where its PFNs came from: "probed", or "synthetic" (folios
	 * never physically adjacent).
	 */
	const struct hb_plain_pred *plain;
	const char *plain_pfn;
	/*
	 * The kernel model of the job (NULL: none): with fixed buffers that
	 * some buffer did not coalesce, the report gives
	 * hb_coalesce_advice() for it.
	 */
	const struct hb_kmodel *km;
};

/* The report as text lines, each starting with @prefix. */
void hb_report_text(const struct hb_report *r, const char *prefix,
		    struct hb_str *out);
/* The report as one JSON object on one line, with a trailing newline. */
void hb_report_json(const struct hb_report *r, struct hb_str *out);
/* Append hb_report_json() to @path (a report_json file). */
int hb_report_append(const struct hb_report *r, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* HUGEBUF_REPORT_H */
