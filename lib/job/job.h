/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/job/, layer 4, the top: one job's plan, analysis, verdict and
 * report, and the running kernel's model.  Private: includes only the
 * layers below and the public headers.
 */
#ifndef HB_JOB_H
#define HB_JOB_H

#include "resource/resource.h"
#include "hugebuf-job.h"

#include <time.h>

/* ------------------------------------------------------------------ */
/* job plan: one I/O job's buffers and options, checked whole          */
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
/* An NVMe generic char device (/dev/ngXnY): its sysfs class says so. */
bool hb_is_nvme_generic(const char *path);

/* ------------------------------------------------------------------ */
/* the job object (hugebuf-job.h)                                      */
/* ------------------------------------------------------------------ */

/*
 * One job's plan, buffers and findings, owned once: the framework fills
 * the plan's inputs and reads its results, lib/job/job.c does the rest.
 */
struct hb_job {
	struct hb_jobplan plan;		/* checked: km, backing, layout */
	hb_job_say_fn say;
	void *say_arg;
	/* the buffers: our mapping, or a slice of a shared one (@map) */
	struct hb_buf buf;
	bool buf_ok;
	char *map;			/* this job's part of the mapping */
	uint64_t map_len;
	struct iovec *iovecs;		/* registered; set-up only */
	struct timespec t_new;		/* hb_job_new() */
	/* passthrough: the analysis' imus, kept for the prediction */
	struct hb_analysis an;
	bool an_kept;
	/* the first I/O's pages: its device requests are predicted at the end */
	struct hb_probe io0;
	bool io0_ok;
	/* the report's findings */
	struct hb_bufstats st;
	uint64_t buffer_len;		/* the first registered buffer */
	double register_usec;
	long vmpin_kb;
	double ready_usec;		/* hb_job_new() to buffers registered */
	unsigned int vec_bvecs;		/* model: bvecs of one vectored I/O */
	struct hb_file_limits limits;	/* the first file's (statx) */
	bool limits_ok;
	char dev[64];
	bool dev_ok;
	uint64_t dev_r0, dev_w0;
};

#endif /* HB_JOB_H */
